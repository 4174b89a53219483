"""Train a Vintage Speed agent with sb3-contrib's MaskablePPO: the recipe, top to bottom.

    speed train --game vintage --players 4 --opponent vintage-greedy --timesteps 300000 --seed 0 --out runs/NAME
    python -m train.vintage_ppo --players 4 --opponent vintage-greedy --timesteps 300000 --out runs/NAME

What a run does, in order (each step is a section of :func:`train`):

1. **Settings.** Every hyperparameter is a field of :class:`VintageConfig`,
   with a docstring saying what it does (``--help`` shows them).
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
   start: ``init_bc`` clones a bot first (:func:`behaviour_clone`), and the
   clone is evaluated as the curve's first point.
5. **Loop.** ``model.learn`` with one callback: a progress bar, the rolling
   win rate and penalty of the training games (logged), and every
   ``eval_every`` timesteps an evaluation: the policy is saved (checkpoint,
   kit format) and played by the N-player tournament harness
   (:mod:`agents.vintage_tournament`) against ``players - 1`` copies of each
   ``eval_opponents`` bot, seats rotated on shared deals; rows go to
   ``eval.csv`` and ``curves.png``.
6. **Finish.** ``model.json`` + ``model.safetensors`` (the observation scale
   folded into the first layer, so the file plays raw observations:
   ``vintage-ppo:OUT/model.json``), a last evaluation, ``curves.png`` and
   ``summary.json``. Ctrl-C stops early and still writes all of it.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from train.ppo_common import PPOHyperparams, ProgressBar, check_ppo, field_help, make_model


@dataclass
class VintageConfig(PPOHyperparams):
    """Every setting of a vintage training run."""

    # ---- the run
    players: int = 4
    """Players at the table (2–10); the learner takes one seat."""
    opponent: str = "vintage-greedy"
    """Agent spec of the other seats, or a comma-separated list the seats after the learner's cycle through."""
    timesteps: int = 300_000
    """Learner decisions to train for."""
    n_envs: int = 16
    """Games played side by side (each an env of the DummyVecEnv)."""
    seed: int = 0
    """Seed of the deals, seats, opponents' generators and the network."""
    out: str = "runs/vintage_ppo"
    """Output folder: logs, checkpoints, eval.csv, curves.png, model.json/.safetensors, summary.json."""
    seat: str = "random"
    """The learner's seat: ``random`` (drawn per game) or a seat number."""
    init_bc: str | None = None
    """Warm start: behaviour-clone this vintage bot (e.g. ``vintage-tactician``), actor and critic, before PPO."""
    bc_decisions: int = 40_000
    """Teacher decisions recorded for ``init_bc``."""
    bc_epochs: int = 8
    """Passes over the recorded decisions for ``init_bc``."""
    # ---- PPO (the rest as in PPOHyperparams)
    n_steps: int = 256
    """Steps per env per rollout (rollout = n_steps * n_envs decisions)."""
    batch_size: int = 512
    """Minibatch size of the PPO update."""
    n_epochs: int = 6
    """Passes over each rollout."""
    gamma: float = 0.995
    """Discount per decision (a game is about 7–20 decisions of the learner; the reward comes at its end)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""
    # ---- evaluation
    eval_every: int = 100_000
    """Timesteps between evaluations (each also saves a checkpoint)."""
    eval_games: int = 400
    """Games per evaluation line-up (learner + players-1 copies of one bot), seats rotated per deal."""
    eval_opponents: str = "vintage-greedy,vintage-tactician"
    """The bots the learner is measured against, one line-up each."""
    eval_seed: int = 12_345
    """Seed of the evaluation deals (the same deals at every evaluation)."""
    eval_workers: int = 1
    """Processes for evaluation games."""
    progress: bool = True
    """Draw a progress bar on stderr."""


def check_config(cfg: VintageConfig) -> None:
    """Refuse settings that cannot work, with a message naming the field."""
    import agents

    check_ppo(
        cfg, ("timesteps", "eval_every", "eval_games", "eval_workers", "bc_decisions", "bc_epochs")
    )
    if isinstance(cfg.players, bool) or not 2 <= cfg.players <= 10:
        raise ValueError(f"players must be 2–10, got {cfg.players!r}")
    if cfg.seat != "random" and not (cfg.seat.isdigit() and int(cfg.seat) < cfg.players):
        raise ValueError(f"seat must be random or a seat 0–{cfg.players - 1}, got {cfg.seat!r}")
    if cfg.eval_games < cfg.players:
        raise ValueError(
            f"eval_games must be at least players ({cfg.players}): each deal is played once per seat"
        )
    for spec in [*specs(cfg.opponent), *specs(cfg.eval_opponents), *specs(cfg.init_bc or "")]:
        if not agents.parse_spec(spec).name.startswith("vintage-"):
            raise ValueError(
                f"{spec!r} plays real-time Speed; vintage opponents are vintage-random, "
                f"vintage-greedy, vintage-tactician or vintage-ppo:PATH"
            )
    if not specs(cfg.opponent):
        raise ValueError("opponent must name at least one agent spec")


def specs(text: str) -> list[str]:
    """A comma-separated list of agent specs."""
    return [s.strip() for s in text.split(",") if s.strip()]


# The flags of `speed train` (train/ppo.py's Config) that mean the same here; any other flag
# changed from its real-time default is refused with --game vintage.
SHARED_FLAGS = tuple(f.name for f in dataclasses.fields(VintageConfig) if f.name != "players")


def config_from_flags(changed: dict[str, Any], players: int | None = None) -> VintageConfig:
    """The vintage settings from ``speed train --game vintage``: the flags given (those that differ from
    the real-time recipe's defaults) over this recipe's defaults; a flag with no vintage meaning is refused."""
    foreign = sorted(k for k in changed if k not in SHARED_FLAGS)
    if foreign:
        flags = ", ".join("--" + k.replace("_", "-") for k in foreign)
        raise ValueError(
            f"{flags}: not a setting of the vintage recipe (train/vintage_ppo.py lists its settings)"
        )
    cfg = VintageConfig(**changed)
    if players is not None:
        cfg.players = players
    return cfg


def observation_scale(rules: Any) -> np.ndarray:
    """Divisors that bring each entry of the vintage observation to about [0, 1], as multipliers.

    Card counts per kind by the most copies in play, the pack by the cards in
    play, hand sizes by 10, match scores by 100, the game counter by the match
    length and the passes by the players; one-hot entries stay as they are.
    """
    from speed_env.vintage import ObservationLayout

    layout = ObservationLayout(rules.pack)
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


# ---------------------------------------------------------------------- saving and evaluating
def export(model: Any, path: Path, scale: np.ndarray, rules: Any, training: dict[str, Any]) -> Path:
    """Save the policy in the kit's format, the observation scale folded into the first layers."""
    from agents.model_io import sb3_policy_tensors
    from agents.vintage_tournament import save_vintage_model

    tensors, sizes, activation = sb3_policy_tensors(model.policy)
    # W @ (scale * x) == (W * scale) @ x: the saved network takes raw observations.
    for name in ("pi.0.weight", "vf.0.weight"):
        tensors[name] = tensors[name] * scale[None, :]
    return save_vintage_model(
        path, tensors, rules=rules, hidden=sizes, activation=activation, training=training
    )


EVAL_FIELDS = [
    "timesteps",
    "opponent",
    "games",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "mean_penalty",
    "penalty_ci_low",
    "penalty_ci_high",
    "opponent_penalty",
    "ahead_rate",
    "ahead_ci_low",
    "ahead_ci_high",
]


def evaluate(model_path: Path, cfg: VintageConfig) -> list[dict[str, Any]]:
    """The saved policy at a table with ``players - 1`` copies of each eval bot: one row per bot."""
    from agents import vintage_tournament as vt
    from agents.stats import wilson_interval

    me = f"vintage-ppo:{model_path}"
    settings = vt.VintageSettings(
        agents=(me, *specs(cfg.eval_opponents)),
        players=cfg.players,
        games=cfg.eval_games,
        seed=cfg.eval_seed,
        gauntlet=me,
    )
    results, _ = vt.run(settings, workers=cfg.eval_workers)
    summary = vt.summarise(settings, results, bootstrap=20)  # ratings are not reported here
    ahead = {m["b"]: m for m in summary["matches"] if m["a"] == me}
    ahead.update(
        {
            m["a"]: {
                **m,
                "win_rate_a": 1 - m["win_rate_a"],
                "win_rate_a_ci": [1 - m["win_rate_a_ci"][1], 1 - m["win_rate_a_ci"][0]],
            }
            for m in summary["matches"]
            if m["b"] == me
        }
    )
    rows = []
    for lu in summary["lineups"]:
        mine = next(r for r in lu["results"] if r["name"] == me)
        other = next(r for r in lu["results"] if r["name"] != me)
        lo, hi = wilson_interval(mine["wins"], mine["games"])
        m = ahead[other["name"]]
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
                "ahead_rate": round(m["win_rate_a"], 4),
                "ahead_ci_low": round(m["win_rate_a_ci"][0], 4),
                "ahead_ci_high": round(m["win_rate_a_ci"][1], 4),
            }
        )
    return rows


