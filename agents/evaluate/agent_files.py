"""Which data files building an agent reads, and their SHA-256: the evaluation manifest's record.

Building an agent may read model files (``trained`` reads a bundled
manifest and its weights, ``ppo:PATH`` the file named, a user's agent its
own weights). :func:`files_read` builds it under a Python audit hook
(:func:`sys.addaudithook`, installed once, idle unless a recording is open)
and keeps every regular file opened for reading that can be an agent's code
or data. Left out, because no agent keeps code or data there:

- Python's own: ``.py``/``.pyc``, ``__pycache__``, package metadata
  (``*.dist-info``, ``*.egg-info``), the interpreter's prefixes and the
  site-packages folders (user site included);
- the kit's sources other than its bundled models (a module imported for the
  first time is read once per process, so it would make the record depend on
  what ran before);
- the system's state: ``/proc``, ``/sys``, ``/dev``, ``/run``, ``/etc`` and any
  mount of a kernel pseudo filesystem (:data:`PSEUDO_FILESYSTEMS`). Building
  a game reads ``/proc/meminfo``, whose bytes change every run, so keeping it
  would change the run's identity every run and refuse every ``--resume``.

Everything else is kept, wherever it lies (the working tree, a home folder,
a data disk): a weight file at a path an agent finds on its own must not be
missed, so the rule lists where agent files cannot be rather than where they
may be. A user's agent file is added by its spec (:mod:`agents.specs.user_files`).
Paths inside the kit are recorded relative to its root, so the record is the
same on every machine.
"""

from __future__ import annotations

import hashlib
import re
import site
import sys
import sysconfig
from collections.abc import Callable
from functools import cache
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
        return  # a file descriptor, or a file opened to write: not data the agent reads
    _recordings[-1].add(str(path))  # the innermost recording: files_read may nest


SYSTEM_ROOTS = tuple(Path(p) for p in ("/proc", "/sys", "/dev", "/run", "/etc"))
"""Folders of the system's state and configuration, never an agent's files (module docstring)."""
PSEUDO_FILESYSTEMS = frozenset(
    {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devfs",
        "devpts", "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc",
        "pstore", "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs",
    }
)  # fmt: skip
"""Mount types whose files the kernel makes up on reading: left out wherever they are mounted."""


@cache
def _python_roots() -> tuple[Path, ...]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    # A user-site or system site-packages can lie outside the prefixes (pip install --user).
    sites = {*getattr(site, "getsitepackages", list)(), site.getusersitepackages()}
    paths = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted({Path(p).resolve() for p in prefixes | sites | paths if p}))


def pseudo_mounts(table: str) -> tuple[Path, ...]:
    """The mount points of pseudo filesystems in a mount table.

    ``table`` is written as ``/proc/self/mounts`` writes it; the types are
    :data:`PSEUDO_FILESYSTEMS`.
    """
    found = []
    for line in table.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] in PSEUDO_FILESYSTEMS:
            # The table writes a space in a mount point as \040 (octal escapes).
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1])
            found.append(Path(point))
    return tuple(found)


@cache
def _machine_pseudo_mounts() -> tuple[Path, ...]:
    try:
        return pseudo_mounts(Path("/proc/self/mounts").read_text())
    except OSError:  # no such table (not Linux): the fixed SYSTEM_ROOTS still apply
        return ()


def system_file(path: Path) -> bool:
    """Whether the resolved ``path`` lies where the system or Python keep their own files.

    Such a file is never an agent's; the module docstring lists the places.
    """
    if path.suffix in (".py", ".pyc") or any(
        part == "__pycache__" or part.endswith((".dist-info", ".egg-info")) for part in path.parts
    ):
        return True
    roots = (*SYSTEM_ROOTS, *_machine_pseudo_mounts(), *_python_roots())
    return any(path.is_relative_to(root) for root in roots)


def _kept(path: Path) -> bool:
    """Whether an opened file belongs in the record (see the module docstring)."""
    if not path.is_file():
        return False
    if path.is_relative_to(MODELS):
        # First: a kit installed into site-packages keeps its bundled models there too.
        return True
    return not system_file(path) and not path.is_relative_to(KIT_ROOT)


def record_name(path: Path) -> str:
    """How a file is named in the record.

    Inside the kit: relative to the kit's root, once resolved. Elsewhere: as given.
    """
    resolved = path.resolve()
    if resolved.is_relative_to(KIT_ROOT):
        return resolved.relative_to(KIT_ROOT).as_posix()
    return str(path)


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_files(spec: str) -> dict[str, str]:
    """The Python file a user's agent spec loads, with its SHA-256.

    The spec is ``py:PATH:NAME`` or ``MODULE:NAME``; ``{}`` for a registered agent or a module
    without a file.
    """
    from agents.specs import user_files

    if not user_files.is_user_spec(spec):
        return {}
    source = user_files.source_file(user_files.parse(spec))
    if source is None or not source.is_file():
        return {}
    return {record_name(source): sha256(source)}


def spec_files(spec: str, build: Callable[[], Any]) -> dict[str, str]:
    """Every file building the agent ``spec`` reads, with its SHA-256.

    - its own Python file: :func:`source_files`;
    - the data files ``build()`` reads: :func:`files_read`.

    What a report card's manifest and a tournament's chunk log record per agent.
    """
    return built_with_files(spec, build)[1]


def built_with_files(spec: str, build: Callable[[], T]) -> tuple[T, dict[str, str]]:
    """``build()`` of the agent ``spec``, and the files it read as :func:`spec_files` gives them.

    For a caller that keeps the agent it built (a play record's opponent), so the hashes are
    of the very files that agent was built from.
    """
    agent, files = files_read(build)
    return agent, dict(sorted({**source_files(spec), **files}.items()))


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
