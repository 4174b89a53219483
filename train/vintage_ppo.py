"""Train a Vintage Speed agent with sb3-contrib's MaskablePPO: the recipe, top to bottom.

    python -m train.vintage_ppo --players 4 --opponent vintage-greedy --timesteps 300000
    speed train vintage --players 4 --opponent vintage-greedy ...     (the same flags)

What a run does, in order (each step is a section of :func:`train`; steps 1 and 2, the
same in both recipes, are :func:`train.common.run.run_recipe`'s):

1. **Settings.** Every setting is a field of :class:`VintageConfig` (the
   flags are made from it, help text and all; the shared ones are in
   :mod:`train.common.settings`, with this game's defaults re-declared here).
   ``--resume`` takes the saved settings of the run in ``--out`` and
   continues it from its last checkpoint, as in real-time training.
2. **Seeding.** One seed: the deals and the learner's seat (each env's
   generator), the opponents' generators, torch and the network's initial
   weights. Evaluation plays fixed deals (``eval_seed``), the same at every
   point of the curve.
3. **Environment.** ``n_envs`` copies of
   :class:`~speed_env.vintage.single.VintageSingleEnv` in a ``DummyVecEnv``:
   the learner at a ``players`` table, in a seat drawn per game; the other
   seats played by ``opponent`` (one spec, or a comma-separated list the seats
   after the learner's cycle through). One timestep is one decision of the
   learner; the reward is the env's (+1 for going out first, otherwise minus
   the penalty points left in hand / 100). Observations are scaled towards
   [0, 1] by :func:`observation_scale` (raw counts reach 45).
4. **Model.** MaskablePPO with separate MLP actor and critic. Optional warm
   start: ``init_bc`` clones a bot first (:mod:`train.bc`, the teacher reading
   raw observations), and the clone is evaluated as the curve's first point.
5. **Loop.** ``model.learn`` (:class:`~train.common.run.Run`): a progress bar, the
   rolling win rate and penalty of the training games (logged), and every
   ``eval_every`` timesteps a checkpoint played by the N-player tournament
   harness (:mod:`agents.tournament.vintage`) against ``players - 1`` copies of
   each ``eval_opponents`` bot, seats rotated on shared deals; rows go to
   ``eval.csv`` and ``curves.png``.
6. **Finish.** ``model.json`` + ``model.safetensors`` (the observation scale
   folded into the first layer, so the file plays raw observations:
   ``vintage-ppo:OUT/model.json``) first, then ``summary.json``, a last
   evaluation and ``curves.png``, and the ``speed tournament --game vintage``
   command that plays the model against the bots. Ctrl-C or an exception
   stops early and still writes the model and a summary that says why. The
   run holds ``--out``'s lock throughout.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from train.common.curves import Panel
from train.common.settings import RunSettings, check_ppo, recipe_main, specs
from train.common.warm_start import stop_warm_start

__all__ = [
    "VintageConfig",
    "check_config",
    "export",
    "main",
    "observation_scale",
    "tournament_command",
    "train",
]


@dataclass
class VintageConfig(RunSettings):
    """Every setting of a vintage training run (``python -m train.vintage_ppo --help``)."""

    players: int = 4
    """Players at the table (2–10); the learner takes one seat."""
    # ---- this game's defaults of the shared settings (their help is RunSettings')
    opponent: str = "vintage-greedy"
    """Agent spec of the other seats, or a comma-separated list the seats after the learner's
    cycle through."""
    DEFAULT_TIMESTEPS: ClassVar[int] = 300_000
    timesteps: int | None = None
    """Learner decisions to train for, rounded up to whole rollouts (said and recorded). Not
    given: 300,000 for a new run; with ``--resume``, the run's own saved budget."""
    n_envs: int = 16
    """Tables played side by side (each an env of the DummyVecEnv)."""
    out: str = "runs/vintage_ppo"
    bc_decisions: int = 40_000
    bc_epochs: int = 8
    n_steps: int = 256
    """Steps per table per rollout (longer than real-time Speed's: fewer envs, 4,096 decisions a
    rollout with the default 16)."""
    batch_size: int = 512
    n_epochs: int = 6
    gamma: float = 0.995
    """Discount per decision (a game is about 7–20 decisions of the learner; the reward comes
    at its end)."""
    activation: str = "tanh"
    eval_every: int = 100_000
    eval_opponents: str = "vintage-greedy,vintage-tactician"
    """The bots the learner is measured against, one line-up each (``players - 1`` copies)."""