def append_eval(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to ``eval.csv`` (header first if the file is new)."""
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        if new:
            w.writeheader()
        w.writerows({k: r[k] for k in EVAL_FIELDS} for r in rows)


def plot_curves(eval_csv: Path, out: Path, title: str) -> Path | None:
    """Mean penalty (with 95% interval) and win rate of the learner against timesteps, per eval bot."""
    if not eval_csv.exists():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with eval_csv.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opp]
        t = [int(r["timesteps"]) for r in mine]
        pen = np.array([float(r["mean_penalty"]) for r in mine])
        lo = np.array([float(r["penalty_ci_low"]) for r in mine])
        hi = np.array([float(r["penalty_ci_high"]) for r in mine])
        line = ax1.plot(t, pen, "o-", label=f"learner vs {opp}")[0]
        ax1.fill_between(t, lo, hi, alpha=0.2, color=line.get_color())
        ax1.plot(
            t,
            [float(r["opponent_penalty"]) for r in mine],
            "--",
            color=line.get_color(),
            label=f"{opp}'s own",
        )
        ax2.plot(t, [100 * float(r["win_rate"]) for r in mine], "o-", label=f"vs {opp}")
    ax1.set(xlabel="timesteps", ylabel="mean penalty per game (fewer is better)", title=title)
    ax2.set(xlabel="timesteps", ylabel="games won (%)", title="win rate")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


# ---------------------------------------------------------------------- warm start
def behaviour_clone(
    model: Any, env: Any, teacher: str, decisions: int, epochs: int, scale: np.ndarray, seed: int
) -> dict[str, Any]:
    """Fit the policy, actor and critic, to ``teacher`` playing the learner's seat of ``env``.

    The teacher plays about ``decisions`` steps (it reads raw observations: the
    scale is undone); the actor is fitted to its actions (cross-entropy over the
    masked logits), the critic to the discounted returns it got, so PPO's first
    advantages are not noise that undoes the cloning. 5% of the games are held
    out to measure agreement. (The real-time twin is train/bc.py.)
    """
    import torch

    import agents
    from train.bc import returns_to_go

    t0 = time.perf_counter()
    bot = agents.make(teacher, seed=seed)
    n = env.num_envs
    steps = max(1, -(-decisions // n))
    obs_b = np.zeros((steps, n, scale.size), np.float32)
    mask_b = np.zeros((steps, n, env.action_space.n), np.int8)
    act_b = np.zeros((steps, n), np.int64)
    rew_b = np.zeros((steps, n), np.float32)
    done_b = np.zeros((steps, n), bool)
    obs = env.reset()
    for t in range(steps):
        mask = np.stack(env.env_method("action_masks"))
        act = bot.act(np.rint(obs / scale).astype(np.float32), mask)
        obs_b[t], mask_b[t], act_b[t] = obs, mask, act
        obs, rew_b[t], done_b[t], _ = env.step(act)
    # Steps of a game still running at the end are dropped (their return is unknown).
    ret, known, game = returns_to_go(rew_b, done_b, model.gamma)
    keep = known.reshape(-1)
    obs_t = torch.as_tensor(obs_b.reshape(-1, scale.size)[keep])
    mask_a = mask_b.reshape(-1, mask_b.shape[-1])[keep]
    act_t = torch.as_tensor(act_b.reshape(-1)[keep])
    ret_t = torch.as_tensor(ret.reshape(-1)[keep])
    game = game.reshape(-1)[keep]
    record_s = time.perf_counter() - t0

    rng = np.random.default_rng(seed)
    games = np.unique(game)
    held = np.isin(game, rng.choice(games, size=max(1, len(games) // 20), replace=False))
    train_idx, test_idx = np.flatnonzero(~held), np.flatnonzero(held & (mask_a.sum(axis=1) >= 2))
    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    for _ in range(epochs):
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), 1024):
            b = train_idx[start : start + 1024]
            values, log_prob, _ = policy.evaluate_actions(
                obs_t[b], act_t[b], action_masks=mask_a[b]
            )
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), ret_t[b])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        dist = policy.get_distribution(obs_t[test_idx], action_masks=mask_a[test_idx])
        pred = dist.distribution.probs.argmax(dim=1).numpy()
    return {
        "teacher": teacher,
        "recorded_decisions": int(keep.sum()),
        "held_out_agreement": float((pred == act_t[test_idx].numpy()).mean())
        if len(test_idx)
        else float("nan"),
        "record_s": round(record_s, 2),
        "fit_s": round(time.perf_counter() - t0 - record_s, 2),
    }


def _callback(run: dict[str, Any]) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainCallback(BaseCallback):
        """Progress bar, rolling training-game results, periodic evaluation."""

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done and "penalty" in info:
                    run["recent"].append((info["winner"] == info["seat"], info["penalty"]))
            run["bar"].update(self.num_timesteps)
            return True

        def _on_rollout_end(self) -> None:
            if run["recent"]:
                won, pen = zip(*run["recent"], strict=True)
                self.logger.record("train_games/win_rate", float(np.mean(won)))
                self.logger.record("train_games/mean_penalty", float(np.mean(pen)))
            if self.num_timesteps >= run["last_eval"] + run["cfg"].eval_every:
                run["evaluate"](self.num_timesteps)

    return TrainCallback()


# ---------------------------------------------------------------------- the run
def train(cfg: VintageConfig) -> dict[str, Any]:
    """Run the recipe (module docstring); returns the summary also written to ``out/summary.json``."""
    # 1. Settings ------------------------------------------------------------------
    check_config(cfg)
    out = Path(cfg.out)
    if (out / "model.json").exists() or (out / "summary.json").exists():
        raise ValueError(f"{out} already holds a trained model; choose another --out")
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    import agents
    from agents.report import check_writable
    from speed_env.vintage import make_rules
    from speed_env.vintage.single import VintageSingleEnv

    check_writable(out)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n", encoding="utf-8")

    # 2. Seeding -------------------------------------------------------------------
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)

    # 3. Environment ---------------------------------------------------------------
    rules = make_rules(cfg.players, 1)
    scale = observation_scale(rules)
    opp_specs = specs(cfg.opponent)

    def make_env(i: int) -> Any:
        def build() -> Any:
            opponents = [
                agents.make(opp_specs[k % len(opp_specs)], seed=cfg.seed * 1000 + i * 10 + k)
                for k in range(cfg.players - 1)
            ]
            seat: int | str = "random" if cfg.seat == "random" else int(cfg.seat)
            return Monitor(
                VintageSingleEnv(cfg.players, opponents=opponents, seat=seat, obs_scale=scale)
            )

        return build

    env = DummyVecEnv([make_env(i) for i in range(cfg.n_envs)])

    # 4. Model -----------------------------------------------------------------------
    model = make_model(cfg, env)
    model.set_logger(configure(str(out / "logs"), ["csv"]))
    bar = ProgressBar(cfg.timesteps, cfg.progress)
    eval_s = 0.0

    def training_notes(steps: int) -> dict[str, Any]:
        return {
            "timesteps": steps,
            "opponent": cfg.opponent,
            "players": cfg.players,
            "seed": cfg.seed,
            "recipe": "train/vintage_ppo.py",
            "config": asdict(cfg),
        }

    def evaluate_now(steps: int) -> list[dict[str, Any]]:
        nonlocal eval_s
        t0 = time.perf_counter()
        path = export(
            model, out / "checkpoints" / f"step_{steps:09d}", scale, rules, training_notes(steps)
        )
        rows = evaluate(path, cfg)
        for row in rows:
            row["timesteps"] = steps
            model.logger.record(f"eval/{row['opponent']}/mean_penalty", row["mean_penalty"])
            model.logger.record(f"eval/{row['opponent']}/win_rate", row["win_rate"])
        append_eval(out / "eval.csv", rows)
        plot_curves(
            out / "eval.csv",
            out / "curves.png",
            f"{cfg.players} players, trained vs {cfg.opponent}",
        )
        run["last_eval"], run["last_rows"] = steps, rows
        eval_s += time.perf_counter() - t0
        bar.print(
            f"eval @ {steps:,}: "
            + "  ".join(
                f"vs {r['opponent']}: penalty {r['mean_penalty']:.2f} [{r['penalty_ci_low']:.2f}, {r['penalty_ci_high']:.2f}]"
                f" (theirs {r['opponent_penalty']:.2f}), won {100 * r['win_rate']:.1f}%"
                for r in rows
            )
        )
        bar.note = " ".join(
            f"{r['opponent'].removeprefix('vintage-')[:6]} {r['mean_penalty']:.1f}" for r in rows
        )
        return rows

    run: dict[str, Any] = {
        "cfg": cfg,
        "bar": bar,
        "last_eval": 0,
        "last_rows": [],
        "evaluate": evaluate_now,
        "recent": deque(maxlen=2000),
    }
    bc_stats = None
    if cfg.init_bc:
        bar.print(f"behaviour cloning {cfg.init_bc} ({cfg.bc_decisions:,} decisions) ...")
        bc_stats = behaviour_clone(
            model, env, cfg.init_bc, cfg.bc_decisions, cfg.bc_epochs, scale, cfg.seed
        )
        bar.print(
            f"cloned {cfg.init_bc}: held-out agreement {100 * bc_stats['held_out_agreement']:.1f}% "
            f"({bc_stats['record_s']} s recording, {bc_stats['fit_s']} s fitting)"
        )
        evaluate_now(0)

    # 5. Loop ------------------------------------------------------------------------
    t0 = bar.t0 = time.perf_counter()
    eval_before = eval_s
    interrupted = False
    try:
        model.learn(total_timesteps=cfg.timesteps, callback=_callback(run), progress_bar=False)
    except KeyboardInterrupt:
        interrupted = True
        bar.print("interrupted: saving what was trained")
    wall = time.perf_counter() - t0
    train_s = wall - (eval_s - eval_before)  # evaluations inside the loop are not training
    steps = int(model.num_timesteps)
    bar.close(steps)

    # 6. Finish ----------------------------------------------------------------------
    last = evaluate_now(steps) if run["last_eval"] != steps else run["last_rows"]
    final = export(model, out / "model", scale, rules, training_notes(steps))
    summary = {
        "model": str(final),
        "play_with": f"vintage-ppo:{final}",
        "complete": not interrupted and steps >= cfg.timesteps,
        "timesteps": steps,
        "wall_s": round(wall, 2),
        "timesteps_per_s": round(steps / max(train_s, 1e-9), 1),
        "eval_s": round(eval_s, 2),
        "bc": bc_stats,
        "last_eval": last,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    model.logger.close()
    env.close()
    bar.print(
        f"wrote {final} ({steps:,} timesteps, {summary['timesteps_per_s']:,.0f} timesteps/s of training)"
    )
    return summary


# ---------------------------------------------------------------------- command line
def parser() -> argparse.ArgumentParser:
    """One flag per field of :class:`VintageConfig`, its docstring as the help."""
    p = argparse.ArgumentParser(
        prog="python -m train.vintage_ppo", description=__doc__.split("\n\n")[0]
    )
    helps = field_help(VintageConfig)
    for f in dataclasses.fields(VintageConfig):
        flag = "--" + f.name.replace("_", "-")
        kind = str(f.type)
        if kind == "bool":
            p.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=f.default, help=helps[f.name]
            )
            continue
        convert = {
            "int": int,
            "float": float,
            "str": str,
            "str | None": str,
            "float | None": float,
        }[kind]
        p.add_argument(
            flag, type=convert, default=f.default, help=f"{helps[f.name]} (default {f.default})"
        )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Train from the command line; bad settings print one line and return 2."""
    args = parser().parse_args(argv)
    try:
        summary = train(VintageConfig(**vars(args)))
    except (ValueError, OSError) as exc:
        print(f"vintage_ppo: error: {exc}", file=sys.stderr)
        return 2
    return 0 if summary["complete"] else 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
