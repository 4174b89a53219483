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

from speed_cli.common import DEAL_SEED, Parser, add_backend_flags, count, real

PURPOSE = textwrap.fill(
    "PSRO on the kit: start from random, greedy and chain (and --include), then "
    "each round train a member (the default recipe, train/ppo.py) against the population's "
    "meta-strategy (the Nash equilibrium of its payoff table, by a linear program), and "
    "extend the table by its paired-deal games against every member. Writes OUT/league.json, "
    "league.csv, league.png, members/round_KK/ and best.json; league:OUT plays the final "
    "meta-strategy. Ctrl-C keeps every finished round; --resume continues at the next.",
    88,
)
EXAMPLES = __doc__.split("Examples::", 1)[1] if __doc__ else ""


@dataclass
class LeagueRun:
    """How ``speed train league`` runs a league: its folder, a resume, the bars. What the
    league's results depend on is :class:`train.league.run.LeagueSettings`."""

    out: str = "runs/league"
    """the league's folder"""
    resume: bool = False
    """continue the league in --out"""
    progress: bool = True
    """progress bars (a member's training, the payoff games)"""
    overwrite: bool = False
    """--out holds another run: move it aside (to OUT.replaced-TIME, named) and start afresh;
    without it such a folder is refused (agents/runtime/run_identity.py)"""


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
            "include": str,
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
    )
    # A setting not given reads None: a resumed league keeps its own, a new one the defaults
    # (the help still shows them).
    p.set_defaults(**dict.fromkeys((f.name for f in dataclasses.fields(LeagueSettings)), None))
    switch = {"action": "store_true"}  # --resume and --overwrite alone: no --no-resume
    add_flags(p, LeagueRun, extra={"resume": switch, "overwrite": switch})
    add_backend_flags(p, workers=1)
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
        workers=args.workers,
        backend=backend(args),
        progress=how.progress,
    )
