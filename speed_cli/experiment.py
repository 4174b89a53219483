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
    rx.add_argument(
        "--agent", default="chain", help="spec of the agent whose latency varies (no @)"
    )
    rx.add_argument("--opponent", default="greedy", help="spec of the opponent (no @)")
    rx.add_argument(
        "--latencies",
        default="150,200,250,300,350",
        help="the agent's latencies, comma-separated: ms (with --jitter, the shaped profile's "
        "median) or profile names",
    )
    rx.add_argument(
        "--opponent-latency",
        default=None,
        metavar="LATENCY",
        help="the opponent's latency (default 250); with --grid a list (default: --latencies)",
    )
    rx.add_argument(
        "--opponent-profile",
        default=None,
        metavar="FILE",
        help="the opponent plays at a person's fitted reaction profile (speed data profile's "
        "FILE): the break-even latency against that person's speed",
    )
    rx.add_argument(
        "--grid", action="store_true", help="play every pair of agent and opponent latencies"
    )
    rx.add_argument(
        "--jitter",
        nargs="?",
        type=common.jittered_preset,
        const="human",
        default=None,
        metavar="PRESET",
        help="the agent's ms latencies jitter: PRESET's shape (default human) moved so its "
        "median is L; the opponent then defaults to that preset",
    )
    common.add_paired_deal_flags(rx, "point", workers=2)
    rx.add_argument(
        "--bootstrap",
        type=count(0),
        default=1000,
        help="bootstrap resamples for the intervals (0: none)",
    )
    rx.add_argument(
        "--compare",
        default="",
        metavar="DIR[,DIR]",
        help="earlier sweeps' output folders to draw beside this one on the curve",
    )
    common.add_rule_flags(rx)
    think.add_flags(rx)
    common.add_out_flag(rx, "results/reaction")
    common.add_overwrite_flag(rx)
    rx.set_defaults(func=run_reaction)
    experiment_think.register(exp_sub)  # speed experiment think: its own module


def run_reaction(args: argparse.Namespace) -> int:
    """Win rate against reaction latency (agents.reaction_sweep): CSV, JSON with the fit,
    plots."""
    from agents import make, reaction_sweep
    from agents.runtime import run_identity

    # As given, before the flags are read (--opponent-profile is folded into a latency below).
    settings_by_flag = run_identity.flag_settings(args, skip=("experiment",))
    latencies = reaction_sweep.parse_latencies(args.latencies, "--latencies")
    if args.opponent_profile is not None:
        if args.opponent_latency is not None or args.grid:
            raise UsageError(
                "--opponent-profile is the opponent's latency: drop --opponent-latency and --grid"
            )
        args.opponent_latency = f"profile:{args.opponent_profile}"
    if args.grid:
        if args.jitter and not args.opponent_latency:
            raise UsageError(
                "--grid --jitter needs --opponent-latency (ms are fixed, names are presets)"
            )
        opponent = reaction_sweep.parse_latencies(
            args.opponent_latency or args.latencies, "--opponent-latency"
        )
    else:
        default = args.jitter or "250"  # a jittered agent meets the preset it is shaped like
        opponent = reaction_sweep.parse_latencies(
            args.opponent_latency or default, "--opponent-latency"
        )
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
        rules=specs.make_rules(args),
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
    compare = [reaction_sweep.load(folder) for folder in specs.split_list(args.compare)]
    common.note_games(args.games, 2 * (args.games // 2), "point", "paired deals: each deal twice")
    jobs = common.backend(args)
    inputs: dict[str, Any] = specs.agent_files(
        dict.fromkeys([settings.agent, settings.opponent]),
        lambda spec: make(spec, settings.rules, seed=0),
    )
    if args.opponent_profile is not None:
        inputs["--opponent-profile"] = run_identity.file_digest(args.opponent_profile)
    identity = run_identity.RunIdentity("speed experiment reaction", settings_by_flag, inputs)
    with run_identity.RunOutput(
        args.out, identity, results=RESULTS, overwrite=args.overwrite
    ) as run_folder:
        if run_folder.done is not None:
            print(run_folder.done)
            return 0
        think.keep(settings.think, run_folder.path)  # the calibration charged
        return _sweep(args, settings, compare, jobs, run_folder)


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
