"""``speed train``: MaskablePPO with the game as a subcommand, ``speed train GAME FLAGS``
(``speed train realtime FLAGS``: train/ppo.py), each game's recipe with its own flags
(train/common/recipes.py lists them), or ``speed train bc --data DIR_OR_MINARI_ID --out M``
(train/bc_data.py: cloning recorded play), or ``speed train league --rules R --out DIR``
(speed_cli/train_league.py: a population trained against its own meta-strategy); the older
``speed train FLAGS`` and ``speed train --game GAME FLAGS`` keep working.

Every argument goes to :mod:`train.common.cli_args`, which makes the flags from each recipe's
settings dataclass (so ``python -m train.ppo`` reads the same ones) and refuses, naming it, a flag
the chosen game's recipe does not have."""

from __future__ import annotations

import argparse
import importlib.util
from typing import Any

from speed_cli.common import UsageError

TRAIN_EXTRA = (
    "speed train needs the [train] extra (torch, stable-baselines3, sb3-contrib): `make setup` "
    "installs it in a clone; without make, install torch's CPU build first (pip install "
    "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu), then pip install "
    "'speed-rl[train]' (or '.[train]' in a clone): plain pip pulls torch's CUDA packages"
)
"""What ``speed train`` says when the [train] extra is missing: how to install it without
CUDA."""


def register(sub: Any) -> None:
    """Add ``speed train`` to the subcommands ``sub`` (its arguments are parsed by the toolkit)."""
    # Here, not at the top: ``import speed_cli`` loads no kit layer (the table is plain strings).
    from train.common.recipes import RECIPES

    tr = sub.add_parser(
        "train",
        help=f"train a MaskablePPO agent: speed train {{{','.join([*RECIPES, 'bc', 'league'])}}} "
        "FLAGS (--help for each)",
        add_help=False,  # `speed train --help` is the toolkit's: its games and their flags
        prefix_chars="\x00",  # nothing is an option here: every argument goes to the toolkit
    )
    tr.add_argument("argv", nargs=argparse.REMAINDER)
    tr.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train (train/common/cli_args.py): 0 when the run completed, 130 when it was interrupted."""
    if importlib.util.find_spec("sb3_contrib") is None:  # pragma: no cover - no [train] extra
        raise UsageError(TRAIN_EXTRA)
    if args.argv[:1] in (["bc"], ["league"]):
        # Its refusals (speed_cli.main's one line) name the command as its own parser does.
        args.command = f"train {args.argv[0]}"
    if args.argv[:1] == ["bc"]:  # cloning recorded play (train/bc_data.py), not a PPO recipe
        from train.bc_data import run as clone

        return clone(args.argv[1:])
    if args.argv[:1] == ["league"]:  # a population of PPO members (train/league/)
        from speed_cli.train_league import run as league

        return league(args.argv[1:])
    from train.common.cli_args import run as train

    return train(args.argv)
