"""Which run an output folder holds, so that a finished result is never replaced.

Every command that writes a run folder (``speed tournament``, ``speed evaluate``, ``speed
experiment reaction``, ``speed data generate --out``, ``speed train bc``) opens it through
:class:`RunOutput`, which keeps ``OUT/run.json``: the run's identity (the command, its
settings by flag, the SHA-256 of the files its results depend on, such as an agent's file)
and whether it finished. Before anything is written, the folder is judged:

- nothing there, or files no run of this command left: the run goes ahead;
- this run (same command, settings and files), finished with every file it wrote still
  there: one line says so, and nothing is touched (:attr:`RunOutput.done`, exit 0);
- another command's run, or other settings, finished or with files: refused, one line
  naming what is there, what differs and how to go on (:class:`FolderHoldsRun`);
- this run, unfinished: it is started again where the command's files are its own to replace
  (a tournament notes what starting over drops; ``--resume`` continues it), else refused;
- results of this command with no ``run.json`` (an earlier kit): refused, since nothing says
  what they are.

``--overwrite`` moves everything in the folder aside, to a sibling ``OUT.replaced-STAMP``
(named on stderr), and starts afresh; nothing is deleted. The judgement is made once without
the lock, so an answer that changes nothing takes nothing, and again under the folder's lock
(:mod:`agents.runtime.run_lock`), which :class:`RunOutput` holds until the run ends.

``run.json`` is written when the run starts (``finished`` null) and again when it ends whole
(:meth:`RunOutput.finish`: the time, and the files it wrote). It is written atomically
(:mod:`agents.runtime.files`) and adds to, never changes, the files a command wrote before.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from agents.runtime.files import check_creatable, check_writable, write_json
from agents.runtime.interrupts import sigint_deferred
from agents.runtime.run_lock import LOCK_NAME, FolderLock, in_use
from speed_env.user_file import NotRegularFileError, open_regular, read_regular

__all__ = [
    "IDENTITY_NAME",
    "OPERATIONAL_FLAGS",
    "FolderHoldsRun",
    "RunIdentity",
    "RunOutput",
    "file_digest",
    "flag_settings",
    "move_aside",
]

IDENTITY_NAME = "run.json"
"""The identity file's name inside the run folder."""
IDENTITY_LIMIT = 64 << 20
"""The most bytes a ``run.json`` may hold (a list of a large run's files stays far below)."""
FORMAT = "speed-run"
FORMAT_VERSION = 1

OPERATIONAL_FLAGS = frozenset(
    {"out", "resume", "overwrite", "workers", "backend", "ray_address", "max_retries", "func"}
)
"""``argparse`` destinations that change how a run is made, not its results: never settings."""

_SHOWN = 60
"""A setting's value longer than this is not quoted in a message, only named."""


def flag_settings(
    args: argparse.Namespace, *, skip: Iterable[str] = (), positional: Iterable[str] = ()
) -> dict[str, Any]:
    """A command's settings by flag (``--games``): every parsed argument but the operational.

    ``skip`` names more destinations to leave out (a subcommand's own name); ``positional``
    those kept under their own name, not as a flag. Taking every argument means a flag added
    later is part of the identity without anyone remembering to add it.
    """
    left_out = OPERATIONAL_FLAGS | {"command", *skip}
    kept = set(positional)
    return {
        (dest if dest in kept else "--" + dest.replace("_", "-")): value
        for dest, value in sorted(vars(args).items())
        if dest not in left_out and not callable(value)
    }


