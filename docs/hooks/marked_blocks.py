"""The command both generated-block hooks share: rewrite the stale pages, or only name them.

``env_tables.py`` and ``layout_map.py`` each keep generated text between marker comments in
committed pages; ``python docs/hooks/NAME.py`` rewrites what is stale and ``--check`` only names
it (exit 1), so a test or CI can say which command to run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def refresh_command(
    argv: list[str] | None,
    prog: str,
    description: str,
    stale: Callable[[], list[Path]],
    regenerate: Callable[[str], str],
) -> int:
    """Parse ``[--check]``; rewrite each page ``stale()`` names with ``regenerate``, or name it."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    args = parser.parse_args(argv)
    pages = stale()
    if args.check:
        for page in pages:
            print(f"stale: {page} (run {prog})", file=sys.stderr)
        return 1 if pages else 0
    for page in pages:
        page.write_text(regenerate(page.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {page}")
    return 0
