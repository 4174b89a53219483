"""A full disk (``ENOSPC``) or quota (``EDQUOT``) met by the kit's writers and ``speed``.

No real full disk here (that needs root to mount one): the writes meet it through
:func:`tests.helpers_full_disk.fill_disk_at`.
docs/bots.md's "On a full disk" walks the same with a small tmpfs.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.reaction_sweep import files as reaction_files
from agents.runtime import files
from agents.think_sweep import report as think_report
from agents.tournament import report as tournament_report
from speed_cli import NO_SPACE, main
from tests.helpers_full_disk import FullFile, fill_disk_at


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# -- the writer: a failed write names its file and keeps the system's errno --------------------


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT], ids=["ENOSPC", "EDQUOT"])
def test_a_failed_write_names_the_target_and_keeps_errno(tmp_path, monkeypatch, code):
    target = tmp_path / "result.json"
    target.write_text("old\n")
    fill_disk_at(monkeypatch, "result.json", code)
    with pytest.raises(OSError) as raised:
        files.write_text(target, "new\n")
    assert raised.value.errno == code and raised.value.filename == str(target)
    assert str(raised.value) == f"could not write {target}: {os.strerror(code)}"
    assert files.no_space(raised.value) is raised.value
    assert _listing(tmp_path) == {"result.json": b"old\n"}  # no temporary left either


def test_a_permission_error_stays_a_permission_error(tmp_path, monkeypatch):
    """Only a plain ``OSError`` is reworded: callers that catch ``PermissionError`` still do."""

    def mkstemp(*args: Any, **kw: Any) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path))

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    with pytest.raises(PermissionError):
        files.write_text(tmp_path / "x.txt", "x")


def test_no_space_finds_the_full_disk_behind_a_reworded_error():
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    try:
        try:
            raise full
        except OSError:
            raise ValueError("the sweep could not be saved") from None
    except ValueError as exc:
        assert files.no_space(exc) is full
    assert files.no_space(OSError(errno.EIO, os.strerror(errno.EIO))) is None


# -- result sets: all or none -----------------------------------------------------------------


def _tournament(out: Path) -> list[Path]:
    return tournament_report.write_outputs(out, {"agents": []})


def _reaction(out: Path) -> list[Path]:
    return reaction_files.write_outputs(out, {"settings": {"grid": False}, "points": []})


def _think(out: Path) -> list[Path]:
    return think_report.write_outputs(out, {"points": []})


def _stub(monkeypatch: pytest.MonkeyPatch, module: Any, names: tuple[str, ...]) -> None:
    """The module's tables and figures as a few fixed bytes: the writing is what is tested."""
    for name in names:
        text = name.endswith(("csv", "leaderboard"))
        monkeypatch.setattr(module, name, lambda *a, _t=text, **k: "rows\n" if _t else b"PNG")


SETS: dict[str, tuple[Callable[[Path], list[Path]], Any, tuple[str, ...], str]] = {
    # the writer, its module, what to stub there, and its figure (written last)
    "tournament": (
        _tournament,
        tournament_report,
        ("matches_csv", "leaderboard", "heatmap_png", "ratings_png"),
        "ratings.png",
    ),
    "reaction": (_reaction, reaction_files, ("rows_csv", "curve_png"), "winrate_vs_latency.png"),
    "think": (_think, think_report, ("rows_csv", "curve_png"), "winrate_vs_think.png"),
}


@pytest.mark.parametrize("which", SETS)
def test_a_full_disk_at_the_figure_writes_no_results_without_it(which, tmp_path, monkeypatch):
    write, module, stubs, figure = SETS[which]
    _stub(monkeypatch, module, stubs)
    fill_disk_at(monkeypatch, figure)
    with pytest.raises(OSError) as raised:
        write(tmp_path)
    assert files.no_space(raised.value) is not None
    assert str(tmp_path / figure) in str(raised.value)
    assert _listing(tmp_path) == {}  # the results belong with their figure: none of them


@pytest.mark.parametrize("which", SETS)
def test_a_full_disk_leaves_an_earlier_result_set_whole(which, tmp_path, monkeypatch):
    write, module, stubs, figure = SETS[which]
    _stub(monkeypatch, module, stubs)
    written = write(tmp_path)
    for path in written:  # an earlier run's set, each file told apart from the new one's
        path.write_bytes(b"earlier " + path.name.encode())
    before = _listing(tmp_path)
    fill_disk_at(monkeypatch, figure)
    with pytest.raises(OSError):
        write(tmp_path)
    assert _listing(tmp_path) == before


# -- the command: one line, the file named, exit code NO_SPACE --------------------------------

TOURNAMENT = ["tournament", "--agents", "random,greedy", "--games", "4", "--seed", "3"]


def test_speed_tournament_on_a_full_disk_says_so_in_one_line_and_goes_on_later(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "t"
    fill_disk_at(monkeypatch, "ratings.png")
    assert main([*TOURNAMENT, "--out", str(out)]) == NO_SPACE
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (  # after the progress bar's lines
        f"speed tournament: error: No space left on device writing {out / 'ratings.png'}; what "
        "was written before is left as it was: free some space and run the same command again"
    )
    assert not (out / "results.json").exists()  # no results without their figures
    assert json.loads((out / "run.json").read_text())["finished"] is None
    monkeypatch.undo()  # room again: the same command finishes the run
    assert main([*TOURNAMENT, "--out", str(out)]) == 0
    assert {"results.json", "ratings.png", "winrate_heatmap.png"} <= set(os.listdir(out))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT], ids=["ENOSPC", "EDQUOT"])
def test_a_full_disk_at_the_folder_lock_names_the_lock(tmp_path, monkeypatch, capsys, code):
    """The folder's lock is written with ``os.pwrite``, whose error names no file of itself."""

    def pwrite(*args: Any) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "pwrite", pwrite)
    out = tmp_path / "t"
    assert main([*TOURNAMENT, "--out", str(out)]) == NO_SPACE
    err = capsys.readouterr().err
    assert err.startswith(f"speed tournament: error: {os.strerror(code)} writing {out}/run.lock; ")
    assert err.count("\n") == 1
    assert os.listdir(out) == []  # the lock let go of and removed


def test_a_full_disk_that_names_no_file_names_the_output_folder(tmp_path, monkeypatch, capsys):
    """A library's own write (a logger's, say) fails naming no file: ``--out`` is named."""
    import speed_cli.tournament

    def run(args: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(speed_cli.tournament, "run", run)
    out = tmp_path / "t"
    assert main([*TOURNAMENT, "--out", str(out)]) == NO_SPACE
    assert capsys.readouterr().err.startswith(
        f"speed tournament: error: No space left on device writing into {out}; "
    )


def test_a_full_disk_at_the_chunk_log_names_the_log(tmp_path, monkeypatch, capsys):
    """The log is appended to as chunks finish, not staged: its failure still names it."""
    real_open = Path.open

    def path_open(self: Path, mode: str = "r", *args: Any, **kw: Any) -> Any:
        file = real_open(self, mode, *args, **kw)
        return FullFile(file, errno.ENOSPC) if self.name == "chunks.jsonl" and "w" in mode else file

    monkeypatch.setattr(Path, "open", path_open)
    out = tmp_path / "t"
    assert main([*TOURNAMENT, "--out", str(out)]) == NO_SPACE
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(
        f"speed tournament: error: No space left on device writing {out / 'chunks.jsonl'}; "
    )
