"""``speed evaluate --human``: the output folder is judged before the records are measured (that
reads every record and plays the agent on each), as the other modes judge it before they time
the agent; a finished card is never replaced."""

from __future__ import annotations

import pytest

import speed_cli
from agents.runtime.run_lock import FolderLock
from train.realtime import human_likeness

CARD = ["evaluate", "greedy", "--protocol", "1", "--games", "2", "--workers", "1"]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Play records of chain against greedy (their bot seat: what --human-seat bot reads)."""
    folder = tmp_path_factory.mktemp("records")
    gen = ["data", "generate", "--agents", "chain,greedy", "--games", "2", "--out", str(folder)]
    assert speed_cli.main(gen) == 0
    return ["--human", str(folder), "--human-seat", "bot"]


@pytest.fixture(scope="module")
def finished(records, tmp_path_factory):
    """A finished --human card."""
    out = tmp_path_factory.mktemp("card") / "card"
    assert speed_cli.main([*CARD, *records, "--out", str(out)]) == 0
    return out


@pytest.fixture
def measured(monkeypatch) -> list[str]:
    """The specs measured against records from now on (the measuring itself unchanged)."""
    calls: list[str] = []
    real = human_likeness.measure

    def counted(spec, *args):
        calls.append(spec)
        return real(spec, *args)

    monkeypatch.setattr(human_likeness, "measure", counted)
    return calls


def test_a_card_folder_of_other_settings_is_refused_before_measuring(
    records, finished, measured, capsys
):
    before = (finished / "report.json").read_bytes()
    assert speed_cli.main([*CARD, "--games", "3", *records, "--out", str(finished)]) == 2
    assert "of other settings: --games (2 there, 3 now)" in capsys.readouterr().err
    assert measured == []
    assert (finished / "report.json").read_bytes() == before


def test_a_folder_in_use_is_refused_before_measuring(records, tmp_path, measured, capsys):
    out = tmp_path / "card"
    with FolderLock(out, command="speed evaluate (the first)"):
        assert speed_cli.main([*CARD, *records, "--out", str(out)]) == 2
    assert "is in use by pid" in capsys.readouterr().err and measured == []


def test_a_file_in_place_of_the_folder_is_refused_before_measuring(
    records, tmp_path, measured, capsys
):
    out = tmp_path / "card"
    out.write_text("not a folder")
    assert speed_cli.main([*CARD, *records, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"speed evaluate: error: output folder {str(out)!r} is not writable: File exists"
    assert measured == [] and out.read_text() == "not a folder"


def test_the_same_card_again_is_measured_then_left_as_it_is(records, finished, measured, capsys):
    """Only the records can tell this card from one of changed records: measured, then found."""
    before = {p.name: p.read_bytes() for p in finished.iterdir()}
    assert speed_cli.main([*CARD, *records, "--out", str(finished)]) == 0
    assert "already holds this speed evaluate run" in capsys.readouterr().out
    assert measured == ["greedy"]
    assert {p.name: p.read_bytes() for p in finished.iterdir()} == before
