"""The real-time recipe at tables of three or four (``speed train realtime --players 4``).

    speed train realtime --players 4 --opponent greedy --timesteps 300000 --out runs/party4

The steps of :mod:`train.ppo` (its settings, seeding, run folder, loop and finish), with:

- **Environment.** :class:`~train.vec_env.party_env.PartyVecEnv`: the learner in a seat drawn
  per game, each other seat drawn per game from ``--opponent``: a bot, a mix of bots, or
  ``self`` (snapshots of the learner every ``snapshot_every`` timesteps, ``self_fraction`` of
  the seats, the rest bots). It learns from the game's reward alone, or starts warm:
  ``--init-from`` a saved model of the same seats, rules and network, ``--init-bc chain``
  (cloning a bot that plays n seats, :mod:`train.bc`). ``--think declared`` refuses an
  opponent or evaluation bot that declares no thinking cost; ``off`` and ``declared`` both
  charge what each declares (``chain@think=5ms``), ``calibrated`` what each is timed at on
  decision states of the run's seat count (``OUT/think.json``, or ``--think-file`` of as many
  seats), in training and in the evaluations alike; the learner is charged nothing.
- **Model.** MaskablePPO over the n-seat observation, its actor chosen as at two seats
  (``--policy auto``: the rank-relative actor of :mod:`train.policy.rankwise_policy` where
  the rules allow it, 13 wrap-around ranks and plain plays, else an MLP), the critic an MLP;
  the model file's rules record ``players``, so ``ppo:OUT/model.json`` plays at tables of
  that many seats and is refused at any other.
- **Evaluation.** Every ``eval_every`` timesteps the checkpoint sits at a table of
  ``players - 1`` copies of each evaluation bot, over shared deals with seat rotation
  (:mod:`agents.tournament.party`): its win share and the clustered 95% interval, against the
  fair share ``1 / players``; ``eval.csv`` and ``curves.png`` as for two seats.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from train.common.curves import Panel
from train.common.settings import specs
from train.common.warm_start import stop_warm_start

SEATS = (3, 4)
"""The seat counts this branch trains at (two seats: :mod:`train.ppo` itself)."""

EVAL_FIELDS = (
    *("timesteps", "rules", "opponent", "games", "wins", "losses", "draws"),
    *("win_rate", "ci_low", "ci_high", "fair_share", "wall_s"),
)
PANELS = (
    Panel("win_rate", "win share % (shared deals, 95% CI)", ("ci_low", "ci_high"), percent=True),
)


def check_party(cfg: Any) -> None:
    """Refuse, naming the field, what the n-seat branch cannot do."""
    if cfg.players not in (2, *SEATS):
        raise ValueError(f"players must be 2, 3 or 4, got {cfg.players!r}")
    if cfg.players == 2:
        return
    at = f"at --players {cfg.players}"
    if cfg.seat != "random":
        raise ValueError(f"seat: {at} the learner's seat is drawn per game (random)")
    if cfg.rollout != "lean" or not cfg.skip_forced or cfg.shaping or cfg.wait_penalty:
        raise ValueError(f"rollout, skip_forced, shaping and wait_penalty keep their defaults {at}")
    if len(specs(cfg.rules)) != 1:
        raise ValueError(f"rules: {at} train on one preset, got {cfg.rules!r}")
    if cfg.init_from and not cfg.resume:  # before any work: its seats, rules and network
        from train.common.sizes import hidden
        from train.common.warm_start import check_start_model

        actor = party_actor(cfg)
        check_start_model(cfg.init_from, party_rules(cfg), actor, hidden(cfg), "init_from")
    if cfg.init_bc and not cfg.resume:  # the teacher must play this many seats: built once now
        import agents

        try:
            agents.make(cfg.init_bc, party_rules(cfg), seed=0)
        except ValueError as exc:
            raise ValueError(f"init_bc: {cfg.init_bc} cannot teach {at}: {exc}") from None


def party_actor(cfg: Any) -> str:
    """The actor ``cfg.policy`` names at this table (:func:`auto_actor`)."""
    return auto_actor(cfg.policy, lambda: [party_rules(cfg)])


def auto_actor(policy: str, rules: Callable[[], Iterable[Any]]) -> str:
    """The actor ``policy`` names for a run on the rules values ``rules()`` returns.

    ``auto`` is ``rankwise`` where every one of them allows it (13 wrap-around ranks, plain
    plays), else ``mlp``; any other name is itself. ``rules`` is called only for ``auto``, so a
    named actor reads no rules. Both recipes ask it: two seats (:func:`train.ppo.chosen_policy`)
    and this one.
    """
    if policy != "auto":
        return str(policy)
    from agents.model_io.rankwise import check_rules
    from agents.model_io.tensor_file import ModelFormatError

    try:
        for each in rules():
            check_rules(each)
    except ModelFormatError:
        return "mlp"
    return "rankwise"


def party_rules(cfg: Any) -> Any:
    """The one rules value of the run, seating ``cfg.players``."""
    from speed_env.rules import parse_overrides
    from train.vec_env.env import parse_rules_list

    # train.ppo's rule_options, read here too: that module imports this one
    options = parse_overrides(filter(None, (p.strip() for p in cfg.options.split(","))), "options")
    (rules,) = parse_rules_list(cfg.rules, **{**options, "players": cfg.players})
    return rules


def score(model_path: Path, cfg: Any, rules: Any, think: Any = None) -> list[dict[str, Any]]:
    """The saved policy at a table of ``players - 1`` copies of each evaluation bot: a row each
    (its win share over shared deals, every seat in turn, and the clustered interval; ``think``:
    the bots' thinking charged as in training, the policy charged nothing)."""
    import numpy as np

    from agents.tournament import party
    from speed_env.reaction import make_profile
    from train.common.think import charging_nothing_to

    spec = f"ppo:{model_path}"
    t0 = time.perf_counter()
    settings = party.PartySettings(
        agents=(spec, *specs(cfg.eval_opponents)),
        rules=rules,
        games=cfg.eval_games,
        reaction=make_profile(cfg.reaction),
        tick_ms=cfg.tick_ms,
        seed=cfg.eval_seed,
        gauntlet=spec,
        think=charging_nothing_to(think, [spec]),
    )
    results, complete = party.run(settings, workers=cfg.eval_workers)
    if not complete:  # Ctrl-C (or SIGTERM) stopped the games: a score on fewer is not kept
        raise KeyboardInterrupt
    table = party.game_table(settings, results)
    rows = []
    for li, lineup in enumerate(settings.lineups()):
        mine = party.agent_rows(table, len(settings.agents), np.array([li]))[0]
        others = [a for a in lineup if a != 0]
        sel = table.lineup == li
        draws = int((table.winner[sel] < 0).sum())
        lo, hi = mine["win_share_ci"]
        rows.append(
            {
                "rules": rules.preset,
                "opponent": settings.agents[others[0]],
                "games": mine["games"],
                "wins": mine["wins"],
                "losses": mine["games"] - mine["wins"] - draws,
                "draws": draws,
                "win_rate": round(mine["win_share"], 4),
                "ci_low": round(lo, 4),
                "ci_high": round(hi, 4),
                "fair_share": round(1.0 / rules.players, 4),
            }
        )
    wall = round(time.perf_counter() - t0, 2)
    for row in rows:
        row["wall_s"] = wall
    return rows


def verdict(rows: list[dict[str, Any]]) -> str:
    """An evaluation's rows in words: win share, interval, and how it stands to the fair share."""
    said = []
    for r in rows:
        lo, hi, rate, fair = (
            100 * float(r[k]) for k in ("ci_low", "ci_high", "win_rate", "fair_share")
        )
        how = "above" if lo > fair else "at" if hi >= fair else "below"
        table = f"{r['rules']}/{r['opponent']} x{round(100 / fair) - 1}"
        said.append(f"{table} {rate:.1f}% [{lo:.1f}, {hi:.1f}] ({how} the fair {fair:.0f}%)")
    return "; ".join(said)


def report(rows: list[dict[str, Any]]) -> Any:
    """How an evaluation reads (the bar's note: each line-up's share)."""
    from train.common.run import Report

    note = " ".join(f"{r['opponent'][:6]} {100 * r['win_rate']:.0f}%" for r in rows[:4])
    scalars = {f"eval/{r['rules']}/{r['opponent']}": r["win_rate"] for r in rows}
    return Report(verdict(rows), note, scalars)


def tournament_command(cfg: Any, model: Path) -> str:
    """The ``speed tournament`` that seats the model with ``players - 1`` copies of each bot."""
    import shlex

    spec = f"ppo:{model}"
    argv = ["speed", "tournament", "--players", str(cfg.players), "--rules", cfg.rules]
    for option in filter(None, (p.strip() for p in cfg.options.split(","))):
        argv += ["--option", option]
    argv += ["--agents", ",".join([spec, *specs(cfg.eval_opponents)]), "--gauntlet", spec]
    argv += ["--games", "400", "--out", str(model.parent / "tournament")]
    return shlex.join(argv)


def warm_start(cfg: Any, run: Any, env: Any) -> bool:
    """Start ``run``'s network from ``init_from``'s weights (checked by :func:`check_party`),
    then clone ``init_bc`` playing the learner's seat (:func:`train.bc.warm_start`, the
    two-seat recipe's cloning on the n-seat env); whether it started warm."""
    import agents
    from agents.model_io.kit_model import read_model
    from train import bc
    from train.policy.checkpoint import load_tensors_into

    if cfg.init_from:
        tensors, _, where = read_model(cfg.init_from)
        load_tensors_into(run.model, tensors, str(where))
        run.bar.print(f"started from {where}")
    if cfg.init_bc:
        spec, rules = cfg.init_bc, env.rules

        def teachers(seed: int) -> list[tuple[int, int, Any]]:
            # one teacher over every slot: the env seats one rules value
            return [(0, env.num_envs, agents.make(spec, rules, seed=seed))]

        bc.warm_start(run, env, teachers, dagger_rounds=cfg.bc_dagger)
    return bool(cfg.init_from or cfg.init_bc)


def train_party(cfg: Any, folder: Any, seed: int) -> dict[str, Any]:
    """Steps 3 to 6 of the recipe at ``cfg.players`` seats; the summary."""
    from train.common.run import Curves, Run
    from train.common.settings import make_model
    from train.common.snapshots import saved_snapshots, take_snapshot
    from train.common.think import charge_once
    from train.common.throughput import throughput
    from train.policy.checkpoint import export_model
    from train.vec_env.party_env import PartyVecEnv
    from train.vec_env.pool import agents_met

    rules = party_rules(cfg)
    # The opponents' thinking, charged alike in training and in every evaluation's tournament.
    plan, thinking = charge_once(cfg, agents_met(cfg.opponent, cfg.eval_opponents), rules, folder)
    env = PartyVecEnv(
        cfg.n_envs,
        rules,
        opponent=cfg.opponent,
        think=plan,
        tick_ms=cfg.tick_ms,
        reaction=cfg.reaction,
        skip_tail=cfg.skip_tail,
        truncation_reward=cfg.truncation_reward,
        seed=seed,
    )
    env.self_fraction, env.max_snapshots = cfg.self_fraction, cfg.max_snapshots
    state = folder.state

    def save(path: Path, steps: int) -> Path:
        """The model in the kit's format; its rules record the seats it plays."""
        training = {
            "timesteps": steps,
            "players": cfg.players,
            "opponent": cfg.opponent,
            "init_from": cfg.init_from,
            "init_bc": cfg.init_bc,
            "think": thinking,
            "rules": cfg.rules,
            "seed": cfg.seed,
            "config": asdict(cfg),
        }
        label = env.profile.label()
        return export_model(
            run.model,
            path,
            rules=[rules],
            reaction={"learner": label, "opponent": label},
            tick_ms=cfg.tick_ms,
            training=training,
        )

    title = f"{cfg.opponent} x{cfg.players - 1} on {cfg.rules}"
    run = Run(
        cfg,
        folder,
        Curves(EVAL_FIELDS, PANELS, title, split="rules"),
        save=save,
        score=lambda path: score(path, cfg, rules, plan),
        report=report,
    )

    def snapshot(steps: int) -> None:
        """A frozen copy of the learner joins the seats (saved, for a resumed run to reload)."""
        env.add_snapshot(*take_snapshot(run, save, state, steps, cfg.snapshot_sample, cfg.seed))

    def on_rollout_end(steps: int, logger: Any) -> None:
        for key, value in env.throughput().items():
            logger.record(f"time/env_{key}", value)
        if env.self_play and steps >= state.get("last_snapshot", 0) + cfg.snapshot_every:
            snapshot(steps)
        folder.write_json("pool.json", env.describe())

    run.on_rollout_end = on_rollout_end
    actor = party_actor(cfg)
    run.attach(make_model(cfg, env, policy=actor), ("csv", "tensorboard"))
    if actor != cfg.policy:
        run.bar.print(f"--policy auto: the {actor} actor (rules {cfg.rules}, {cfg.players} seats)")
    try:
        if cfg.resume:
            run.resume(seed)
            for name, frozen in saved_snapshots(run.out, state, cfg.snapshot_sample, cfg.seed):
                env.add_snapshot(name, frozen)
        else:
            try:
                warm = warm_start(cfg, run, env)
                if env.self_play and warm:
                    snapshot(0)  # the warm start is the first snapshot the seats draw
                state["timesteps"] = 0
                folder.write_state()
                if warm:
                    run.evaluate(0)  # the curve starts where the warm start stands
            # No loop to catch it yet: the summary says where it stopped, as PPO's Ctrl-C does.
            except KeyboardInterrupt as exc:
                return stop_warm_start(run, exc, players=cfg.players, think=thinking)
        env_base = (dict(env.timing), dict(env.counters))
        start, steps, wall, stopped = run.learn()
        summary = run.finish(
            steps,
            stopped,
            throughput=throughput(run, env, env_base, steps - start, wall),
            players=cfg.players,
            pool=env.describe(),
            think=thinking,
            next=tournament_command(cfg, run.out / "model.json"),
        )
        folder.write_json("pool.json", env.describe())
    finally:
        run.close()
    run.say_done(summary, verdict(summary.get("last_eval") or []), "seat it with the bots")
    return summary
