"""Expert iteration for Vintage Speed: search targets distilled into a policy network, in rounds.

    python -m train.vintage_expert --players 4 --rounds 3 --games 300 --worlds 32 \\
        --init-bc vintage-tactician --seed 0 --workers 2 --out runs/vintage_expert

What a run does, in order (each step is a section of :func:`train`):

1. **Settings.** Every knob is a field of :class:`ExpertConfig` (``--help``
   lists them with their docstrings).
2. **Network.** A MaskablePPO actor-critic (the vintage PPO recipe's
   network, :mod:`train.vintage_ppo`, so the result can go on training with
   PPO); optionally warm-started by cloning a bot (``init_bc``, the vintage
   behaviour cloning of :func:`train.bc.clone`), which is
   cheap next to search.
3. **Rounds.** Round ``r`` generates ``games`` games of search targets
   (:mod:`train.vintage.expert_targets`, chunked jobs on ``--backend local``
   or ``ray``, the same file for one seed on either): the learner's seat plays
   the search's choice in round 0 and the network's after it (``acting``);
   the search's prior (the choice it must beat by ``z`` standard errors) is
   the tactician or the current network (``prior``; the tactician while
   there is no network yet); its rollouts are played by greedy, the tactician
   or the current network (``rollout``, ``own_rollout`` for the learner's own
   seat), so with ``network`` round r's teacher is round r-1's student; with
   ``leaf`` D they are cut D actions in and scored by a value network
   (``value_model``, else one fitted first on ``value_games`` bot games by
   :mod:`train.vintage_value`, ``OUT/value.safetensors``). The network is then
   fitted (train/bc.py's fit: cross-entropy to the targets, the critic to the
   game's reward) on the targets of every round so far, a share of the games
   held out to measure agreement, exported to ``round_R/model.json`` and
   played against ``eval_opponents`` (the vintage tournament harness).
4. **Finish.** The round with the best finished-ahead rate against the first
   eval opponent is copied to ``model.json`` (+ ``.safetensors``), which plays
   as ``vintage-ppo:OUT/model.json``; ``summary.json`` says what each round
   measured. Ctrl-C stops after the current step and still writes the summary.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.runtime.interrupts import interrupted_by, said_interrupted
from agents.vintage.search import PRIORS
from train.vintage import expert_fit
from train.vintage.expert_fit import agreement, held_out
from train.vintage.expert_targets import ACTING, Targets, TargetSettings

TARGETS = ("choice", "soft")


@dataclass
class ExpertConfig:
    """Every setting of an expert-iteration run."""

    players: int = 4
    """Players at the table (2-10); the learner takes one seat."""
    opponents: str = "vintage-tactician,vintage-greedy"
    """Comma-separated vintage bots of the other seats in target games, cycled through."""
    rounds: int = 3
    """Rounds of target generation and distillation."""
    games: int = 300
    """Games of search targets per round."""
    worlds: int = 32
    """Worlds the search samples per decision."""
    rollout: str = "greedy"
    """Rollout policy of every seat in the search: greedy, tactician or network (the current
    network: round r's search plays round r-1's, so the teacher improves with the student)."""
    own_rollout: str = ""
    """Rollout policy of the learner's own seat in the search (empty: as rollout)."""
    leaf: int = 0
    """Cut the search's rollouts this many actions in and score them by a value network
    (0: play every rollout out)."""
    value_model: str = ""
    """Value network of leaf (train/vintage_value.py); empty: fit one before round 0."""
    value_games: int = 4000
    """Bot games the value network is fitted on when leaf is set and no value_model given."""
    z: float = 1.5
    """The search leaves its prior's choice only for a lead of more than z standard errors."""
    infer: bool = False
    """The search samples worlds that agree with what the stuck seats reveal (else uniform)."""
    confirm: int = 0
    """Worlds of a second search that must repeat a choice leaving the prior (0: none)."""
    prior: str = "tactician"
    """The search's prior: tactician, or network (the current network, once there is one)."""
    acting: str = "network"
    """Who plays the learner's seat from round 1 on: network (DAgger-style) or search."""
    target: str = "choice"
    """What the network is fitted to: choice (the search's action) or soft (softmax of values)."""
    temperature: float = 0.05
    """Softmax temperature of the soft targets (values are shares in [0, 1])."""
    init_bc: str | None = "vintage-tactician"
    """Warm start: clone this vintage bot before round 0 (empty: start from random weights)."""
    init_model: str | None = None
    """Warm start from a saved vintage model (its net_arch and activation) instead of init_bc."""
    bc_decisions: int = 40_000
    """Teacher decisions recorded for the warm start."""
    bc_epochs: int = 8
    """Passes over the warm-start decisions."""
    epochs: int = 6
    """Passes over all targets so far, each round."""
    batch_size: int = 256
    """Decisions per gradient step of the distillation."""
    learning_rate: float = 3e-4
    """Adam step size of the distillation (cosine-decayed within a round)."""
    net_arch: str = "256,256"
    """Hidden layer sizes of actor and critic."""
    activation: str = "tanh"
    """Hidden activation: tanh or relu."""
    holdout: float = 0.1
    """Share of each round's games held out of fitting, to measure agreement."""
    seed: int = 0
    """Seed of the target games, the search, the network and the fits."""
    chunk_games: int = 10
    """Games per job of target generation. Part of the targets' seeding (a job's generators are
    seeded from seed, round and job): keep it to reproduce a run (workers and backend need not)."""
    workers: int = 1
    """Processes (local) or CPUs of a Ray cluster started for the run."""
    backend: str = "local"
    """Where target games run: local or ray."""
    ray_address: str | None = None
    """Ray cluster to join (else RAY_ADDRESS, else a local one for the run)."""
    eval_games: int = 400
    """Games per evaluation line-up (the network and players-1 copies of one bot)."""
    eval_opponents: str = "vintage-tactician"
    """Bots the network is measured against after each round (the first picks the best)."""
    eval_seed: int = 12_345
    """Seed of the evaluation deals."""
    torch_threads: int = 1
    """Threads torch may use."""
    out: str = "runs/vintage_expert"
    """Output folder: round_R/targets.safetensors and model, model.json, summary.json."""
    progress: bool = True
    """Print progress on stderr."""