def check_config(cfg: VintageConfig) -> None:
    """Refuse settings that cannot work, with a message naming the field or the agent."""
    import agents
    from agents.vintage.registry import VINTAGE

    check_ppo(cfg)
    if isinstance(cfg.players, bool) or not 2 <= cfg.players <= 10:
        raise ValueError(f"players must be 2–10, got {cfg.players!r}")
    if cfg.seat != "random" and not (cfg.seat.isdigit() and int(cfg.seat) < cfg.players):
        raise ValueError(f"seat must be random or a seat 0–{cfg.players - 1}, got {cfg.seat!r}")
    if cfg.eval_games < cfg.players:
        raise ValueError(
            f"eval_games must be at least players ({cfg.players}): "
            "each deal is played once per seat"
        )
    for spec in [*specs(cfg.opponent), *specs(cfg.eval_opponents), *specs(cfg.init_bc)]:
        # The vintage registry takes its own names and a user's agent (py:PATH.py:NAME,
        # package.module:NAME) as every other command does; a real-time name gets a pointer.
        if agents.REALTIME.knows(spec):
            raise ValueError(
                f"{spec!r} plays real-time Speed; vintage opponents are vintage-random, "
                "vintage-greedy, vintage-tactician, vintage-ppo:PATH or your own "
                "(py:PATH.py:NAME, package.module:NAME)"
            )
        VINTAGE.parse_spec(spec)  # an unknown name or a malformed spec, named


def observation_scale(rules: Any) -> np.ndarray:
    """Divisors that bring each entry of the vintage observation to about [0, 1], as multipliers.

    Card counts per kind by the most copies in play, the pack by the cards in
    play, hand sizes by 10, match scores by 100, the game counter by the match
    length and the passes by the players; one-hot entries stay as they are.
    """
    from speed_env.vintage import ObservationLayout

    layout = ObservationLayout(rules.pack)
    # Each field over a typical top of its range: inputs near [0, 1] leave the tanh
    # units unsaturated at the start.
    div = np.ones(layout.size, np.float32)
    copies = float(max(rules.pack.copies) * rules.packs)
    for name in ("hand", "discard"):
        div[layout[name]] = copies
    div[layout["pack"]] = float(rules.total_cards)
    div[layout["hand_sizes"]] = 10.0
    div[layout["scores"]] = 100.0
    div[layout["game"]] = float(max(1, rules.games))
    div[layout["passes"]] = float(rules.num_players)
    return (1.0 / div).astype(np.float32)


def table_env(
    players: int, opponents: list[str], seed: int, i: int, scale: np.ndarray, seat: int | str
) -> Any:
    """Training env number ``i``: the learner at ``seat`` of a ``players`` table.

    The other seats are vintage bots cycled from the specs ``opponents``; seeded by ``seed``,
    ``i`` and seat.
    """
    from agents.vintage import registry
    from speed_env.vintage.single import VintageSingleEnv

    bots = [
        # Seed, env and seat in one number; seats never collide (k < 10: at most 10 players).
        registry.make(opponents[k % len(opponents)], seed=seed * 1000 + i * 10 + k)
        for k in range(players - 1)
    ]
    return VintageSingleEnv(players, opponents=bots, seat=seat, obs_scale=scale)


