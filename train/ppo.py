"""Train a Speed agent with sb3-contrib's MaskablePPO: the recipe, top to bottom.

    speed train --rules japanese --opponent greedy --timesteps 2000000 --n-envs 256 --seed 0 --out runs/NAME

What a run does, in order (each step is a section of :func:`train`):

1. **Settings.** Every hyperparameter is a field of :class:`Config` (the CLI
   flags are made from it, help text and all). ``--resume`` takes the saved
   settings of the run in ``--out`` and continues it.
2. **Seeding.** One seed: the envs' deals and seat draws, the opponents'
   generators, torch and the evaluation deals (a fixed ``eval_seed``, so every
   point of the curve plays the same deals).
3. **Environment.** :class:`~train.vec_env.SpeedVecEnv`: ``n_envs`` games on
   the batched engine, the learner in a seat drawn per game, the opponent
   drawn per game from ``--opponent`` (a bot, a mix, or ``self`` for a
   self-play pool of the learner's snapshots and the bots). One timestep is one
   *decision* of the learner: the ticks where it can only wait are played by
   the env (see its docstring).
4. **Model.** MaskablePPO with an MLP actor and critic. Optional warm starts:
   ``--init-bc chain`` clones a bot first (:mod:`train.bc`), ``--init-from
   PATH`` starts from a saved model.
5. **Loop.** ``model.learn`` with one callback that draws the progress bar,
   adds self-play snapshots, evaluates against the gauntlet on paired deals
   every ``eval_every`` timesteps (``agents.tournament``, the current policy
   saved as a checkpoint and played as ``ppo:PATH``), checkpoints, and logs
   (TensorBoard and CSV under ``out/logs``; ``eval.csv``; the pool's make-up).
6. **Finish.** The final model (``model.json`` + ``model.safetensors``), a
   last evaluation, ``curves.png`` and ``summary.json`` (throughput split
   into env, opponents, policy forward and updates). Ctrl-C stops early and
   still writes all of it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from train.ppo_common import PPOHyperparams, ProgressBar, check_ppo, field_help, hidden, make_model

__all__ = ["Config", "check_config", "field_help", "hidden", "prepare", "train"]


@dataclass
class Config(PPOHyperparams):
    """Every setting of a training run (``speed train --help`` lists them; PPO's own are in
    :class:`~train.ppo_common.PPOHyperparams`)."""

    # ---- the run
    rules: str = "us"
    """Rules preset(s) to train on; several, comma-separated (``japanese,us``), split the envs evenly."""
    opponent: str = "greedy"
    """Opponent: an agent spec, a comma-separated mix drawn per game, or ``self`` (self-play pool)."""
    timesteps: int = 2_000_000
    """Learner decisions to train for (ticks where it can only wait are not counted)."""
    n_envs: int = 256
    """Games stepped at once (each a slot of the VecEnv)."""
    seed: int = 0
    """Seed of the deals, seat and opponent draws, the networks and the opponents' generators."""
    out: str = "runs/ppo"
    """Output folder: logs, checkpoints, eval.csv, curves.png, model.json/.safetensors."""
    resume: bool = False
    """Continue the run in ``out`` from its last checkpoint (its saved settings are used; ``timesteps`` may grow)."""
    init_bc: str | None = None
    """Warm start: behaviour-clone this agent spec (e.g. ``chain``) before PPO (see train/bc.py)."""
    bc_decisions: int = 300_000
    """Teacher decisions recorded for ``init_bc``."""
    bc_epochs: int = 12
    """Passes over the recorded decisions for ``init_bc``."""
    bc_dagger: int = 0
    """DAgger rounds for ``init_bc`` (the clone plays, the teacher labels, the fit continues)."""
    init_from: str | None = None
    """Warm start from a saved kit model (``.json``) of the same net_arch."""
    # ---- the environment
    tick_ms: int = 50
    """Length of a tick in ms."""
    reaction: str = "human"
    """Reaction profile of both seats (ms or a preset name); a bot spec's ``@profile`` overrides its seat."""
    options: str = ""
    """Rule overrides for training and evaluation, ``KEY=VALUE`` joined by commas (``wrap=false,max_game_ms=60000``)."""
    seat: str = "random"
    """The learner's seat per game: ``random``, ``alternate``, ``0`` or ``1``."""
    skip_forced: bool = True
    """Play the learner's forced waits inside the env, so a timestep is a real decision."""
    skip_tail: float = 0.05
    """End a step once at most this share of games still waits (those few show a forced state)."""
    wait_penalty: float = 0.0
    """Training reward per decision where the learner waits holding a legal play. Not needed against
    stalling since the idle rule (``idle_flip_ms``) makes a waiting seat lose; the bundled agent used 0.01."""
    truncation_reward: float = -1.0
    """Training reward of a game cut at max_game_ms (a stalled game counts as lost, not drawn)."""
    shaping: float = 0.0
    """Potential-based shaping: this times the learner's lead in cards left (1/27 a card); sums to 0 per game."""
    # ---- self-play
    self_fraction: float = 0.5
    """With ``--opponent self``: share of games against snapshots of the learner (the rest: the bots)."""
    snapshot_every: int = 200_000
    """With ``--opponent self``: timesteps between snapshots added to the pool."""
    max_snapshots: int = 8
    """With ``--opponent self``: newest snapshots drawn from (older ones retire)."""
    snapshot_sample: bool = True
    """Snapshots sample from their policy (True) instead of playing its argmax."""
    # ---- evaluation and checkpoints
    eval_every: int = 250_000
    """Timesteps between evaluations (each also writes a checkpoint)."""
    eval_games: int = 400
    """Games per gauntlet bot and rules preset (paired deals: each deal twice, seats swapped)."""
    eval_opponents: str = "random,greedy,chain"
    """The gauntlet."""
    eval_seed: int = 12_345
    """Seed of the evaluation deals (the same deals at every evaluation)."""
    eval_workers: int = 1
    """Processes for evaluation games."""
    progress: bool = True
    """Draw a progress bar on stderr."""


