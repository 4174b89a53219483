"""Files the kit reads and writes, safely.

Here are the one atomic writer, the regular-file reader, and the output-folder check.

Writing. Every file a run or a tournament leaves behind (results, ``eval.csv``'s
plots, a training run's ``state.json``, a model's two files ...) is written to a
hidden temporary name in its folder and renamed over the target, so an
interrupted or failed write never leaves a half-written file over a good one.
The temporary file is created private (``mkstemp`` makes it 0600) and is given
the permissions an ordinary ``open`` would have (``0o666`` less the umask)
before the rename: results are ordinary files.

A temporary's name carries its writer: ``.TARGET.wPID-HOST-XXXXXXXX.tmp`` (the
writer's process id, a tag of its host name, random letters). A failed write
(a full disk, an exception) removes its own temporary at once; a writer that
was killed cannot, so every write first removes, from the folder it writes to,
the temporaries of writers on this host whose process no longer exists
(:func:`remove_stale_temps`). A live writer's temporary is never touched.

Files that belong together (a report card's ``report.json``, ``report.md`` and ``report.png``;
a tournament's results and figures) are written by :func:`write_together`: every one staged
first, then all renamed, so a failure leaves the old set whole, never a mix of two.

A failed write raises :class:`WriteError`, an ``OSError`` that keeps the system's ``errno`` and
names the file (a plain ``write`` failing names none); :func:`no_space` tells a full disk or an
exhausted quota from other failures, so the ``speed`` command can say so in one line.

Reading a user's file is :mod:`speed_env.user_file`'s (regular files only, bounded).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import io
import json
import os
import re
import secrets
import socket
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "WriteError",
    "check_creatable",
    "check_writable",
    "csv_text",
    "no_space",
    "remove_stale_temps",
    "stage",
    "write_atomic",
    "write_error",
    "write_json",
    "write_text",
    "write_together",
]

NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
"""The ``errno`` values of a write refused for want of room: a full disk, an exhausted quota."""


class WriteError(OSError):
    """A file that could not be written: the message names it; ``errno``, ``filename`` kept."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError, message: str) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause), str(path))
        self.message = message

    def __str__(self) -> str:
        return self.message


def no_space(exc: BaseException) -> OSError | None:
    """The full-disk (or quota) ``OSError`` behind ``exc``, or None where there is none.

    Follows the chain of causes, since the kit rewords an error where it knows more (which
    file, which run) and may leave the system's error as the cause.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in NO_SPACE_ERRNOS:
            return current
        current = current.__cause__ or current.__context__
    return None


_TEMP = re.compile(r"^\..+\.w(?P<pid>\d+)-(?P<host>[0-9a-f]{8})-[A-Za-z0-9_]*\.tmp$")


def _host_tag() -> str:
    """Eight hex digits naming this host (a temporary is judged stale only by its own host)."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _temp_prefix(name: str) -> str:
    return f".{name}.w{os.getpid()}-{_host_tag()}-"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (on this host)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except (OverflowError, OSError):  # not a pid this system can have
        return False
    return True


