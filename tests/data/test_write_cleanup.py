"""Every file the data path writes is whole or absent: a failure mid-write leaves no temporary.

The writers are a play record (:func:`speed_data.records.write_record`), ``speed data
profile``'s profile file (:func:`speed_data.profile.write_profile`) and its Q-Q plot
(:func:`speed_data.profile.qq_plot`). Each is made to fail three ways: a full disk (a 64 KiB
tmpfs, where this user may mount one), a Ctrl-C in the middle of the write, and a Ctrl-C after
the bytes are out but before the file is in place. After each, the folder holds exactly what it
held before, byte for byte: no temporary, no half-written file, the old file unchanged.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import speed_cli
from speed_data import profile, records
from speed_data.generate import play_records
from speed_env.reaction import make_profile
from speed_env.rules import make_rules

OLD = b"the file that was here before\n"


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """One generated play record (tens of KB: more than the full tmpfs has left)."""
    return next(
        iter(
            play_records(
                ("chain", "greedy"), make_rules("us"), 1, seed=3, reaction=make_profile("human")
            )
        )
    )


@pytest.fixture(scope="module")
def fitted() -> tuple[list[float], dict[str, Any]]:
    """200 ex-Gaussian reaction times and the fit to them."""
    rng = np.random.default_rng(1)
    times = (300 + 40 * rng.standard_normal(200) + 100 * rng.exponential(size=200)).tolist()
    return times, profile.fit(times, n_boot=0)


def _write_record(folder: Path, rec: dict[str, Any], _: Any) -> Any:
    return records.write_record(folder, rec, "g1")


def _write_profile(folder: Path, _: Any, fit: tuple[list[float], dict[str, Any]]) -> Any:
    return profile.write_profile(folder / "profile.json", fit[1], source="test")


def _write_plot(folder: Path, _: Any, fit: tuple[list[float], dict[str, Any]]) -> Any:
    return profile.qq_plot(fit[0], fit[1], folder / "profile-qq.png")


WRITERS: dict[str, tuple[Callable[..., Any], str]] = {
    "record": (_write_record, "g1.speedrec.json"),
    "profile": (_write_profile, "profile.json"),
    "qq-plot": (_write_plot, "profile-qq.png"),
}


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` (hidden ones too) and its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _fill(folder: Path) -> None:
    """Take every free byte of ``folder``'s file system with one file, ``filler``."""
    free = os.statvfs(folder)
    (folder / "filler").write_bytes(b"x" * (free.f_bavail * free.f_frsize))
    assert os.statvfs(folder).f_bavail == 0