def check_config(cfg: Config) -> None:
    """Refuse settings that cannot work, with a message naming the field."""
    check_ppo(
        cfg,
        (
            "timesteps",
            "eval_every",
            "eval_games",
            "snapshot_every",
            "max_snapshots",
            "tick_ms",
            "eval_workers",
            "bc_decisions",
            "bc_epochs",
        ),
    )
    if cfg.bc_dagger < 0:
        raise ValueError(f"bc_dagger must be >= 0, got {cfg.bc_dagger!r}")
    if cfg.seat not in ("random", "alternate", "0", "1"):
        raise ValueError(f"seat must be random, alternate, 0 or 1, got {cfg.seat!r}")
    parse_rules_options(cfg)
    if cfg.eval_games < 2:
        raise ValueError("eval_games must be at least 2 (each deal is played twice)")


def parse_rules_options(cfg: Config) -> list[Any]:
    """The Rules to train on: each preset of ``rules`` with ``options`` applied (checked)."""
    from train.vec_env import parse_rules_list

    return parse_rules_list(cfg.rules, **rule_options(cfg))


def rule_options(cfg: Config) -> dict[str, Any]:
    """``options`` (KEY=VALUE pairs joined by commas) as typed rule overrides."""
    from speed_env.rules import parse_overrides

    return parse_overrides(filter(None, (p.strip() for p in cfg.options.split(","))), "options")


