"""``speed agents``: the agent specs, one line each."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add ``speed agents`` to the subcommands ``sub``."""
    sub.add_parser("agents", help="list the agent specs").set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the agent specs with a one-line description each."""
    from agents.games.registry import GAMES

    for name, text in {k: v for g in GAMES.values() for k, v in g.available().items()}.items():
        print(f"{name:<10} {text}")
    print(
        "\nappend @MS or @PROFILE to give an agent a reaction profile, e.g. chain@pro, greedy@200"
    )
    return 0
