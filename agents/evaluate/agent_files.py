"""Which data files building an agent reads, and their SHA-256: the evaluation manifest's record.

Building an agent may read model files (``trained`` reads a bundled
manifest and its weights, ``ppo:PATH`` the file named, a user's agent its
own weights). :func:`files_read` builds it under a Python audit hook
(:func:`sys.addaudithook`, installed once, idle unless a recording is open)
and keeps every regular file opened for reading, except Python's own
(``.py``/``.pyc``, ``__pycache__``, the interpreter's prefix) and the kit's
sources other than its bundled models (a module imported for the first time
is read once per process, so it would make the record depend on what ran
before). A user's agent file is added by its spec (:mod:`agents.specs.user_files`).
Paths inside the kit are recorded relative to its root, so the record is the
same on every machine.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

KIT_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the kit's packages (``agents``, ``speed_env`` …)."""
MODELS = KIT_ROOT / "agents" / "models"

_recordings: list[set[str]] = []
_installed = False


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _recordings:
        return
    path, mode = args[0], args[1]
    if not isinstance(path, str | Path) or (
        isinstance(mode, str) and any(c in mode for c in "wax+")
    ):
        return
    _recordings[-1].add(str(path))


def _kept(path: Path) -> bool:
    """Whether an opened file belongs in the record (see the module docstring)."""
    if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
        return False
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        if path.is_relative_to(Path(prefix).resolve()):
            return False
    return not path.is_relative_to(KIT_ROOT) or path.is_relative_to(MODELS)


def record_name(path: Path) -> str:
    """How a file is named in the record: relative to the kit's root inside it, else as given
    (resolved)."""
    resolved = path.resolve()
    if resolved.is_relative_to(KIT_ROOT):
        return resolved.relative_to(KIT_ROOT).as_posix()
    return str(path)


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_files(spec: str) -> dict[str, str]:
    """The Python file a user's agent spec (``py:PATH:NAME``, ``MODULE:NAME``) loads, with its
    SHA-256; ``{}`` for a registered agent or a module without a file."""
    from agents.specs import user_files as user_agents

    if not user_agents.is_user_spec(spec):
        return {}
    source = user_agents.source_file(user_agents.parse(spec))
    if source is None or not source.is_file():
        return {}
    return {record_name(source): sha256(source)}


def spec_files(spec: str, build: Callable[[], Any]) -> dict[str, str]:
    """Every file building the agent ``spec`` reads, with its SHA-256: its own Python file
    (:func:`source_files`) and the data files ``build()`` reads (:func:`files_read`). What a
    report card's manifest and a tournament's chunk log record per agent."""
    _, files = files_read(build)
    return dict(sorted({**source_files(spec), **files}.items()))


def files_read(build: Callable[[], T]) -> tuple[T, dict[str, str]]:
    """``build()`` and the data files it read: ``{record name: SHA-256}``."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)  # cannot be removed; idle while no recording is open
        _installed = True
    _recordings.append(set())
    try:
        result = build()
    finally:
        opened = _recordings.pop()
    files = {}
    for name in opened:
        path = Path(name)
        if _kept(path.resolve()):
            files[record_name(path)] = sha256(path)
    return result, files
