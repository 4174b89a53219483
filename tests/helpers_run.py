"""Run a script or module of the kit in a fresh Python, as a user would; what it printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_python(*argv: str) -> str:
    """``python ARGV...`` in the repository root; its stdout (fails, with stderr, on exit != 0)."""
    done = subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
