"""The chunk log of a tournament: each finished chunk's result written as it finishes, so an
interrupted run can be resumed (``speed tournament --resume``) to the same results.

``OUT/chunks.jsonl`` holds one JSON document a line: first a header (what the run plays: every
setting its results depend on, and the chunk plan), then one line per finished chunk, in the
order they finished, each appended and flushed to disk before the next. A chunk is a pure
function of the settings and its index (:mod:`agents.tournament_harness`), so the chunks of an
interrupted run plus the missing ones played on resume are exactly an uninterrupted run's.

Resuming is refused, naming the setting, when the header differs from the settings asked for
now; a last line cut short by a kill is ignored (its chunk is played again).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

from agents.files import write_atomic
from agents.tournament_harness import Chunk

R = TypeVar("R")

LOG_NAME = "chunks.jsonl"
"""The chunk log's file name in the output folder."""

FORMAT = "speed-tournament-chunks"
FORMAT_VERSION = 1


class ResumeError(ValueError):
    """A run that cannot be resumed as asked: no log, another format, or other settings."""


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers (for ``json.dumps``)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON-ready: {type(value).__name__}")


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists), for comparing headers."""
    return json.loads(json.dumps(value, default=_plain))


def result_to_json(result: Any) -> str:
    """One chunk result (a dataclass holding its ``chunk``) as one JSON line."""
    return json.dumps(dataclasses.asdict(result), default=_plain, separators=(",", ":"))


def result_from_json(cls: Callable[..., R], text: str) -> R:
    """A chunk result of dataclass ``cls`` back from :func:`result_to_json`'s line."""
    doc = json.loads(text)
    return cls(**{**doc, "chunk": Chunk(**doc["chunk"])})


class ChunkLog:
    """The open chunk log of a run: :meth:`add` appends a finished chunk's result."""

    def __init__(self, path: Path, file: IO[str]) -> None:
        self.path = path
        """Where the log is."""
        self._file = file

    def add(self, result: Any) -> None:
        """Append ``result`` and make it durable before the run goes on."""
        self._file.write(result_to_json(result) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self, complete: bool = False) -> None:
        """Close the file (the log stays, for a later ``--resume``). A ``complete`` run's log is
        rewritten in chunk order: chunks finish in whatever order the workers (or a Ray
        cluster) end them, and a finished run's files are the same for any backend."""
        self._file.close()
        if complete:
            header, *rows = [ln for ln in self.path.read_text(encoding="utf-8").split("\n") if ln]
            rows.sort(key=lambda ln: json.loads(ln)["chunk"]["index"])
            write_atomic(self.path, ("\n".join([header, *rows]) + "\n").encode())


def _differences(saved: dict[str, Any], asked: dict[str, Any]) -> list[str]:
    """The settings (header keys) whose values differ, each with both values."""
    out = []
    for key in dict.fromkeys([*saved, *asked]):
        if saved.get(key) != asked.get(key):
            out.append(f"{key} (the run has {saved.get(key)!r}, now {asked.get(key)!r})")
    return out


def earlier_run(folder: Path) -> tuple[dict[str, Any], int] | None:
    """The settings and the number of finished chunks of the run logged in ``folder`` (a
    cut-short last line not counted), or None when there is no readable log."""
    try:
        lines = (folder / LOG_NAME).read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
    except (OSError, UnicodeDecodeError, IndexError, json.JSONDecodeError):
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return None
    finished = 0
    for line in lines[1:]:
        try:
            json.loads(line)
        except json.JSONDecodeError:
            break
        finished += 1
    return dict(header.get("settings") or {}), finished


def open_log(
    folder: Path, settings: dict[str, Any], result_type: Callable[..., R], *, resume: bool
) -> tuple[ChunkLog, dict[int, R]]:
    """Open ``folder``'s chunk log for a run of ``settings`` (keys named as the user gives them,
    e.g. ``--games``): a new log, or with ``resume`` the existing one, whose finished chunk
    results (by chunk index) are returned. Raises :class:`ResumeError` naming what differs."""
    path = folder / LOG_NAME
    header = {"format": FORMAT, "format_version": FORMAT_VERSION, "settings": _normal(settings)}
    done: dict[int, R] = {}
    if not resume:
        file = path.open("w", encoding="utf-8")
        file.write(json.dumps(header) + "\n")
        file.flush()
        return ChunkLog(path, file), done
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise ResumeError(
            f"--resume: no {LOG_NAME} in {str(folder)!r}, so nothing to resume (a tournament "
            "writes it as its chunks finish)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResumeError(f"--resume: cannot read {path}: {exc}") from None
    try:
        saved = json.loads(lines[0])
    except json.JSONDecodeError:
        saved = None
    if (
        not isinstance(saved, dict)
        or saved.get("format") != FORMAT
        or saved.get("format_version") != FORMAT_VERSION
    ):
        raise ResumeError(f"--resume: {path} is not a chunk log this version of the kit reads")
    changed = _differences(saved.get("settings", {}), header["settings"])
    if changed:
        raise ResumeError(
            f"--resume: the run in {str(folder)!r} was started with other settings: "
            + "; ".join(changed)
            + ". Resume with the same settings, or start a new run without --resume"
        )
    kept = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            result = result_from_json(result_type, line)
        except (json.JSONDecodeError, TypeError, KeyError):
            if n == len(lines) or all(not rest.strip() for rest in lines[n:]):
                break  # the last line, cut short by a kill: its chunk is played again
            raise ResumeError(f"--resume: {path} line {n} is not a chunk result") from None
        done[result.chunk.index] = result  # type: ignore[attr-defined]
        kept.append(line)
    # Rewrite the log without a cut-short tail, then go on appending to it.
    from agents.files import write_text

    write_text(path, "\n".join([lines[0], *kept]) + "\n")
    file = path.open("a", encoding="utf-8")
    return ChunkLog(path, file), done