def export(model: Any, path: Path, scale: np.ndarray, rules: Any, training: dict[str, Any]) -> Path:
    """Save the policy in the kit's format, the observation scale folded into the first layers."""
    from agents.model_io.sb3_import import sb3_policy_tensors
    from agents.model_io.vintage import save_vintage_model

    tensors, sizes, activation = sb3_policy_tensors(model.policy)
    # W @ (scale * x) == (W * scale) @ x: the saved network takes raw observations.
    for name in ("pi.0.weight", "vf.0.weight"):
        tensors[name] = tensors[name] * scale[None, :]
    return save_vintage_model(
        path, tensors, rules=rules, hidden=sizes, activation=activation, training=training
    )


def load_network(policy: Any, path: str, scale: np.ndarray, activation: str) -> None:
    """Load a saved vintage model (``vintage-ppo`` format) into a MaskablePPO ``policy``.

    The inverse of :func:`train.vintage_ppo.export`: the observation scale folded into
    the first layers is taken out again. A model of another shape or activation is
    refused, naming it.
    """
    import torch

    from agents.model_io.kit_model import read_model
    from agents.model_io.tensor_file import ModelFormatError
    from agents.model_io.vintage import load_vintage_policy

    net = load_vintage_policy(path)  # checks the file and its vintage signature
    tensors, _, where = read_model(path)
    if net.activation != activation:
        raise ModelFormatError(
            f"{where} uses {net.activation}, these settings {activation}; give --activation"
        )
    extractor = policy.mlp_extractor
    targets = {"logits": policy.action_net, "value": policy.value_net}
    for prefix, seq in (("pi", extractor.policy_net), ("vf", extractor.value_net)):
        linears = [m for m in seq if isinstance(m, torch.nn.Linear)]
        targets |= {f"{prefix}.{k}": lin for k, lin in enumerate(linears)}
    if set(targets) != {name.rsplit(".", 1)[0] for name in tensors}:
        raise ModelFormatError(
            f"{where} has layers {sorted({n.rsplit('.', 1)[0] for n in tensors})}; the network "
            f"of these settings (net_arch, activation {net.activation}) has {sorted(targets)}"
        )
    with torch.no_grad():
        for name, layer in targets.items():
            weight = np.asarray(tensors[f"{name}.weight"], np.float32)
            if name in ("pi.0", "vf.0"):
                # The file's first layers read raw observations (export folded the scale in);
                # the env here hands scaled ones.
                weight = weight / scale[None, :]
            if weight.shape != tuple(layer.weight.shape):
                raise ModelFormatError(
                    f"{where}: layer {name} is {weight.shape}, the network here "
                    f"{tuple(layer.weight.shape)}; give the model's --net-arch"
                )
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(np.asarray(tensors[f"{name}.bias"], np.float32)))


# ---------------------------------------------------------------------- evaluation
EVAL_FIELDS = (
    *("timesteps", "opponent", "games", "win_rate", "win_ci_low", "win_ci_high"),
    *("mean_penalty", "penalty_ci_low", "penalty_ci_high", "opponent_penalty"),
    *("ahead_rate", "ahead_ci_low", "ahead_ci_high"),
)
PANELS = (
    Panel(
        "mean_penalty",
        "mean penalty per game (fewer is better)",
        ("penalty_ci_low", "penalty_ci_high"),
        dashed="opponent_penalty",
    ),
    Panel("win_rate", "games won (%)", percent=True, title="win rate"),
)


