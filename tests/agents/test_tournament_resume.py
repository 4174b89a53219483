"""An interrupted tournament says so in every output and ranks only agents that played; ``speed
tournament --resume`` plays only the missing chunks and gives an uninterrupted run's results
on the same deals, for both games."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import speed_cli
from agents.tournament import realtime, report, vintage
from agents.tournament.chunk_log import LOG_NAME

REALTIME = ["tournament", "--agents", "random,greedy,chain", "--games", "12", "--save-replays", "1"]
VINTAGE = ["tournament", "--game", "vintage", "--players", "2", "--games", "12"]


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 2 deals: 9 chunks in each tournament above (3 pairings or line-ups of 3)."""
    monkeypatch.setattr(realtime, "CHUNK_DEALS", 2)
    monkeypatch.setattr(vintage, "CHUNK_DEALS", 2)


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


def results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text())
    doc["settings"].pop("wall_s")
    return doc


def outputs(out: Path) -> dict[str, str]:
    """The text outputs that must match an uninterrupted run's."""
    names = ("results.csv", "leaderboard.md", "replays.jsonl", "agents.csv")
    return {n: (out / n).read_text() for n in names if (out / n).exists()}


@pytest.mark.parametrize(("argv", "unplayed"), [(REALTIME, "chain"), (VINTAGE, None)])
def test_an_interrupted_tournament_says_so_and_resumes_to_the_uninterrupted_results(
    argv, unplayed, small_chunks, tmp_path, monkeypatch, capsys
):
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert speed_cli.main([*argv, "--out", str(whole)]) == 0
    expected = results(whole)
    assert expected["status"] == {"complete": True, "chunks_done": 9, "chunks_total": 9}

    with monkeypatch.context() as m:
        stop_after(m, 2)
        assert speed_cli.main([*argv, "--out", str(part)]) == 130
    cut = results(part)
    assert cut["status"]["complete"] is False and cut["status"]["chunks_done"] == 2
    assert next(iter(cut)) == "status" and cut["status"]["note"].startswith("INCOMPLETE: 2 of")
    assert (part / "leaderboard.md").read_text().startswith("**INCOMPLETE: 2 of")
    assert (part / "results.csv").read_text().startswith("# INCOMPLETE: 2 of")
    if unplayed:  # chunks 0 and 1 are random against greedy: chain played no game
        assert cut["unranked"] == [unplayed]
        assert unplayed not in [a["name"] for a in cut["agents"]]
        assert f"| {unplayed} |" not in (part / "leaderboard.md").read_text().split("\n\n")[1]
        assert (
            f"Not ranked (no finished games): {unplayed}" in (part / "leaderboard.md").read_text()
        )
    assert all(a["games"] > 0 for a in cut["agents"])

    capsys.readouterr()
    assert speed_cli.main([*argv, "--out", str(part), "--resume"]) == 0
    assert "--resume: 2 chunks already finished" in capsys.readouterr().err
    assert results(part) == expected
    assert outputs(part) == outputs(whole)


