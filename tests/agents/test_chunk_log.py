"""A resumed tournament is the run that was started: the chunk log records each agent's files
and the run's identity; ``--resume`` refuses an agent whose file changed and an old log that
cannot be checked, and drops (naming it) a chunk line from another run, a repeated line or an
impossible result, playing its chunk again. Both games."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import shutil
import textwrap
from pathlib import Path

import pytest

import speed_cli
from agents.tournament import chunk_checks, realtime, vintage, vintage_stats
from agents.tournament.chunk_log import LOG_NAME
from agents.tournament.harness import Chunk

REALTIME = ["tournament", "--agents", "random,greedy", "--games", "12"]
"""Six deals: three chunks of two deals (with :func:`small_chunks`)."""

BOT = textwrap.dedent(
    """
    class Bot:
        def act(self, obs, mask):
            return mask.argmax(axis=1)
    """
)
EDITED = BOT.replace("mask.argmax(axis=1)", "mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)")
"""Another legal bot: the last legal action instead of the first."""


@contextlib.contextmanager
def _small_chunks(m: pytest.MonkeyPatch):
    m.setattr(realtime, "CHUNK_DEALS", 2)
    m.setattr(vintage, "CHUNK_DEALS", 2)
    yield


@pytest.fixture
def small_chunks(monkeypatch):
    with _small_chunks(monkeypatch):
        yield


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """Two finished runs of :data:`REALTIME`: ``--seed 0`` and ``--seed 3``."""
    runs = {}
    with pytest.MonkeyPatch.context() as m, _small_chunks(m):
        for seed in (0, 3):
            out = tmp_path_factory.mktemp(f"seed{seed}")
            assert speed_cli.main([*REALTIME, "--seed", str(seed), "--out", str(out)]) == 0
            runs[seed] = out
    return runs


def results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text())
    doc["settings"].pop("wall_s")
    return doc


def stop_after(monkeypatch, k: int) -> None:
    """Make the next run stop (as Ctrl-C does) once ``k`` chunks have finished."""
    from agents.runtime import progress

    @contextlib.contextmanager
    def chunk_progress(label):
        def update(done, total):
            if done >= k:
                raise KeyboardInterrupt

        yield update

    monkeypatch.setattr(progress, "chunk_progress", chunk_progress)


# ------------------------------------------------------------ an agent's files changed
@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--games", "8"],
        ["tournament", "--game", "vintage", "--players", "2", "--games", "8"],
    ],
    ids=["realtime", "vintage"],
)
def test_an_edited_bot_file_is_refused_at_resume_naming_the_agent_and_file(
    argv, small_chunks, tmp_path, monkeypatch, capsys
):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    spec = f"py:{bot}:Bot"
    other = "vintage-random" if "vintage" in argv else "random"
    run = [*argv, "--agents", f"{other},{spec}", "--out", str(tmp_path / "out")]
    with monkeypatch.context() as m:
        stop_after(m, 1)
        assert speed_cli.main(run) == 130
    log = (tmp_path / "out" / LOG_NAME).read_text()
    capsys.readouterr()

    bot.write_text(EDITED)
    assert speed_cli.main([*run, "--resume"]) == 2  # not a run mixing two agents
    err = capsys.readouterr().err
    assert f"agent {spec!r}: {bot} changed since the run began" in err, err
    assert len(err.strip().splitlines()) == 1
    assert (tmp_path / "out" / LOG_NAME).read_text() == log  # the refusal changed nothing
    header = json.loads(log.splitlines()[0])
    assert header["agent_files"][spec] == {str(bot): hashlib.sha256(BOT.encode()).hexdigest()}

    bot.write_text(BOT)  # the file the run began with: it resumes
    assert speed_cli.main([*run, "--resume"]) == 0
    assert "--resume: 1 chunks already finished" in capsys.readouterr().err


# ------------------------------------------------------------ chunk lines a resume drops
def _line(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _flipped(line: str) -> str:
    """The same chunk with the seats' results swapped: plausible, but not what was played."""
    doc = json.loads(line)
    doc["wins_a"], doc["wins_b"] = doc["wins_b"], doc["wins_a"]
    doc["outcomes"] = [-o for o in doc["outcomes"]]
    return _line(doc)


