"""``agents.runtime.run_identity``: how a run folder is judged before a run writes into it.

The commands' own walks (a finished run of each survives a second run) are in
``tests/kit/test_finished_runs.py``; here each case of the judgement on a folder made by hand.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import threading
from pathlib import Path

import pytest

from agents.runtime.run_identity import (
    IDENTITY_NAME,
    FolderHoldsRun,
    RunIdentity,
    RunOutput,
    file_digest,
    flag_settings,
)
from agents.runtime.run_lock import FolderInUse, FolderLock

THIS = RunIdentity("speed thing", {"--games": 8}, {"bot": {"bot.py": "aa"}})
OTHER = RunIdentity("speed thing", {"--games": 200}, {"bot": {"bot.py": "aa"}})


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and mtime: what 'nothing touched' compares."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def finished(folder: Path, identity: RunIdentity, files=("result.txt",)) -> None:
    """A finished run of ``identity`` in ``folder``, having written ``files``."""
    with RunOutput(folder, identity, results=("result.txt",)) as run:
        for name in files:
            (folder / name).write_text(f"{identity.settings}\n")
        run.finish([folder / n for n in files])


def unfinished(folder: Path, identity: RunIdentity, files=("result.txt",)) -> None:
    """A run of ``identity`` stopped after writing ``files`` (no finish)."""
    with RunOutput(folder, identity, results=("result.txt",)):
        for name in files:
            (folder / name).write_text("part\n")


def test_the_same_finished_run_is_said_and_nothing_is_touched(tmp_path):
    finished(tmp_path / "out", THIS)
    before, mtime = snapshot(tmp_path / "out"), (tmp_path / "out").stat().st_mtime_ns
    with RunOutput(tmp_path / "out", THIS, results=("result.txt",)) as run:
        assert run.done is not None and "already holds this speed thing run (finished" in run.done
        assert not run.lock.held
    assert snapshot(tmp_path / "out") == before
    assert (tmp_path / "out").stat().st_mtime_ns == mtime  # not even a lock file came and went


def test_other_settings_are_refused_naming_what_differs_and_the_ways_on(tmp_path):
    out = tmp_path / "out"
    finished(out, THIS)
    before = snapshot(out)
    with pytest.raises(FolderHoldsRun) as refused:
        RunOutput(out, OTHER, results=()).__enter__()
    text = str(refused.value)
    assert "holds a speed thing run (finished " in text and "of other settings" in text
    assert "--games (8 there, 200 now)" in text
    assert "choose another --out" in text and "--overwrite" in text and "\n" not in text
    assert snapshot(out) == before


def test_another_command_is_refused(tmp_path):
    finished(tmp_path / "out", THIS)
    with pytest.raises(
        FolderHoldsRun,
        match=r"holds a speed thing run \(finished .*\) of another command\. To go on",
    ):
        RunOutput(tmp_path / "out", RunIdentity("speed other", {}), results=()).__enter__()


def test_changed_agent_files_are_other_settings(tmp_path):
    finished(tmp_path / "out", THIS)
    edited = RunIdentity("speed thing", {"--games": 8}, {"bot": {"bot.py": "bb"}})
    with pytest.raises(FolderHoldsRun, match="the files of bot changed"):
        RunOutput(tmp_path / "out", edited, results=()).__enter__()


def test_overwrite_moves_the_run_aside_whole_and_says_where(tmp_path):
    out = tmp_path / "out"
    finished(out, THIS, files=("result.txt", "plot.png"))
    before = snapshot(out)
    said: list[str] = []
    with RunOutput(out, OTHER, results=(), overwrite=True, say=said.append) as run:
        assert run.done is None
        run.finish([])
    (line,) = said
    moved = Path(line.rsplit(" to ", 1)[1])
    assert moved.parent == tmp_path and moved.name.startswith("out.replaced-")
    assert snapshot(moved) == before  # the old run, byte for byte and untouched
    assert json.loads((out / IDENTITY_NAME).read_text())["settings"] == {"--games": 200}
    assert sorted(p.name for p in out.iterdir()) == [IDENTITY_NAME]
    # A second --overwrite in the same second gets a sibling of its own.
    with RunOutput(out, THIS, results=(), overwrite=True, say=said.append) as run:
        run.finish([])
    assert Path(said[1].rsplit(" to ", 1)[1]) != moved


def test_results_of_an_earlier_kit_are_refused_and_moved_only_on_overwrite(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("{}")
    with pytest.raises(FolderHoldsRun, match=r"results of an earlier run \(results.json\) with no"):
        RunOutput(out, THIS, results=("results.json",)).__enter__()
    # Files that are not this command's results (a folder of a person's records) are no run.
    with RunOutput(out, THIS, results=("other.json",)) as run:
        assert run.done is None
    said: list[str] = []
    with RunOutput(out, OTHER, results=(), overwrite=True, say=said.append):
        pass
    assert (Path(said[0].rsplit(" to ", 1)[1]) / "results.json").read_text() == "{}"


def test_an_unfinished_run_of_other_settings_with_files_is_refused_pointing_at_resume(tmp_path):
    unfinished(tmp_path / "out", THIS)
    with pytest.raises(FolderHoldsRun, match=r"unfinished\) of other settings.*--resume"):
        RunOutput(tmp_path / "out", OTHER, results=(), resume=False).__enter__()
    # One that left nothing but its run.json (an evaluation stopped before its card) is no loss.
    unfinished(tmp_path / "empty", THIS, files=())
    with RunOutput(tmp_path / "empty", OTHER, results=()) as run:
        assert run.done is None


def test_an_unfinished_run_of_the_same_settings_restarts_only_where_the_command_may(tmp_path):
    unfinished(tmp_path / "out", THIS)
    with RunOutput(tmp_path / "out", THIS, results=()) as run:  # its files are the rerun's own
        assert run.done is None
    unfinished(tmp_path / "kept", THIS)
    with pytest.raises(FolderHoldsRun, match="of these settings that speed thing cannot resume"):
        RunOutput(tmp_path / "kept", THIS, results=(), restart=False).__enter__()


def test_a_finished_run_whose_files_went_is_not_taken_as_done(tmp_path):
    finished(tmp_path / "out", THIS)
    (tmp_path / "out" / "result.txt").unlink()
    with RunOutput(tmp_path / "out", THIS, results=()) as run:
        assert run.done is None  # played again, not "already holds"
    finished(tmp_path / "kept", THIS, files=("result.txt", "more.txt"))
    (tmp_path / "kept" / "result.txt").unlink()
    with pytest.raises(FolderHoldsRun, match=r"whose file result\.txt was since removed"):
        RunOutput(tmp_path / "kept", THIS, results=(), restart=False).__enter__()


def test_an_unreadable_identity_is_refused_naming_it(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / IDENTITY_NAME).write_text("{torn")
    with pytest.raises(FolderHoldsRun, match=r"run\.json cannot be read"):
        RunOutput(tmp_path / "out", THIS, results=()).__enter__()
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / IDENTITY_NAME)  # would block a plain read forever
    with pytest.raises(FolderHoldsRun, match=r"run\.json cannot be read \(.*named pipe"):
        RunOutput(tmp_path / "fifo", THIS, results=()).__enter__()


def test_resume_goes_on_into_its_own_command_only_never_with_overwrite(tmp_path):
    unfinished(tmp_path / "out", THIS)
    with pytest.raises(FolderHoldsRun, match="--overwrite starts a new run, --resume continues"):
        RunOutput(tmp_path / "out", THIS, results=(), resume=True, overwrite=True).__enter__()
    with pytest.raises(FolderHoldsRun, match=r"--resume: .* not one of speed other"):
        RunOutput(
            tmp_path / "out", RunIdentity("speed other", {}), results=(), resume=True
        ).__enter__()
    with RunOutput(tmp_path / "out", THIS, results=(), resume=True) as run:
        assert run.done is None
        run.finish([tmp_path / "out" / "result.txt"])
    with RunOutput(tmp_path / "out", THIS, results=(), resume=True) as run:
        assert run.done is not None and "nothing to resume" in run.done


def test_a_folder_another_run_writes_is_refused_naming_it(tmp_path):
    finished(tmp_path / "out", THIS)
    with FolderLock(tmp_path / "out", command="the first run"):
        for identity in (THIS, OTHER):  # before any judgement, even "nothing to do"
            with pytest.raises(FolderInUse, match="the first run"):
                RunOutput(tmp_path / "out", identity, results=()).__enter__()


def test_settings_by_flag_leave_out_how_the_run_is_made():
    args = argparse.Namespace(
        games=8, tick_ms=50, out="x", workers=3, backend="local", resume=False, overwrite=True,
        command="tournament", spec="chain", func=print,
    )  # fmt: skip
    assert flag_settings(args, positional=("spec",)) == {
        "--games": 8,
        "--tick-ms": 50,
        "spec": "chain",
    }


class _FullDisk:
    """A file the disk fills under: a few bytes land, then ``ENOSPC`` (as ``write`` raises)."""

    def __init__(self, file):
        self.file = file

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()

    def write(self, data):
        self.file.write(data[:8])
        self.file.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def full_disk(monkeypatch):
    """Every file written through ``os.fdopen`` (a staged temporary) meets a full disk."""
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FullDisk(real(fd, *a, **k)))


def test_a_full_disk_at_the_start_fails_in_one_line_leaving_nothing_half_written(
    tmp_path, monkeypatch
):
    out = tmp_path / "out"
    full_disk(monkeypatch)
    with pytest.raises(OSError) as raised, RunOutput(out, THIS, results=("result.txt",)):
        pytest.fail("the run started without its run.json")
    message = str(raised.value)
    assert message == (
        f"cannot write {out / IDENTITY_NAME}: the disk holding {out} is full; it is left as "
        "it was (nothing half-written)"
    )
    assert os.listdir(out) == []  # no run.json, no temporary, and the lock let go


def test_a_full_disk_at_the_finish_leaves_the_unfinished_run_json_whole(tmp_path, monkeypatch):
    out = tmp_path / "out"
    with (
        pytest.raises(OSError, match=r"the disk holding .* is full"),
        RunOutput(out, THIS, results=("result.txt",)) as run,
    ):
        held = (out / IDENTITY_NAME).read_bytes()
        full_disk(monkeypatch)
        run.finish([])
    assert sorted(os.listdir(out)) == [IDENTITY_NAME]
    assert (out / IDENTITY_NAME).read_bytes() == held  # still the unfinished run's, whole


def test_speed_data_generate_on_a_full_disk_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    import speed_cli

    out = tmp_path / "records"
    full_disk(monkeypatch)
    code = speed_cli.main(["data", "generate", "--games", "1", "--out", str(out)])
    assert code == speed_cli.NO_SPACE
    err = capsys.readouterr().err
    assert err == (
        f"speed data: error: No space left on device writing {out / IDENTITY_NAME}; what was "
        "written before is left as it was: free some space and run the same command again\n"
    )
    assert os.listdir(out) == []


def test_an_input_file_digest_refuses_a_named_pipe_naming_the_flag(tmp_path: Path) -> None:
    """A FIFO given as an input (``--think-file``) is refused in one line, not blocked on."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException | dict[str, str]] = []

    def digest() -> None:
        try:
            outcome.append(file_digest(fifo))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=digest, daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():  # blocked opening the pipe: a writer's open and close lets it go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(5)
        pytest.fail("file_digest blocked on a named pipe")
    (refused,) = outcome
    assert isinstance(refused, OSError)
    assert str(refused).startswith(f"input file {fifo} is a named pipe (FIFO)")
    with pytest.raises(OSError) as named:
        file_digest(fifo, "--think-file")
    assert str(named.value).startswith(f"--think-file {fifo} is a named pipe (FIFO)")


def test_an_input_file_digest_is_its_sha256_or_missing(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "think.json"
    path.write_bytes(b"{}")
    assert file_digest(path) == {str(path): hashlib.sha256(b"{}").hexdigest()}
    assert file_digest(tmp_path / "gone") == {str(tmp_path / "gone"): "missing"}
