"""Train a real-time Speed agent with sb3-contrib's MaskablePPO: the recipe, top to bottom.

    python -m train.ppo --rules japanese --opponent greedy --timesteps 2000000 --out runs/NAME
    speed train realtime --rules japanese --opponent greedy ...     (the same flags)

What a run does, in order (each step is a section of :func:`train`; steps 1 and 2, the
same in both recipes, are :func:`train.common.run.run_recipe`'s):

1. **Settings.** Every setting is a field of :class:`Config` (the flags are
   made from it, help text and all; the shared ones are in
   :mod:`train.common.settings`). ``--resume`` takes the saved settings of the run in
   ``--out`` and continues it.
2. **Seeding.** One seed: the envs' deals and seat draws, the opponents'
   generators, torch and the evaluation deals (a fixed ``eval_seed``, so every
   point of the curve plays the same deals).
3. **Environment.** :class:`~train.vec_env.env.SpeedVecEnv`: ``n_envs`` games on
   the batched engine, the learner in a seat drawn per game, the opponent
   drawn per game from ``--opponent`` (a bot, a mix, or ``self`` for a
   self-play pool of the learner's snapshots and the bots). One timestep is one
   *decision* of the learner: the ticks where it can only wait are played by
   the env (see its docstring).
4. **Model.** MaskablePPO with an MLP actor and critic (``--policy rankwise``: the
   rank-relative actor of :mod:`train.policy.rankwise_policy`), its rollouts collected by the lean
   loop of :mod:`train.policy.rollout` (``--rollout sb3``: MaskablePPO's own). Optional warm
   starts: ``--init-bc chain`` clones a bot first (:mod:`train.bc`), ``--init-from
   PATH`` starts from a saved model.
5. **Loop.** ``model.learn`` (:class:`~train.common.run.Run`): the progress bar,
   self-play snapshots, and every ``eval_every`` timesteps a checkpoint played
   against the gauntlet on paired deals (``agents.tournament.realtime``, as
   ``ppo:PATH``); logs (TensorBoard and CSV under ``out/logs``; ``eval.csv``;
   the pool's make-up in ``pool.json``).
6. **Finish.** The final model first (``model.json`` + ``model.safetensors``),
   then ``summary.json``, a last evaluation and ``curves.png`` (the summary
   holds the throughput split into env, opponents, policy forward, updates
   and evaluations, and the kit's share of it: everything but the updates,
   with and without the evaluations; also printed), and the ``speed
   tournament`` command that plays the model against the bots (``--players 3|4``:
   :mod:`train.party_ppo`). Ctrl-C or an
   exception stops early and still writes the model and a summary that says
   why (:class:`~train.common.run.Run`). The run holds ``--out``'s lock throughout.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from train.common.curves import Panel
from train.common.settings import RunSettings, check_ppo, recipe_main, specs, weighted
from train.common.think import check_think
from train.common.warm_start import stop_warm_start

__all__ = [
    "Config",
    "check_config",
    "chosen_policy",
    "main",
    "tournament_command",
    "train",
    "verdict",
]


@dataclass
class Config(RunSettings):
    """Every setting of a real-time training run (``python -m train.ppo --help`` lists them)."""

    rules: str = "us"
    """Rules preset(s) to train on; several, comma-separated (``japanese,us``), split the envs
    evenly."""
    players: int = 2
    """Seats at every table: 2, 3 or 4 (Party Speed: bots or snapshots of the learner in the other
    seats, the policy over the n-seat observation, evaluated at bot tables: train/party_ppo.py)."""
    bc_dagger: int = 0
    """DAgger rounds for ``init_bc`` (the clone plays, the teacher labels, the fit continues)."""
    init_from: str | None = None
    """Warm start from a saved kit model (``.json``) of the same net_arch."""
    policy: str = "auto"
    """The actor: ``rankwise`` (one MLP shared by every play, over the observation re-indexed
    relative to its rank and pile: agents/model_io/rankwise.py), ``mlp`` (an MLP over the
    observation), or ``auto``: rankwise where the rules allow it (13 wrap-around ranks, plain
    plays), else mlp."""
    # ---- the environment
    tick_ms: int = 50
    """Length of a tick in ms."""
    reaction: str = "human"
    """Reaction profile of both seats (ms or a preset name); a bot spec's ``@profile`` overrides
    its seat."""
    think: str | None = None
    """Charge the opponents' thinking on their seats, in training and evaluations: off (what each
    declares: @think=MS, search's ms_per_world), declared (one declaring nothing is refused) or
    calibrated (timed once, kept in OUT/think.json); not measured. The learner pays nothing."""
    think_file: str | None = None
    """With think calibrated: charge the costs recorded in this file (a run's think.json)."""
    options: str = ""
    """Rule overrides for training and evaluation, ``KEY=VALUE`` joined by commas
    (``wrap=false,max_game_ms=60000``)."""
    skip_forced: bool = True
    """Play the learner's forced waits inside the env, so a timestep is a real decision."""
    skip_tail: float = 0.05
    """End a step once at most this share of games still waits (those few show a forced state)."""
    wait_penalty: float = 0.0
    """Training reward per decision where the learner waits holding a legal play. Not needed
    against stalling since the idle rule (``idle_flip_ms``) makes a waiting seat lose; the
    bundled agent used 0.01."""
    truncation_reward: float = -1.0
    """Training reward of a game cut at max_game_ms (a stalled game counts as lost, not drawn)."""
    shaping: float = 0.0
    """Potential-based shaping: this times the learner's lead in cards left (1/27 a card); sums
    to 0 per game."""
    # ---- self-play (``--opponent self``)
    self_fraction: float = 0.5
    """With ``--opponent self``: share of games against snapshots of the learner (the rest: the
    bots)."""
    snapshot_every: int = 500_000
    """With ``--opponent self``: timesteps between snapshots added to the pool."""
    max_snapshots: int = 8
    """With ``--opponent self``: newest snapshots drawn from (older ones retire)."""
    snapshot_sample: bool = True
    """Snapshots sample from their policy (True) instead of playing its argmax."""
    # ---- defaults of this recipe (measured: docs/training.md, docs/research/selfplay.md)
    opponent: str = "self"
    """Opponent: an agent spec, a comma-separated mix (per game; ``chain*3`` weights one), or
    ``self``: a pool of the learner's own snapshots (``self_fraction`` of the games) and the
    bots random, greedy and chain (``self,chain``: with the bots listed)."""
    ent_coef: float = 0.003
    """Entropy bonus."""
    eval_every: int = 500_000
    """Timesteps between evaluations (each also writes a checkpoint)."""
    net_arch: str = "64,64"
    """Hidden layer sizes of the actor and of the critic (separate networks). 64,64 learns as
    fast per timestep as 128,128 and 256,256 here, at a fraction of the update's cost."""
    eval_opponents: str = "greedy,chain"
    """The bots the learner is measured against, one line-up each (``random`` is beaten from
    the first evaluation on and only costs time)."""


def check_config(cfg: Config) -> None:
    """Refuse settings that cannot work, with a message naming the field or the agent."""
    import agents
    from train.party_ppo import check_party, party_rules
    from train.vec_env.pool import agents_met

    check_ppo(cfg, ("snapshot_every", "max_snapshots", "tick_ms"))
    check_party(cfg)
    if cfg.bc_dagger < 0:
        raise ValueError(f"bc_dagger must be >= 0, got {cfg.bc_dagger!r}")
    if cfg.seat not in ("random", "alternate", "0", "1"):
        raise ValueError(f"seat must be random, alternate, 0 or 1, got {cfg.seat!r}")
    if cfg.policy not in ("auto", "mlp", "rankwise"):
        raise ValueError(f"policy must be auto, mlp or rankwise, got {cfg.policy!r}")
    if cfg.policy == "rankwise":
        from agents.model_io.rankwise import check_rules

        for rules in parse_rules_options(cfg):
            check_rules(rules, "--policy rankwise")
    parse_rules_options(cfg)
    if cfg.eval_games < 2:
        raise ValueError("eval_games must be at least 2 (each deal is played twice)")
    bots = [weighted(s)[0] for s in specs(cfg.opponent) if s != "self"]
    for spec in [*bots, *specs(cfg.eval_opponents), *specs(cfg.init_bc)]:
        agents.parse_spec(spec)  # an unknown agent fails here, before any work
    if cfg.players == 2 and cfg.init_from and not cfg.resume:  # before any work: its network
        from train.common.sizes import hidden
        from train.common.warm_start import check_warm_start

        check_warm_start(cfg.init_from, chosen_policy(cfg), hidden(cfg), "init_from")
    seated = party_rules(cfg) if cfg.players > 2 else parse_rules_options(cfg)[0]
    check_think(
        cfg.think or "off", cfg.think_file, agents_met(cfg.opponent, cfg.eval_opponents), seated
    )


def chosen_policy(cfg: Config) -> str:
    """The actor ``cfg.policy`` names: ``auto`` is ``rankwise`` where every rules preset trained
    on allows it, else ``mlp`` (:func:`train.party_ppo.auto_actor`, the rule at every table)."""
    from train.party_ppo import auto_actor

    return auto_actor(cfg.policy, lambda: parse_rules_options(cfg))


def parse_rules_options(cfg: Config) -> list[Any]:
    """The Rules to train on: each preset of ``rules`` with ``options`` applied (checked)."""
    from train.vec_env.env import parse_rules_list

    return parse_rules_list(cfg.rules, **rule_options(cfg))


def rule_options(cfg: Config) -> dict[str, Any]:
    """``options`` (KEY=VALUE pairs joined by commas) as typed rule overrides."""
    from speed_env.rules import parse_overrides

    return parse_overrides(filter(None, (p.strip() for p in cfg.options.split(","))), "options")


# ---------------------------------------------------------------------- evaluation
EVAL_FIELDS = (
    *("timesteps", "rules", "opponent", "games", "wins", "losses", "draws"),
    *("win_rate", "ci_low", "ci_high", "wall_s"),
)
PANELS = (
    Panel("win_rate", "win rate % (paired deals, 95% CI)", ("ci_low", "ci_high"), percent=True),
)


def score(
    model_path: Path, cfg: Config, rules_list: Sequence[Any], think: Any = None
) -> list[dict[str, Any]]:
    """The saved policy against each gauntlet bot on paired deals, per rules preset: a row each
    (``think``: the bots' thinking charged as in training; ``None``: off)."""
    from agents.stats import wilson_interval
    from agents.tournament import realtime
    from speed_env.reaction import make_profile
    from train.common.think import charging_nothing_to

    spec = f"ppo:{model_path}"
    rows: list[dict[str, Any]] = []
    for rules in rules_list:
        t0 = time.perf_counter()
        settings = realtime.Settings(
            agents=(spec, *specs(cfg.eval_opponents)),
            games=cfg.eval_games,
            rules=rules,
            reaction=make_profile(cfg.reaction),
            tick_ms=cfg.tick_ms,
            seed=cfg.eval_seed,
            gauntlet=spec,
            think=charging_nothing_to(think, [spec]),
        )
        results, complete = realtime.run(settings, workers=cfg.eval_workers)
        if not complete:  # Ctrl-C (or SIGTERM) stopped the games: a score on fewer is not kept
            raise KeyboardInterrupt
        for k, (_, j) in enumerate(settings.pairings()):
            mine = [r for r in results if r.chunk.lineup == k]
            wins, losses, draws = (
                sum(getattr(r, f) for r in mine) for f in ("wins_a", "wins_b", "draws")
            )
            games = wins + losses + draws
            # A draw counts half a win.
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


def report(rows: list[dict[str, Any]]) -> Any:
    """How an evaluation reads: each line-up's win rate and interval (greedy, chain: the note)."""
    from train.common.run import Report

    line = "  ".join(
        f"{r['rules']}/{r['opponent']} {100 * r['win_rate']:.1f}% "
        f"[{100 * r['ci_low']:.0f},{100 * r['ci_high']:.0f}]"
        for r in rows
    )
    main = [r for r in rows if r["opponent"] in ("greedy", "chain")] or rows
    note = " ".join(f"{r['opponent'][:6]} {100 * r['win_rate']:.0f}%" for r in main[:4])
    scalars = {f"eval/{r['rules']}/{r['opponent']}": r["win_rate"] for r in rows}
    return Report(line, note, scalars)


# ---------------------------------------------------------------------- the recipe
def train(cfg: Config) -> dict[str, Any]:
    """Run the recipe (module docstring) in ``cfg.out``; the summary (``out/summary.json``)."""
    from train.common.run import run_recipe
    from train.common.think import refuse_another_think

    if cfg.resume:  # a thinking named must be the run's own
        refuse_another_think(cfg, Path(cfg.out))
    elif cfg.think is None:
        cfg = replace(cfg, think="off")
    return run_recipe(cfg, check_config, _train)


def _train(cfg: Config, folder: Any, seed: int) -> dict[str, Any]:
    # 1. Settings, 2. Seeding: run_recipe's (checked, saved in the locked folder, torch seeded)
    if cfg.players > 2:  # tables of three or four: their own env, model and evaluation
        from train.party_ppo import train_party

        return train_party(cfg, folder, seed)
    import agents
    from agents.model_io.kit_model import read_model
    from train import bc
    from train.common.run import Curves, Run
    from train.common.settings import make_model
    from train.common.snapshots import saved_snapshots, take_snapshot
    from train.common.think import charge_once
    from train.common.throughput import throughput
    from train.policy.checkpoint import export_model, load_tensors_into
    from train.vec_env.env import SpeedVecEnv
    from train.vec_env.pool import OpponentPool, agents_met

    state = folder.state

    # 3. Environment ---------------------------------------------------------------
    rules_list = parse_rules_options(cfg)
    # The opponents' thinking: one plan for the training pool and for every evaluation.
    plan, thinking = charge_once(
        cfg, agents_met(cfg.opponent, cfg.eval_opponents), rules_list[0], folder
    )
    env = SpeedVecEnv(
        cfg.n_envs,
        rules_list,
        opponent=OpponentPool.from_spec(cfg.opponent, rules_list, seed=seed, think=plan),
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
    pool = env.pool
    pool.self_fraction, pool.max_snapshots = cfg.self_fraction, cfg.max_snapshots

    def save(path: Path, steps: int) -> Path:
        """The model in the kit's format, with what its manifest records about training."""
        reaction = {"learner": env.reactions[0].label(), "opponent": env.reactions[1].label()}
        training = {
            "timesteps": steps,
            "opponent": cfg.opponent,
            "rules": cfg.rules,
            "seed": cfg.seed,
            "init_bc": cfg.init_bc,
            "skip_forced": cfg.skip_forced,
            "think": thinking,
            "config": asdict(cfg),
        }
        # every rules it trains under: the model plays only those
        return export_model(
            run.model,
            path,
            rules=rules_list,
            reaction=reaction,
            tick_ms=cfg.tick_ms,
            training=training,
        )

    curves = Curves(EVAL_FIELDS, PANELS, f"{cfg.opponent} on {cfg.rules}", split="rules")
    run = Run(
        cfg,
        folder,
        curves,
        save=save,
        score=lambda path: score(path, cfg, rules_list, plan),
        report=report,
    )

    def snapshot(steps: int) -> None:
        """Add a frozen copy of the learner to the self-play pool (saved for resuming)."""
        name, policy = take_snapshot(run, save, state, steps, cfg.snapshot_sample, cfg.seed)
        pool.add_snapshot(name, policy, len(env.groups))

    def on_rollout_end(steps: int, logger: Any) -> None:
        for name, stats in pool.report().items():
            logger.record(f"pool/{name}/share", stats["share"])
            if stats["finished"]:
                logger.record(f"pool/{name}/win_rate", stats["win_rate"])
        tp = env.throughput()
        for key in ("engine_s", "opponent_s", "step_wait_s"):
            logger.record(f"time/env_{key}", tp[key])
        if pool.self_play and steps >= state.get("last_snapshot", 0) + cfg.snapshot_every:
            snapshot(steps)
        folder.write_json("pool.json", pool.describe())

    run.on_rollout_end = on_rollout_end

    # 4. Model -----------------------------------------------------------------------
    actor = chosen_policy(cfg)
    run.attach(make_model(cfg, env, policy=actor), ("csv", "tensorboard"))
    if actor != cfg.policy:
        run.bar.print(f"--policy auto: the {actor} actor (rules {cfg.rules})")
    try:
        if cfg.resume:
            run.resume(seed)
            for name, frozen in saved_snapshots(run.out, state, cfg.snapshot_sample, cfg.seed):
                pool.add_snapshot(name, frozen, len(env.groups))
        else:
            try:
                if cfg.init_from:
                    tensors, _, where = read_model(cfg.init_from)
                    load_tensors_into(run.model, tensors, str(where))
                if cfg.init_bc:
                    spec = cfg.init_bc

                    def teachers(seed: int) -> list[tuple[int, int, Any]]:
                        # one bot per rules preset, over that preset's slots
                        groups = zip(env.groups, env.rules_list, strict=True)
                        return [
                            (g.lo, g.hi, agents.make(spec, rules, seed=seed + k))
                            for k, (g, rules) in enumerate(groups)
                        ]

                    bc.warm_start(run, env, teachers, dagger_rounds=cfg.bc_dagger)
                if pool.self_play and (cfg.init_bc or cfg.init_from):
                    snapshot(0)  # the warm start is the pool's first snapshot
                state["timesteps"] = 0
                folder.write_state()
                if cfg.init_bc or cfg.init_from:
                    run.evaluate(0)
            # No loop to catch it yet: the summary says where it stopped, as PPO's Ctrl-C does.
            except KeyboardInterrupt as exc:
                return stop_warm_start(run, exc, think=thinking)

        # 5. Loop ------------------------------------------------------------------------
        env_base = (dict(env.timing), dict(env.counters))
        start, steps, wall, stopped = run.learn()

        # 6. Finish (the model first) ------------------------------------------------------
        summary = run.finish(
            steps,
            stopped,
            throughput=throughput(run, env, env_base, steps - start, wall),
            pool=pool.describe(),
            think=thinking,
            next=tournament_command(cfg, run.out / "model.json"),
        )
        folder.write_json("pool.json", pool.describe())
    finally:
        run.close()
    run.say_done(summary, verdict(summary.get("last_eval") or []), "pit it against the bots")
    return summary


def verdict(rows: Sequence[dict[str, Any]]) -> str:
    """An evaluation's rows in words: each line-up's win rate, interval and verdict (beats the
    bot: the interval's low end above 50%; at its level: the interval holds 50%; else below)."""
    said = []
    for r in rows:
        lo, hi, rate = (100 * float(r[k]) for k in ("ci_low", "ci_high", "win_rate"))
        how = "beats it" if lo > 50 else "at its level" if hi >= 50 else "below it"
        said.append(f"{r['rules']}/{r['opponent']} {rate:.1f}% [{lo:.1f}, {hi:.1f}] ({how})")
    return "; ".join(said)


def tournament_command(cfg: Config, model: Path) -> str:
    """The ``speed tournament`` that plays the model against the evaluation bots, under the
    rules (the first preset of several), options, tick and reaction it trained with."""
    import shlex

    spec = f"ppo:{model}"
    argv = ["speed", "tournament", "--rules", specs(cfg.rules)[0]]
    for option in specs(cfg.options):
        argv += ["--option", option]
    if cfg.tick_ms != Config.tick_ms:
        argv += ["--tick-ms", str(cfg.tick_ms)]
    if cfg.reaction != Config.reaction:
        argv += ["--reaction", cfg.reaction]
    argv += ["--agents", ",".join([spec, *specs(cfg.eval_opponents)]), "--gauntlet", spec]
    argv += ["--games", "400", "--out", str(model.parent / "tournament")]
    return shlex.join(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.ppo``: the flags (``--help``), then :func:`train`."""
    return recipe_main(Config, train, argv, prog="python -m train.ppo", description=__doc__ or "")


if __name__ == "__main__":  # pragma: no cover
    from agents.runtime.entry import run_main  # a reader gone from stdout: 141, as speed's

    raise SystemExit(run_main(main))