def file_digest(path: str | os.PathLike[str], what: str = "input file") -> dict[str, str]:
    """``{path: SHA-256}`` of one input file, or ``{path: "missing"}``: an identity's input.

    Opened as the kit opens a user's file (:func:`speed_env.user_file.open_regular`): a named
    pipe or a device is refused naming ``what`` (the flag) and the path, instead of blocking
    on it or reading it without end.
    """
    digest = hashlib.sha256()
    try:
        f, _ = open_regular(path, what)
        with f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except NotRegularFileError as exc:  # its message alone, as the command prints it
        raise NotRegularFileError(exc.strerror) from None
    except OSError:
        return {str(path): "missing"}
    return {str(path): digest.hexdigest()}


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples as lists, paths as text)."""
    return json.loads(json.dumps(value, default=str))


@dataclass(frozen=True)
class RunIdentity:
    """What a run is: the command, its settings and the files its results depend on."""

    command: str
    """As the user types it: ``speed tournament``."""
    settings: dict[str, Any]
    """Every setting the results depend on, by flag (:func:`flag_settings`)."""
    inputs: dict[str, Any] = field(default_factory=dict)
    """Per input (an agent spec, ``--data``): ``{file: SHA-256}`` or a digest of it."""

    def key(self) -> dict[str, Any]:
        """The identity as ``run.json`` holds it (compared by value)."""
        return {
            "command": self.command,
            "settings": _normal(self.settings),
            "inputs": _normal(self.inputs),
        }


class FolderHoldsRun(ValueError):
    """The folder holds a run this one must not replace: the one-line refusal."""


@dataclass(frozen=True)
class _Held:
    """What ``run.json`` says of the run in a folder."""

    key: dict[str, Any]
    started: str
    finished: str | None
    outputs: list[str]

    def label(self) -> str:
        """``speed tournament run (finished T)`` or ``(started T, unfinished)``."""
        when = (
            f"finished {self.finished}" if self.finished else f"started {self.started}, unfinished"
        )
        return f"{self.key.get('command', 'unknown command')} run ({when})"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _read_held(folder: Path) -> _Held | str | None:
    """The run ``folder/run.json`` records; None where there is none; a reason if unreadable."""
    path = folder / IDENTITY_NAME
    try:
        # A regular file of bounded size only: a FIFO put there must not hang the command.
        doc = json.loads(read_regular(path, "run identity", limit=IDENTITY_LIMIT))
    except (FileNotFoundError, NotADirectoryError):  # no run here (or no folder: said later)
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return f"{path} cannot be read ({exc})"
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return f"{path} is not a run identity this kit writes"
    key = {k: doc.get(k) for k in ("command", "settings", "inputs")}
    outputs = doc.get("outputs")
    return _Held(
        key=key,
        started=str(doc.get("started")),
        finished=doc.get("finished") if isinstance(doc.get("finished"), str) else None,
        outputs=[str(o) for o in outputs] if isinstance(outputs, list) else [],
    )


def _differences(held: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between two identities, a phrase each: ``--games (200 there, 8 now)``."""
    if held.get("command") != now["command"]:
        return []  # the run's label names its command: nothing to compare
    out = []
    for part in ("settings", "inputs"):
        then, asked = held.get(part) or {}, now[part]
        for key in dict.fromkeys([*then, *asked]):
            old, new = then.get(key), asked.get(key)
            if old == new:
                continue
            if part == "inputs":
                # An input on one side only is another agent: its setting says so already.
                if old is not None and new is not None:
                    out.append(f"the files of {key} changed")
            elif len(repr(old)) + len(repr(new)) <= _SHOWN:
                out.append(f"{key} ({old!r} there, {new!r} now)")
            else:
                out.append(f"{key} differs")
    return out


