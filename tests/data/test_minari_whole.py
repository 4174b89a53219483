"""A Minari dataset is whole or absent: a full disk, a ``kill -9`` or Ctrl-C midway leaves no
dataset that loads and no id blocked, and a bad, taken or unwritable destination is refused
before a game is played or a record read (nothing created)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import speed_cli

minari = pytest.importorskip("minari", reason="the [data] extra is not installed")


@pytest.fixture(scope="module")
def bot_records(tmp_path_factory) -> Path:
    """A folder of 40 recorded games of chain against greedy."""
    folder = tmp_path_factory.mktemp("records")
    argv = ["data", "generate", "--games", "40", "--out", str(folder)]
    assert speed_cli.main(argv) == 0
    return folder


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """The datasets folder (MINARI_DATASETS_PATH), not created yet."""
    path = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


@pytest.fixture
def no_play(monkeypatch):
    """Fails the test if ``speed data generate`` starts playing."""

    def play_records(*args, **kwargs):
        pytest.fail("a game was played before the Minari destination was checked")

    monkeypatch.setattr("speed_data.generate.play_records", play_records)


@contextmanager
def tmpfs(path: Path, size: str, *, read_only: bool = False) -> Iterator[None]:
    """A small tmpfs mounted on ``path`` (we are root in the kit's test machines)."""
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


def speed(*argv: str, **kwargs) -> subprocess.CompletedProcess[str]:
    """``speed ARGV`` in a fresh process (the environment, MINARI_DATASETS_PATH included)."""
    return subprocess.run(
        [sys.executable, "-m", "speed_cli", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        **kwargs,
    )


def last_error(stderr: str) -> list[str]:
    """The lines of ``stderr`` that are not the progress bar."""
    return [ln for ln in stderr.replace("\r", "\n").splitlines() if ln and "game" not in ln[:6]]


def first_file(root: Path, name: str, timeout: float = 300) -> Path:
    """Wait for a file ``name`` anywhere under ``root``; its path."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for dirpath, _dirs, files in os.walk(root):
            if name in files:
                return Path(dirpath) / name
        time.sleep(0.005)
    raise AssertionError(f"no {name} under {root} after {timeout} s")


def not_loadable(dataset_id: str) -> bool:
    """Whether Minari finds no dataset ``dataset_id`` (neither loads it nor lists it)."""
    with pytest.raises(FileNotFoundError):
        minari.load_dataset(dataset_id)
    return dataset_id not in minari.list_local_datasets()


def test_a_full_disk_mid_write_leaves_no_dataset_and_no_blocked_id(bot_records, root):
    with tmpfs(root, "16m"):

        def fill() -> None:  # another program fills the disk once the dataset file exists
            first_file(root, "main_data.hdf5", timeout=300)
            # Unbuffered, and the whole of it under the except: a full disk may also refuse the
            # open, and a buffered close would flush (and raise) outside the loop.
            try:
                with open(root / "filler", "wb", buffering=0) as f:
                    while True:
                        f.write(b"\0" * 65536)
            except OSError:
                pass

        filler = threading.Thread(target=fill, daemon=True)
        filler.start()
        argv = ["data", "export", str(bot_records), "--seat", "bot", "--minari", "speed/full-v0"]
        failed = speed(*argv)
        filler.join(timeout=60)
        assert failed.returncode == 2, failed.stderr[-2000:]
        lines = last_error(failed.stderr)
        assert len(lines) == 1 and "Traceback" not in failed.stderr, failed.stderr[-2000:]
        assert "'speed/full-v0'" in lines[0] and "the disk is full" in lines[0]
        assert not_loadable("speed/full-v0")
        assert sorted(p.name for p in root.iterdir()) == ["filler"]  # no staging left either
        (root / "filler").unlink()
        again = speed(*argv)
        assert again.returncode == 0, again.stderr[-2000:]
        assert minari.load_dataset("speed/full-v0").total_episodes == 40


def test_a_kill_mid_write_leaves_no_dataset_and_the_next_run_clears_it(root):
    argv = ["data", "generate", "--games", "300", "--minari", "speed/killed-v0"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the kill takes the writer too
    )
    try:
        first_file(root, "main_data.hdf5")  # the first episodes are being written
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not_loadable("speed/killed-v0")
    again = speed("data", "generate", "--games", "3", "--minari", "speed/killed-v0")
    assert again.returncode == 0, again.stderr[-2000:]
    cleared = [ln for ln in last_error(again.stderr) if "cleared an unfinished write" in ln]
    assert len(cleared) == 1 and "speed/killed-v0" in cleared[0]
    assert "Minari dataset speed/killed-v0: 3 episodes" in again.stdout
    assert minari.load_dataset("speed/killed-v0").total_episodes == 3
    assert sorted(p.name for p in root.iterdir()) == ["speed"]  # the staging folder is gone


def test_ctrl_c_mid_write_leaves_nothing(root):
    proc = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", "data", "generate", "--games", "300",
         "--minari", "speed/stopped-v0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        first_file(root, "main_data.hdf5")
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and last_error(err)[-1] == "interrupted", err[-2000:]
    assert "Traceback" not in err
    assert not_loadable("speed/stopped-v0")
    assert list(root.iterdir()) == []


@pytest.mark.parametrize(
    "bad", ["../escaped-v0", "/tmp/absolute-v0", "speed/no-version", "ab//cd/x-v0"]
)
def test_a_bad_id_is_refused_before_any_folder_is_created(
    bad, tmp_path, monkeypatch, no_play, capsys
):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "inner" / "minari"))
    assert speed_cli.main(["data", "generate", "--games", "1", "--minari", bad]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and repr(bad) in err and "not a Minari dataset id" in err
    assert list(tmp_path.iterdir()) == []


def test_a_taken_id_is_refused_before_a_game_is_played_or_a_record_read(root, monkeypatch, capsys):
    assert speed_cli.main(["data", "generate", "--games", "1", "--minari", "speed/taken-v0"]) == 0
    capsys.readouterr()

    def play_records(*args, **kwargs):
        pytest.fail("a game was played before the Minari destination was checked")

    monkeypatch.setattr("speed_data.generate.play_records", play_records)
    argv = ["data", "generate", "--games", "10000000", "--minari", "speed/taken-v0"]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'speed/taken-v0' already exists" in err
    # export checks the id before it reads a record (this folder's only record is broken)
    folder = root.parent / "records"
    folder.mkdir()
    (folder / "g.speedrec.json").write_text("{}", encoding="utf-8")
    assert speed_cli.main(["data", "export", str(folder), "--minari", "speed/taken-v0"]) == 2
    assert "'speed/taken-v0' already exists" in capsys.readouterr().err
    assert minari.load_dataset("speed/taken-v0").total_episodes == 1


def test_a_read_only_datasets_folder_is_refused_before_play(root, no_play, capsys):
    with tmpfs(root, "1m", read_only=True):
        argv = ["data", "generate", "--games", "5", "--minari", "speed/ro-v0"]
        assert speed_cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "cannot write Minari datasets in" in err
        assert str(root) in err and "Read-only file system" in err


def test_a_disk_too_small_for_the_games_is_refused_before_play(root, no_play, capsys):
    with tmpfs(root, "2m"):
        argv = ["data", "generate", "--games", "100", "--minari", "speed/big-v0"]
        assert speed_cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "'speed/big-v0' needs about" in err and "free" in err
        assert list(root.iterdir()) == []
