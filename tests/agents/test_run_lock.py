"""One writer per folder (agents/runtime/run_lock.py), between real processes: a second writer is
refused at once naming the first, a lock left by a killed process is reported and taken over,
and Ctrl-C lets go."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers_run import ROOT

from agents.runtime.run_lock import LOCK_NAME, FolderInUse, FolderLock, owner_of, read_owner

# A process that takes the lock, says so on stdout, and holds it until stdin closes (or a
# signal ends it): the other side of every test here.
HOLDER = """
import sys, time
from agents.runtime.run_lock import FolderLock
with FolderLock(sys.argv[1], command="holder --out " + sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def start_holder(folder: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_is_refused_at_once_naming_the_first(tmp_path):
    folder = tmp_path / "run"
    holder = start_holder(folder)
    try:
        t0 = time.perf_counter()
        with pytest.raises(FolderInUse) as refused:
            FolderLock(folder, command="second").acquire()
        assert time.perf_counter() - t0 < 1.0  # at once, not after waiting
        message = str(refused.value)
        assert f"pid {holder.pid} on {socket.gethostname()}" in message
        assert f"holder --out {folder}" in message and str(folder) in message
        assert refused.value.owner is not None and refused.value.owner.pid == holder.pid
        # the refused writer changed nothing: the lock file still names the holder
        owner = owner_of(folder)
        assert owner is not None and owner.pid == holder.pid
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0
    assert not (folder / LOCK_NAME).exists()  # let go on a normal exit: the file is gone
    with FolderLock(folder, command="third") as lock:  # and the folder is free again
        assert lock.held and lock.stale is None
        assert owner_of(folder).pid == os.getpid()
    assert not (folder / LOCK_NAME).exists()


def test_a_stale_lock_of_a_killed_process_is_reported_in_one_line_and_taken_over(tmp_path):
    folder = tmp_path / "run"
    holder = start_holder(folder)
    holder.kill()  # SIGKILL: no chance to let go; the kernel drops the flock, the file stays
    holder.communicate(timeout=30)
    assert (folder / LOCK_NAME).exists() and owner_of(folder).pid == holder.pid
    said: list[str] = []
    with FolderLock(folder, command="next", say=said.append) as lock:
        assert lock.stale is not None and lock.stale.pid == holder.pid
        assert owner_of(folder).pid == os.getpid()
    assert len(said) == 1
    assert "stale lock" in said[0] and f"pid {holder.pid}" in said[0] and "is gone" in said[0]


def test_ctrl_c_lets_go_of_the_lock(tmp_path):
    folder = tmp_path / "run"
    holder = start_holder(folder)
    holder.send_signal(signal.SIGINT)
    _, err = holder.communicate(timeout=30)
    assert holder.returncode != 0 and "KeyboardInterrupt" in err
    assert not (folder / LOCK_NAME).exists()
    said: list[str] = []
    with FolderLock(folder, say=said.append) as lock:
        assert lock.held and lock.stale is None
    assert said == []


def test_lock_file_contents_and_edge_cases(tmp_path):
    lock = FolderLock(tmp_path / "a" / "b", command="speed train realtime --out a/b")
    assert lock.acquire() is lock and lock.acquire() is lock  # re-entrant on one object
    data = json.loads((tmp_path / "a" / "b" / LOCK_NAME).read_text())
    assert data["pid"] == os.getpid() and data["host"] == socket.gethostname()
    assert data["command"] == "speed train realtime --out a/b" and data["started"].endswith("Z")
    lock.release()
    lock.release()  # twice is fine
    assert read_owner("") is None and read_owner("{not json") is None
    assert read_owner('{"pid": 1}') is None
    # a torn lock file (killed while writing it) is still taken over, said so
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / LOCK_NAME).write_text('{"pid": 12')
    said: list[str] = []
    with FolderLock(tmp_path / "c", say=said.append):
        pass
    assert said == [f"{tmp_path / 'c'}: taking over a stale lock (its owner left no details)"]
    # acquire(create=False) never makes the folder
    with pytest.raises(FileNotFoundError):
        FolderLock(tmp_path / "none").acquire(create=False)
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "realtime", "--no-progress"],
        ["train", "vintage", "--no-progress"],
        ["train", "realtime", "--resume", "--no-progress"],
        ["train-expert", "--rounds", "1"],
    ],
)
def test_every_training_command_refuses_a_folder_in_use(tmp_path, capsys, argv):
    """The commands that write a run folder take its lock before reading or writing it: with
    another holder, one line naming it, exit 2, and the folder exactly as it was."""
    pytest.importorskip("sb3_contrib")
    from speed_cli import main as cli

    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    (out / "state.json").write_text('{"config": {}, "recipe": "train.ppo", "checkpoint": "c"}')
    with FolderLock(out, command="the first run"):
        before = sorted((p.name, p.read_bytes()) for p in out.iterdir() if p.is_file())
        assert cli([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        after = sorted((p.name, p.read_bytes()) for p in out.iterdir() if p.is_file())
    assert len(err.splitlines()) == 1
    assert f"{out} is in use by pid {os.getpid()} on " in err and "the first run" in err
    assert after == before