def _contents(folder: Path) -> list[str]:
    """The names in ``folder`` a run may have left: all but the lock and the identity."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [n for n in names if n not in (LOCK_NAME, IDENTITY_NAME)]


def _matching(folder: Path, patterns: Iterable[str]) -> list[str]:
    """The files in ``folder`` matching any of the glob ``patterns``, sorted."""
    if not folder.is_dir():
        return []
    return sorted({p.name for pattern in patterns for p in folder.glob(pattern)})


def _stamp(when: str | None) -> str:
    """``20261206-004000`` from an ISO time (now where there is none)."""
    text = when or _now()
    return "".join(c for c in text if c.isdigit() or c == "T").replace("T", "-")[:15]


def _sibling(folder: Path, when: str | None, why: str) -> Path:
    """A new sibling of ``folder`` to move an earlier run to: ``OUT.replaced-STAMP[-N]``."""
    if folder.name in ("", ".", ".."):  # no name of its own to build the sibling's from
        folder = folder.resolve()
    if folder.parent == folder:
        raise FolderHoldsRun(f"{why}: {folder} has no parent to move its run aside into")
    base = folder.parent / f"{folder.name}.replaced-{_stamp(when)}"
    path, n = base, 2
    while path.exists():
        path, n = base.with_name(f"{base.name}-{n}"), n + 1
    return path


def move_aside(
    folder: Path, names: list[str], what: str, why: str, when: str | None = None
) -> Path:
    """Move ``names`` (in that order) from ``folder`` to a new sibling ``OUT.replaced-STAMP``;
    the sibling. Nothing is deleted; Ctrl-C waits until the move is done.

    ``what`` (the run, in words) and ``why`` (the flag or the reason: ``--overwrite``) name it in
    the ``OSError`` raised where a name cannot be moved, which says how many were.
    """
    target = _sibling(folder, when, why)
    moved = 0
    try:
        target.mkdir()
        with sigint_deferred():
            for name in names:
                os.rename(folder / name, target / name)
                moved += 1
    except OSError as exc:
        raise OSError(
            f"{why}: cannot move {what} from {folder} to {target}: "
            f"{exc.strerror or exc} ({moved} of {len(names)} entries moved, none deleted)"
        ) from None
    return target


def _unwritten(target: Path, exc: OSError) -> str:
    """The one line saying ``target`` could not be written, and why (a full disk by name)."""
    if exc.errno == errno.ENOSPC:
        why = f"the disk holding {target.parent} is full"
    else:
        why = exc.strerror or str(exc)
    return f"cannot write {target}: {why}; it is left as it was (nothing half-written)"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass
class _Verdict:
    """What to do with a folder: go on (moving its contents aside or not), or nothing."""

    done: str | None = None
    move: str | None = None
    """What is moved aside (in words), where ``--overwrite`` moves something."""
    when: str | None = None


class RunOutput:
    """The output folder of one run, judged and locked as the module docstring says.

    - ``results``: glob patterns of the files the command writes (``results.json``): found
      with no ``run.json``, they are an earlier kit's run, refused unless ``--overwrite``;
    - ``resume``: the command's ``--resume`` (None: it has none). A resume goes on into a run
      of the same command, whose own log checks the settings;
    - ``restart``: whether an unfinished run of the same settings may be started again over
      its files (they are the ones the new run writes); else it is refused with advice;
    - ``say``: gets the line naming where ``--overwrite`` moved a run (default stderr).

    Use as ``with RunOutput(...) as run:``; when :attr:`done` is set, the folder already holds
    this finished run and nothing was touched; else the folder is locked and ``run.json``
    written, and :meth:`finish` marks the run finished.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        identity: RunIdentity,
        *,
        results: Iterable[str],
        overwrite: bool = False,
        resume: bool | None = None,
        restart: bool = True,
        say: Callable[[str], None] = _stderr,
    ) -> None:
        self.path = Path(folder)
        self.identity = identity
        self.results = tuple(results)
        self.overwrite = overwrite
        self.resume = resume
        self.restart = restart
        self.say = say
        self.lock = FolderLock(self.path)
        self.done: str | None = None
        """The line saying the folder already holds this finished run (nothing was touched)."""
        self.started = _now()

    # -- judging -------------------------------------------------------------------------

    def _ways_on(self, *, resume: bool = False) -> str:
        ways = ["choose another --out"]
        if resume and self.resume is not None:
            ways.insert(0, "continue it with its own settings and --resume")
        ways.append(f"or pass --overwrite to move it aside to {self.path}.replaced-…")
        return ", ".join(ways)

    def _judge(self, pending: Iterable[str] = ()) -> _Verdict:
        """What to do with the folder as it is now; raises :class:`FolderHoldsRun`.

        ``pending``: inputs not known yet, taken as the held run's (see :meth:`peek_done`).
        """
        if self.resume and self.overwrite:
            raise FolderHoldsRun("--overwrite starts a new run, --resume continues one: give one")
        held = _read_held(self.path)
        here = self.identity.key()
        if isinstance(held, _Held):
            then = held.key.get("inputs") or {}
            here["inputs"] |= {k: then[k] for k in pending if k in then}
        if isinstance(held, str):  # a run.json nobody can read: say so, never guess
            if self.overwrite:
                return _Verdict(move="a run whose run.json cannot be read")
            raise FolderHoldsRun(f"{held}; {self._ways_on()}")
        if held is None:
            found = _matching(self.path, self.results)
            if not found or self.resume:
                return _Verdict()
            if self.overwrite:
                return _Verdict(move="the results of an earlier run")
            shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
            raise FolderHoldsRun(
                f"{self.path} holds the results of an earlier run ({shown}) with no "
                f"{IDENTITY_NAME} saying what run it was (an earlier kit wrote it); "
                + self._ways_on(resume=True)
            )
        same = held.key == here
        whole = held.finished is not None and all(
            (self.path / name).exists() for name in held.outputs
        )
        if self.resume:
            if held.key.get("command") != here["command"]:
                raise FolderHoldsRun(
                    f"--resume: {self.path} holds a {held.label()}, not one of "
                    f"{here['command']}; choose another --out"
                )
            if same and whole:
                return _Verdict(done=f"{self.path} holds this {held.label()}: nothing to resume")
            return _Verdict()
        if self.overwrite:
            return _Verdict(move=f"the {held.label()}", when=held.finished or held.started)
        if same and whole:
            return _Verdict(
                done=f"{self.path} already holds this {held.label()}; nothing to do (to run it "
                "again, pass --overwrite: the old run is moved aside)"
            )
        has_files = bool(_contents(self.path))
        if same:
            if self.restart or not has_files:
                return _Verdict()
            gone = [n for n in held.outputs if not (self.path / n).exists()]
            state = (
                f"whose file {gone[0]} was since removed"
                if held.finished is not None and gone
                else f"that {here['command']} cannot resume"
            )
            raise FolderHoldsRun(
                f"{self.path} holds a {held.label()} of these settings {state}; " + self._ways_on()
            )
        if held.finished is None and not has_files:
            return _Verdict()  # an interrupted run that left nothing to keep
        what = "another command" if held.key.get("command") != here["command"] else "other settings"
        differ = "; ".join(_differences(held.key, here))
        raise FolderHoldsRun(
            f"{self.path} holds a {held.label()} of {what}"
            + (f": {differ}" if differ else "")
            + f". To go on: {self._ways_on(resume=held.finished is None)}"
        )

    def peek_done(self, pending: Iterable[str] = ()) -> str | None:
        """The line saying the folder already holds this finished run, else ``None``: judged
        without the lock, touching nothing, so a run can skip its slow preparation. A folder
        the run may not use raises as entering would: :class:`FolderHoldsRun`, an ``OSError``
        where it cannot be written, :class:`~agents.runtime.run_lock.FolderInUse` where another
        run writes it.

        ``pending`` names inputs the run measures in that slow preparation (``--human``): each
        is taken as the held run's, so a folder it could never use is refused first; the line
        then says only that it may hold this run, which entering decides.
        """
        check_creatable(self.path)
        busy = in_use(self.path)
        if busy is not None:
            raise busy
        if (self.path / LOCK_NAME).exists():
            return None  # a stale lock: entering takes it over and says so
        return self._judge(pending).done

    # -- the run -------------------------------------------------------------------------

    def __enter__(self) -> RunOutput:
        try:
            if (self.path / LOCK_NAME).exists():
                # Another run may be writing here: refused at once, naming it (FolderInUse).
                self.lock.acquire(create=False)
            verdict = self._judge()  # without the lock where none was: "nothing to do" takes none
            if verdict.done is None:
                check_writable(self.path)
                if not self.lock.held:
                    self.lock.acquire()
                    verdict = self._judge()  # again, now that no other run can change the folder
            if verdict.done is not None:
                self.done = verdict.done
                self.lock.release()
                return self
            if verdict.move is not None and _contents(self.path) + self._identity_file():
                self._move_aside(verdict.move, verdict.when)
            self._write(finished=None, outputs=[])
        except BaseException:
            self.lock.release()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.lock.release()

    def _identity_file(self) -> list[str]:
        return [IDENTITY_NAME] if (self.path / IDENTITY_NAME).exists() else []

    def _move_aside(self, what: str, when: str | None) -> None:
        """Move everything in the folder but the lock to a new sibling, and say where."""
        # The identity goes first: a move cut short leaves files with no run.json, which the
        # next run refuses as an unknown earlier run rather than taking them for its own.
        names = self._identity_file() + _contents(self.path)
        target = move_aside(self.path, names, what, "--overwrite", when)
        self.say(f"--overwrite: moved {what} from {self.path} to {target}")

    def _write(self, *, finished: str | None, outputs: list[str]) -> None:
        """Write ``run.json`` whole (a temporary and a rename) or not at all."""
        target = self.path / IDENTITY_NAME
        try:
            write_json(
                target,
                {
                    "format": FORMAT,
                    "format_version": FORMAT_VERSION,
                    **self.identity.key(),
                    "started": self.started,
                    "finished": finished,
                    "outputs": outputs,
                },
            )
        except OSError as exc:
            raise OSError(_unwritten(target, exc)) from None

    def finish(self, outputs: Iterable[str | os.PathLike[str]]) -> None:
        """Mark the run finished in ``run.json``, with the files it wrote (in the folder)."""
        names = []
        for path in outputs:
            p = Path(path)
            names.append(p.name if p.parent.resolve() == self.path.resolve() else str(p))
        self._write(finished=_now(), outputs=names)
