"""``speed train league``: a population trained round by round against its own meta-strategy.

The league itself is :mod:`train.league.run`; this module reads its flags. Examples::

    speed train league --rules us --out runs/league
    speed train league --rules japanese --rounds 4 --timesteps-per-round 1000000 --out runs/lj
    speed train league --rules us --include py:my_bot.py:Bot --out runs/mine
    speed train league --out runs/league --resume --rounds 6     (two rounds more)
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence

from speed_cli.common import DEAL_SEED, Parser, add_backend_flags, add_overwrite_flag, count, real

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


SETTINGS = (
    *("rules", "rounds", "minutes", "timesteps_per_round", "init", "include"),
    *("games_per_pairing", "seed", "method", "reaction"),
)
"""The flags that are :class:`train.league.run.LeagueSettings` fields."""


def build_parser(prog: str = "speed train league") -> argparse.ArgumentParser:
    """The flags of ``speed train league``."""
    p = Parser(
        prog=prog,
        description=PURPOSE,
        epilog="examples:" + EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rules", default=None, help="preset (us, pagat, japanese) or a .toml file")
    p.add_argument("--out", default="runs/league", help="the league's folder (runs/league)")
    p.add_argument("--rounds", type=count(1), default=None, help="members to add (default 3)")
    p.add_argument(
        "--minutes", type=real(above=0.0, below=1e7), default=None,
        help="wall-clock budget of the whole league: no round starts after it",
    )  # fmt: skip
    p.add_argument(
        "--timesteps-per-round", type=count(1), default=None,
        help="learner decisions each member trains for (default 500,000)",
    )  # fmt: skip
    p.add_argument(
        "--init", choices=("fresh", "previous"), default=None,
        help="each member starts fresh or from the previous member",
    )  # fmt: skip
    p.add_argument(
        "--include", nargs="+", action="extend", default=None, metavar="SPEC",
        help="more starting members (agent specs: ppo:..., py:FILE.py:NAME ...)",
    )  # fmt: skip
    p.add_argument(
        "--games-per-pairing", type=count(2), default=None,
        help="paired-deal games of each pairing in the payoff table (default 400)",
    )  # fmt: skip
    p.add_argument("--seed", type=DEAL_SEED, default=None)
    p.add_argument(
        "--method", choices=("nash", "alpharank"), default=None,
        help="the meta-strategy: the Nash equilibrium (a linear program) or α-Rank's mass",
    )  # fmt: skip
    p.add_argument("--reaction", default=None, help="reaction profile of every seat")
    p.add_argument("--resume", action="store_true", help="continue the league in --out")
    p.add_argument(
        "--no-progress", dest="progress", action="store_false",
        help="no progress bars (a member's training, the payoff games)",
    )  # fmt: skip
    add_overwrite_flag(p)
    add_backend_flags(p, workers=1)
    return p


def run(argv: Sequence[str], prog: str = "speed train league") -> int:
    """Parse ``argv`` and run the league; 0 when it finished, 130 when interrupted."""
    import dataclasses
    from pathlib import Path

    from speed_cli.common import backend
    from train.league.run import LeagueSettings, resumed, run_league

    args = build_parser(prog).parse_args(list(argv))
    # Flags not given are None here: a resumed league keeps its own, a new one the defaults.
    given = {k: getattr(args, k) for k in SETTINGS if getattr(args, k) is not None}
    if "include" in given:
        given["include"] = tuple(given["include"])
    if args.resume:
        settings = resumed(Path(args.out), given)
    else:
        settings = dataclasses.replace(LeagueSettings(), **given)
    return run_league(
        settings,
        args.out,
        resume=args.resume,
        overwrite=args.overwrite,
        workers=args.workers,
        backend=backend(args),
        progress=args.progress,
    )
