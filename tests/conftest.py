"""What every test shares: the helper modules of ``tests/`` and its folders import by their own
names (``from helpers_deal import make_env``), whichever way pytest imports the test files
(``prepend``, ``append`` or ``importlib``) and from whichever folder it is run."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
for folder in (HERE, HERE / "table", HERE / "vintage", HERE / "cluster", HERE / "data"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
