"""The browser table's replay files: one JSON Lines file per page visit, in a folder kept bounded.

A visit's file is created when its first game is written (``play-…`` or
``watch-…``, then the date, time and a random tag, ``.jsonl``). Each write
then prunes the folder: while it holds more than ``keep`` of these files, or
more than ``max_bytes`` in them, the oldest (by modification time) are
deleted, never the one just written. Only files named like a table's replays
are counted or deleted, so other files in the folder are left alone.

Which games are written at all is the session's choice
(:mod:`speed_table.session`: games with at least one play).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAME = re.compile(r"(play|watch)-\d{8}-\d{6}-[0-9a-f]{6}\.jsonl")
"""The names of the files a table writes (and the only ones pruning may delete)."""


@dataclass(frozen=True)
class ReplayLimits:
    """How much a replay folder may hold; past either bound, the oldest replays are deleted."""

    keep: int = 200
    """Most replay files."""
    max_bytes: int = 64 * 2**20
    """Most bytes in replay files (the newest file is kept even when larger)."""

    def __post_init__(self) -> None:
        for name in ("keep", "max_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"replay {name} must be a whole number >= 1, got {value!r}")


def prune(folder: Path, limits: ReplayLimits, current: Path | None = None) -> list[Path]:
    """Delete the oldest replays in ``folder`` past ``limits`` (never ``current``); the deleted."""
    files = []
    for path in folder.iterdir() if folder.is_dir() else ():
        if NAME.fullmatch(path.name):
            try:
                st = path.stat()
            except OSError:  # deleted meanwhile (another table on the same folder)
                continue
            files.append((st.st_mtime, path.name, path, st.st_size))
    files.sort()
    count, total = len(files), sum(f[3] for f in files)
    removed = []
    for _, _, path, size in files:
        if count <= limits.keep and total <= limits.max_bytes:
            break
        if path == current:
            continue
        path.unlink(missing_ok=True)
        removed.append(path)
        count, total = count - 1, total - size
    return removed


class ReplayFile:
    """A visit's replay file, created at its first game; the folder pruned after each write."""

    def __init__(self, folder: Path | None, mode: str, limits: ReplayLimits | None = None) -> None:
        self.limits = limits or ReplayLimits()
        self.path: Path | None = None
        if folder is not None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            self.path = Path(folder) / f"{mode}-{stamp}-{uuid.uuid4().hex[:6]}.jsonl"

    def append(self, frames: Sequence[dict[str, Any]]) -> str | None:
        """Append a game's frames; the file's path (None: replays off). May raise ``OSError``."""
        if self.path is None or not frames:
            return None if self.path is None else str(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(f, separators=(",", ":")) + "\n" for f in frames)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(text)
        prune(self.path.parent, self.limits, current=self.path)
        return str(self.path)


__all__ = ["NAME", "ReplayFile", "ReplayLimits", "prune"]
