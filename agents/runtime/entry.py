"""A program's entry point: how a Ctrl-C, a SIGTERM and a reader gone from stdout end it.

The ``speed`` command and every ``python -m speed_lab.<study>`` run their ``main`` through
:func:`run_main`, so each ends the same way:

- Ctrl-C prints ``interrupted`` (one line, no traceback) and exits 130;
- SIGTERM stops it as Ctrl-C does (:func:`agents.runtime.interrupts.sigterm_stops`), prints
  ``interrupted (SIGTERM)`` and exits 143;
- a reader of stdout that stops early (``| head``) ends it quietly with 141, as a program that
  SIGPIPE ends (Python ignores the signal, so the write raises ``BrokenPipeError``).

A Ctrl-C can also land where Python cannot raise it: in a callback that C code calls, such as
the one numba's compiler calls when it caches a kernel (on first use, in a fresh tree). Python
prints it as "Exception ignored" and goes on, and numba then fails with ``RuntimeError: no
compiled object yet``. Under :func:`run_main` such a swallowed interrupt is noted, quietly; a
``RuntimeError`` that follows it ends the program as the interrupt would have (a ``RuntimeError``
with no interrupt before it is an error like any other), and :func:`raise_swallowed` raises it
where the program can stop (``speed``: once the kit is imported; a training run: at each step
of its loop). One swallowed elsewhere, with no error after it, is lost, as Python loses it: a
second Ctrl-C stops the program.
"""

from __future__ import annotations

import os
import select
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from agents.runtime.interrupts import INTERRUPTED, TERMINATED, said_interrupted, sigterm_stops

BROKEN_PIPE = 128 + 13
"""The exit status where stdout's reader went away (``| head``): a shell's for death by
SIGPIPE (141)."""


class SwallowedInterrupts:
    """``sys.unraisablehook`` under :func:`swallowed_noted`: notes a Ctrl-C or SIGTERM that
    Python could not raise (``caught``) and prints nothing for it; hands anything else on."""

    def __init__(self, previous: Callable[[Any], object]) -> None:
        self.previous = previous
        self.caught: list[KeyboardInterrupt] = []

    def __call__(self, unraisable: Any) -> None:
        exc = unraisable.exc_value
        if isinstance(exc, KeyboardInterrupt):
            self.caught.append(exc)
        else:
            self.previous(unraisable)


@contextmanager
def swallowed_noted() -> Iterator[SwallowedInterrupts]:
    """In the block, an interrupt raised where Python can only ignore it (a C callback, a
    ``__del__``) is noted on the hook it yields instead of printed as "Exception ignored"."""
    previous = sys.unraisablehook
    hook = SwallowedInterrupts(previous)
    sys.unraisablehook = hook
    try:
        yield hook
    finally:
        sys.unraisablehook = previous


def swallowed_interrupt() -> KeyboardInterrupt | None:
    """The first interrupt swallowed so far under the :func:`swallowed_noted` in force now."""
    hook = sys.unraisablehook
    if isinstance(hook, SwallowedInterrupts) and hook.caught:
        return hook.caught[0]
    return None


def raise_swallowed() -> None:
    """Raise here, where raising is safe, the interrupt Python swallowed so far under
    :func:`run_main` (:func:`swallowed_interrupt`); nothing where none was.

    A program calls it at a point it can stop at (``speed``: once its parser has imported the
    kit), so a Ctrl-C that landed in a callback still stops it there.
    """
    first = swallowed_interrupt()
    if first is not None:
        raise first


def run_main(main: Callable[[], int | None], *, swallowed: Sequence[KeyboardInterrupt] = ()) -> int:
    """Run a program's ``main`` and return its exit status, ended as the module docstring says:
    130 after Ctrl-C, 143 after SIGTERM, 141 where stdout's reader went away.

    ``main`` returns its status (``None`` is 0); it may parse the command line itself (an
    interrupt while it imports is then an interrupt like any other). ``swallowed``: interrupts
    Python swallowed before this module was imported (``speed``'s first import of the kit),
    counted as if swallowed here. Use it only at a program's entry point: it sets SIGTERM's
    handler and ``sys.unraisablehook`` while it runs.
    """
    try:
        try:
            status = _stopping(main, swallowed)
        finally:
            sys.stdout.flush()  # here, not at exit: a reader gone is met inside the try
    except BrokenPipeError:
        if not _stdout_reader_gone():  # another pipe (a worker's): a real error
            raise
        # Python flushes stdout again at exit: to nowhere now, so nothing more is raised.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE
    return status


def _stopping(main: Callable[[], int | None], swallowed: Sequence[KeyboardInterrupt]) -> int:
    """``main``'s status, an interrupt (Ctrl-C, SIGTERM, or one swallowed then failed on)
    printed as one line; 143 for any interrupted status once a SIGTERM has arrived."""
    with sigterm_stops() as term, swallowed_noted() as hook:
        hook.caught.extend(swallowed)
        try:
            status = int(main() or 0)
        except KeyboardInterrupt as exc:
            print(said_interrupted(exc), file=sys.stderr)
            status = INTERRUPTED
        except RuntimeError:
            first = swallowed_interrupt()
            if first is None:
                raise
            print(said_interrupted(first), file=sys.stderr)
            status = INTERRUPTED
    return TERMINATED if status == INTERRUPTED and term.received else status


def _stdout_reader_gone() -> bool:
    """Whether stdout is a pipe nobody reads any more (its write end polls as an error)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (OSError, ValueError):  # no file descriptor (a test's capture): not a pipe
        return False
