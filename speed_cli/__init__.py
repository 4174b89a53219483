"""The ``speed`` command: one entry point, a module a subcommand, each importing what it needs
lazily.

Each module of this package holds one command's parser (``register``) beside the function that
runs it: :mod:`~speed_cli.demo`, :mod:`~speed_cli.tournament`, :mod:`~speed_cli.agents`,
:mod:`~speed_cli.replay`, :mod:`~speed_cli.table` (``play`` and ``watch``),
:mod:`~speed_cli.train`, :mod:`~speed_cli.train_rllib`, :mod:`~speed_cli.train_expert`,
:mod:`~speed_cli.experiment`, :mod:`~speed_cli.data` and
:mod:`~speed_cli.bench`; :mod:`~speed_cli.specs` reads agent specs, reaction profiles and rule
overrides the same way for all of them. The CLI sits above every layer of the kit
(``speed_env`` <- ``agents`` <- ``train``), which never import it; importing it loads none of
them (nor torch, matplotlib or ray). Errors in user input print one line and exit with code 2;
an agent that fails (:class:`agents.specs.guarded.AgentFailure`) prints one line naming it and exits
with code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from speed_cli import (
    agents,
    bench,
    data,
    demo,
    evaluate,
    experiment,
    replay,
    table,
    tournament,
    train,
    train_expert,
    train_rllib,
)
from speed_cli.common import Parser, UsageError

__all__ = ["UsageError", "build_parser", "main"]

COMMANDS = (
    demo,
    tournament,
    agents,
    replay,
    table,
    train,
    train_rllib,
    train_expert,
    experiment,
    evaluate,
    data,
    bench,
)
"""The command modules, in the order ``speed --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``speed`` argument parser with every subcommand."""
    parser = Parser(prog="speed", description="Speed RL kit: envs, bots, tournaments.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``speed`` command; user errors print one line and return 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (UsageError, ValueError, OSError) as exc:
        print(f"speed {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from agents.specs.guarded import (
            AgentFailure,  # only now: importing the CLI loads no kit layer
        )

        if not isinstance(exc, AgentFailure):
            raise
        print(f"speed {args.command}: error: {exc}", file=sys.stderr)
        return 1
