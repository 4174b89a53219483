"""One writer per folder: an exclusive lock on a run's output folder for the whole run.

A training run (or any job that writes into a folder it may later resume) takes
``FOLDER/run.lock`` before it reads or writes anything there and holds it until it ends:

- the lock is ``fcntl.flock`` on that file, so the kernel releases it when the process
  ends however it ends (normally, on an exception, on Ctrl-C, killed);
- the file holds its owner as JSON (pid, host, command, start time), so a second writer is
  refused at once with a message naming the first (:class:`FolderInUse`);
- the owner removes the file when it lets go, so a folder holds ``run.lock`` only while a
  run is writing it, or after one was killed (``kill -9``, a power cut): that lock is stale
  (nobody holds the ``flock``; on this host its pid is gone), and the next run says so in one
  line and takes it over.

Use it as a context manager (``with FolderLock(out): ...``) or with :meth:`FolderLock.acquire`
and :meth:`FolderLock.release`. POSIX only (``fcntl``), as the kit's process model is.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

from agents.runtime.files import write_error

__all__ = [
    "LOCK_NAME",
    "FolderInUse",
    "FolderLock",
    "Owner",
    "in_use",
    "owner_of",
    "read_owner",
]

LOCK_NAME = "run.lock"
"""The lock file's name inside the folder it guards."""


@dataclass(frozen=True)
class Owner:
    """Who holds (or held) a folder's lock."""

    pid: int
    host: str
    command: str
    started: str
    """When the lock was taken (UTC, ISO 8601)."""

    def describe(self) -> str:
        """``pid 123 on HOST (since T): COMMAND``."""
        return f"pid {self.pid} on {self.host} (since {self.started}): {self.command}"

    def alive(self) -> bool | None:
        """Whether the process still runs: None where that cannot be told (another host)."""
        if self.host != socket.gethostname():
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process: it exists
            return True
        return True


class FolderInUse(OSError):
    """A folder's lock is held by another process: what the second writer gets."""

    def __init__(self, folder: Path, owner: Owner | None) -> None:
        who = owner.describe() if owner is not None else "another process (it left no details)"
        super().__init__(
            f"{folder} is in use by {who}; wait for it to end or choose another folder"
        )
        self.folder, self.owner = folder, owner


def read_owner(text: str) -> Owner | None:
    """The owner a lock file's ``text`` records, or None (empty, torn or foreign)."""
    try:
        data = json.loads(text)
        fields = (str(data[k]) for k in ("host", "command", "started"))
        return Owner(int(data["pid"]), *fields)
    except (ValueError, TypeError, KeyError):
        return None


def _command() -> str:
    return shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "python"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


class FolderLock:
    """The exclusive lock on ``folder``, as the module docstring describes.

    - ``command``: names the owner in the lock file; default: this process's command line.
    - ``say``: gets the one line that reports a stale lock taken over; default: stderr.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        command: str | None = None,
        *,
        say: Callable[[str], None] = _stderr,
    ) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.command = command if command is not None else _command()
        self.say = say
        self.fd: int | None = None
        self.stale: Owner | None = None
        """The owner of a stale lock this one took over, if any."""

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self.fd is not None

    def acquire(self, *, create: bool = True) -> FolderLock:
        """Take the lock, creating the folder when ``create``.

        Raises :class:`FolderInUse` naming the owner when another process holds it.
        Re-entrant on one object.
        """
        if self.fd is not None:
            return self
        if create:
            self.folder.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                # LOCK_NB: a second writer is refused at once, never left waiting.
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = read_owner(_read(fd))
                os.close(fd)
                raise FolderInUse(self.folder, owner) from None
            except BaseException:  # Ctrl-C here too: the descriptor must not leak
                os.close(fd)
                raise
            # The owner before us may have removed the file between our open and our flock:
            # then we hold a lock on a file nobody else can see. Start again on the one there.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        left = _read(fd)
        if left.strip():  # a previous owner ended without letting go (killed)
            self.stale = old = read_owner(left)
            if old is None:
                self.say(f"{self.folder}: taking over a stale lock (its owner left no details)")
            else:
                status = "is gone" if old.alive() is False else "no longer holds it"
                self.say(
                    f"{self.folder}: taking over a stale lock: pid {old.pid} on {old.host} "
                    f"{status} (it ran {old.command} from {old.started})"
                )
        owner = Owner(
            os.getpid(),
            socket.gethostname(),
            self.command,
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        try:
            # Truncate first: a shorter record must not keep the tail of a stale owner's.
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(asdict(owner)) + "\n").encode("utf-8"), 0)
            # On disk now: after a power cut the next run can still name who held the folder.
            os.fsync(fd)
        except OSError as exc:  # a full disk: named, so the one line says where
            named = write_error(self.path, exc)
            if named is None:
                raise
            raise named from exc
        return self

    def release(self) -> None:
        """Let go: remove the lock file, then the ``flock``.

        In that order, so a process waiting on the old file sees it is gone. Safe to call twice.
        """
        fd, self.fd = self.fd, None
        if fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)  # closing the last descriptor releases the flock

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:  # pragma: no cover - a lock dropped without release
        if getattr(self, "fd", None) is not None:
            # Close only: the file stays with its owner, so the next run reports it as stale.
            os.close(self.fd)  # type: ignore[arg-type]


def _read(fd: int) -> str:
    try:
        # An owner record is one short JSON line; more is not ours, and reads as no owner.
        return os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        return ""


def owner_of(folder: str | os.PathLike[str]) -> Owner | None:
    """The owner recorded in ``folder``'s lock file, or None (no file, or no details)."""
    path = Path(folder) / LOCK_NAME
    try:
        return read_owner(path.read_text(encoding="utf-8"))
    except OSError:
        return None


def in_use(folder: str | os.PathLike[str]) -> FolderInUse | None:
    """The :class:`FolderInUse` a writer would get at ``folder`` now, or None (no lock, or a
    stale one): found by a shared ``flock`` tried and let go at once, taking nothing."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # no lock file (or no folder): nobody writes there
        return None
    try:
        # A holder's exclusive lock refuses a shared one; with no holder it is ours for a moment.
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return FolderInUse(Path(folder), read_owner(_read(fd)))
    finally:
        os.close(fd)  # lets go of the shared lock too
    return None
