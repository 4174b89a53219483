"""The settings of a training run, and the flags made from them.

Every setting is a field of a dataclass with a docstring under it (the
CleanRL way): :class:`PPOSettings` holds MaskablePPO's, :class:`RunSettings`
adds what every recipe's run has (its length, opponents, folder, warm start and
evaluation), and each recipe (``train/ppo.py``, ``train/vintage_ppo.py``)
extends it with its game's own fields and re-declares only the defaults that
differ for its game. The command-line flags are made from the dataclass
(:func:`add_run_flags`, on :mod:`agents.runtime.flags`): one ``--flag`` a field,
its type, default and docstring as the help, so no flag is ever written out by
hand and every flag given reaches the run as given.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from agents.runtime import interrupts
from agents.runtime.flags import FlagParser, add_flags, from_args
from speed_env.batch_size import MAX_GAMES
from train.common.numbers import count, real
from train.common.sizes import check_sizes, hidden, net_arch_flag

__all__ = [
    "FLAG_TYPES",
    "ROLLOUTS",
    "RUN_GROUPS",
    "PPOSettings",
    "RunSettings",
    "add_run_flags",
    "check_ppo",
    "make_model",
    "model_class",
    "recipe_main",
    "settings_parser",
    "specs",
]

S = TypeVar("S")


@dataclass
class PPOSettings:
    """MaskablePPO's settings (defaults: the real-time recipe's)."""

    n_steps: int = 64
    """Steps per env per rollout (rollout = n_steps * n_envs decisions)."""
    batch_size: int = 4096
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size at the start."""
    anneal_lr: bool = True
    """Decay the step size linearly to 10% of its start by the last timestep."""
    gamma: float = 1.0
    """Discount per decision. A game is ~20-35 decisions with the reward at its end; any discount
    would make a postponed loss look better than a quick one (an incentive to stall)."""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off."""
    clip_range: float = 0.2
    """PPO's policy ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    target_kl: float | None = None
    """Stop an update's epochs early past this KL (None: never)."""
    net_arch: str = "256,256"
    """Hidden layer sizes of the actor and of the critic (separate networks)."""
    activation: str = "relu"
    """Hidden activation: ``tanh`` or ``relu``."""
    torch_threads: int = 1
    """Torch intra-op threads (1 is fastest on a small shared CPU)."""
    rollout: str = "lean"
    """Rollout collector: ``lean`` (train/policy/rollout.py: the same buffer, about half the cost a
    step outside the env, its own action draw) or ``sb3`` (MaskablePPO's own, repeating earlier
    runs)."""


@dataclass
class RunSettings(PPOSettings):
    """What every recipe's run has (defaults: the real-time recipe's)."""

    opponent: str = "greedy"
    """Opponent: an agent spec, or a comma-separated mix (the recipe says how it is drawn)."""
    DEFAULT_TIMESTEPS: ClassVar[int] = 2_000_000
    """The budget of a new run given no ``timesteps`` (each recipe its own)."""
    timesteps: int | None = None
    """Learner decisions to train for (ticks where it can only wait are not counted), rounded
    up to whole rollouts (said and recorded). Not given: 2,000,000 for a new run; with
    ``--resume``, the run's own saved budget."""
    minutes: float | None = None
    """Wall-clock budget in minutes: training ends at the end of the first whole rollout past
    it (or at ``timesteps``, whichever comes first), then the run saves and evaluates as at any
    end. Counted from the start of training (after start-up); a resumed run gets it afresh."""
    n_envs: int = 256
    """Games played side by side (each a slot of the VecEnv)."""
    seed: int = 0
    """Seed of the deals, seat and opponent draws, the networks and the opponents' generators."""
    out: str = "runs/ppo"
    """Output folder: config.json, state.json, logs, checkpoints, eval.csv, curves.png,
    model.json/.safetensors, summary.json."""
    seat: str = "random"
    """The learner's seat per game: ``random`` (drawn per game), a seat number, or (real-time)
    ``alternate``."""
    init_bc: str | None = None
    """Warm start: behaviour-clone this agent spec (e.g. ``chain``), actor and critic, before PPO
    (train/bc.py)."""
    bc_decisions: int = 300_000
    """Teacher decisions recorded for ``init_bc``."""
    bc_epochs: int = 12
    """Passes over the recorded decisions for ``init_bc``."""
    eval_every: int = 250_000
    """Timesteps between evaluations (each also writes a checkpoint)."""
    eval_games: int = 400
    """Games per evaluation line-up (the same deals at every evaluation, seats swapped or
    rotated)."""
    eval_opponents: str = "random,greedy,chain"
    """The bots the learner is measured against, one line-up each."""
    eval_seed: int = 12_345
    """Seed of the evaluation deals (the same deals at every evaluation)."""
    eval_workers: int = 1
    """Processes for evaluation games."""
    progress: bool = True
    """Draw a progress bar on stderr."""
    resume: bool = False
    """Continue the run in ``out`` from its last checkpoint (its saved settings are used;
    ``timesteps``, when given, replaces the run's own budget)."""


