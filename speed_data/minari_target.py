"""Where a Minari dataset goes: its id checked, its staging folder claimed, then moved into place.

A dataset is written whole or not at all. Before a game is played or a record read,
:func:`claim` checks the destination:

- the id has Minari's syntax (``namespace/name-vN``, a version required) and its folder lies
  inside the datasets folder (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``), even
  through symbolic links; nothing is created before that check;
- no dataset (nor any file) holds the id yet, and no id above it is a dataset;
- the datasets folder can be written, and holds the estimated size free.

The dataset is then written under ``DATASETS/.speed-staging/ID/`` (Minari lists no hidden
folder) by one run at a time (the folder's ``run.lock``, :class:`agents.runtime.run_lock.
FolderLock`), and :meth:`Staging.commit` renames it into place in one step once it is
complete. A write that fails removes its staging folder; one that was killed leaves it, and
the next write of the same id clears it with a one-line message.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from agents.runtime.run_lock import LOCK_NAME, FolderInUse, FolderLock

STAGING_NAME = ".speed-staging"
"""The datasets folder's subfolder where datasets are written before they are moved in."""
NAMESPACE_FILE = "namespace_metadata.json"
"""Minari's marker of a namespace folder (``minari.namespace``)."""

# Minari's own syntax (minari.dataset.minari_dataset.DATASET_ID_RE, 0.5), with the version
# required: Minari's parse_dataset_id takes the version as an int and fails without one.
_ID = re.compile(
    r"^(?:(?P<namespace>[-_\w][-_\w/]*[-_\w]+)/)?(?P<name>[-_\w]+?)-v(?P<version>\d+)$"
)


class TargetError(OSError):
    """A Minari destination that cannot take the dataset: the message names it and why."""


def datasets_root() -> Path:
    """The folder Minari keeps local datasets in (``MINARI_DATASETS_PATH`` or its default)."""
    path = os.environ.get("MINARI_DATASETS_PATH")
    return Path(path) if path else Path.home() / ".minari" / "datasets"


def check_id(dataset_id: str) -> str:
    """``dataset_id`` if Minari takes it as a new local dataset's id; else a TargetError."""
    if not _ID.fullmatch(dataset_id) or "//" in dataset_id:
        raise TargetError(
            f"--minari {dataset_id!r} is not a Minari dataset id: namespace/name-vN (letters, "
            "digits, '-', '_'; namespaces of two characters or more, '/' between them; a "
            "version such as -v0)"
        )
    return dataset_id


