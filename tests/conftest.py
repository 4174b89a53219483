"""What every test shares: the helper modules of ``tests/`` and its folders import by their own
names (``from helpers_deal import make_env``), whichever way pytest imports the test files
(``prepend``, ``append`` or ``importlib``) and from whichever folder it is run; and Ctrl-C
(SIGINT) behaves as in a terminal however the suite was launched."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

HERE = Path(__file__).parent
for folder in (HERE, HERE / "table", HERE / "vintage", HERE / "cluster", HERE / "data"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def pytest_sessionstart() -> None:
    """Restore Python's Ctrl-C handler when the suite was launched with SIGINT ignored.

    A shell without job control starts a background command (``nohup pytest ... &``) with
    SIGINT ignored, and an ignored signal stays ignored in every child: the tests that send
    Ctrl-C to a run (or to themselves) would then see nothing happen and fail.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
