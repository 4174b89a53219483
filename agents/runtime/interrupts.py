"""Ctrl-C held back over a block of code and raised when it ends."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """A Ctrl-C during the block is raised as ``KeyboardInterrupt`` when it ends, not inside it.

    Python's default SIGINT handler is swapped for one that only notes the signal. Where the
    program set a handler of its own (a worker that ignores SIGINT, say), or outside the main
    thread (where Python handles no signals), the block runs as it is. Used where an
    interrupt must not land mid-way:

    - :func:`agents.evaluate.report.write_card`: a card's files are all renamed into place or
      none;
    - :func:`train.vec_env.skip_loop.tick_forced`: numba unboxes the ``np.random.Generator``
      its kernel takes by running Python code, and a ``KeyboardInterrupt`` raised there crashes
      the process with a segmentation fault (a Ctrl-C of ``speed train`` did so in 4 of about
      60 tries: ``tests/train/test_interrupts.py``).
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
