"""Minari's HDF5 writing in a child process, fed one record at a time.

HDF5 does not fail cleanly in-process: on a full disk h5py's cleanup crashes the process
(SIGSEGV, after some 220 lines of HDF5 diagnostics on stderr). So the dataset is written by
a child (``python -m speed_data.minari_writer``) and the caller streams records to it:

- the parent sends pickled messages on the child's stdin: the setup, then ``("record", r)``
  per game, then ``("finish", None)``; the pipe's buffer is the only queue, so memory holds
  a few games, not all of them;
- the child writes each record as an episode (:class:`speed_data.minari_export.EpisodeWriter`)
  into its datasets folder (a staging folder, :mod:`speed_data.minari_target`), a batch at
  a time, and after ``finish`` syncs the files to disk and answers ``("ok", episodes,
  steps)``, or ``("error", line)`` on any failure;
- the child ignores Ctrl-C and SIGTERM (the parent decides), keeps HDF5's diagnostics to
  itself (its stderr is read by the parent and dropped but for a last Python error line), and
  on an end of its input before ``finish`` (the parent was interrupted or killed) removes
  what it wrote and exits; after a failure it leaves the files to the parent (which first measures
  the free space, to say whether the disk was full).

:class:`DatasetWriter` is the parent's side; any failure of the child, a crash included, is
raised as one :class:`WriteFailed` line.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any


class WriteFailed(OSError):
    """The dataset could not be written: one line saying why."""


def _one_line(text: str, most: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= most else line[: most - 3] + "..."


class DatasetWriter:
    """The parent's side of the child writer of dataset ``dataset_id`` in ``folder``.

    ``folder`` becomes the child's ``MINARI_DATASETS_PATH``; ``metadata`` holds the
    keyword arguments of ``minari.create_dataset_from_buffers`` other than the episodes and
    env (``author``, ...). Use :meth:`add` per record, then :meth:`finish`; :meth:`abort`
    (safe after either) stops the child and waits for it.
    """

    def __init__(self, dataset_id: str, folder: Path, author: str | None) -> None:
        self.dataset_id = dataset_id
        self.folder = folder
        self.sent = 0
        self._tail: collections.deque[str] = collections.deque(maxlen=40)
        env = dict(os.environ, MINARI_DATASETS_PATH=str(folder))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "speed_data.minari_writer"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        self._send(("setup", {"dataset_id": dataset_id, "author": author}))

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._tail.append(raw.decode("utf-8", "replace").rstrip())

    def _send(self, message: tuple[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            pickle.dump(message, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError):
            raise self._failure() from None

    def add(self, record: dict[str, Any]) -> None:
        """Send one record to be written as the next episode."""
        self._send(("record", record))
        self.sent += 1

    def finish(self) -> tuple[int, int]:
        """Close the stream; (episodes, steps) once the child has written and synced them."""
        self._send(("finish", None))
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        answer = self._answer()
        self.proc.wait()
        if answer is None or answer[0] != "ok":
            raise self._failure(answer)
        return int(answer[1]), int(answer[2])

    def _answer(self) -> tuple[Any, ...] | None:
        assert self.proc.stdout is not None
        try:
            answer = pickle.load(self.proc.stdout)
        except (EOFError, pickle.UnpicklingError, OSError):
            return None
        return answer if isinstance(answer, tuple) and answer else None

    def _failure(self, answer: tuple[Any, ...] | None = None) -> WriteFailed:
        if answer is None and self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            answer = self._answer()
        code = self.proc.wait()
        self._reader.join(timeout=5)
        # Measured before the staging folder is removed: then the space is free again.
        free = shutil.disk_usage(self.folder if self.folder.exists() else self.folder.parent).free
        full = f"; the disk is full ({free / 1e6:.1f} MB free)" if free < 1_000_000 else ""
        where = f"writing Minari dataset {self.dataset_id!r} failed after {self.sent} games sent"
        if answer is not None and answer[0] == "error":
            return WriteFailed(f"{where}: {answer[1]}{full}")
        if code < 0:
            why = f"the writer process died ({signal.Signals(-code).name})"
        else:
            why = f"the writer process ended (exit code {code})"
            errors = [ln for ln in self._tail if re.match(r"^[\w.]+(Error|Exception)\b", ln)]
            if errors:
                why += f": {_one_line(errors[-1])}"
        return WriteFailed(f"{where}: {why}{full}")

    def abort(self) -> None:
        """Stop the child without a dataset, and wait for it (it removes what it wrote)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


# The child.


def _reply(out: IO[bytes], message: tuple[Any, ...]) -> None:
    pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
    out.flush()


def _sync_tree(path: Path) -> None:
    """fsync every file and folder under ``path``, so the rename that follows is durable."""
    for dirpath, _dirs, files in os.walk(path):
        for name in [*files, "."]:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _serve(inp: IO[bytes], out: IO[bytes]) -> int:
    import warnings

    from speed_data import minari_export

    kind, setup = pickle.load(inp)
    assert kind == "setup"
    writer = minari_export.EpisodeWriter(setup["dataset_id"], author=setup["author"])
    with warnings.catch_warnings():
        # Minari asks for a code link, an author's e-mail and an evaluation env; a local dataset
        # of someone's games has no link or e-mail to give, and its env is the evaluation env.
        warnings.filterwarnings(
            "ignore", r"`(code_permalink|author|author_email|eval_env)`", UserWarning
        )
        while True:
            kind, payload = pickle.load(inp)
            if kind == "record":
                writer.add(payload)
            elif kind == "finish":
                episodes, steps = writer.close()
                _sync_tree(Path(os.environ["MINARI_DATASETS_PATH"]))
                _reply(out, ("ok", episodes, steps))
                return 0


def main() -> int:
    """The child: serve one dataset write from stdin (see the module docstring)."""
    # A Ctrl-C, or a SIGTERM sent to every process of the run, is the parent's to handle: it
    # closes this child's input, and the child removes what it wrote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # The answers go on a copy of stdout; anything else printing goes to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    folder = Path(os.environ["MINARI_DATASETS_PATH"])
    try:
        return _serve(inp, out)
    except (EOFError, pickle.UnpicklingError):  # the parent went away before finish
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    except Exception as exc:  # every failure is one line for the parent, who removes the files
        with contextlib.suppress(OSError):
            _reply(out, ("error", _one_line(f"{type(exc).__name__}: {exc}")))
        return 1


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["DatasetWriter", "WriteFailed", "main"]