def specs(text: str | None) -> list[str]:
    """A comma-separated list of agent specs (blanks dropped; a spec's options stay with it:
    ``chain,search:worlds=4,depth=10`` is two specs)."""
    from agents.specs.registry import split_specs

    return split_specs(text or "")


def weighted(item: str) -> tuple[str, float]:
    """An opponent spec and its weight: ``chain*0.25`` is ``("chain", 0.25)``, ``chain`` 1.

    A ``*`` not followed by a number is part of the spec; a weight not above 0 is refused.
    """
    spec, star, tail = item.rpartition("*")
    if not star:
        return item, 1.0
    try:
        weight = float(tail)
    except ValueError:
        return item, 1.0
    if not weight > 0 or weight == float("inf"):
        raise ValueError(f"opponent weight must be a positive number, got {item!r}")
    return spec.strip(), weight


# ---------------------------------------------------------------------- checks and the model
def check_ppo(cfg: RunSettings, positive: tuple[str, ...] = ()) -> None:
    """Refuse settings that cannot work (and any ``positive`` field below 1), naming the field;
    a rollout or a behaviour-cloning record too large to store is refused by its flags."""
    if cfg.timesteps is not None and cfg.timesteps < 1:
        raise ValueError(f"timesteps must be >= 1, got {cfg.timesteps!r}")
    if cfg.minutes is not None and not cfg.minutes > 0:
        raise ValueError(f"minutes must be > 0, got {cfg.minutes!r}")
    shared = ("n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads")
    for name in (*shared, "eval_every", "eval_games", "eval_workers", "bc_decisions", "bc_epochs"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(cfg, name)!r}")
    for name in positive:
        if getattr(cfg, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(cfg, name)!r}")
    if cfg.activation not in ("tanh", "relu"):
        raise ValueError(f"activation must be tanh or relu, got {cfg.activation!r}")
    if not 0 < cfg.gamma <= 1 or not 0 <= cfg.gae_lambda <= 1:
        raise ValueError("gamma must lie in (0, 1] and gae_lambda in [0, 1]")
    check_sizes(cfg)
    if cfg.batch_size > cfg.n_steps * cfg.n_envs:
        raise ValueError(
            f"batch_size {cfg.batch_size} exceeds a rollout "
            f"(n_steps * n_envs = {cfg.n_steps * cfg.n_envs})"
        )
    if not specs(cfg.opponent):
        raise ValueError("opponent must name at least one agent spec")
    if cfg.rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be lean or sb3, got {cfg.rollout!r}")
    hidden(cfg)


def linear_lr(start: float) -> Callable[[float], float]:
    """SB3 learning-rate schedule: ``start`` decaying linearly to 10% of it by the last timestep."""

    def schedule(progress_remaining: float) -> float:
        # The last rollout can overshoot the target (progress < 0): never below 10%, never negative.
        return start * (0.1 + 0.9 * min(1.0, max(0.0, progress_remaining)))

    return schedule


ROLLOUTS = ("lean", "sb3")
"""The rollout collectors ``--rollout`` names: :mod:`train.policy.rollout`'s, or MaskablePPO's
own."""


def model_class(rollout: str) -> Any:
    """The MaskablePPO class of a ``--rollout`` choice.

    - ``lean``: :class:`train.policy.rollout.LeanMaskablePPO`;
    - ``sb3``: sb3-contrib's ``MaskablePPO``.
    """
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be lean or sb3, got {rollout!r}")
    if rollout == "lean":
        from train.policy.rollout import LeanMaskablePPO

        return LeanMaskablePPO
    from sb3_contrib import MaskablePPO

    return MaskablePPO


def make_model(cfg: RunSettings, env: Any, policy: str = "mlp") -> Any:
    """A MaskablePPO on ``env`` with ``cfg``'s settings.

    - separate actor and critic MLPs, on CPU;
    - sb3-contrib's masked categorical computed once a batch: :mod:`train.policy.masked_policy`;
    - ``policy="rankwise"``: the actor of :mod:`train.policy.rankwise_policy`;
    - ``cfg.rollout`` ``lean``: rollouts collected by
      :class:`train.policy.rollout.LeanMaskablePPO`.
    """
    import torch

    from train.policy.masked_policy import OnceMaskedPolicy

    policy_class: Any = OnceMaskedPolicy
    if policy == "rankwise":
        from train.policy.rankwise_policy import RankwisePolicy as policy_class

    sizes = hidden(cfg)
    act_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    return model_class(cfg.rollout)(
        policy_class,
        env,
        learning_rate=linear_lr(cfg.learning_rate) if cfg.anneal_lr else cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl,
        policy_kwargs={"net_arch": {"pi": sizes, "vf": sizes}, "activation_fn": act_fn},
        seed=cfg.seed,
        # CPU: the networks are small MLPs, which a GPU round trip a step would slow down.
        device="cpu",
        verbose=0,
    )


