"""``speed experiment think``: win rate against thinking cost for search budgets and a network.

The experiment is :mod:`agents.think_sweep.sweep`; this module is its flags
(:class:`ThinkSweepFlags`, one field a flag) and the run: the folder judged and locked
(:class:`agents.runtime.run_identity.RunOutput`), the agents calibrated (or their costs read
from ``--think-file``), the points played under a progress bar (Ctrl-C keeps what finished), the
files written (:mod:`agents.think_sweep.report`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from speed_cli import common, specs
from speed_cli.common import UsageError, count

RESULTS = ("think_sweep.json", "think_sweep.csv")
"""Files a run leaves: found with no run.json, an earlier kit's run (never replaced)."""


@dataclasses.dataclass(kw_only=True)
class ThinkSweepFlags(common.BackendFlags, common.RuleFlags, common.OverwriteFlag):
    """``speed experiment think``'s settings: one flag a field."""

    worlds: str = "1,4,16,64,256"
    """search's world counts"""
    search: str = "search:wait=0"
    """search spec the worlds are set on"""
    network: str = "trained"
    """the network's spec (default trained: on japanese with the four options the network
    distilled from search:wait=0; elsewhere the clone of chain) or none"""
    opponent: str = "chain"
    """spec of the opponent (no @)"""
    multiples: str = "1,2,4"
    """multiples of each budget's calibrated cost charged, comma-separated (off is always played;
    0 charges nothing, as off does)"""
    costs: str = dataclasses.field(default="", metadata={"metavar": "MS[,MS]"})
    """fixed costs in ms charged to every budget besides the multiples, so that a cheap network
    and a dear search share points"""
    bootstrap: int = dataclasses.field(default=1000, metadata={"type": count(0)})
    """resamples"""
    think_file: str | None = dataclasses.field(default=None, metadata={"metavar": "FILE"})
    """charge the costs in FILE (an earlier run's think_costs.json) instead of timing the agents,
    so the run repeats byte for byte"""
    games: int = dataclasses.field(default=2000, metadata={"type": count(2)})
    """games per point (half as many deals)"""
    seed: int = dataclasses.field(default=0, metadata={"type": common.DEAL_SEED})
    """seed of the deals (deal d is seeded (seed << 32) + d; the same deals at every point)"""
    # Two processes by default: a point's games are independent, and a 2-core laptop is common.
    workers: int = dataclasses.field(default=2, metadata={"type": count(1)})
    out: str = "results/think"
    """output folder"""


def register(exp_sub: Any) -> None:
    """Add ``think`` to ``speed experiment``'s subcommands ``exp_sub``."""
    p = exp_sub.add_parser(
        "think",
        help="win rate against thinking cost: search budgets and a network against chain",
        description="Play search at each of --worlds and --network against --opponent on paired "
        "deals (the same deals at every point), with thinking off and charged at --multiples of "
        "each agent's calibrated cost (its median act at batch one on the kit's fixed decision "
        "states that hold a choice). Reports the win rates with 95% intervals over deals, each "
        "budget's break-even cost (where its win rate crosses 50%) and the best budget at each "
        "level. Writes OUT/think_sweep.csv, OUT/think_sweep.json, OUT/winrate_vs_think.png and "
        "the costs charged, OUT/think_costs.json (--think-file reuses it).",
    )
    common.add_command_flags(p, ThinkSweepFlags)
    p.set_defaults(func=run)