def specs(text: str | None) -> list[str]:
    """A comma-separated list of agent specs."""
    from agents.specs.registry import split_specs

    return split_specs(text or "")


def check_config(cfg: ExpertConfig) -> None:
    """Refuse settings that cannot work, naming the field."""
    from agents.runtime.jobs import Backend
    from agents.vintage.search import ROLLOUTS

    whole = ("rounds", "games", "epochs", "batch_size", "eval_games", "workers")
    for name, least in (*((n, 1) for n in whole), ("value_games", 2)):  # a value game held out
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be a whole number, at least {least}; got {value!r}")
    if cfg.prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}; got {cfg.prior!r}")
    if cfg.acting not in ACTING:
        raise ValueError(f"acting must be one of {', '.join(ACTING)}; got {cfg.acting!r}")
    if cfg.target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}; got {cfg.target!r}")
    if not 0 < cfg.holdout < 1:
        raise ValueError(f"holdout must be between 0 and 1, got {cfg.holdout!r}")
    for name, allowed in (("rollout", ROLLOUTS), ("own_rollout", ("", *ROLLOUTS))):
        if getattr(cfg, name) not in allowed:
            raise ValueError(
                f"{name} must be one of {', '.join(ROLLOUTS)}; got {getattr(cfg, name)!r}"
            )
    if "network" in (cfg.rollout, cfg.own_rollout) and not (cfg.init_bc or cfg.init_model):
        raise ValueError("rollout network needs a network from round 0: give init_bc or init_model")
    if cfg.value_model:
        from agents.vintage.value import load_value

        load_value(cfg.value_model)  # a missing or foreign value file fails here
        if not cfg.leaf:
            raise ValueError(f"value_model {cfg.value_model} is read only with leaf > 0")
    if cfg.value_games != ExpertConfig.value_games and (cfg.value_model or not cfg.leaf):
        raise ValueError("value_games is read only with leaf > 0 and no value_model")
    if not specs(cfg.eval_opponents):
        raise ValueError("eval_opponents must name at least one vintage bot")
    Backend(cfg.backend, cfg.ray_address)  # a bad backend or a stray address fails here
    if cfg.init_model:
        from agents.model_io.vintage import load_vintage_policy

        load_vintage_policy(cfg.init_model)  # a missing or foreign model file fails here
    target_settings(cfg, 0, network=False)  # players, opponents, worlds, rollout, z
    ppo_config(cfg)  # net_arch, activation, eval settings


