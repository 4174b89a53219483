"""``speed tournament --think``: calibrated runs repeat from their file, measured ones say they
cannot, off changes nothing, and bad flags are refused in a line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import speed_cli
from agents.tournament.chunk_log import LOG_NAME

SLEEPER = '''
import time
import numpy as np


class Sleeper:
    """Waits 3 ms, then plays its highest legal action."""

    def act(self, obs, mask):
        time.sleep(0.003)
        return np.array([int(np.flatnonzero(row)[-1]) for row in mask], np.int64)
'''
GAMES = ["tournament", "--games", "4"]


@pytest.fixture
def sleeper(tmp_path: Path) -> str:
    """The spec of a ``py:`` bot that sleeps 3 ms a decision."""
    path = tmp_path / "sleeper.py"
    path.write_text(SLEEPER)
    return f"py:{path}:Sleeper"


def results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text())
    doc["settings"].pop("wall_s")  # the one number that is the machine's, not the run's
    return doc


def test_a_calibrated_run_repeats_byte_for_byte_from_its_think_file(tmp_path, sleeper, capsys):
    first, again = tmp_path / "first", tmp_path / "again"
    argv = [*GAMES, "--agents", f"greedy,{sleeper}", "--think", "calibrated"]
    assert speed_cli.main([*argv, "--out", str(first)]) == 0
    err = capsys.readouterr().err
    assert f"thinking: calibration recorded in {first / 'think.json'}" in err
    recorded = json.loads((first / "think.json").read_text())
    think = results(first)["settings"]["think"]
    assert think["mode"] == "calibrated" and think["repeatable"] is True
    assert think["calibration"] == recorded  # the results hold the whole calibration
    assert 3 <= think["charged_ms"][sleeper] <= 3 + 8
    assert think["charged_ms"]["greedy"] < 1
    assert (
        speed_cli.main([*argv, "--think-file", str(first / "think.json"), "--out", str(again)]) == 0
    )
    assert results(again) == results(first)
    for name in ("results.csv", "leaderboard.md", LOG_NAME):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def test_a_measured_run_says_it_cannot_be_repeated(tmp_path):
    out = tmp_path / "m"
    argv = [*GAMES, "--agents", "greedy,chain", "--think", "measured", "--out", str(out)]
    assert speed_cli.main(argv) == 0
    think = results(out)["settings"]["think"]
    assert think["repeatable"] is False and "not repeatable" in think["machine"]["note"]
    assert think["machine"]["cores"] >= 1


def test_off_writes_no_thinking_and_declared_charges_what_the_specs_say(tmp_path):
    off, declared = tmp_path / "off", tmp_path / "declared"
    assert speed_cli.main([*GAMES, "--agents", "greedy,chain", "--out", str(off)]) == 0
    assert "think" not in results(off)["settings"]
    assert "--think" not in (off / LOG_NAME).read_text().splitlines()[0]
    agents = "greedy@think=0,chain@think=400ms"
    argv = [*GAMES, "--agents", agents, "--think", "declared", "--out", str(declared)]
    assert speed_cli.main(argv) == 0
    doc = results(declared)
    assert doc["settings"]["think"] == {
        "mode": "declared",
        "repeatable": True,
        "charged_ms": {"greedy@think=0": 0.0, "chain@think=400ms": 400.0},
    }
    slowed = next(a for a in doc["agents"] if a["name"] == "chain@think=400ms")
    assert slowed["wins"] < 4  # 400 ms a play is most of a human's reaction again


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--think", "measured", "--workers", "2"], "give --workers 1"),
        (["--think-file", "x.json"], "give it with --think calibrated"),
        (["--think", "declared"], "'greedy' declares no thinking cost"),
        (["--think", "calibrated", "--think-file", "missing.json"], "missing.json"),
        (["--game", "vintage", "--think", "calibrated"], "Vintage Speed takes turns"),
    ],
)
def test_bad_thinking_flags_are_refused_in_a_line(tmp_path, capsys, flags, words):
    argv = [*GAMES, "--agents", "greedy,chain", *flags, "--out", str(tmp_path / "x")]
    if "vintage" in flags:
        argv[argv.index("greedy,chain")] = "vintage-greedy,vintage-random"
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "x" / "results.json").exists()


def test_a_second_run_into_the_folder_reuses_its_calibration_and_overwrite_recalibrates(
    tmp_path, capsys
):
    out = tmp_path / "run"
    argv = [*GAMES, "--agents", "greedy,random", "--think", "calibrated", "--out", str(out)]
    assert speed_cli.main(argv) == 0
    recorded = (out / "think.json").read_bytes()
    capsys.readouterr()
    assert speed_cli.main(argv) == 0  # the same run: charged from its own file, nothing to do
    captured = capsys.readouterr()
    assert "charging the calibration recorded in" in captured.err
    assert "nothing to do" in captured.out
    assert (out / "think.json").read_bytes() == recorded
    assert speed_cli.main([*argv, "--overwrite"]) == 0
    assert "thinking: greedy" in capsys.readouterr().err  # timed again
    assert json.loads((out / "think.json").read_text())["agents"].keys() == {"greedy", "random"}
    assert results(out)["settings"]["think"]["calibration"] == json.loads(
        (out / "think.json").read_text()
    )


def test_the_reaction_experiment_charges_the_calibrated_costs_at_every_point(tmp_path):
    out = tmp_path / "rx"
    argv = ["experiment", "reaction", "--agent", "chain", "--opponent", "greedy"]
    argv += ["--latencies", "200,300", "--games", "4", "--bootstrap", "0", "--workers", "1"]
    assert speed_cli.main([*argv, "--think", "calibrated", "--out", str(out)]) == 0
    doc = json.loads((out / "reaction.json").read_text())
    think = doc["settings"]["think"]
    assert think["charged_ms"].keys() == {"chain", "greedy"}
    assert think["calibration"] == json.loads((out / "think.json").read_text())


def test_speed_demo_measured_charges_each_decision_to_its_seat():
    import time

    import speed_env
    from speed_cli import think
    from speed_env.reaction import fixed

    class Sleeper:
        def act(self, obs, mask):
            time.sleep(0.02)
            return np.zeros(len(obs), np.int64)

    env = speed_env.parallel_env("us", reaction=100)
    obs, _ = env.reset(seed=0)
    seats = [fixed(100), fixed(100)]
    assert think.timed_act(Sleeper(), obs["player_1"], env.games, 1, seats, True) == 0
    assert 120 <= env.games.lat[0, 1, 1] <= 128  # 100 ms + the 20 ms it slept (+ overshoot)
    assert env.games.lat[0, 0, 1] == 100  # the other seat untouched