# ---------------------------------------------------------------------- evaluation
def evaluate(model_path: Path, cfg: Config, rules_list: list[Any]) -> list[dict[str, Any]]:
    """The saved policy against each gauntlet bot on paired deals, per rules preset: one row each."""
    from agents import tournament
    from agents.stats import wilson_interval
    from speed_env.reaction import make_profile

    spec = f"ppo:{model_path}"
    bots = [b.strip() for b in cfg.eval_opponents.split(",") if b.strip()]
    rows = []
    for rules in rules_list:
        t0 = time.perf_counter()
        settings = tournament.Settings(
            agents=(spec, *bots),
            games=cfg.eval_games,
            rules=rules,
            reaction=make_profile(cfg.reaction),
            tick_ms=cfg.tick_ms,
            seed=cfg.eval_seed,
            gauntlet=spec,
        )
        results, _ = tournament.run(settings, workers=cfg.eval_workers)
        pairs = settings.pairings()
        for k, (_, j) in enumerate(pairs):
            mine = [r for r in results if r.chunk.pair == k]
            wins, losses, draws = (
                sum(getattr(r, f) for r in mine) for f in ("wins_a", "wins_b", "draws")
            )
            games = wins + losses + draws
            lo, hi = wilson_interval(wins + draws / 2, games)
            rows.append(
                {
                    "rules": rules.preset,
                    "opponent": settings.agents[j],
                    "games": games,
                    "wins": wins,
                    "losses": losses,
                    "draws": draws,
                    "win_rate": round((wins + draws / 2) / max(games, 1), 4),
                    "ci_low": round(lo, 4),
                    "ci_high": round(hi, 4),
                }
            )
        wall = round(time.perf_counter() - t0, 2)
        for row in rows:
            row.setdefault("wall_s", wall)
    return rows


