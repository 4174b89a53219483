"""``speed experiment reaction``: win rate against reaction latency, a logistic fit and the
break-even latency (agents.reaction_sweep)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from speed_cli import common, experiment_think, specs, think
from speed_cli.common import UsageError, count

RESULTS = ("reaction.json", "reaction.csv")
"""Files a sweep leaves: found with no run.json, an earlier kit's run (never replaced)."""


@dataclasses.dataclass(kw_only=True)
class ReactionSettings(
    think.ThinkFlags, common.BackendFlags, common.RuleFlags, common.OverwriteFlag
):
    """``speed experiment reaction``'s settings: one flag a field."""

    agent: str = "chain"
    """spec of the agent whose latency varies (no @)"""
    opponent: str = "greedy"
    """spec of the opponent (no @)"""
    latencies: str = "150,200,250,300,350"
    """the agent's latencies, comma-separated: ms (with --jitter, the shaped profile's median) or
    profile names"""
    opponent_latency: str | None = dataclasses.field(default=None, metadata={"metavar": "LATENCY"})
    """the opponent's latency (default 250); with --grid a list (default: --latencies)"""
    opponent_profile: str | None = dataclasses.field(default=None, metadata={"metavar": "FILE"})
    """the opponent plays at a person's fitted reaction profile (speed data profile's FILE): the
    break-even latency against that person's speed"""
    grid: bool = False
    """play every pair of agent and opponent latencies"""
    jitter: str | None = dataclasses.field(
        default=None,
        metadata={"type": common.jittered_preset, "const": "human", "metavar": "PRESET"},
    )
    """the agent's ms latencies jitter: PRESET's shape (default human) moved so its median is L;
    the opponent then defaults to that preset"""
    players: int = dataclasses.field(default=2, metadata={"type": count(2, 4)})
    """seats at each table: 3 or 4 (Party Speed) seat the agent against PLAYERS-1 copies of the
    opponent, the agent in each seat in turn, and read the break-even at its fair share 1/PLAYERS"""
    games: int = dataclasses.field(default=2000, metadata={"type": count(2)})
    """games per point (half as many deals; with --players N, 1/N as many)"""
    seed: int = dataclasses.field(default=0, metadata={"type": common.DEAL_SEED})
    """seed of the deals (deal d is seeded (seed << 32) + d; the same deals at every point)"""
    # Two processes by default: a point's games are independent, and a 2-core laptop is common.
    workers: int = dataclasses.field(default=2, metadata={"type": count(1)})
    bootstrap: int = dataclasses.field(default=1000, metadata={"type": count(0)})
    """bootstrap resamples for the intervals (0: none)"""
    compare: str = dataclasses.field(default="", metadata={"metavar": "DIR[,DIR]"})
    """earlier sweeps' output folders to draw beside this one on the curve"""
    out: str = "results/reaction"
    """output folder"""


def register(sub: Any) -> None:
    """Add ``speed experiment`` (and its ``reaction`` experiment) to the subcommands ``sub``."""
    exp = sub.add_parser(
        "experiment", help="experiments: reaction (win rate against reaction latency)"
    )
    exp_sub = exp.add_subparsers(dest="experiment", required=True)
    rx = exp_sub.add_parser(
        "reaction",
        help="win rate against reaction latency, a logistic fit, the break-even latency",
        description="Play --agent at each of --latencies against --opponent at "
        "--opponent-latency on paired deals (the same deals at every point), fit a logistic "
        "curve of win rate against the latency difference and report the break-even difference "
        "and the ms worth ten points of win rate, with bootstrap intervals. Every latency is a "
        "median in ms: fixed ms, or profile names (superhuman, pro, human, casual: jittered "
        "ex-Gaussian, placed at their median); with --jitter each numeric latency L of the agent "
        "is the human shape (or --jitter PRESET's) moved so its median is L. Writes "
        "OUT/reaction.csv, "
        "OUT/reaction.json, OUT/winrate_vs_latency.png and, with --grid, OUT/latency_grid.png.",
    )
    common.add_command_flags(rx, ReactionSettings)
    rx.set_defaults(func=run_reaction)
    experiment_think.register(exp_sub)  # speed experiment think: its own module