# ---------------------------------------------------------------------- flags
_CONVERT: dict[str, Callable[[str], Any]] = {
    "int": count(None),
    "float": real(),
    "str": str,
    "str | None": str,
    "int | None": count(None),
    "float | None": real(),
}

_SEED = count(0, 2**32 - 1)  # numpy's and torch's seeding take 32 bits

FLAG_TYPES: dict[str, Callable[[str], Any]] = {
    # counts of things, of which at least one is needed
    **dict.fromkeys(
        (
            "n_steps",
            "batch_size",
            "n_epochs",
            "torch_threads",
            "timesteps",
            "bc_decisions",
            "bc_epochs",
            "eval_every",
            "eval_games",
            "eval_workers",
            "snapshot_every",
            "max_snapshots",
            "iterations",
            "games_per_runner",
            "train_batch_size",
            "minibatch_size",
            "num_epochs",
            "checkpoint_every",
            "rounds",
            "games",
            "worlds",
            "epochs",
            "chunk_games",
            "workers",
            "tick_ms",
        ),
        count(1),
    ),
    # counts where 0 means none (or off)
    **dict.fromkeys(("bc_dagger", "num_env_runners", "leaf", "confirm"), count(0)),
    "n_envs": count(1, MAX_GAMES),  # games in one batch (speed_env.batch_size)
    "net_arch": net_arch_flag,
    "seed": _SEED,
    "eval_seed": _SEED,
    "players": count(2, 10),
    "value_games": count(2),  # a value network is fitted on at least two games
    # rates, coefficients and shares: finite, in their meaningful range
    "minutes": real(above=0),
    "learning_rate": real(above=0),
    "lr": real(above=0),
    "gamma": real(above=0, high=1),
    "gae_lambda": real(0, 1),
    "lambda_": real(0, 1),
    "clip_range": real(above=0),
    "ent_coef": real(0),
    "entropy_coeff": real(0),
    "vf_coef": real(0),
    "max_grad_norm": real(above=0),
    "target_kl": real(above=0),
    "skip_tail": real(0, 1),
    "self_fraction": real(0, 1),
    "holdout": real(0, below=1),
    "temperature": real(above=0),
    "z": real(0),
    # rewards: any finite number
    **dict.fromkeys(("wait_penalty", "truncation_reward", "shaping"), real()),
}
"""The ``type=`` of each numeric setting's flag, by field name (the same name means the same
thing in every recipe): a value that cannot be meant (a negative count, ``nan``, ``inf``, a
clip range of 0) is refused naming the flag, before anything runs. A numeric field missing here
is still parsed as a whole or finite number; a test holds every recipe's fields to this table."""


RUN_GROUPS: dict[type, str] = {
    PPOSettings: "PPO settings (PPOSettings)",
    RunSettings: "the run (RunSettings)",
}
"""The argument groups of a recipe's flags, after its own: :class:`PPOSettings`' fields, then
:class:`RunSettings`'."""


def add_run_flags(parser: argparse.ArgumentParser, cls: type) -> None:
    """One ``--flag`` for each field of the recipe settings ``cls``
    (:func:`agents.runtime.flags.add_flags`).

    Each has its type (:data:`FLAG_TYPES` by name, else by annotation), its default, its
    docstring as the help. The recipe's own fields come first, then :class:`PPOSettings`' and
    :class:`RunSettings`' in their own groups (:data:`RUN_GROUPS`), when ``cls`` extends them.
    """
    add_flags(parser, cls, types={**_CONVERT, **FLAG_TYPES}, groups=RUN_GROUPS)


def settings_parser(cls: type, prog: str, description: str) -> argparse.ArgumentParser:
    """An argument parser holding :func:`add_run_flags` of ``cls``."""
    parser = FlagParser(
        prog=prog,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_run_flags(parser, cls)
    return parser


def recipe_main(
    cls: Callable[..., S],
    train: Callable[[S], dict[str, Any]],
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
) -> int:
    """``python -m train.<recipe>``: parse the flags of ``cls``, train.

    A bad setting prints one line and returns 2, a run interrupted by Ctrl-C returns 130, by
    SIGTERM (which stops it as Ctrl-C does: :func:`agents.runtime.interrupts.sigterm_stops`) 143.
    """
    args = settings_parser(cls, prog, description).parse_args(argv)  # type: ignore[arg-type]
    with interrupts.sigterm_stops() as term:
        try:
            summary = train(from_args(cls, args))
        # A bad setting or an unusable folder: one line and exit 2, not a traceback.
        except (ValueError, OSError, MemoryError) as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
    if summary["complete"]:
        return 0
    return interrupts.TERMINATED if term.received else interrupts.INTERRUPTED