def _megabytes(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_target(dataset_id: str, root: Path | None = None) -> Path:
    """The folder ``dataset_id`` will occupy, checked as the module docstring says.

    Creates nothing. Raises :class:`TargetError` naming the id and the reason.
    """
    check_id(dataset_id)
    root = datasets_root() if root is None else root
    target = root / dataset_id
    # The id has no '..' (its syntax), but a folder on the way may be a link out of root.
    real_root = Path(os.path.realpath(root))
    up = _existing_ancestor(target)
    reached = Path(os.path.realpath(up))
    if _inside(up, root) and not _inside(reached, real_root):
        raise TargetError(
            f"--minari {dataset_id!r}: {reached} lies outside the datasets folder {real_root}"
        )
    if target.exists() or target.is_symlink():
        complete = (target / "data" / "metadata.json").is_file()
        what = "a Minari dataset" if complete else "a folder that is not a complete dataset"
        raise TargetError(
            f"--minari {dataset_id!r} already exists ({what} at {target}): choose another "
            "name or version, or delete it first"
        )
    for above in list(target.parents)[: len(Path(dataset_id).parts) - 1]:
        if (above / "data").is_dir():
            raise TargetError(f"--minari {dataset_id!r} lies inside the dataset folder {above}")
    return target


def _size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def _say(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass
class Staging:
    """A claimed staging folder for one dataset id: write into :attr:`work`, then commit."""

    dataset_id: str
    target: Path
    folder: Path
    """``DATASETS/.speed-staging/ID`` (the id quoted into one name), holding the lock."""
    work: Path
    """This run's own folder inside :attr:`folder`: Minari's datasets folder while writing."""
    lock: FolderLock
    committed: bool = field(default=False)

    @property
    def staged(self) -> Path:
        """Where the dataset being written lies inside :attr:`work`."""
        return self.work / self.dataset_id

    def commit(self) -> Path:
        """Move the complete dataset into place in one rename; its final folder."""
        if self.target.exists():  # another run took the id while this one wrote
            raise TargetError(
                f"--minari {self.dataset_id!r} was created by another run meanwhile at "
                f"{self.target}; this one is not kept"
            )
        root = self.target.parents[len(Path(self.dataset_id).parts) - 1]
        for depth in range(1, len(Path(self.dataset_id).parts)):
            # Minari's namespace marker on each level above, as minari.create_namespace writes.
            ns = root.joinpath(*Path(self.dataset_id).parts[:depth])
            ns.mkdir(exist_ok=True)
            if not (ns / NAMESPACE_FILE).exists():
                (ns / NAMESPACE_FILE).write_text("{}", encoding="utf-8")
        os.rename(self.staged, self.target)
        _fsync_dir(self.target.parent)
        self.committed = True
        return self.target

    def release(self) -> None:
        """Remove what is left of the staging folder and let go of the lock (safe twice)."""
        shutil.rmtree(self.work, ignore_errors=True)
        if self.lock.held:
            self.lock.release()
        for folder in (self.folder, self.folder.parent):
            with contextlib.suppress(OSError):  # only if empty: another run may hold it by now
                folder.rmdir()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def claim(
    dataset_id: str,
    estimated_bytes: int,
    *,
    say: Callable[[str], None] = _say,
) -> Staging:
    """Check the destination of ``dataset_id`` and claim its staging folder (module docstring).

    ``estimated_bytes``: the dataset's expected size; less free space than that is refused.
    A killed write's leftovers are removed, reported by one line to ``say``. Raises
    :class:`TargetError` (the destination) or :class:`FolderInUse` (another run writes it).
    """
    target = check_target(dataset_id)
    root = datasets_root()
    folder = root / STAGING_NAME / quote(dataset_id, safe="")
    lock = FolderLock(folder, say=lambda _line: None)  # a stale lock is reported below
    try:
        lock.acquire()
    except FolderInUse as exc:
        who = "another run" if exc.owner is None else exc.owner.describe()
        raise TargetError(
            f"--minari {dataset_id!r} is being written now by {who}: wait for it to end or "
            "choose another id"
        ) from None
    except OSError as exc:
        raise TargetError(
            f"cannot write Minari datasets in {root}: {exc.strerror or exc}"
        ) from None
    try:
        leftovers = [p for p in folder.iterdir() if p.name != LOCK_NAME]
        if leftovers or lock.stale is not None:
            size = sum(_size(p) for p in leftovers)
            for p in leftovers:
                shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
            who = "" if lock.stale is None else f", left by {lock.stale.describe()}"
            say(
                f"--minari {dataset_id}: cleared an unfinished write in {folder}, "
                f"{_megabytes(size)}{who}"
            )
        up = _existing_ancestor(target)
        if not os.access(up, os.W_OK | os.X_OK):
            raise TargetError(f"--minari {dataset_id!r}: cannot write in {up}")
        free = shutil.disk_usage(folder).free
        if free < estimated_bytes:
            raise TargetError(
                f"--minari {dataset_id!r} needs about {_megabytes(estimated_bytes)}, and "
                f"{root} has {_megabytes(free)} free"
            )
        work = folder / uuid.uuid4().hex[:12]
        work.mkdir()
    except BaseException:
        Staging(dataset_id, target, folder, folder / "none", lock).release()
        raise
    return Staging(dataset_id, target, folder, work, lock)


__all__ = [
    "NAMESPACE_FILE",
    "STAGING_NAME",
    "Staging",
    "TargetError",
    "check_id",
    "check_target",
    "claim",
    "datasets_root",
]