def run_reaction(args: argparse.Namespace) -> int:
    """Win rate against reaction latency (agents.reaction_sweep): CSV, JSON with the fit,
    plots."""
    from agents import reaction_sweep
    from agents.runtime import run_identity

    # As given, before the flags are read (--opponent-profile is folded into a latency below).
    # A two-player sweep leaves --players out, so its identity is an earlier kit's: a folder it
    # finished is still found finished.
    two = ("players",) if args.players == 2 else ()
    settings_by_flag = run_identity.flag_settings(args, skip=("experiment", *two))
    latencies = reaction_sweep.parse_latencies(args.latencies, "--latencies")
    if args.opponent_profile is not None:
        if args.opponent_latency is not None or args.grid:
            raise UsageError(
                "--opponent-profile is the opponent's latency: drop --opponent-latency and --grid"
            )
        args.opponent_latency = f"profile:{args.opponent_profile}"
    # A refusal names the flag the user gave (a profile is read as a latency).
    opponent_flag = "--opponent-profile" if args.opponent_profile else "--opponent-latency"
    if args.grid:
        if args.jitter and not args.opponent_latency:
            raise UsageError(
                "--grid --jitter needs --opponent-latency (ms are fixed, names are presets)"
            )
        opponent = reaction_sweep.parse_latencies(
            args.opponent_latency or args.latencies, opponent_flag
        )
    else:
        default = args.jitter or "250"  # a jittered agent meets the preset it is shaped like
        opponent = reaction_sweep.parse_latencies(args.opponent_latency or default, opponent_flag)
        if len(opponent) != 1:
            raise UsageError(
                "--opponent-latency takes one latency without --grid, "
                f"got {args.opponent_latency!r}"
            )
    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap must be 0 (no intervals) or more, got {args.bootstrap}")
    settings = reaction_sweep.SweepSettings(
        agent=args.agent.strip(),
        opponent=args.opponent.strip(),
        latencies=latencies,
        opponent_latencies=opponent,
        games=args.games,
        rules=_rules(args),
        tick_ms=args.tick_ms,
        seed=args.seed,
        jitter=args.jitter,
    )
    # An unknown agent or a missing model fails here, before any work.
    specs.check_specs((settings.agent, settings.opponent), settings.rules, build=True)
    seated = tuple(dict.fromkeys((settings.agent, settings.opponent)))
    # Thinking is calibrated (or read from --think-file) once, before any point is played.
    thinking = think.plan(args, seated, settings.rules, Path(args.out))
    settings = dataclasses.replace(settings, think=thinking)
    if settings.players > 2:  # what a table of three or four cannot play, before --out is opened
        settings.table_settings(settings.points()[0])
    compare = [reaction_sweep.load(folder) for folder in specs.split_list(args.compare)]
    n = settings.players
    why = (
        "paired deals: each deal twice"
        if n == 2
        else f"each deal {n} times, the agent in each seat"
    )
    common.note_games(args.games, settings.games_per_point, "point", why)
    jobs = common.backend(args)
    with common.open_run(
        args,
        "speed experiment reaction",
        settings_by_flag,
        [settings.agent, settings.opponent],
        settings.rules,
        results=RESULTS,
        files={"--opponent-profile": args.opponent_profile},
    ) as run_folder:
        if run_folder is None:
            return 0
        think.keep(settings.think, run_folder.path)  # the calibration charged
        return _sweep(args, settings, compare, jobs, run_folder)


def _rules(args: argparse.Namespace) -> Any:
    """The rules of ``--rules`` and ``--option``, seated for ``--players``."""
    from speed_env.rules import make_rules

    rules = specs.make_rules(args)
    if args.players == 2:  # as before --players: --option players=N still seats N
        return rules
    if rules.players not in (2, args.players):
        raise UsageError(
            f"--players {args.players} and --option players={rules.players} disagree; give one"
        )
    return make_rules(rules, players=args.players)


def _sweep(
    args: argparse.Namespace, settings: Any, compare: list[Any], jobs: Any, run_folder: Any
) -> int:
    """Play the sweep into ``run_folder`` (its lock held); write and print its results."""
    from agents import reaction_sweep

    out = run_folder.path
    done = common.run_chunks(
        "reaction sweep",
        lambda progress: reaction_sweep.run_sweep(
            settings, workers=args.workers, progress=progress, backend=jobs
        ),
    )
    if done is None:
        return 130
    results, complete, wall = done
    doc = reaction_sweep.summarise(settings, results, bootstrap=args.bootstrap)
    doc["settings"] |= {
        "games_requested": args.games,
        "complete": complete,
        "wall_s": round(wall, 2),
        "workers": args.workers,
        "bootstrap": args.bootstrap,
    }
    paths = reaction_sweep.write_outputs(out, doc, compare)
    if complete:
        run_folder.finish(paths)
    print(reaction_sweep.table(doc))
    print(reaction_sweep.headline(doc))
    games = sum(r["games"] for r in doc["points"])
    return common.finish(
        complete, f"{games} games in {wall:.1f} s; wrote {', '.join(map(str, paths))}"
    )