def target_settings(cfg: ExpertConfig, round_: int, network: bool) -> TargetSettings:
    """The target settings of round ``round_`` (``network``: a network exists to act)."""
    return TargetSettings(
        players=cfg.players,
        opponents=tuple(specs(cfg.opponents)),
        games=cfg.games,
        worlds=cfg.worlds,
        rollout=cfg.rollout,
        own=cfg.own_rollout,
        leaf=cfg.leaf,
        # Checked before the value network is fitted: any name stands in for it.
        value=cfg.value_model or (str(Path(cfg.out) / "value.safetensors") if cfg.leaf else ""),
        z=cfg.z,
        infer=cfg.infer,
        confirm=cfg.confirm,
        # Round 0 plays the search's choices: its network is at most the clone.
        acting=cfg.acting if network and round_ > 0 else "search",
        prior=cfg.prior if network else "tactician",
        seed=cfg.seed,
        round=round_,
        chunk_games=cfg.chunk_games,
    )


def ppo_config(cfg: ExpertConfig) -> Any:
    """The vintage PPO settings that build the network and run its evaluations."""
    from train.vintage_ppo import VintageConfig, check_config

    vc = VintageConfig(
        players=cfg.players,
        opponent=cfg.opponents,
        seed=cfg.seed,
        net_arch=cfg.net_arch,
        activation=cfg.activation,
        # Four tables: they serve only the clone's recording; the rounds play their own games.
        n_envs=4,
        eval_games=cfg.eval_games,
        eval_opponents=cfg.eval_opponents,
        eval_seed=cfg.eval_seed,
        eval_workers=cfg.workers,
        torch_threads=cfg.torch_threads,
        init_bc=cfg.init_bc or None,
        bc_decisions=cfg.bc_decisions,
        bc_epochs=cfg.bc_epochs,
        out=cfg.out,
    )
    check_config(vc)
    return vc


def fit_data(targets: Targets, scale: np.ndarray, cfg: ExpertConfig) -> dict[str, np.ndarray]:
    """The columns train/bc.py's fit reads, with ``cfg``'s target and temperature."""
    return expert_fit.fit_data(targets, scale, cfg.target, cfg.temperature)


def _log(cfg: ExpertConfig, text: str) -> None:
    if cfg.progress:
        print(text, file=sys.stderr, flush=True)


def _chunks_progress(cfg: ExpertConfig, round_: int) -> Any:
    t0 = time.perf_counter()

    def show(done: int, total: int) -> None:
        if cfg.progress:
            rate = f"{time.perf_counter() - t0:.0f} s"
            end = "\n" if done == total else ""
            print(f"\rround {round_}: {done}/{total} chunks, {rate}", end=end, file=sys.stderr)

    return show


def train(cfg: ExpertConfig) -> dict[str, Any]:
    """Run the recipe of the module docstring; returns the summary.

    The summary is also written to ``out/summary.json``. The run holds ``out``'s lock throughout
    (:mod:`agents.runtime.run_lock`): a second run on the same folder is refused at once, naming
    this one.
    """
    from agents.runtime.run_lock import FolderLock

    # 1. Settings ------------------------------------------------------------------
    check_config(cfg)
    with FolderLock(cfg.out):
        return _train(cfg)


