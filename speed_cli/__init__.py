"""The ``speed`` command: one entry point, a module a subcommand.

Each command's module holds its parser (``register``) beside the function that runs it, and
imports what the command needs lazily. The CLI sits above every layer of the kit
(``speed_env`` <- ``agents`` <- ``train``), which never import it; importing it loads none of
them (nor torch, matplotlib or ray). Errors in user input print one line and exit with code 2;
an agent that fails (:class:`agents.runtime.failures.AgentFailure`) prints one line naming it and
exits with code 1; a full disk or an exhausted quota prints one line naming the file and exits
with :data:`NO_SPACE` (74). Output read by a reader that stops early (``speed replay FILE |
head``) ends the command quietly with code 141, as a program that SIGPIPE ends.

- :mod:`~speed_cli.__main__`: ``python -m speed_cli``, the ``speed`` command.
- :mod:`~speed_cli.common`: what several commands share: the usage error, the settings mixins of
  the shared flags (rules, job runner, game), flags made from a settings dataclass, the chunked
  run and its progress bar.
- :mod:`~speed_cli.specs`: agent specs, reaction profiles and rule overrides, read the same way
  for every command.
- :mod:`~speed_cli.think`: ``--think`` and ``--think-file``: each agent's thinking charged as
  latency, calibrated before play.
- :mod:`~speed_cli.demo`: ``speed demo``: bots play one game (two to four seats), shown as text.
- :mod:`~speed_cli.tournament`: ``speed tournament``: a round robin or gauntlet of either game.
- :mod:`~speed_cli.agents`: ``speed agents``: the agent specs, one line each.
- :mod:`~speed_cli.evaluate`: ``speed evaluate``, an agent's report card, and ``speed
  leaderboard``.
- :mod:`~speed_cli.replay`: ``speed replay``: a recorded game played back in the terminal.
- :mod:`~speed_cli.table`: ``speed play`` and ``speed watch``: the browser table on 127.0.0.1.
- :mod:`~speed_cli.train`: ``speed train``: MaskablePPO on either game, or cloning recorded
  play.
- :mod:`~speed_cli.train_league`: ``speed train league``: a population trained against its own
  meta-strategy.
- :mod:`~speed_cli.train_rllib`: ``speed train-rllib``: multi-agent PPO with RLlib.
- :mod:`~speed_cli.train_expert`: ``speed train-expert``: expert iteration
  (train/vintage_expert.py).
- :mod:`~speed_cli.experiment`: ``speed experiment reaction``: win rate against reaction
  latency.
- :mod:`~speed_cli.experiment_think`: ``speed experiment think``: win rate against thinking
  cost, search budgets and a network.
- :mod:`~speed_cli.exploit`: ``speed exploit``: a best response to any agent, and what it wins
  against it.
- :mod:`~speed_cli.data`: ``speed data``: play records as datasets and profiles.
- :mod:`~speed_cli.bench`: ``speed bench``: game-steps per second of the kit's envs.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from speed_cli import (
    agents,
    bench,
    data,
    demo,
    evaluate,
    experiment,
    exploit,
    replay,
    table,
    tournament,
    train,
    train_expert,
    train_rllib,
)
from speed_cli.common import Parser, UsageError

__all__ = ["NO_SPACE", "UsageError", "build_parser", "main"]

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
    exploit,
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


NO_SPACE = 74
"""The exit code where a write met a full disk or quota (``ENOSPC``, ``EDQUOT``): sysexits.h's
``EX_IOERR``. Not 2: the input was fine, and the same command goes on once there is room."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``speed`` command; user errors print one line and return 2.

    It ends as every entry point of the kit does (:func:`agents.runtime.entry.run_main`): Ctrl-C
    prints ``interrupted`` and returns 130; a SIGTERM stops it as Ctrl-C does (what Ctrl-C saves
    is saved) and returns 143; a reader of stdout that stops early (``| head``) ends it quietly
    with 141. The same goes for a Ctrl-C while the command first imports the kit and builds its
    parser: in a fresh tree numba compiles its kernels then, a wait a Ctrl-C often lands in.
    """
    swallowed: list[KeyboardInterrupt] = []
    try:
        run_main = _entry(swallowed)
    except KeyboardInterrupt:  # while the kit imports, before run_main is there to say it
        print("interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    return run_main(lambda: _run(_parsed(argv)), swallowed=swallowed)


def _parsed(argv: Sequence[str] | None) -> argparse.Namespace:
    """``argv`` parsed; a Ctrl-C swallowed while the kit imported (:func:`_entry`) raised now."""
    args = build_parser().parse_args(argv)
    from agents.runtime.entry import raise_swallowed

    raise_swallowed()
    return args


def _entry(swallowed: list[KeyboardInterrupt]) -> Callable[..., int]:
    """:func:`agents.runtime.entry.run_main`, imported (the CLI's first import of the kit).

    The import compiles numba's kernels in a fresh tree, and a Ctrl-C that lands in numba's
    cache callback is swallowed by Python there: it is put in ``swallowed`` for ``run_main``
    (:func:`_parsed` raises it), and a ``RuntimeError`` that follows it (numba's "no compiled
    object yet") is raised as the ``KeyboardInterrupt`` it is. Anything else Python swallowed is
    reported as it would be.
    """
    unraisable: list[Any] = []
    previous, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        from agents.runtime.entry import run_main  # only now: importing the CLI loads no kit layer
    except RuntimeError:
        if not any(isinstance(u.exc_value, KeyboardInterrupt) for u in unraisable):
            raise
        raise KeyboardInterrupt from None
    finally:
        sys.unraisablehook = previous
        for u in unraisable:
            if isinstance(u.exc_value, KeyboardInterrupt):
                swallowed.append(u.exc_value)
            else:
                previous(u)
    return run_main


def _run(args: argparse.Namespace) -> int:
    """The parsed command's exit status, an error it raised printed as one line."""
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # not an error of the user's: main decides
        raise
    # MemoryError: a request refused by its memory estimate (speed_env.batch_size) is bad
    # input like any other, and one a library could not allocate reads no better as a traceback.
    except (UsageError, ValueError, OSError, MemoryError) as exc:
        from agents.runtime.files import no_space

        full = no_space(exc)
        if full is not None:
            print(
                f"speed {args.command}: error: {_no_space_line(args, exc, full)}", file=sys.stderr
            )
            return NO_SPACE
        print(f"speed {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from agents.runtime.entry import swallowed_interrupt
        from agents.specs.guarded import AgentFailure

        # after an interrupt Python swallowed, a failure is the interrupt's (run_main says so)
        if not isinstance(exc, AgentFailure) or swallowed_interrupt() is not None:
            raise
        print(f"speed {args.command}: error: {exc}", file=sys.stderr)
        return 1


def _no_space_line(args: argparse.Namespace, exc: BaseException, full: OSError) -> str:
    """One line for a write that met a full disk: what, where, and what to do.

    Where: the file the error names (the kit's writers name theirs), else the command's
    ``--out``. Every kit writer leaves what it had written before as it was, so the same
    command, run again once there is room, goes on or says why not.
    """
    path = getattr(exc, "filename", None) or full.filename
    out = getattr(args, "out", None)
    where = f" writing {path}" if path else f" writing into {out}" if out else ""
    return (
        f"{full.strerror or 'No space left on device'}{where}; what was written before is left "
        "as it was: free some space and run the same command again"
    )