def score(model_path: Path, cfg: VintageConfig) -> list[dict[str, Any]]:
    """The saved policy at a table with ``players - 1`` copies of each eval bot: one row per bot."""
    from agents.stats import wilson_interval
    from agents.tournament import vintage

    me = f"vintage-ppo:{model_path}"
    settings = vintage.VintageSettings(
        agents=(me, *specs(cfg.eval_opponents)),
        players=cfg.players,
        games=cfg.eval_games,
        seed=cfg.eval_seed,
        gauntlet=me,
    )
    results, complete = vintage.run(settings, workers=cfg.eval_workers)
    if not complete:  # Ctrl-C (or SIGTERM) stopped the games: a score on fewer is not kept
        raise KeyboardInterrupt
    summary = vintage.summarise(settings, results, bootstrap=20)  # ratings are not reported here
    # The learner's share of games finished ahead of each bot, whichever side it was listed on.
    ahead = {
        m["b"]: (m["win_rate_a"], *m["win_rate_a_ci"]) for m in summary["matches"] if m["a"] == me
    }
    for m in summary["matches"]:
        if m["b"] == me:
            # Listed second, the learner gets the flipped interval: its low end is 1 - high.
            ahead[m["a"]] = (
                1 - m["win_rate_a"],
                1 - m["win_rate_a_ci"][1],
                1 - m["win_rate_a_ci"][0],
            )
    rows = []
    for lu in summary["lineups"]:
        mine = next(r for r in lu["results"] if r["name"] == me)
        other = next(r for r in lu["results"] if r["name"] != me)
        lo, hi = wilson_interval(mine["wins"], mine["games"])
        rate, ahead_lo, ahead_hi = ahead[other["name"]]
        rows.append(
            {
                "opponent": other["name"],
                "games": mine["games"],
                "win_rate": round(mine["wins"] / mine["games"], 4),
                "win_ci_low": round(lo, 4),
                "win_ci_high": round(hi, 4),
                "mean_penalty": round(mine["mean_penalty"], 3),
                "penalty_ci_low": round(mine["mean_penalty_ci"][0], 3),
                "penalty_ci_high": round(mine["mean_penalty_ci"][1], 3),
                "opponent_penalty": round(other["mean_penalty"], 3),
                "ahead_rate": round(rate, 4),
                "ahead_ci_low": round(ahead_lo, 4),
                "ahead_ci_high": round(ahead_hi, 4),
            }
        )
    return rows


def report(rows: list[dict[str, Any]]) -> Any:
    """How an evaluation reads: penalties (the learner's and the bot's) and win rate per bot."""
    from train.common.run import Report

    line = "  ".join(
        f"vs {r['opponent']}: penalty {r['mean_penalty']:.2f} "
        f"[{r['penalty_ci_low']:.2f}, {r['penalty_ci_high']:.2f}] "
        f"(theirs {r['opponent_penalty']:.2f}), won {100 * r['win_rate']:.1f}%"
        for r in rows
    )
    note = " ".join(
        f"{r['opponent'].removeprefix('vintage-')[:6]} {r['mean_penalty']:.1f}" for r in rows
    )
    scalars = {}
    for r in rows:
        scalars[f"eval/{r['opponent']}/mean_penalty"] = r["mean_penalty"]
        scalars[f"eval/{r['opponent']}/win_rate"] = r["win_rate"]
    return Report(line, note, scalars)


# ---------------------------------------------------------------------- the recipe
def train(cfg: VintageConfig) -> dict[str, Any]:
    """Run the recipe (module docstring) in ``cfg.out``; the summary (``out/summary.json``)."""
    from train.common.run import run_recipe

    return run_recipe(cfg, check_config, _train)


