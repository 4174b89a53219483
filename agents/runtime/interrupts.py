"""SIGTERM raised as Ctrl-C is; both held back over a block and raised when it ends.

A run started in the background by a shell without job control (``nohup speed ... &``, a
queue's script) has SIGINT ignored, and a batch system (SLURM's ``scancel`` or time limit),
``docker stop``, ``timeout`` and systemd stop a program with SIGTERM, which by default kills it
outright. Under :func:`sigterm_stops` (the ``speed`` command runs every command in it) a
SIGTERM is raised as :class:`Terminated`, a ``KeyboardInterrupt``: what a Ctrl-C saves and
reports, a SIGTERM does too. Python code calling the kit gets the same by running in it::

    with sigterm_stops():
        train(settings)
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

INTERRUPTED = 128 + signal.SIGINT
"""The exit status of a command stopped by Ctrl-C (130)."""

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command stopped by SIGTERM (143)."""


class Terminated(KeyboardInterrupt):
    """A SIGTERM, raised where a Ctrl-C raises ``KeyboardInterrupt`` (under
    :func:`sigterm_stops`)."""


class TermHandler:
    """SIGTERM's handler under :func:`sigterm_stops`: counts the signal and raises
    :class:`Terminated`."""

    def __init__(self) -> None:
        self.received = 0

    def __call__(self, signum: int, frame: FrameType | None) -> NoReturn:
        self.received += 1
        raise Terminated("SIGTERM")


@contextmanager
def sigterm_stops() -> Iterator[TermHandler]:
    """In the block, a SIGTERM is raised as :class:`Terminated`, as Ctrl-C raises
    ``KeyboardInterrupt``; yields the handler, whose ``received`` counts them.

    Off the main thread, where Python handles no signals, the block runs as it is (the handler
    it yields then counts nothing). Only a program's entry point should use it, never a
    library at import: SIGTERM is the program's to handle.
    """
    handler = TermHandler()
    if threading.current_thread() is not threading.main_thread():
        yield handler
        return
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def terminated() -> bool:
    """Whether a SIGTERM has arrived under the :func:`sigterm_stops` in force now."""
    handler = signal.getsignal(signal.SIGTERM)
    return isinstance(handler, TermHandler) and handler.received > 0


def interrupted_by(exc: BaseException | None = None) -> str:
    """What stopped a run: ``"SIGTERM"`` for :class:`Terminated` (or, with no exception to
    go by, when one has arrived), ``"Ctrl-C"`` otherwise."""
    return "SIGTERM" if isinstance(exc, Terminated) or terminated() else "Ctrl-C"


def said_interrupted(exc: BaseException | None = None) -> str:
    """How a message says a run stopped: ``interrupted`` after a Ctrl-C, ``interrupted
    (SIGTERM)`` after a SIGTERM (:func:`interrupted_by`)."""
    by = interrupted_by(exc)
    return "interrupted" if by == "Ctrl-C" else f"interrupted ({by})"


def _deferred(signum: int, handler: Any) -> bool:
    """Whether ``handler`` is one :func:`sigint_deferred` holds back: Python's own Ctrl-C
    handler, or :func:`sigterm_stops`'s."""
    if signum == signal.SIGINT:
        return handler is signal.default_int_handler
    return isinstance(handler, TermHandler)


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """A Ctrl-C or SIGTERM during the block is raised when it ends, not inside it.

    Python's default SIGINT handler and :func:`sigterm_stops`'s SIGTERM handler are swapped for
    ones that only note the signal; at the end, a SIGTERM noted is raised as
    :class:`Terminated`, else a Ctrl-C as ``KeyboardInterrupt``. Where the program set a
    handler of its own (a worker that ignores SIGINT, a SIGTERM left to kill), or outside the
    main thread (where Python handles no signals), that signal is left as it is. Used where an
    interrupt must not land mid-way:

    - :func:`agents.evaluate.report.write_card`: a card's files are all renamed into place or
      none;
    - :func:`train.vec_env.skip_loop.tick_forced`: numba unboxes the ``np.random.Generator``
      its kernel takes by running Python code, and a ``KeyboardInterrupt`` raised there crashes
      the process with a segmentation fault (a Ctrl-C of ``speed train`` did so in 4 of about
      60 tries: ``tests/train/test_interrupts.py``).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = [
        signum
        for signum in (signal.SIGINT, signal.SIGTERM)
        if _deferred(signum, signal.getsignal(signum))
    ]
    caught: list[int] = []

    def note(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)

    previous = {signum: signal.signal(signum, note) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    term = previous.get(signal.SIGTERM)
    if signal.SIGTERM in caught and isinstance(term, TermHandler):
        term(signal.SIGTERM, None)  # counts it and raises Terminated
    if caught:
        raise KeyboardInterrupt
