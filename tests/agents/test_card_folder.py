"""``speed evaluate`` plays its pairings through the tournaments' folder harness
(:func:`agents.tournament.run_folder.play_chunks`): each chunk is logged as it finishes, an
interrupted card writes no card but keeps its chunks, and the same command run again plays only
the others, to the card an uninterrupted run makes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

import speed_cli
from agents.evaluate import plan, protocol
from agents.tournament.chunk_log import LOG_NAME

VINTAGE = ["evaluate", "vintage-random", "--game", "vintage", "--games", "4", "--workers", "1"]
REALTIME = ["evaluate", "greedy", "--protocol", "1", "--games", "2", "--workers", "1"]


def stop_after(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """Make the next run stop (as Ctrl-C does) once ``k`` chunks have finished."""
    from agents.runtime import progress

    @contextlib.contextmanager
    def chunk_progress(label):
        def update(done, total):
            if done >= k:
                raise KeyboardInterrupt

        yield update

    monkeypatch.setattr(progress, "chunk_progress", chunk_progress)


def count_played(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The groups of the chunks this process plays from now on, in order (``--workers 1``)."""
    played: list[str] = []
    real = plan.play_job

    def counted(job):
        played.append(job.group)
        return real(job)

    monkeypatch.setattr(plan, "play_job", counted)
    return played


def card(out: Path) -> dict:
    """A card less what differs between two runs of it (its timing, and the hash over it)."""
    doc = json.loads((out / "report.json").read_text())
    return {k: v for k, v in doc.items() if k not in (*protocol.TIMING_KEYS, "card_hash")}


def page(out: Path) -> list[str]:
    """``report.md`` less its measured times (the decision cost, the wall time)."""
    lines = (out / "report.md").read_text().splitlines()
    return [ln for ln in lines if not ln.startswith(("CPU time per decision", "Made in"))]


@pytest.mark.parametrize(
    "argv", [VINTAGE, pytest.param(REALTIME, marks=pytest.mark.slow)], ids=["vintage", "realtime"]
)
def test_an_interrupted_card_goes_on_where_it_stopped_to_the_uninterrupted_card(
    argv, tmp_path, monkeypatch, capsys
):
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert speed_cli.main([*argv, "--out", str(whole)]) == 0
    assert not (whole / LOG_NAME).exists()  # a written card's log is gone: the card is the result
    capsys.readouterr()

    with monkeypatch.context() as m:
        stop_after(m, 3)
        assert speed_cli.main([*argv, "--out", str(part)]) == 130
    err = capsys.readouterr().err
    total = json.loads((part / "run.json").read_text())  # the run is recorded, unfinished
    assert total["finished"] is None and total["command"] == "speed evaluate"
    assert not (part / "report.json").exists()
    lines = (part / LOG_NAME).read_text().splitlines()
    assert len(lines) == 1 + 3  # the header, then the three chunks that finished
    chunks = len(plan.make_plan(*_plan_args(argv)).jobs)
    assert f"no card written. 3 of {chunks} chunks kept in {part / LOG_NAME}" in err

    played = count_played(monkeypatch)
    assert speed_cli.main([*argv, "--out", str(part)]) == 0
    err = capsys.readouterr().err
    assert f"continuing the interrupted run in {part}: 3 of {chunks} chunks" in err
    assert len(played) == chunks - 3  # only the chunks the first run did not finish
    assert card(part) == card(whole)
    assert page(part) == page(whole)
    assert not (part / LOG_NAME).exists()
    assert json.loads((part / "run.json").read_text())["finished"] is not None


def _plan_args(argv: list[str]) -> tuple[str, str, int]:
    """The spec, game and games of an ``evaluate`` command line above."""
    game = argv[argv.index("--game") + 1] if "--game" in argv else "realtime"
    return argv[1], game, int(argv[argv.index("--games") + 1])


def test_an_interrupted_card_of_other_settings_is_not_thrown_away(tmp_path, monkeypatch, capsys):
    """Its logged chunks are work: another card into its folder is refused, as a tournament's."""
    out = tmp_path / "card"
    with monkeypatch.context() as m:
        stop_after(m, 2)
        assert speed_cli.main([*VINTAGE, "--out", str(out)]) == 130
    log = (out / LOG_NAME).read_bytes()
    capsys.readouterr()
    other = [*VINTAGE[:5], "6", *VINTAGE[6:]]  # --games 6
    assert speed_cli.main([*other, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unfinished) of other settings: --games (4 there, 6 now)" in err
    assert (out / LOG_NAME).read_bytes() == log


def test_a_log_the_card_cannot_go_on_from_is_started_over_with_a_note(
    tmp_path, monkeypatch, capsys
):
    """A chunk log of this card's folder whose header is not this card's (edited, or an earlier
    kit's plan) is never mixed in: the card starts over, saying why, and is the whole card."""
    whole, out = tmp_path / "whole", tmp_path / "card"
    assert speed_cli.main([*VINTAGE, "--out", str(whole)]) == 0
    with monkeypatch.context() as m:
        stop_after(m, 2)
        assert speed_cli.main([*VINTAGE, "--out", str(out)]) == 130
    header, *rows = (out / LOG_NAME).read_text().splitlines()
    doc = json.loads(header)
    doc["settings"]["--seed"] = 99
    (out / LOG_NAME).write_text("\n".join([json.dumps(doc), *rows]) + "\n")
    capsys.readouterr()
    played = count_played(monkeypatch)
    assert speed_cli.main([*VINTAGE, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"note: starting over: the interrupted run's {out / LOG_NAME} cannot go on" in err
    assert "--seed (the run has 99, now None)" in err and "--resume" not in err
    assert len(played) == len(plan.make_plan("vintage-random", "vintage", 4).jobs)
    assert card(out) == card(whole)