def remove_stale_temps(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporaries in ``folder`` of dead writers on this host; the paths removed.

    A dead writer is one no longer running, say killed mid-write. Temporaries of live writers,
    of other hosts, and every other file are left alone.
    """
    removed: list[Path] = []
    host = _host_tag()
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = _TEMP.match(name)
        if m is None or m["host"] != host or _alive(int(m["pid"])):
            continue
        path = Path(folder) / name
        with contextlib.suppress(FileNotFoundError):  # another writer swept it first
            path.unlink()
            removed.append(path)
    return removed


def check_writable(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` if needed and prove it writable; raise ``OSError`` naming it otherwise."""
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            dir=path, prefix=_temp_prefix("write-test"), suffix=".tmp"
        ):
            pass
    except OSError as exc:
        raise OSError(
            f"output folder {str(path)!r} is not writable: {exc.strerror or exc}"
        ) from None
    return path


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """``columns``, then each of ``rows``, as CSV text whose lines end in ``\\n``, as the kit's
    text files do (the ``csv`` module's default is ``\\r\\n``)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return buf.getvalue()


def check_creatable(folder: str | os.PathLike[str]) -> Path:
    """Raise ``OSError`` where :func:`check_writable` would, creating nothing.

    For a run that judges its folder before slow work: a file where the folder (or one above
    it) should be, or a nearest existing folder this process may not write, is refused in the
    words :func:`check_writable` uses.
    """
    path = Path(folder)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    reason = None
    if not existing.is_dir():
        reason = os.strerror(errno.EEXIST if existing == path else errno.ENOTDIR)
    elif not os.access(existing, os.W_OK | os.X_OK):
        reason = os.strerror(errno.EACCES)
    if reason is not None:
        raise OSError(f"output folder {str(path)!r} is not writable: {reason}")
    return path


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set straight back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask


def write_error(path: str | os.PathLike[str], exc: OSError) -> WriteError | None:
    """``exc``, a failure writing ``path`` (or its temporary), as an error naming ``path``.

    A failed ``write`` names no file, and a temporary's name means nothing to a user. Only a
    plain ``OSError`` (a full disk, an I/O error) is reworded; a subclass such as
    ``PermissionError`` gives None, to go on as it is for callers that catch it by kind.
    """
    if type(exc) is not OSError:
        return None
    return WriteError(path, exc, f"could not write {path}: {exc.strerror or exc}")


def stage(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> Path:
    """Write ``data`` to a new hidden temporary beside ``path``; its path.

    ``fsync`` flushes it to disk. Stale temporaries of dead writers in that folder are removed
    first; on any failure the new temporary is removed before the error goes on.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(path.name), suffix=".tmp")
    except OSError as exc:
        named = write_error(path, exc)
        if named is None:
            raise
        raise named from exc
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        # mkstemp made it 0600; a result is an ordinary file, as open() would have made it.
        os.chmod(tmp, 0o666 & ~_umask())
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        named = write_error(path, exc)
        if named is None:
            raise
        raise named from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_atomic(path: str | os.PathLike[str], data: bytes, *, fsync: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename; ``path``.

    Nothing but ``path`` is left behind, whether the write succeeds or fails."""
    path = Path(path)
    tmp = stage(path, data, fsync=fsync)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`write_atomic` for UTF-8 text."""
    return write_atomic(path, text.encode("utf-8"))


def json_bytes(value: Any) -> bytes:
    """A JSON document as the kit writes one: indented, with a final newline (UTF-8)."""
    return (json.dumps(value, indent=2) + "\n").encode("utf-8")


def write_json(path: str | os.PathLike[str], value: Any) -> Path:
    """:func:`write_atomic` for a JSON document (:func:`json_bytes`)."""
    return write_atomic(path, json_bytes(value))


def _cannot_write(path: Path, exc: OSError) -> WriteError:
    """The error of a set whose ``path`` could not be written: it names the file."""
    return WriteError(
        path,
        exc,
        f"could not write {path}: {exc.strerror or exc}; the files there are left as they were",
    )


def _keep_old(path: Path) -> Path:
    """A second name for ``path``'s current file, beside it, so it can be put back.

    A hard link, or a copy where the file system has none.
    """
    backup = path.parent / f"{_temp_prefix(path.name)}old{secrets.token_hex(4)}.tmp"
    try:
        os.link(path, backup)
    except OSError as exc:
        # The ways a file system says "no hard links here" (or too many); anything else, say a
        # full disk, is a real failure.
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        return stage(path, path.read_bytes())
    return backup


def write_together(files: dict[Path, bytes]) -> list[Path]:
    """Write a set of files that belong together, all or none; their paths.

    Every file is staged to its temporary first (:func:`stage`); only when all are on disk are
    they renamed over their targets, the old files kept (as hard links) until every rename is
    done. A failure while staging (a full disk) or renaming removes what this call made and
    puts the old files back, and raises ``OSError`` naming the file that could not be written.
    """
    staged: dict[Path, Path] = {}
    backups: dict[Path, Path] = {}
    done: list[Path] = []
    try:
        for path, data in files.items():
            try:
                staged[path] = stage(path, data)
            except OSError as exc:
                raise _cannot_write(path, exc) from None
        for path in files:
            if path.exists():
                try:
                    backups[path] = _keep_old(path)
                except OSError as exc:
                    raise _cannot_write(path, exc) from None
        for path, tmp in staged.items():
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise _cannot_write(path, exc) from None
            done.append(path)
    except BaseException:
        for path in reversed(done):  # put the old set back
            if path in backups:
                os.replace(backups.pop(path), path)
            else:
                path.unlink(missing_ok=True)
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    finally:
        # After a success the old files are done with; after a failure the backups still here
        # are of files never replaced.
        for backup in backups.values():
            backup.unlink(missing_ok=True)
    return list(files)
