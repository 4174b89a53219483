"""The chunk log of a tournament, so an interrupted run can be resumed to the same results.

Each finished chunk's result is written as it finishes; ``speed tournament --resume`` reads
them back.

``OUT/chunks.jsonl`` holds one JSON document a line: first a header, then one line per finished
chunk, in the order they finished, each appended and flushed to disk before the next. A chunk
is a pure function of the settings, the agents and its index (:mod:`agents.tournament.harness`),
so the chunks of an interrupted run plus the missing ones played on resume are exactly an
uninterrupted run's, provided the resumed run *is* the run that was started:

- the header records every setting the results depend on (by flag), the chunk plan, and per
  agent the SHA-256 of every file building it reads (:func:`agents.evaluate.agent_files.spec_files`:
  the user's ``.py``, a model's manifest and weights), and the run's identity (its seed and a
  hash of all that);
- every chunk line carries that identity.

Resuming (:func:`open_log` with ``resume``) is refused, naming what differs, when a setting
differs or an agent's file changed (its chunks so far were played by another agent), and when
the log predates file hashes (format 1). A chunk line the resume cannot trust is dropped with
a line naming it, and its chunk is played again: a line from another run, a second line for one
chunk, a chunk not in the plan, a result no chunk can produce
(:mod:`agents.tournament.chunk_checks`). A last line cut short by a kill is dropped silently (its
chunk is played again).

=======  =====================================================================================
format   what it holds
=======  =====================================================================================
1        settings only (kits up to 1.0.0); not resumable by later kits
2        settings, each agent's files and their SHA-256, the run identity on every line
=======  =====================================================================================
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from agents.runtime.files import write_atomic, write_error, write_text
from agents.tournament.harness import Chunk

R = TypeVar("R")

LOG_NAME = "chunks.jsonl"
"""The chunk log's file name in the output folder."""

FORMAT = "speed-tournament-chunks"
FORMAT_VERSION = 2
"""The format written (module docstring's table)."""

_NOTES_SHOWN = 10
"""Dropped lines named one by one on resume; past this, one line counts the rest."""


class ResumeError(ValueError):
    """A run that cannot be resumed as asked.

    The reasons: no log, another format, other settings, or an agent whose files changed.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason
        """What is wrong with the log, without the advice on ``--resume`` the message ends
        with (for a command that goes on by itself, :mod:`agents.tournament.run_folder`)."""


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers (for ``json.dumps``)."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON-ready: {type(value).__name__}")


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists), for comparing headers."""
    return json.loads(json.dumps(value, default=_plain))


def result_to_json(result: Any, run: dict[str, Any] | None = None) -> str:
    """One chunk result as one JSON line.

    ``result`` is a dataclass holding its ``chunk``. The line is led by the ``run`` identity
    it belongs to when given.
    """
    doc = dataclasses.asdict(result)
    if run is not None:
        doc = {"run": run, **doc}
    return json.dumps(doc, default=_plain, separators=(",", ":"))


def result_from_json(cls: Callable[..., R], text: str) -> R:
    """A chunk result of dataclass ``cls`` back from :func:`result_to_json`'s line.

    The line's ``run`` identity is left out.
    """
    doc = json.loads(text)
    doc.pop("run", None)
    return result_from_doc(cls, doc)


def result_from_doc(cls: Callable[..., R], doc: dict[str, Any]) -> R:
    """A chunk result of dataclass ``cls`` from its fields as JSON holds them (its ``chunk`` a
    mapping): a logged line's, or a result nested in one."""
    return cls(**{**doc, "chunk": Chunk(**doc["chunk"])})


