"""Other people's bots are attributed and contained: a bot that raises, exits, answers wrongly or
too late ends its own run with one line naming it, the call and the game; finished chunks are
written, marked INCOMPLETE; a refusal is told from a bug; a bot's use of the global generators
does not change the numbers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import speed_cli
from agents import evaluate
from agents.runtime.failures import AgentFailure
from agents.runtime.jobs import RunStopped, run_jobs
from agents.specs.guarded import check_actions
from agents.tournament import realtime, vintage

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_bots.py"


def bot(name: str) -> str:
    """The spec of one of the hostile bots."""
    return f"py:{BOTS}:{name}"


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 2 deals, so a 3-agent tournament of 4 games a pairing has 3 chunks."""
    monkeypatch.setattr(realtime, "CHUNK_DEALS", 2)
    monkeypatch.setattr(vintage, "CHUNK_DEALS", 2)


def speed(*argv: str, env: dict[str, str] | None = None, timeout: float = 300):
    """``speed ARGV`` in a fresh Python (a bot may end its process); the finished process."""
    return subprocess.run(
        [sys.executable, "-m", "speed_cli", *argv],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def error_lines(stderr: str) -> list[str]:
    """The lines of stderr that are not the progress bar."""
    return [ln for ln in stderr.splitlines() if ln.strip() and "%|" not in ln and "it/s" not in ln]


# ------------------------------------------------------------------ the answer of act
MASK = np.ones((3, 27), np.int8)
BAD_ANSWERS = {
    "None": (None, "returned None"),
    "bool": (np.array([True, False, True]), "dtype bool"),
    "float": (np.array([1.0, 2.0, 3.0]), "dtype float64"),
    "NaN": (np.full(3, np.nan), "dtype float64"),
    "list of floats": ([1.0, 2.0, 3.0], "holding 1.0"),
    "column": (np.zeros((3, 1), np.int64), "shape (3, 1)"),
    "too few": (np.zeros(2, np.int64), "shape (2,)"),
    "out of range": (np.array([0, 27, 1]), "deal 1: action 27 is outside 0..26"),
    "negative": (np.array([0, 1, -1]), "deal 2: action -1"),
    "strings": (np.array(["1", "2", "3"]), "dtype <U1"),
}


@pytest.mark.parametrize("answer", BAD_ANSWERS, ids=list(BAD_ANSWERS))
def test_a_wrong_answer_is_one_line_naming_the_agent_and_the_game(answer):
    raw, what = BAD_ANSWERS[answer]
    with pytest.raises(AgentFailure) as info:
        check_actions(
            raw, MASK, spec="py:b.py:B", where="a vs b, seat 1", rows=lambda i: f"deal {i}"
        )
    line = str(info.value)
    assert line.startswith("agent py:b.py:B failed in act (a vs b, seat 1): ")
    assert what in line and "\n" not in line
    assert info.value.spec == "py:b.py:B"


def test_any_integer_dtype_is_an_answer():
    for dtype in (np.int8, np.int32, np.uint8, np.uint64):
        got = check_actions(np.array([0, 5, 26], dtype), MASK, spec="s")
        assert got.dtype == np.int64 and got.tolist() == [0, 5, 26]
    assert check_actions([0, 5, 26], MASK, spec="s").tolist() == [0, 5, 26]


def test_a_vintage_answer_must_be_legal():
    mask = np.zeros((2, 5), np.int8)
    mask[:, 1] = 1
    assert check_actions([1, 1], mask, spec="s", legal_only=True).tolist() == [1, 1]
    with pytest.raises(AgentFailure, match=r"row 1: action 3 is illegal \(legal: \[1\]\)"):
        check_actions([1, 3], mask, spec="s", legal_only=True)


def test_an_agent_failure_pickles_whole():
    import pickle

    exc = pickle.loads(pickle.dumps(AgentFailure("agent x failed in act: boom", "x")))
    assert str(exc) == "agent x failed in act: boom" and exc.spec == "x"


# ------------------------------------------------------------------ the job runner
PLAYED: list[tuple[str, str]] = []


def _plays(job: tuple[str, str]) -> str:
    PLAYED.append(job)
    if "bad" in job:
        raise AgentFailure("agent bad failed in act: boom", "bad")
    return "+".join(job)


def test_a_failing_agent_ends_only_the_jobs_it_plays_in():
    PLAYED.clear()
    jobs = [("bad", "a"), ("a", "b"), ("bad", "b"), ("b", "c")]
    with pytest.raises(RunStopped) as info:
        run_jobs(_plays, jobs, players=lambda job: job)
    stopped = info.value
    assert stopped.results == [None, "a+b", None, "b+c"]
    assert [f.spec for f in stopped.failures] == ["bad"] and not stopped.halted
    assert stopped.skipped == [0, 2] and ("bad", "b") not in PLAYED


def test_a_failure_stops_the_run_when_the_runner_cannot_tell_who_plays():
    jobs = [("a", "b"), ("bad", "a"), ("b", "c")]
    with pytest.raises(RunStopped) as info:
        run_jobs(_plays, jobs)
    assert info.value.results == ["a+b", None, None] and info.value.halted
    # Blamed on an agent the job does not seat: not contained either.
    with pytest.raises(RunStopped) as info:
        run_jobs(_plays, jobs, players=lambda job: ("a", "b", "c"))
    assert info.value.halted and info.value.results == ["a+b", None, None]


# ------------------------------------------------------------------ a tournament
FAILING = {
    "Raises": "RuntimeError: my bot has a bug",
    "ReturnsNone": "act returned None",
    "ReturnsBool": "dtype bool",
    "ReturnsFloat": "dtype float64",
    "ReturnsNaN": "dtype float64",
    "WrongShape": "shape (2, 1), expected (2,)",
    "OutOfRange": "action 999 is outside 0..26",
    "SysExit": "called sys.exit(3)",
}


@pytest.mark.parametrize("name", FAILING)
def test_a_failing_bot_is_named_and_the_finished_chunks_are_written(
    name, small_chunks, tmp_path, capsys
):
    spec = bot(name)
    out = tmp_path / "out"
    argv = ["tournament", "--agents", f"random,greedy,{spec}", "--games", "4", "--out", str(out)]
    assert speed_cli.main(argv) == 1
    err = error_lines(capsys.readouterr().err)
    lines = [ln for ln in err if ln.startswith("speed tournament: error:")]
    assert len(lines) == 1 and not any("Traceback" in ln for ln in err), err
    assert f"agent {spec} failed in act (" in lines[0] and FAILING[name] in lines[0]
    assert "seat" in lines[0] and "deal" in lines[0]  # the game and seat
    doc = json.loads((out / "results.json").read_text())
    status = doc["status"]
    assert status["complete"] is False and [f["agent"] for f in status["failed"]] == [spec]
    assert status["note"].startswith(f"INCOMPLETE: agent {spec} failed")
    assert FAILING[name] in status["failed"][0]["error"]
    assert status["unfinished"] == [f"random vs {spec}", f"greedy vs {spec}"]
    assert [(m["a"], m["b"], m["games"]) for m in doc["matches"]] == [("random", "greedy", 4)]
    assert "INCOMPLETE" in (out / "leaderboard.md").read_text()


def _results(argv: list[str], code: int) -> dict:
    """``speed ARGV`` (in this process) exits ``code``; its results.json."""
    assert speed_cli.main(argv) == code
    out = Path(argv[argv.index("--out") + 1])
    return json.loads((out / "results.json").read_text())


def _pairing(doc: dict, a: str, b: str) -> dict:
    """The match row of pairing ``a`` vs ``b``."""
    (row,) = [m for m in doc["matches"] if (m["a"], m["b"]) == (a, b)]
    return row


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_bot_ends_only_the_pairings_it_plays_in(
    workers, small_chunks, tmp_path, monkeypatch, capsys
):
    # Three pairings of two chunks each, the bot's first: random vs greedy comes after the
    # failure and must still be played whole, exactly as in a run where nothing failed.
    builds = tmp_path / "builds"
    monkeypatch.setenv("HOSTILE_BUILDS", str(builds))
    spec = bot("RaisesAndCounts")
    argv = ["tournament", "--games", "8", "--seed", "5", "--workers", str(workers)]
    doc = _results([*argv, "--agents", f"random,{spec},greedy", "--out", str(tmp_path / "a")], 1)
    clean = _results([*argv, "--agents", "random,chain,greedy", "--out", str(tmp_path / "b")], 0)
    err = capsys.readouterr().err
    assert sum(ln.startswith("speed tournament: error: ") for ln in err.splitlines()) == 1
    assert _pairing(doc, "random", "greedy") == _pairing(clean, "random", "greedy")
    assert _pairing(doc, "random", "greedy")["games"] == 8
    assert [m["a"] for m in doc["matches"]] == ["random"]  # none of the bot's chunks finished
    status = doc["status"]
    assert (status["chunks_done"], status["chunks_total"]) == (2, 6)
    assert status["unfinished"] == [f"random vs {spec}", f"{spec} vs greedy"]
    # Built once before the run (to record its files), then only for the chunks running when it
    # failed (one a worker), never after.
    assert 2 <= len(builds.read_text().splitlines()) <= 1 + workers
    assert sorted(r["name"] for r in doc["agents"]) == ["greedy", "random"]
    assert doc["unranked"] == [spec]


def test_every_failing_bot_is_named(small_chunks, tmp_path, capsys):
    raises, none = bot("Raises"), bot("ReturnsNone")
    argv = ["tournament", "--games", "4", "--agents", f"{raises},random,{none},greedy"]
    doc = _results([*argv, "--out", str(tmp_path / "out")], 1)
    err = [ln for ln in capsys.readouterr().err.splitlines() if "speed tournament: error" in ln]
    assert len(err) == 2 and raises in err[0] and none in err[1]
    assert [f["agent"] for f in doc["status"]["failed"]] == [raises, none]
    assert "RuntimeError: my bot has a bug" in doc["status"]["failed"][0]["error"]
    assert "returned None" in doc["status"]["failed"][1]["error"]
    assert [(m["a"], m["b"], m["games"]) for m in doc["matches"]] == [("random", "greedy", 4)]
    assert len(doc["status"]["unfinished"]) == 5
    assert doc["status"]["note"].startswith(f"INCOMPLETE: agent {raises} failed")


def test_a_failing_vintage_bot_ends_only_the_tables_it_sits_at(small_chunks, tmp_path, capsys):
    spec = bot("vintage_illegal")
    argv = ["tournament", "--game", "vintage", "--players", "2", "--games", "8", "--seed", "2"]
    doc = _results(
        [*argv, "--agents", f"vintage-random,{spec},vintage-greedy", "--out", str(tmp_path / "a")],
        1,
    )
    clean = _results(
        [
            *argv,
            "--agents",
            "vintage-random,vintage-tactician,vintage-greedy",
            "--out",
            str(tmp_path / "b"),
        ],
        0,
    )
    assert f"agent {spec} failed in act" in capsys.readouterr().err
    pair = ("vintage-random", "vintage-greedy")
    assert _pairing(doc, *pair) == _pairing(clean, *pair) and _pairing(doc, *pair)["games"] == 8
    (table,) = [t for t in doc["lineups"] if t["agents"] == list(pair)]
    assert [t for t in clean["lineups"] if t["agents"] == list(pair)] == [table]
    assert doc["status"]["unfinished"] == [
        f"table vintage-random / {spec}",
        f"table {spec} / vintage-greedy",
    ]


def test_a_resumed_run_with_a_failed_bot_plays_only_its_chunks_again(
    small_chunks, tmp_path, monkeypatch, capsys
):
    builds = tmp_path / "builds"
    monkeypatch.setenv("HOSTILE_BUILDS", str(builds))
    spec = bot("RaisesAndCounts")
    argv = ["tournament", "--games", "8", "--agents", f"random,{spec},greedy"]
    argv += ["--out", str(tmp_path / "out")]
    first = _results(argv, 1)
    again = _results([*argv, "--resume"], 1)
    assert "--resume: 2 chunks already finished" in capsys.readouterr().err
    # Twice a run (its files recorded, its first chunk): it fails again at once.
    assert len(builds.read_text().splitlines()) == 4
    for doc in (first, again):
        doc["settings"].pop("wall_s")
    assert (
        again["matches"] == first["matches"]
        and again["status"]["failed"] == first["status"]["failed"]
    )


def test_a_bot_answering_in_uint64_plays(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["tournament", "--agents", f"random,{bot('Uint64')}", "--games", "4", "--out", str(out)]
    assert speed_cli.main(argv) == 0, capsys.readouterr().err
    assert json.loads((out / "results.json").read_text())["status"]["complete"] is True


def test_a_bot_exiting_while_built_is_named(tmp_path, capsys):
    argv = ["tournament", "--agents", f"random,{bot('ExitsOnBuild')}", "--out", str(tmp_path)]
    assert speed_cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"agent {bot('ExitsOnBuild')} failed in building it" in err
    assert "called sys.exit(0)" in err


def test_an_illegal_vintage_action_names_the_bot_and_the_game(small_chunks, tmp_path, capsys):
    spec = bot("vintage_illegal")
    argv = ["tournament", "--game", "vintage", "--players", "2", "--games", "4"]
    argv += ["--agents", f"{spec},vintage-greedy", "--out", str(tmp_path)]
    assert speed_cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"agent {spec} failed in act (table {spec} / vintage-greedy, position 0" in err
    assert "is illegal (legal: [" in err and "rotation" in err


def test_os_exit_in_a_bot_is_not_a_silent_exit(tmp_path):
    done = speed(
        "tournament", "--agents", f"random,{bot('OsExit')}", "--games", "4", "--out", str(tmp_path)
    )
    assert done.returncode == 1, done.stderr
    assert f"agent {bot('OsExit')} failed in act (" in done.stderr
    assert "called os._exit(0)" in done.stderr and "Traceback" not in done.stderr


def test_a_killed_worker_names_the_chunks_it_was_playing(tmp_path):
    done = speed(
        "tournament",
        "--agents",
        f"random,{bot('KillsItself')}",
        "--games",
        "4",
        "--workers",
        "2",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 1, done.stderr
    assert "a worker process died" in done.stderr and bot("KillsItself") in done.stderr
    assert "Traceback" not in done.stderr and "BrokenProcessPool" not in done.stderr


# ------------------------------------------------------------------ time
@pytest.mark.parametrize("command", ["tournament", "evaluate"])
def test_act_timeout_fails_a_bot_that_never_returns(command, tmp_path):
    spec = bot("NeverReturns")
    if command == "tournament":
        argv = ["tournament", "--agents", f"random,{spec}", "--games", "4"]
    else:
        argv = ["evaluate", spec, "--games", "2"]
    t0 = time.monotonic()
    done = speed(*argv, "--act-timeout", "0.5", "--out", str(tmp_path), timeout=120)
    assert done.returncode == 1, done.stderr
    assert f"agent {spec} failed in act (" in done.stderr
    assert "no answer within --act-timeout 0.5 s" in done.stderr
    assert time.monotonic() - t0 < 100


def test_act_timeout_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as info:
        speed_cli.main(["tournament", "--act-timeout", "0"])
    assert info.value.code == 2 and "--act-timeout" in capsys.readouterr().err


@pytest.mark.slow
def test_one_ctrl_c_stops_two_workers_within_seconds_however_slow_the_bot(tmp_path):
    # Six chunks for two workers: a chunk already handed to the pool's queue when Ctrl-C comes
    # must not be played out either.
    mark = tmp_path / "asleep"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "speed_cli",
            "tournament",
            "--agents",
            f"random,{bot('Sleeper')}",
            "--games",
            "3000",
            "--workers",
            "2",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=ROOT,
        env=dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(sys.path),
            HOSTILE_SLEEP_S="60",
            HOSTILE_MARK=str(mark),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # Ctrl-C as in a terminal, even where this test runs in the background (whose SIGINT
        # is ignored, and a child would inherit that).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 180
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert mark.exists(), "the bot never started"
        time.sleep(0.5)
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # one Ctrl-C: the whole foreground group gets it
        proc.communicate(timeout=30)
        assert time.monotonic() - t0 < 10
        assert proc.returncode == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# ------------------------------------------------------------------ the global generators
def test_a_bot_using_the_global_generators_gives_the_same_results_for_the_same_seed(
    small_chunks, tmp_path, capsys
):
    def results(workers: int, name: str) -> dict:
        out = tmp_path / name
        argv = ["tournament", "--agents", f"random,greedy,{bot('GlobalRandom')}", "--games", "8"]
        argv += ["--seed", "3", "--workers", str(workers), "--out", str(out)]
        assert speed_cli.main(argv) == 0
        doc = json.loads((out / "results.json").read_text())
        doc["settings"].pop("wall_s")
        return doc

    first = results(1, "a")
    np.random.seed(12345)  # noqa: NPY002 - whatever the process drew before, the run is the same
    assert results(1, "b") == first
    assert results(2, "c") == first


# ------------------------------------------------------------------ evaluate: refusal or bug
def test_a_refusal_is_carded_as_refused():
    plan = evaluate.make_plan(bot("RefusesJapanese"), games=2)
    assert "this bot plays us and pagat only" in plan.skipped["japanese"]
    assert "us" not in plan.skipped and "pagat" not in plan.skipped


def test_a_bug_while_building_fails_the_card_naming_it_with_the_whole_message(tmp_path, capsys):
    spec = bot("KeyErrorOnBuild")
    assert speed_cli.main(["evaluate", spec, "--games", "2", "--out", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err
    assert f"agent {spec} failed in building it" in err and "KeyError: 'japanese'" in err
    assert "rule set japanese" in err
    assert not (tmp_path / "c" / "report.json").exists()