def _train(cfg: ExpertConfig) -> dict[str, Any]:
    out = Path(cfg.out)
    if (out / "summary.json").exists():
        raise ValueError(f"{out} already holds a finished run; choose another --out")
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.model_io.kit_model import copy_model
    from agents.runtime.files import check_writable, write_json
    from agents.runtime.jobs import Backend
    from agents.vintage import registry
    from speed_env.vintage import make_vintage_rules
    from train import bc
    from train.common.settings import make_model
    from train.vintage import expert_targets
    from train.vintage_ppo import (
        export,
        load_network,
        observation_scale,
        score,
        table_env,
        tournament_command,
    )

    check_writable(out)
    write_json(out / "config.json", asdict(cfg))
    vc = ppo_config(cfg)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    backend = Backend(cfg.backend, cfg.ray_address)

    # 2. Network -------------------------------------------------------------------
    rules = make_vintage_rules(cfg.players, 1)
    scale = observation_scale(rules)
    opp = specs(cfg.opponents)

    env = DummyVecEnv(
        [
            partial(table_env, cfg.players, opp, cfg.seed, i, scale, "random")
            for i in range(vc.n_envs)
        ]
    )
    env.seed(cfg.seed)
    model = make_model(vc, env)
    summary: dict[str, Any] = {"config": asdict(cfg), "rounds": [], "complete": False}
    network: expert_targets.Network | None = None
    t_start = time.perf_counter()

    def notes(round_: int) -> dict[str, Any]:
        return {"recipe": "train/vintage_expert.py", "round": round_, "config": asdict(cfg)}

    def export_and_measure(name: str, round_: int) -> tuple[Path, dict[str, Any]]:
        t0 = time.perf_counter()
        path = export(model, out / name / "model", scale, rules, notes(round_))
        rows = score(path, vc)
        measured = {
            "model": str(path),
            "eval": rows,
            "eval_s": round(time.perf_counter() - t0, 1),
        }
        for r in rows:
            _log(
                cfg,
                f"{name}: vs {r['opponent']}: ahead {100 * r['ahead_rate']:.1f}% "
                f"[{100 * r['ahead_ci_low']:.1f}, {100 * r['ahead_ci_high']:.1f}], penalty "
                f"{r['mean_penalty']:.2f} (theirs {r['opponent_penalty']:.2f})",
            )
        return path, measured

    def current_network() -> expert_targets.Network:
        from agents.model_io.sb3_import import sb3_policy_tensors

        tensors, _, activation = sb3_policy_tensors(model.policy)
        # The targets' observations are raw: fold the scale into the first layer, as export does.
        tensors["pi.0.weight"] = tensors["pi.0.weight"] * scale[None, :]
        return tensors, activation

    stopped: str | None = None  # why the rounds ended early (Ctrl-C, an exception), or None
    error: Exception | None = None
    try:
        if cfg.init_model:
            load_network(model.policy, cfg.init_model, scale, cfg.activation)
            _, measured = export_and_measure("round_init", -1)
            summary["init"] = {"from": cfg.init_model, **measured}
            network = current_network()
        elif cfg.init_bc:
            spec = cfg.init_bc

            def teachers(seed: int) -> list[tuple[int, int, Any]]:
                return [(0, env.num_envs, registry.make(spec, seed=seed))]  # every table

            def raw(obs: np.ndarray) -> np.ndarray:
                return np.rint(obs / scale).astype(np.float32)  # the bots read raw counts

            _log(cfg, f"cloning {spec} ({cfg.bc_decisions:,} decisions) ...")
            bc_cfg = bc.BCConfig(teacher=spec, decisions=cfg.bc_decisions, epochs=cfg.bc_epochs)
            stats = bc.clone(model, env, bc_cfg, teachers, seed=cfg.seed, teacher_view=raw)
            _log(cfg, bc.describe(stats))
            _, measured = export_and_measure("round_bc", -1)
            summary["bc"] = {**stats, **measured}
            network = current_network()

        if cfg.leaf and not cfg.value_model:
            from train.vintage_value import ValueConfig, fit_value

            _log(cfg, f"fitting the value network of the cut rollouts ({cfg.value_games} games)")
            value_cfg = ValueConfig(
                players=cfg.players,
                games=cfg.value_games,
                seed=cfg.seed,
                torch_threads=cfg.torch_threads,
                out=str(out / "value.safetensors"),
                progress=cfg.progress,
            )
            summary["value"] = {"model": value_cfg.out, **fit_value(value_cfg)}

        # 3. Rounds ------------------------------------------------------------------
        data: list[Targets] = []
        held: list[np.ndarray] = []
        rng = np.random.default_rng(cfg.seed)
        fit_cfg = bc.BCConfig(batch_size=cfg.batch_size, learning_rate=cfg.learning_rate)
        for r in range(cfg.rounds):
            t0 = time.perf_counter()
            settings = target_settings(cfg, r, network is not None)
            targets, complete = expert_targets.generate(
                settings,
                network,
                workers=cfg.workers,
                backend=backend,
                progress=_chunks_progress(cfg, r),
            )
            path = expert_targets.write_targets(
                out / f"round_{r}" / "targets.safetensors", targets, settings
            )
            gen_s = time.perf_counter() - t0
            data.append(targets)
            # A seed per round: each round holds out games of its own.
            held.append(held_out(targets.game, cfg.holdout, cfg.seed * 7919 + r))
            # Every round so far is fitted, as DAgger aggregates: earlier states are kept.
            every = Targets.concat(data)
            flags = np.concatenate(held)
            t1 = time.perf_counter()
            bc._fit(
                model.policy,
                fit_data(every, scale, cfg),
                np.flatnonzero(~flags),
                cfg.epochs,
                fit_cfg,
                rng,
                None,
            )
            fit_s = time.perf_counter() - t1
            # This round's held-out rows, as indices into the concatenation.
            last = np.flatnonzero(held[-1]) + sum(len(t) for t in data[:-1])
            network = current_network()
            _, measured = export_and_measure(f"round_{r}", r)
            summary["rounds"].append(
                {
                    "round": r,
                    "targets": str(path),
                    **expert_targets.summary(targets),
                    "acting": settings.acting,
                    "prior": settings.prior,
                    **agreement(model.policy, every, last, scale),
                    "generate_s": round(gen_s, 1),
                    "fit_s": round(fit_s, 1),
                    **measured,
                }
            )
            if not complete:
                stopped = f"interrupted ({interrupted_by()})"
                break
    except KeyboardInterrupt as exc:  # Ctrl-C, or a SIGTERM (agents.runtime.interrupts)
        stopped = f"interrupted ({interrupted_by(exc)})"
        _log(cfg, f"{said_interrupted(exc)}: keeping what finished")
    except Exception as exc:  # keep what finished, say why in summary.json, then raise it
        error, stopped = exc, f"failed: {type(exc).__name__}: {exc}"
        _log(cfg, f"{stopped}; keeping what finished")

    # 4. Finish --------------------------------------------------------------------
    candidates = [summary[k] for k in ("init", "bc") if k in summary] + list(summary["rounds"])
    if candidates:
        best = max(candidates, key=lambda c: c["eval"][0]["ahead_rate"])
        summary["best_model"] = best["model"]
        summary["model"] = str(copy_model(best["model"], out / "model"))
        summary["play_with"] = f"vintage-ppo:{summary['model']}"
        summary["next"] = tournament_command(vc, Path(summary["model"]))
    summary["complete"] = stopped is None
    summary["stopped"] = stopped
    summary["wall_s"] = round(time.perf_counter() - t_start, 1)
    write_json(out / "summary.json", summary)
    env.close()
    if error is not None:
        raise error
    return summary


# ---------------------------------------------------------------------- command line
def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.vintage_expert``: bad settings print one line and return 2."""
    from train.common.settings import recipe_main

    return recipe_main(
        ExpertConfig,
        train,
        argv,
        prog="python -m train.vintage_expert",
        description=__doc__ or "",
    )


if __name__ == "__main__":  # pragma: no cover
    from agents.runtime.entry import run_main  # a reader gone from stdout: 141, as speed's

    raise SystemExit(run_main(main))