@dataclass(frozen=True)
class Run(Generic[R]):
    """What a logged run is (its header), and how its chunk lines are read back and checked."""

    settings: dict[str, Any]
    """Every setting the results depend on, by flag (``--games``) as the user gives them."""
    seed: int
    """The run's ``--seed``."""
    agent_files: dict[str, dict[str, str]]
    """Per agent spec: ``{file: SHA-256}`` of every file building it reads."""
    plan: list[Chunk]
    """The run's chunks, by index."""
    result_type: Callable[..., R]
    """The dataclass of a chunk's result."""
    check: Callable[[R], str | None] = lambda result: None
    """The impossible field of a chunk's result, or ``None``.

    See :mod:`agents.tournament.chunk_checks`.
    """

    def header(self) -> dict[str, Any]:
        """The log's first line."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "run": self.identity(),
            "settings": _normal(self.settings),
            "agent_files": _normal(self.agent_files),
        }

    def identity(self) -> dict[str, Any]:
        """What every chunk line carries: the seed, and a SHA-256 of the settings and files.

        The hash is over the settings and the agents' files, so a line of another run, or of
        this command over other files, differs.
        """
        body = {"settings": _normal(self.settings), "agent_files": _normal(self.agent_files)}
        # Sorted keys: the hash must not depend on the order the settings were built in.
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        return {"seed": self.seed, "settings": hashlib.sha256(canonical).hexdigest()}


class ChunkLog:
    """The open chunk log of a run: :meth:`add` appends a finished chunk's result."""

    def __init__(self, path: Path, file: IO[str], run: dict[str, Any] | None = None) -> None:
        self.path = path
        """Where the log is."""
        self._file = file
        self._run = run

    def add(self, result: Any) -> None:
        """Append ``result`` with the run's identity; durable before the run goes on.

        A failure (a full disk) names the log; a line it cut short is dropped on ``--resume``.
        """
        try:
            self._file.write(result_to_json(result, self._run) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            named = write_error(self.path, exc)
            if named is None:
                raise
            raise named from exc

    def close(self, complete: bool = False) -> None:
        """Close the file; the log stays, for a later ``--resume``.

        A ``complete`` run's log is rewritten in chunk order: chunks finish in whatever order
        the workers or a Ray cluster end them, and a finished run's files are the same for any
        backend.
        """
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


def _changed_files(saved: Any, now: dict[str, dict[str, str]]) -> list[str]:
    """Per agent, each file that changed, appeared or went since the run started."""
    if not isinstance(saved, dict):
        return ["the log records no files (edited by hand?)"]
    out = []
    for spec, files in now.items():
        then = saved.get(spec)
        if not isinstance(then, dict):
            out.append(f"agent {spec!r}: the log records no files for it (edited by hand?)")
            continue
        for name in dict.fromkeys([*then, *files]):
            old, new = then.get(name), files.get(name)
            if old == new:
                continue
            if old is None:
                out.append(f"agent {spec!r} now also reads {name} (it did not when the run began)")
            elif new is None:
                out.append(
                    f"agent {spec!r} no longer reads {name}, which it read when the run began"
                )
            else:
                out.append(
                    f"agent {spec!r}: {name} changed since the run began "
                    f"(SHA-256 {str(old)[:12]}… then, {new[:12]}… now)"
                )
    return out


def earlier_run(folder: Path) -> tuple[dict[str, Any], int] | None:
    """The settings and the number of finished chunks of the run logged in ``folder``.

    A cut-short last line is not counted. None when there is no readable log.
    """
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


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def open_log(
    folder: Path, run: Run[R], *, resume: bool, say: Callable[[str], None] = _stderr
) -> tuple[ChunkLog, dict[int, R]]:
    """Open ``folder``'s chunk log for ``run``: a new log, or the existing one with ``resume``.

    Returns the log and, on resume, its finished chunk results by chunk index. Raises
    :class:`ResumeError` naming what differs; ``say`` gets one line per chunk line dropped,
    for the reasons the module docstring lists.
    """
    path = folder / LOG_NAME
    header = run.header()
    if not resume:
        file = path.open("w", encoding="utf-8")
        try:
            file.write(json.dumps(header) + "\n")
            file.flush()
        except OSError as exc:
            with contextlib.suppress(OSError):  # what could not be flushed is lost, not retried
                file.close()
            named = write_error(path, exc)
            if named is None:
                raise
            raise named from exc
        return ChunkLog(path, file, header["run"]), {}
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise ResumeError(
            f"--resume: no {LOG_NAME} in {str(folder)!r}, so nothing to resume (a tournament "
            "writes it as its chunks finish)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResumeError(
            f"--resume: cannot read {path}: {exc}", f"cannot read it: {exc}"
        ) from None
    _check_header(path, lines[0], header)
    done, kept = _finished(path, lines, run, header["run"], say)
    # Rewrite the log with the lines kept only, then go on appending to it. Atomic: a kill
    # during the rewrite leaves the old log, never half of the new one.
    write_text(path, "\n".join([lines[0], *kept]) + "\n")
    file = path.open("a", encoding="utf-8")
    return ChunkLog(path, file, header["run"]), done


def _check_header(path: Path, first: str, header: dict[str, Any]) -> None:
    """Refuse a log whose header is not this run's, naming the setting or file that differs."""
    try:
        saved = json.loads(first)
    except json.JSONDecodeError:
        saved = None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise ResumeError(
            f"--resume: {path} is not a chunk log this version of the kit reads",
            "it is not a chunk log this version of the kit reads",
        )
    # Format 1 first: its own message says why it can never resume, not just "another format".
    if saved.get("format_version") == 1:
        raise ResumeError(
            f"--resume: {path} was written by an earlier version of the kit, before chunk logs "
            "recorded the SHA-256 of each agent's files, so its finished chunks cannot be "
            "checked against the agents now; start the run afresh (the same command without "
            "--resume)",
            "an earlier version of the kit wrote it, before chunk logs recorded the SHA-256 of "
            "each agent's files",
        )
    if saved.get("format_version") != FORMAT_VERSION:
        raise ResumeError(
            f"--resume: {path} is chunk log format {saved.get('format_version')!r}; this "
            f"version of the kit reads format {FORMAT_VERSION}",
            f"it is format {saved.get('format_version')!r}, not {FORMAT_VERSION}",
        )
    folder = str(path.parent)
    changed = _differences(saved.get("settings", {}), header["settings"])
    if changed:
        raise ResumeError(
            f"--resume: the run in {folder!r} was started with other settings: "
            + "; ".join(changed)
            + ". Resume with the same settings, or start a new run without --resume",
            "it was started with other settings: " + "; ".join(changed),
        )
    files = _changed_files(saved.get("agent_files"), header["agent_files"])
    if files:
        raise ResumeError(
            f"--resume: the run in {folder!r} began with other agent files: "
            + "; ".join(files)
            + ". Its finished chunks were played by the old files, so resuming would mix two "
            "agents: restore the files, or start a new run without --resume",
            "it began with other agent files: " + "; ".join(files),
        )
    if saved.get("run") != header["run"]:
        raise ResumeError(
            f"--resume: {path}'s header names run {saved.get('run')!r}, not the one its "
            f"settings make ({header['run']!r}); edited by hand? Start a new run without --resume",
            f"its header names run {saved.get('run')!r}, not the one its settings make",
        )


def _finished(
    path: Path,
    lines: list[str],
    run: Run[R],
    identity: dict[str, Any],
    say: Callable[[str], None],
) -> tuple[dict[int, R], list[str]]:
    """The trusted results of the log's chunk lines, by chunk index, and those lines.

    Every other line is dropped with a note to ``say``.
    """
    done: dict[int, R] = {}
    kept: dict[int, tuple[int, str]] = {}  # chunk index -> (line number, line)
    conflicted: set[int] = set()
    notes: list[str] = []
    # Only the last line can be cut short by a kill (each line is fsynced before the next):
    # a torn line anywhere else is damage, and is named.
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=1)
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:
            if n == last:
                break  # the last line, cut short by a kill: its chunk is played again
            notes.append(f"line {n} is not JSON")
            continue
        if not isinstance(doc, dict):
            notes.append(f"line {n} is not a chunk result")
            continue
        if doc.get("run") != identity:
            other = doc.get("run")
            seed = other.get("seed") if isinstance(other, dict) else None
            notes.append(f"line {n} is from another run (seed {seed!r}, not this run's {run.seed})")
            continue
        try:
            result = result_from_json(run.result_type, line)
        except (TypeError, KeyError, ValueError, AttributeError):
            notes.append(f"line {n} is not a chunk result")
            continue
        index = result.chunk.index  # type: ignore[attr-defined]
        if not _in_plan(doc["chunk"], run.plan):
            notes.append(f"line {n} holds chunk {doc['chunk']}, which is not one of this run's")
            continue
        problem = run.check(result)
        if problem:
            notes.append(f"line {n} (chunk {index}) holds an impossible result: {problem}")
            continue
        if index in kept:
            # Two different results for one chunk: neither can be trusted, so the chunk is
            # played again. An identical repeat is harmless and keeps the first.
            first, text = kept[index]
            if text == line:
                notes.append(f"line {n} repeats line {first} (chunk {index})")
            else:
                notes.append(
                    f"line {n} holds chunk {index} again, with other results than line {first} "
                    "(both dropped)"
                )
                conflicted.add(index)
            continue
        kept[index] = (n, line)
        done[index] = result
    for index in conflicted:
        del kept[index], done[index]
    for note in notes[:_NOTES_SHOWN]:
        say(f"--resume: {path} {note}: dropped")
    if notes:
        more = (
            f" ({len(notes) - _NOTES_SHOWN} more not listed)" if len(notes) > _NOTES_SHOWN else ""
        )
        say(
            f"--resume: {len(notes)} lines of {path} dropped{more}; a chunk they held is "
            "played again unless a trusted line holds it"
        )
    order = sorted(kept.values())  # by line number: the rewritten log keeps the finish order
    return done, [text for _, text in order]


def _in_plan(chunk: Any, plan: list[Chunk]) -> bool:
    """Whether a line's ``chunk`` is exactly the plan's chunk of its index.

    Exactly: integers as integers.
    """
    index = chunk.get("index") if isinstance(chunk, dict) else None
    # bool is an int in Python: ``true`` must not pass for chunk 1.
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(plan):
        return False
    exact = json.dumps(dataclasses.asdict(plan[index]), sort_keys=True)
    return json.dumps(chunk, sort_keys=True) == exact