def settings_of(flags: ThinkSweepFlags, args: argparse.Namespace) -> Any:
    """The experiment's settings from the flags, each bad one refused naming it."""
    from agents.think_sweep import sweep

    try:
        worlds = sweep.parse_numbers(flags.worlds, "--worlds", whole=True)
        multiples = sweep.parse_numbers(flags.multiples, "--multiples")
        costs = sweep.parse_numbers(flags.costs, "--costs") if flags.costs.strip() else ()
        network = None if flags.network.strip().lower() == "none" else flags.network.strip()
        settings = sweep.ThinkSweepSettings(
            search=flags.search.strip(),
            worlds=tuple(int(w) for w in worlds),
            network=network,
            opponent=flags.opponent.strip(),
            multiples=multiples,
            costs=costs,
            games=args.games,
            rules=specs.make_rules(args),
            tick_ms=args.tick_ms,
            seed=args.seed,
            bootstrap=flags.bootstrap,
        )
        settings.budgets()  # --search with its own worlds is refused here
    except sweep.ThinkSweepError as exc:
        raise UsageError(str(exc)) from None
    # An unknown agent or a missing model fails here, naming its flag, before any work.
    named = [("--opponent", settings.opponent), ("--network", settings.network)]
    named += [("--search", b.spec) for b in settings.budgets() if b.worlds is not None]
    for flag, spec in named:
        if spec is None:
            continue
        try:
            specs.check_specs((spec,), settings.rules, build=True)
        except (ValueError, OSError) as exc:  # the agent's own refusal, one line, under its flag
            raise UsageError(f"{flag} {spec!r}: {str(exc).splitlines()[0]}") from None
    return settings


def run(args: argparse.Namespace) -> int:
    """Play the experiment into ``--out``: CSV, JSON with the run's identity, plot."""
    from agents.runtime import run_identity
    from agents.runtime.flags import from_args

    settings_by_flag = run_identity.flag_settings(args, skip=("experiment",))
    settings = settings_of(from_args(ThinkSweepFlags, args), args)
    names = tuple(dict.fromkeys(b.spec for b in settings.budgets()))
    costs_file = _costs_file(args.think_file, names, settings.rules)
    common.note_games(args.games, 2 * (args.games // 2), "point", "paired deals: each deal twice")
    jobs = common.backend(args)
    with common.open_run(
        args,
        "speed experiment think",
        settings_by_flag,
        [*names, settings.opponent],
        settings.rules,
        results=RESULTS,
        files={"--think-file": args.think_file},
    ) as run_folder:
        if run_folder is None:
            return 0
        return _play(args, settings, names, costs_file, run_folder, jobs)


def _costs_file(path: str | None, names: tuple[str, ...], rules: Any) -> dict[str, Any] | None:
    """``--think-file``'s costs, checked before any work (``None``: the agents are timed)."""
    from agents.think_sweep import sweep

    if path is None:
        return None
    try:
        return sweep.read_costs(path, names, rules)
    except sweep.ThinkSweepError as exc:
        raise UsageError(str(exc)) from None


def _play(
    args: argparse.Namespace,
    settings: Any,
    names: tuple[str, ...],
    costs_file: dict[str, Any] | None,
    run_folder: Any,
    jobs: Any,
) -> int:
    """Calibrate (unless given costs), play every point into ``run_folder``, write the files."""
    from agents.runtime.files import write_json
    from agents.think.plan import ThinkError
    from agents.think_sweep import report, summary, sweep

    out = run_folder.path
    if costs_file is None:
        try:
            costs_file = sweep.calibrate_budgets(
                names, settings.rules, say=lambda line: print(line, file=sys.stderr)
            )
        except (ThinkError, sweep.ThinkSweepError) as exc:
            raise UsageError(str(exc)) from None
    write_json(out / report.FILES["costs"], costs_file)
    points = sweep.plan_points(settings, sweep.costs_of(costs_file, names))
    done = common.run_chunks(
        "think sweep",
        lambda progress: _as_list(
            sweep.run_sweep(settings, points, workers=args.workers, progress=progress, backend=jobs)
        ),
    )
    if done is None:
        return 130
    outcomes, complete, wall = done
    doc = summary.summarise(settings, points, dict(outcomes), costs_file, complete)
    paths = report.write_outputs(Path(out), doc)
    if complete:
        run_folder.finish([*paths, out / report.FILES["costs"]])
    print(report.table(doc))
    if doc["network_vs_search"]:
        print(report.versus_table(doc))
    print(report.headline(doc))
    games = sum(r["games"] for r in doc["points"])
    return common.finish(
        complete, f"{games} games in {wall:.1f} s; wrote {', '.join(map(str, paths))}"
    )


def _as_list(result: tuple[dict[int, Any], bool]) -> tuple[list[Any], bool]:
    """``run_sweep``'s outcomes as the (point, outcomes) list ``run_chunks`` counts."""
    outcomes, complete = result
    return list(outcomes.items()), complete