def _impossible(line: str) -> str:
    doc = json.loads(line)
    doc["wins_a"] = -5
    return _line(doc)


CASES = {
    # case: (the chunk lines after the header, the note naming what was dropped)
    "another run": (lambda c, o: [c[0], o[1], c[2]], "line 3 is from another run (seed 3"),
    "repeated": (lambda c, o: [c[0], c[1], c[0]], "line 4 repeats line 2 (chunk 0): dropped"),
    "two results for a chunk": (
        lambda c, o: [c[0], c[1], c[2], _flipped(c[1])],
        "line 5 holds chunk 1 again, with other results than line 3 (both dropped)",
    ),
    "impossible count": (
        lambda c, o: [c[0], _impossible(c[1]), c[2]],
        "line 3 (chunk 1) holds an impossible result: wins_a is -5, not a count: dropped",
    ),
    "not in the plan": (
        lambda c, o: [
            c[0],
            _line(
                {**json.loads(c[1]), "chunk": {"index": 1, "lineup": 0, "start": 2.0, "count": 2}}
            ),
            c[2],
        ],
        "line 3 holds chunk {'index': 1, 'lineup': 0, 'start': 2.0, 'count': 2}, which is not "
        "one of this run's: dropped",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_untrusted_chunk_line_is_dropped_naming_it_and_its_chunk_played_again(
    case, finished, small_chunks, tmp_path, capsys
):
    whole, other = finished[0], finished[3]
    out = tmp_path / "out"
    shutil.copytree(whole, out)
    header, *chunks = (whole / LOG_NAME).read_text().splitlines()
    others = (other / LOG_NAME).read_text().splitlines()[1:]
    doctor, note = CASES[case]
    (out / LOG_NAME).write_text("\n".join([header, *doctor(chunks, others)]) + "\n")
    (out / "results.json").unlink()
    capsys.readouterr()

    assert speed_cli.main([*REALTIME, "--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"--resume: {out / LOG_NAME} {note}" in err, err
    assert results(out) == results(whole)  # the dropped chunk was played again
    assert (out / LOG_NAME).read_text() == (whole / LOG_NAME).read_text()


def test_a_log_from_before_file_hashes_is_refused_saying_so(
    finished, small_chunks, tmp_path, capsys
):
    """A chunk log of format 1 (kits up to 1.0.0) records no files: its chunks cannot be checked
    against the agents now, so it is not resumed."""
    out = tmp_path / "out"
    shutil.copytree(finished[0], out)
    (out / "run.json").unlink()  # a kit of that age wrote no run identity either
    header, *chunks = (out / LOG_NAME).read_text().splitlines()
    old = json.loads(header)
    old = {"format": old["format"], "format_version": 1, "settings": old["settings"]}
    lines = [{k: v for k, v in json.loads(c).items() if k != "run"} for c in chunks[:2]]
    (out / LOG_NAME).write_text("\n".join(map(_line, [old, *lines])) + "\n")
    log = (out / LOG_NAME).read_text()
    capsys.readouterr()
    assert speed_cli.main([*REALTIME, "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "before chunk logs recorded the SHA-256 of each agent's files" in err
    assert "start the run afresh (the same command without --resume)" in err
    assert (out / LOG_NAME).read_text() == log


def test_every_chunk_line_carries_the_runs_identity(finished):
    header, *chunks = (finished[0] / LOG_NAME).read_text().splitlines()
    run = json.loads(header)["run"]
    assert run["seed"] == 0 and len(run["settings"]) == 64
    assert all(json.loads(c)["run"] == run for c in chunks)
    assert json.loads((finished[3] / LOG_NAME).read_text().splitlines()[0])["run"] != run


# ------------------------------------------------------------ what a chunk can hold
def _realtime_result() -> realtime.ChunkResult:
    settings = realtime.Settings(agents=("random", "greedy"), games=4)
    return realtime.run_chunk(settings, Chunk(0, 0, 0, 2))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"wins_a": -1}, "wins_a is -1, not a count"),
        ({"draws": True}, "draws is True, not a count"),
        ({"game_ms": 1.5}, "game_ms is 1.5, not a count"),
        ({"games": 5}, "games is 5, but the chunk's 2 deals make 4"),
        ({"truncated": 5}, "truncated is 5, more than the"),
        ({"outcomes": [1, 1, 1]}, "outcomes holds 3 entries, not 4"),
        ({"outcomes": [1, 1, 1, 2]}, "outcomes[3] is 2"),
        ({"points_a": [0, 0, 0, -1]}, "points_a[3] is -1"),
        ({"replays": "x"}, "replays is not a list of frames"),
    ],
)
def test_impossible_realtime_results_are_named(change, problem):
    good = _realtime_result()
    assert chunk_checks.realtime(good) is None
    bad = dataclasses.replace(good, **change)
    if "truncated" in change:
        bad = dataclasses.replace(bad, draws=4, wins_a=0, wins_b=0, outcomes=[0] * 4)
    assert problem in (chunk_checks.realtime(bad) or "")


def test_realtime_counts_must_agree_with_the_outcomes():
    good = _realtime_result()
    moved = dataclasses.replace(good, wins_a=good.wins_a + 1, wins_b=good.wins_b - 1)
    if good.wins_b == 0:
        moved = dataclasses.replace(good, wins_a=good.wins_a - 1, wins_b=1)
    assert "but outcomes hold" in (chunk_checks.realtime(moved) or "")


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("winner", lambda r: [*r.winner[:-1], 2], "winner[3] is 2"),
        ("deal", lambda r: [9, *r.deal[1:]], "deal[0] is 9"),
        ("rotation", lambda r: r.rotation[::-1], "do not hold each deal once per rotation"),
        ("seating", lambda r: [r.seating[0][::-1], *r.seating[1:]], "seating[0] is"),
        ("penalty", lambda r: [[-1, 0], *r.penalty[1:]], "penalty[0][0] is -1"),
        ("turns", lambda r: r.turns[:-1], "turns holds 3 entries, not 4"),
    ],
)
def test_impossible_vintage_results_are_named(field, value, problem):
    settings = vintage.VintageSettings(
        agents=("vintage-random", "vintage-greedy"), players=2, games=4
    )
    good = vintage.run_chunk(settings, Chunk(0, 0, 0, 2))
    lineup = settings.lineups()[0]
    assert vintage_stats.check_chunk(good, lineup, 2) is None
    bad = copy.deepcopy(good)
    setattr(bad, field, value(good))
    assert problem in (vintage_stats.check_chunk(bad, lineup, 2) or "")


def test_a_model_file_changed_or_gone_is_named(finished, small_chunks, tmp_path, capsys):
    """The header's files are compared file by file: a weights file whose hash differs, or one
    the agent no longer reads, is named with its agent."""
    out = tmp_path / "out"
    shutil.copytree(finished[0], out)
    # Without its run.json the folder's chunk log alone decides the resume (a finished run's
    # run.json would answer "nothing to resume" before the log is read).
    (out / "run.json").unlink()
    header, *chunks = (out / LOG_NAME).read_text().splitlines()
    for files, named in (
        ({"agents/models/m.safetensors": "0" * 64}, "'greedy' no longer reads agents/models/m"),
        ({}, None),
    ):
        doc = json.loads(header)
        doc["agent_files"]["greedy"] = files
        (out / LOG_NAME).write_text("\n".join([_line(doc), *chunks]) + "\n")
        capsys.readouterr()
        if named is None:  # the header as written: resumes (nothing left to play)
            assert speed_cli.main([*REALTIME, "--out", str(out), "--resume"]) == 0
            continue
        assert speed_cli.main([*REALTIME, "--out", str(out), "--resume"]) == 2
        assert named in capsys.readouterr().err