def _train(cfg: VintageConfig, folder: Any, seed: int) -> dict[str, Any]:
    # 1. Settings and 2. Seeding: run_recipe's, the same in both recipes (the settings checked
    # and saved in the locked folder, torch seeded); `seed` seeds each table's deals.
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    import agents
    from speed_env.vintage import make_vintage_rules
    from train import bc
    from train.common.run import Curves, Run
    from train.common.settings import make_model

    # 3. Environment ---------------------------------------------------------------
    rules = make_vintage_rules(cfg.players, 1)
    scale = observation_scale(rules)
    opp_specs = specs(cfg.opponent)

    seat: int | str = "random" if cfg.seat == "random" else int(cfg.seat)

    def make_env(i: int) -> Any:
        return lambda: Monitor(table_env(cfg.players, opp_specs, seed, i, scale, seat))

    env = DummyVecEnv([make_env(i) for i in range(cfg.n_envs)])

    def save(path: Path, steps: int) -> Path:
        training = {
            "timesteps": steps,
            "opponent": cfg.opponent,
            "players": cfg.players,
            "seed": cfg.seed,
            "recipe": "train/vintage_ppo.py",
            "config": asdict(cfg),
        }
        return export(run.model, path, scale, rules, training)

    title = f"{cfg.players} players, trained vs {cfg.opponent}"
    run = Run(
        cfg,
        folder,
        Curves(EVAL_FIELDS, PANELS, title),
        save=save,
        score=lambda p: score(p, cfg),
        report=report,
    )
    # A window, so the logged rates follow the learner rather than its whole history.
    recent: deque[tuple[bool, float]] = deque(maxlen=2000)  # (won, penalty) of training games

    def on_step(infos: Sequence[dict[str, Any]], dones: Any) -> None:
        for info, done in zip(infos, dones, strict=True):
            if done and "penalty" in info:
                recent.append((info["winner"] == info["seat"], info["penalty"]))

    def on_rollout_end(steps: int, logger: Any) -> None:
        if recent:
            won, pen = zip(*recent, strict=True)
            logger.record("train_games/win_rate", float(np.mean(won)))
            logger.record("train_games/mean_penalty", float(np.mean(pen)))

    run.on_step, run.on_rollout_end = on_step, on_rollout_end

    # 4. Model -----------------------------------------------------------------------
    run.attach(make_model(cfg, env))
    try:
        if cfg.resume:
            run.resume(seed)
        elif cfg.init_bc:
            spec = cfg.init_bc

            def teachers(seed: int) -> list[tuple[int, int, Any]]:
                return [(0, env.num_envs, agents.make(spec, seed=seed))]  # one bot, every table

            def raw(obs: np.ndarray) -> np.ndarray:
                return np.rint(obs / scale).astype(np.float32)  # the bots read raw counts

            # No loop to catch it yet: the summary says where it stopped, as PPO's Ctrl-C does.
            try:
                bc.warm_start(run, env, teachers, teacher_view=raw)
                run.evaluate(0)
            except KeyboardInterrupt as exc:
                return stop_warm_start(run, exc)

        # 5. Loop ------------------------------------------------------------------------
        eval_before = run.timing["eval_s"]
        start, steps, wall, stopped = run.learn()
        train_s = wall - (run.timing["eval_s"] - eval_before)  # evaluations are not training

        # 6. Finish (the model first) ------------------------------------------------------
        summary = run.finish(
            steps,
            stopped,
            play_with=f"vintage-ppo:{run.out / 'model.json'}",
            wall_s=round(wall, 2),
            # A run resumed at its budget trains for 0 s.
            timesteps_per_s=round((steps - start) / max(train_s, 1e-9), 1),
            next=tournament_command(cfg, run.out / "model.json"),
        )
    finally:
        run.close()
        env.close()
    rate = summary["timesteps_per_s"]
    run.bar.print(
        f"wrote {summary['model']} ({steps:,} timesteps, {rate:,.0f} timesteps/s of training)"
    )
    run.bar.print(f"next, pit it against the bots: {summary['next']}")
    return summary


def tournament_command(cfg: VintageConfig, model: Path) -> str:
    """The ``speed tournament --game vintage`` for the model, printed when a run ends.

    It seats the model at ``players`` tables with each evaluation bot.
    """
    import shlex

    spec = f"vintage-ppo:{model}"
    argv = ["speed", "tournament", "--game", "vintage", "--players", str(cfg.players)]
    argv += ["--agents", ",".join([spec, *specs(cfg.eval_opponents)]), "--gauntlet", spec]
    # 100 deals, each played once per seat.
    argv += ["--games", str(100 * cfg.players), "--out", str(model.parent / "tournament")]
    return shlex.join(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.vintage_ppo``: this recipe's flags (``--help``), then :func:`train`."""
    return recipe_main(
        VintageConfig, train, argv, prog="python -m train.vintage_ppo", description=__doc__ or ""
    )


if __name__ == "__main__":  # pragma: no cover
    from agents.runtime.entry import run_main  # a reader gone from stdout: 141, as speed's

    raise SystemExit(run_main(main))