def test_resuming_with_other_settings_is_refused_naming_them(
    small_chunks, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        stop_after(m, 1)
        assert speed_cli.main([*REALTIME, "--out", str(out)]) == 130
    log = (out / LOG_NAME).read_text()
    capsys.readouterr()
    for extra, named in (
        (["--seed", "3"], "--seed (the run has 0, now 3)"),
        (["--games", "14"], "--games (the run has 12, now 14)"),
        (["--option", "wrap=false"], "--rules/--option"),
        (["--reaction", "pro"], "--reaction"),
    ):
        argv = [*REALTIME, *extra, "--out", str(out), "--resume"]
        assert speed_cli.main(argv) == 2
        err = capsys.readouterr().err
        assert named in err and len(err.strip().splitlines()) == 1, err
        assert (out / LOG_NAME).read_text() == log  # the refusal changed nothing
    assert (
        speed_cli.main([*REALTIME, "--agents", "random,chain", "--out", str(out), "--resume"]) == 2
    )
    assert "--agents" in capsys.readouterr().err
    assert speed_cli.main([*REALTIME, "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert f"no {LOG_NAME}" in capsys.readouterr().err


def test_starting_over_an_unfinished_run_says_so(small_chunks, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        stop_after(m, 2)
        assert speed_cli.main([*REALTIME, "--out", str(out)]) == 130
    capsys.readouterr()
    assert speed_cli.main([*REALTIME, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "holds an unfinished tournament (2 of 9 chunks); starting over" in err
    assert speed_cli.main([*REALTIME, "--out", str(out)]) == 0  # a finished one: no note
    assert "unfinished" not in capsys.readouterr().err


def test_a_chunk_line_cut_short_by_a_kill_is_played_again(small_chunks, tmp_path, monkeypatch):
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert speed_cli.main([*REALTIME, "--out", str(whole)]) == 0
    with monkeypatch.context() as m:
        stop_after(m, 3)
        assert speed_cli.main([*REALTIME, "--out", str(part)]) == 130
    log = part / LOG_NAME
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    assert speed_cli.main([*REALTIME, "--out", str(part), "--resume"]) == 0
    assert results(part) == results(whole)


def test_plot_titles_of_an_incomplete_run_say_so():
    summary = {"status": {"complete": False, "chunks_done": 2, "chunks_total": 6}}
    assert report.titled(summary, "ratings") == "INCOMPLETE (2/6 chunks): ratings"
    assert report.titled({"status": {"complete": True}}, "ratings") == "ratings"


@pytest.mark.slow
def test_ctrl_c_then_resume_gives_the_uninterrupted_results(tmp_path):
    """A real SIGINT to ``speed tournament`` (a subprocess, default chunk size), then --resume."""
    argv = ["tournament", "--agents", "random,greedy", "--games", "1000", "--seed", "5"]
    speed = [sys.executable, "-m", "speed_cli"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    whole, part = tmp_path / "whole", tmp_path / "part"
    subprocess.run([*speed, *argv, "--out", str(whole)], check=True, env=env, capture_output=True)
    proc = subprocess.Popen(
        [*speed, *argv, "--out", str(part)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait for the first of the two chunks to be logged
        log = part / LOG_NAME
        if log.exists() and len(log.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    assert proc.returncode == 130  # it stopped before the second chunk finished
    assert results(part)["status"]["complete"] is False
    done = subprocess.run(
        [*speed, *argv, "--out", str(part), "--resume"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert results(part) == results(whole)


def test_a_tournament_holds_its_folder_lock(small_chunks, tmp_path, capsys):
    """Two writers never share an output folder: a run or resume on a folder another process
    holds is refused, naming it, and changes nothing there."""
    from agents.runtime.run_lock import FolderLock

    out = tmp_path / "out"
    with FolderLock(out, command="speed tournament (the first)"):
        for extra in ([], ["--resume"]):
            assert speed_cli.main([*REALTIME, "--out", str(out), *extra]) == 2
            assert "speed tournament (the first)" in capsys.readouterr().err
        assert sorted(p.name for p in out.iterdir()) == ["run.lock"]
    assert speed_cli.main([*REALTIME, "--out", str(out)]) == 0
    assert not (out / "run.lock").exists()  # let go when the run ended


@pytest.mark.parametrize("argv", [REALTIME, VINTAGE])
def test_a_finished_runs_chunk_log_is_in_chunk_order_whatever_order_chunks_ended(
    argv, small_chunks, tmp_path
):
    """Workers (or a Ray cluster) finish chunks in any order; a complete run's log is rewritten
    in chunk order, so the same --seed gives the same files on every backend."""
    out = tmp_path / "two"
    assert speed_cli.main([*argv, "--seed", "3", "--workers", "2", "--out", str(out)]) == 0
    lines = (out / LOG_NAME).read_text().splitlines()
    order = [json.loads(line)["chunk"]["index"] for line in lines[1:]]
    assert order == sorted(order) and len(order) == 9
    one = tmp_path / "one"
    assert speed_cli.main([*argv, "--seed", "3", "--workers", "1", "--out", str(one)]) == 0
    assert (one / LOG_NAME).read_text() == (out / LOG_NAME).read_text()


def test_a_tournament_with_an_openspiel_seat_resumes(small_chunks, tmp_path, monkeypatch, capsys):
    """Building ``openspiel:random`` reads ``/proc/meminfo``; recorded as an agent file, its
    hash changed every run and every ``--resume`` was refused as a changed file."""
    pytest.importorskip("pyspiel")
    argv = ["tournament", "--agents", "openspiel:random,greedy", "--games", "8", "--workers", "1"]
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        stop_after(m, 1)
        assert speed_cli.main([*argv, "--out", str(out)]) == 130
    header = json.loads((out / LOG_NAME).read_text().splitlines()[0])
    assert header["agent_files"]["openspiel:random"] == {}
    capsys.readouterr()
    assert speed_cli.main([*argv, "--out", str(out), "--resume"]) == 0, capsys.readouterr().err
    assert results(out)["status"]["complete"] is True