# ---------------------------------------------------------------------- the run
class Run:
    """Everything one training run holds: settings, env, model, files, measurements."""

    # Set by the recipe as it builds them (sections 3 and 4 of _train).
    rules_list: list[Any]
    env: Any
    model: Any
    bar: ProgressBar

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.state: dict[str, Any] = {}
        self.timing = {"rollout_s": 0.0, "update_s": 0.0, "eval_s": 0.0, "bc_s": 0.0}
        self.env_base: tuple[dict[str, float], dict[str, int]] = ({}, {})

    # -- files
    @property
    def state_path(self) -> Path:
        """``out/state.json``: what resuming needs."""
        return self.out / "state.json"

    def write_state(self) -> None:
        """Save ``state.json`` atomically."""
        tmp = self.state_path.with_name(".state.json.tmp")
        tmp.write_text(json.dumps(self.state, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.state_path)

    def model_info(self, steps: int) -> dict[str, Any]:
        """What a saved model's manifest records about training."""
        c = self.cfg
        return {
            "rules": self.rules_list,  # every rules it trains under: the model plays only those
            "reaction": {
                "learner": self.env.reactions[0].label(),
                "opponent": self.env.reactions[1].label(),
            },
            "tick_ms": c.tick_ms,
            "training": {
                "timesteps": steps,
                "opponent": c.opponent,
                "rules": c.rules,
                "seed": c.seed,
                "init_bc": c.init_bc,
                "skip_forced": c.skip_forced,
                "config": asdict(c),
            },
        }

    def checkpoint(self, steps: int) -> Path:
        """Checkpoint at ``steps`` (kit model + optimizer) and point ``state.json`` at it."""
        from train.checkpoint import save_checkpoint

        path = save_checkpoint(
            self.model, self.out / "checkpoints" / f"step_{steps:09d}", **self.model_info(steps)
        )
        self.state.update(
            timesteps=steps,
            n_updates=int(self.model._n_updates),
            checkpoint=str(path.relative_to(self.out)),
        )
        self.write_state()
        return path

    # -- periodic work
    def snapshot(self, steps: int) -> None:
        """Add a frozen copy of the learner to the self-play pool (and save it for resuming)."""
        from agents.model_io import MLPPolicy
        from train.checkpoint import export_model

        path = export_model(
            self.model, self.out / "pool" / f"self_{steps:09d}", **self.model_info(steps)
        )
        tensors, _, activation = _actor(self.model)
        policy = MLPPolicy(
            tensors, activation, sample=self.cfg.snapshot_sample, seed=self.cfg.seed + steps
        )
        self.env.pool.add_snapshot(f"self@{steps}", policy, len(self.env.groups))
        self.state.setdefault("snapshots", []).append(
            {"name": f"self@{steps}", "path": str(path.relative_to(self.out))}
        )

    def evaluate(self, steps: int) -> list[dict[str, Any]]:
        """Checkpoint, play the gauntlet, append to eval.csv, log and redraw the curve."""
        from train.curves import append_eval, plot_curves

        t0 = time.perf_counter()
        path = self.checkpoint(steps)
        rows = evaluate(path, self.cfg, self.rules_list)
        for row in rows:
            row["timesteps"] = steps
            self.model.logger.record(f"eval/{row['rules']}/{row['opponent']}", row["win_rate"])
        append_eval(self.out / "eval.csv", rows)
        plot_curves(
            self.out / "eval.csv",
            self.out / "curves.png",
            title=f"{self.cfg.opponent} on {self.cfg.rules}",
        )
        (self.out / "pool.json").write_text(
            json.dumps(self.env.pool.describe(), indent=2) + "\n", encoding="utf-8"
        )
        self.state["last_eval"] = steps
        self.write_state()
        self.timing["eval_s"] += time.perf_counter() - t0
        text = "  ".join(
            f"{r['rules']}/{r['opponent']} {100 * r['win_rate']:.1f}% "
            f"[{100 * r['ci_low']:.0f},{100 * r['ci_high']:.0f}]"
            for r in rows
        )
        self.bar.print(f"eval @ {steps:,}: {text}")
        main = [r for r in rows if r["opponent"] in ("greedy", "chain")] or rows
        self.bar.note = " ".join(
            f"{r['opponent'][:6]} {100 * r['win_rate']:.0f}%" for r in main[:4]
        )
        return rows

    def throughput(self, steps_done: int, wall: float) -> dict[str, Any]:
        """Timesteps/s and how the time splits between env, opponents, policy forward and updates."""
        # Only what happened inside the PPO loop (behaviour cloning steps the same env before it).
        env_t = {k: v - self.env_base[0].get(k, 0.0) for k, v in self.env.timing.items()}
        counters = {k: v - self.env_base[1].get(k, 0) for k, v in self.env.counters.items()}
        roll = self.timing["rollout_s"]
        env_s = env_t["step_wait_s"]
        return {
            "timesteps": steps_done,
            "wall_s": round(wall, 2),
            "timesteps_per_s": round(steps_done / max(wall, 1e-9), 1),
            "ticks_per_s": round(counters["ticks"] / max(wall, 1e-9), 1),
            "split_s": {
                "env_engine": round(env_s - env_t["opponent_s"], 2),
                "env_opponents": round(env_t["opponent_s"], 2),
                "policy_forward_and_sb3": round(roll - env_s, 2),
                "ppo_update": round(self.timing["update_s"], 2),
                "evaluation": round(self.timing["eval_s"], 2),
                "behaviour_cloning": round(self.timing["bc_s"], 2),
            },
            "env": {**counters, **{k: round(v, 2) for k, v in env_t.items()}},
        }


def _actor(model: Any) -> tuple[dict[str, np.ndarray], list[int], str]:
    from train.checkpoint import policy_tensors

    return policy_tensors(model)


def _make_callback(run: Run) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainCallback(BaseCallback):
        """Progress bar, timing, self-play snapshots, evaluation and pool logging around each rollout."""

        def __init__(self) -> None:
            super().__init__()
            self.rollout_start = 0.0
            self.rollout_end: float | None = None

        def _on_rollout_start(self) -> None:
            now = time.perf_counter()
            if self.rollout_end is not None:
                run.timing["update_s"] += now - self.rollout_end
            self.rollout_start = now

        def _on_step(self) -> bool:
            run.bar.update(self.num_timesteps)
            return True

        def _on_rollout_end(self) -> None:
            cfg, steps = run.cfg, self.num_timesteps
            run.timing["rollout_s"] += time.perf_counter() - self.rollout_start
            for name, stats in run.env.pool.report().items():
                self.logger.record(f"pool/{name}/share", stats["share"])
                if stats["finished"]:
                    self.logger.record(f"pool/{name}/win_rate", stats["win_rate"])
            tp = run.env.throughput()
            for key in ("engine_s", "opponent_s", "step_wait_s"):
                self.logger.record(f"time/env_{key}", tp[key])
            self.logger.record("time/update_s", run.timing["update_s"])
            if (
                run.env.pool.self_play
                and steps >= run.state.get("last_snapshot", 0) + cfg.snapshot_every
            ):
                run.snapshot(steps)
                run.state["last_snapshot"] = steps
            if steps >= run.state.get("last_eval", 0) + cfg.eval_every:
                run.evaluate(steps)
            self.rollout_end = time.perf_counter()

    return TrainCallback()


def prepare(cfg: Config) -> Config:
    """The settings a run will use: ``cfg``, or with ``resume`` the saved ones (new ``timesteps`` kept)."""
    out = Path(cfg.out)
    state = out / "state.json"
    if cfg.resume:
        if not state.exists():
            raise ValueError(f"--resume: {out} holds no run to resume (no state.json)")
        saved = json.loads(state.read_text(encoding="utf-8"))["config"]
        known = {f.name for f in dataclasses.fields(Config)}
        merged = Config(**{k: v for k, v in saved.items() if k in known})
        merged.timesteps, merged.resume, merged.progress, merged.out = (
            cfg.timesteps,
            True,
            cfg.progress,
            cfg.out,
        )
        return merged
    if state.exists():
        raise ValueError(
            f"{out} already holds a training run; pass --resume to continue it or choose another --out"
        )
    return cfg


def _train(run: Run) -> dict[str, Any]:
    # 1. Settings ------------------------------------------------------------------
    cfg = run.cfg = prepare(run.cfg)
    check_config(cfg)
    import torch
    from stable_baselines3.common.logger import configure

    from agents.model_io import read_model
    from agents.report import check_writable
    from train.checkpoint import export_model, load_checkpoint, load_tensors_into
    from train.curves import plot_curves
    from train.vec_env import SpeedVecEnv

    run.out = Path(cfg.out)
    check_writable(run.out)
    if cfg.resume:
        run.state = json.loads(run.state_path.read_text(encoding="utf-8"))
    run.state["config"] = asdict(cfg)

    # 2. Seeding -------------------------------------------------------------------
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    seed = cfg.seed + 1_000_003 * int(run.state.get("timesteps", 0))  # fresh deals after a resume

    # 3. Environment ---------------------------------------------------------------
    run.rules_list = parse_rules_options(cfg)
    run.env = SpeedVecEnv(
        cfg.n_envs,
        run.rules_list,
        opponent=cfg.opponent,
        reaction=cfg.reaction,
        seat=cfg.seat if cfg.seat in ("random", "alternate") else int(cfg.seat),
        tick_ms=cfg.tick_ms,
        skip_forced=cfg.skip_forced,
        skip_tail=cfg.skip_tail,
        wait_penalty=cfg.wait_penalty,
        truncation_reward=cfg.truncation_reward,
        shaping=cfg.shaping,
        seed=seed,
    )
    pool = run.env.pool
    pool.self_fraction, pool.max_snapshots = cfg.self_fraction, cfg.max_snapshots

    # 4. Model -----------------------------------------------------------------------
    model = make_model(cfg, run.env)
    model.set_logger(configure(str(run.out / "logs"), ["csv", "tensorboard"]))
    run.model = model
    run.bar = ProgressBar(cfg.timesteps, cfg.progress, start=int(run.state.get("timesteps", 0)))
    if cfg.resume:
        load_checkpoint(model, run.out / run.state["checkpoint"])
        model.num_timesteps = int(run.state["timesteps"])
        model._n_updates = int(run.state.get("n_updates", 0))
        for snap in run.state.get("snapshots", []):
            from agents.model_io import MLPPolicy

            tensors, manifest, _ = read_model(run.out / snap["path"])
            policy = MLPPolicy(
                tensors, manifest["net"]["activation"], sample=cfg.snapshot_sample, seed=cfg.seed
            )
            pool.add_snapshot(snap["name"], policy, len(run.env.groups))
        run.bar.print(f"resuming {run.out} at {model.num_timesteps:,} timesteps")
    else:
        if cfg.init_from:
            tensors, _, where = read_model(cfg.init_from)
            load_tensors_into(model, tensors, str(where))
        if cfg.init_bc:
            from train.bc import BCConfig, clone

            t0 = time.perf_counter()
            run.bar.print(f"behaviour cloning {cfg.init_bc} ({cfg.bc_decisions:,} decisions) ...")
            stats = clone(
                model,
                run.env,
                BCConfig(
                    teacher=cfg.init_bc,
                    decisions=cfg.bc_decisions,
                    epochs=cfg.bc_epochs,
                    dagger_rounds=cfg.bc_dagger,
                ),
                seed=cfg.seed,
            )
            run.timing["bc_s"] = time.perf_counter() - t0
            run.state["bc"] = stats
            run.bar.print(
                f"cloned {cfg.init_bc}: held-out agreement {100 * stats['held_out_agreement']:.1f}% "
                f"({stats['record_s']} s recording, {stats['fit_s']} s fitting)"
            )
        if pool.self_play and (cfg.init_bc or cfg.init_from):
            run.snapshot(0)  # the warm start is the pool's first snapshot
        run.state["timesteps"] = 0
        run.write_state()
        if cfg.init_bc or cfg.init_from:
            run.evaluate(0)

    # 5. Loop ------------------------------------------------------------------------
    run.env_base = (dict(run.env.timing), dict(run.env.counters))
    start_steps = model.num_timesteps
    remaining = cfg.timesteps - start_steps
    t0 = time.perf_counter()
    interrupted = False
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=_make_callback(run),
                reset_num_timesteps=False,
                progress_bar=False,
            )
    except KeyboardInterrupt:
        interrupted = True
        run.bar.print("interrupted: saving what was trained")
    wall = time.perf_counter() - t0
    steps = model.num_timesteps
    run.bar.close(steps)

    # 6. Finish ----------------------------------------------------------------------
    if run.state.get("last_eval") != steps:
        run.evaluate(steps)
    else:
        run.checkpoint(steps)
    final = export_model(model, run.out / "model", **run.model_info(steps))
    curves = plot_curves(
        run.out / "eval.csv", run.out / "curves.png", title=f"{cfg.opponent} on {cfg.rules}"
    )
    summary = {
        "model": str(final),
        "curves": str(curves) if curves else None,
        "complete": not interrupted and steps >= cfg.timesteps,
        "throughput": run.throughput(steps - start_steps, wall),
        "bc": run.state.get("bc"),
        "pool": run.env.pool.describe(),
        "last_eval": _read_last_eval(run.out / "eval.csv"),
    }
    run.state["done"] = summary["complete"]
    run.write_state()
    (run.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    run.bar.print(
        f"wrote {final} ({steps:,} timesteps, {summary['throughput']['timesteps_per_s']:,.0f} timesteps/s)"
    )
    return summary


def train(cfg: Config) -> dict[str, Any]:
    """Run the recipe (module docstring); returns the summary also written to ``out/summary.json``."""
    run = Run(cfg)
    try:
        return _train(run)
    finally:
        model = getattr(run, "model", None)
        if model is not None:
            model.logger.close()  # flush and close the CSV and TensorBoard files


def _read_last_eval(path: Path) -> list[dict[str, str]]:
    from train.curves import read_eval

    rows = read_eval(path)
    if not rows:
        return []
    last = rows[-1]["timesteps"]
    return [r for r in rows if r["timesteps"] == last]


if __name__ == "__main__":  # pragma: no cover
    os.execvp(sys.executable, [sys.executable, "-m", "speed_cli", "train", *sys.argv[1:]])
