"""The browser table's replay files: one JSON Lines file per page visit.

The folder they are in is kept bounded.

A visit's file is created when its first game is written (``play-…`` or
``watch-…``, then the date, time and a random tag, ``.jsonl``). Each write
then prunes the folder: while it holds more than ``keep`` of these files, or
more than ``max_bytes`` in them, the oldest (by modification time) are
deleted, never the one just written. Only files named like a table's replays
are counted or deleted, so other files in the folder are left alone.

The byte bound holds for the folder *including* the file being written: a game
that would take the visit's file past ``max_bytes`` starts a new file (the
visit's replays are split, one whole game never across two files), and a game
whose replay alone is larger than ``max_bytes`` is not saved at all
(:class:`ReplayTooLarge`, which the page shows). The session stops collecting
such a game's frames as soon as they pass the bound (:meth:`ReplayLimits.fits`),
so a long game at a fast tick cannot fill the memory either.

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
    """Most bytes in replay files, the newest included (a game larger than this is not saved)."""

    def __post_init__(self) -> None:
        for name in ("keep", "max_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"replay {name} must be a whole number >= 1, got {value!r}")

    def fits(self, nbytes: int) -> bool:
        """Whether a game's replay of ``nbytes`` can be saved at all (alone within the bound)."""
        return nbytes <= self.max_bytes


class ReplayTooLarge(ValueError):
    """A game's replay is larger than the folder's byte bound by itself: it is not saved."""

    def __init__(self, nbytes: int, limits: ReplayLimits) -> None:
        super().__init__(
            f"replay not saved: this game's replay alone passed the folder's bound of "
            f"{_mb(limits.max_bytes)} (--replays-max-mb); a bigger bound keeps games this long"
        )
        self.nbytes = nbytes


def _mb(nbytes: int) -> str:
    return f"{nbytes / 2**20:.3g} MB"


def frame_line(frame: dict[str, Any]) -> str:
    """One replay frame as its JSON line (what :meth:`ReplayFile.append` writes)."""
    return json.dumps(frame, separators=(",", ":")) + "\n"


def prune(folder: Path, limits: ReplayLimits, current: Path | None = None) -> list[Path]:
    """Delete the oldest replays in ``folder`` past ``limits`` (never ``current``); the deleted."""
    files = []
    for path in folder.iterdir() if folder.is_dir() else ():
        if NAME.fullmatch(path.name):
            try:
                st = path.stat()
            except OSError:  # deleted meanwhile (another table on the same folder)
                continue
            # The name breaks a tie of times, so equal mtimes are pruned in a fixed order.
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
    """A visit's replay file, created at its first game.

    It is split when the next game would take it past the byte bound; the folder is pruned
    after each write.
    """

    def __init__(self, folder: Path | None, mode: str, limits: ReplayLimits | None = None) -> None:
        self.limits = limits or ReplayLimits()
        self.folder = None if folder is None else Path(folder)
        self.mode = mode
        self.path: Path | None = None if self.folder is None else self._new_path()

    def _new_path(self) -> Path:
        assert self.folder is not None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return self.folder / f"{self.mode}-{stamp}-{uuid.uuid4().hex[:6]}.jsonl"

    def append(self, lines: Sequence[str]) -> str | None:
        """Append a game's frames, JSON lines from :func:`frame_line`; the file's path.

        The path is None when replays are off. Raises :class:`ReplayTooLarge` for a game over
        the bound by itself, writing nothing, and may raise ``OSError``.
        """
        if self.path is None or not lines:
            return None if self.path is None else str(self.path)
        data = "".join(lines).encode("utf-8")
        if not self.limits.fits(len(data)):
            raise ReplayTooLarge(len(data), self.limits)
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:  # not written yet, or pruned by another table
            size = 0
        if size and size + len(data) > self.limits.max_bytes:
            self.path = self._new_path()  # split: this game starts the visit's next file
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            fh.write(data)
        prune(self.path.parent, self.limits, current=self.path)
        return str(self.path)


__all__ = ["NAME", "ReplayFile", "ReplayLimits", "ReplayTooLarge", "frame_line", "prune"]