@contextlib.contextmanager
def _small_disk(path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted at ``path``, unmounted after (skips where one cannot be mounted)."""
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


class _HalfThenCtrlC:
    """A file whose first ``write`` sends half its bytes and then raises ``KeyboardInterrupt``."""

    def __init__(self, f: Any) -> None:
        self._f = f

    def write(self, data: Any) -> int:
        self._f.write(data[: max(1, len(data) // 2)])
        self._f.flush()
        raise KeyboardInterrupt

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._f, attr)

    def __enter__(self) -> _HalfThenCtrlC:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()


def _ctrl_c_mid_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file opened for writing from now on is interrupted in its first write.

    ``open``, ``os.fdopen`` and ``Path.write_text`` all go through ``io.open``; matplotlib's
    ``savefig`` through ``builtins.open``: both are replaced.
    """
    real_open = io.open

    def opener(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(file, mode, *args, **kwargs)
        return _HalfThenCtrlC(f) if any(c in mode for c in "wax+") else f

    monkeypatch.setattr(io, "open", opener)
    monkeypatch.setattr(builtins, "open", opener)


def _ctrl_c_before_in_place(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A Ctrl-C at the last step before ``name`` is in place: its fsync or its rename."""

    def fsync(fd: int) -> None:
        raise KeyboardInterrupt

    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if Path(dst).name == name:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_full_disk_leaves_no_temporary_and_the_old_file_unchanged(
    writer, record, fitted, tmp_path
):
    write, name = WRITERS[writer]
    with _small_disk(tmp_path / "disk") as disk:
        (disk / name).write_bytes(OLD)
        _fill(disk)
        before = _snapshot(disk)
        with pytest.raises(OSError, match="No space left"):
            write(disk, record, fitted)
        assert _snapshot(disk) == before


def test_a_record_that_cannot_be_written_is_named(record, tmp_path):
    with _small_disk(tmp_path / "disk") as disk:
        _fill(disk)
        with pytest.raises(OSError, match=r"could not write .*g1\.speedrec\.json: No space left"):
            records.write_record(disk, record, "g1")


@pytest.mark.parametrize("writer", WRITERS)
def test_a_full_disk_with_nothing_there_before_leaves_nothing(writer, record, fitted, tmp_path):
    write, _ = WRITERS[writer]
    with _small_disk(tmp_path / "disk") as disk:
        _fill(disk)
        with pytest.raises(OSError):
            write(disk, record, fitted)
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]


@pytest.mark.parametrize("writer", WRITERS)
def test_ctrl_c_mid_write_leaves_no_temporary_and_the_old_file_unchanged(
    writer, record, fitted, tmp_path, monkeypatch
):
    write, name = WRITERS[writer]
    (tmp_path / name).write_bytes(OLD)
    before = _snapshot(tmp_path)
    _ctrl_c_mid_write(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path, record, fitted)
    monkeypatch.undo()
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("writer", WRITERS)
def test_ctrl_c_before_the_file_is_in_place_leaves_no_temporary(
    writer, record, fitted, tmp_path, monkeypatch
):
    write, name = WRITERS[writer]
    (tmp_path / name).write_bytes(OLD)
    before = _snapshot(tmp_path)
    _ctrl_c_before_in_place(monkeypatch, name)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path, record, fitted)
    monkeypatch.undo()
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("writer", WRITERS)
def test_a_read_only_folder_is_refused_and_left_as_it_was(writer, record, fitted, tmp_path):
    write, name = WRITERS[writer]
    with _small_disk(tmp_path / "disk") as disk:
        (disk / name).write_bytes(OLD)
        before = _snapshot(disk)
        # Read-only for root too (a folder's mode bits do not stop root).
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(OSError):
            write(disk, record, fitted)
        assert _snapshot(disk) == before


def test_speed_data_profile_on_a_full_disk_names_the_file_and_leaves_the_old_one(tmp_path):
    """From outside: ``speed data profile --out`` onto a full disk, in a fresh process."""
    games = tmp_path / "games"
    speed = [sys.executable, "-m", "speed_cli", "data"]
    done = subprocess.run(
        [*speed, "generate", "--person", "human", "--games", "4", "--out", str(games)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with _small_disk(tmp_path / "disk") as disk:
        (disk / "profile.json").write_bytes(OLD)
        _fill(disk)
        before = _snapshot(disk)
        done = subprocess.run(
            [*speed, "profile", str(games), "--bootstrap", "0",
             "--out", str(disk / "profile.json"), "--plot", str(disk / "profile-qq.png")],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert _snapshot(disk) == before
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "profile.json" in done.stderr and "No space left" in done.stderr, done.stderr


def _profile_cli(games: Path, out: Path) -> list[str]:
    return ["data", "profile", str(games), "--bootstrap", "0", "--out", str(out / "profile.json"),
            "--plot", str(out / "profile-qq.png")]  # fmt: skip


@pytest.fixture(scope="module")
def person_folder(tmp_path_factory) -> Path:
    """Four games of a simulated person, recorded."""
    games = tmp_path_factory.mktemp("games")
    argv = ["data", "generate", "--person", "human", "--games", "4", "--out", str(games)]
    assert speed_cli.main(argv) == 0
    return games


def test_speed_data_profile_writes_the_profile_and_its_plot_both_or_neither(
    person_folder, tmp_path, monkeypatch, capsys
):
    """A Ctrl-C as the plot goes into place leaves the old profile too: the pair is one result."""
    (tmp_path / "profile.json").write_bytes(OLD)
    (tmp_path / "profile-qq.png").write_bytes(OLD)
    before = _snapshot(tmp_path)
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if Path(dst).name == "profile-qq.png":
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert speed_cli.main(_profile_cli(person_folder, tmp_path)) == 130
    assert "interrupted" in capsys.readouterr().err
    monkeypatch.undo()
    assert _snapshot(tmp_path) == before
    assert speed_cli.main(_profile_cli(person_folder, tmp_path)) == 0
    assert set(_snapshot(tmp_path)) == {"profile.json", "profile-qq.png"}
    assert (tmp_path / "profile-qq.png").read_bytes().startswith(b"\x89PNG")


def test_speed_data_profile_refuses_one_file_for_the_profile_and_the_plot(
    person_folder, tmp_path, capsys
):
    argv = ["data", "profile", str(person_folder), "--bootstrap", "0",
            "--out", str(tmp_path / "p"), "--plot", str(tmp_path / "p")]  # fmt: skip
    assert speed_cli.main(argv) != 0
    assert "--plot and the profile file are one file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_temporary_of_a_killed_writer_is_removed_by_the_next_record(record, tmp_path):
    """A writer killed mid-write cannot remove its temporary: the next write there does."""
    code = (
        "import os, sys; from agents.runtime import files; "
        "print(files.stage(sys.argv[1], b'half a rec')); sys.stdout.flush(); os._exit(9)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "g0.speedrec.json")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    left = Path(done.stdout.strip())
    assert done.returncode == 9 and left.parent == tmp_path and left.name.endswith(".tmp")
    assert [p.name for p in records.record_files(tmp_path)] == []  # readers pass it by
    records.write_record(tmp_path, record, "g1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g1.speedrec.json"]
