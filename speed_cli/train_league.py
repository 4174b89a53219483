"""``speed train league``: a population trained round by round against its own meta-strategy.

The league itself is :mod:`train.league.run`; this module reads its flags. Examples::

    speed train league --rules us --out runs/league
    speed train league --rules japanese --rounds 4 --timesteps-per-round 1000000 --out runs/lj
    speed train league --rules us --include py:my_bot.py:Bot --out runs/mine
    speed train league --out runs/league --resume --rounds 6     (two rounds more)
"""

from __future__ import annotations

import argparse
import dataclasses
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from speed_cli.common import (
    DEAL_SEED,
    BackendFlags,
    OverwriteFlag,
    Parser,
    add_command_flags,
    count,
    real,
)

PURPOSE = textwrap.fill(
    "PSRO on the kit: start from random, greedy and chain (and --include), then "
    "each round train a member (an exploiter, as speed exploit trains) against the population's "
    "meta-strategy (the Nash equilibrium of its payoff table, by a linear program), and "
    "extend the table by its paired-deal games against every member. Writes OUT/league.json, "
    "league.csv, league.png, members/round_KK/ and best.json; league:OUT plays the final "
    "meta-strategy. Ctrl-C keeps every finished round; --resume continues at the next.",
    88,
)
EXAMPLES = __doc__.split("Examples::", 1)[1] if __doc__ else ""


@dataclass(kw_only=True)
class LeagueRun(BackendFlags, OverwriteFlag):
    """How ``speed train league`` runs a league: its folder, a resume, the bars, the job runner.
    What the league's results depend on is :class:`train.league.run.LeagueSettings`."""

    out: str = "runs/league"
    """the league's folder (runs/league)"""
    resume: bool = False
    """continue the league in --out"""
    no_progress: bool = False
    """no progress bars (a member's training, the payoff games)"""


def build_parser(prog: str = "speed train league") -> argparse.ArgumentParser:
    """The flags of ``speed train league``: one per field of
    :class:`train.league.run.LeagueSettings` and of :class:`LeagueRun`."""
    from agents.league.meta import METHODS
    from agents.runtime.flags import add_flags
    from train.league.run import INITS, LeagueSettings

    p = Parser(
        prog=prog,
        description=PURPOSE,
        epilog="examples:" + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_flags(
        p,
        LeagueSettings,
        types={
            "rounds": count(1),
            "minutes": real(above=0.0, below=1e7),
            "timesteps_per_round": count(1),
            "include": str,  # each SPEC as given (a tuple field has no converter of its own)
            "games_per_pairing": count(2),
            "seed": DEAL_SEED,
        },
        extra={
            # choices shown in place of a metavar, as argparse does
            "init": {"choices": INITS, "metavar": None},
            "method": {"choices": METHODS, "metavar": None},
            # --include a b, and --include a --include b: the population's extra members
            "include": {"nargs": "+", "action": "extend", "metavar": "SPEC"},
        },
        show_defaults=False,  # said in the help where worth saying, as every speed command's
    )
    # A setting not given reads None: a resumed league keeps its own, a new one takes
    # LeagueSettings' default.
    p.set_defaults(**dict.fromkeys((f.name for f in dataclasses.fields(LeagueSettings)), None))
    add_command_flags(p, LeagueRun)
    return p


def run(argv: Sequence[str], prog: str = "speed train league") -> int:
    """Parse ``argv`` and run the league; 0 when it finished, 130 when interrupted."""
    from pathlib import Path

    from agents.runtime.flags import from_args
    from speed_cli.common import backend
    from train.league.run import LeagueSettings, resumed, run_league

    args = build_parser(prog).parse_args(list(argv))
    fields = [f.name for f in dataclasses.fields(LeagueSettings)]
    given = {k: getattr(args, k) for k in fields if getattr(args, k) is not None}
    if "include" in given:
        given["include"] = tuple(given["include"])
    how = from_args(LeagueRun, args)
    if how.resume:
        settings = resumed(Path(how.out), given)
    else:
        settings = dataclasses.replace(LeagueSettings(), **given)
    return run_league(
        settings,
        how.out,
        resume=how.resume,
        overwrite=how.overwrite,
        workers=how.workers,
        backend=backend(args),
        progress=not how.no_progress,
    )
