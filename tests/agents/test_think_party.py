"""``--think`` at tables of three and four: states recorded at the table's seat count, a
calibrated tournament that repeats from its file, and a file of another seat count refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agents
import speed_cli
import speed_env
from agents.think import record, states
from agents.think.calibrate import calibrate
from agents.think.plan import ThinkError
from agents.tournament.chunk_log import LOG_NAME
from speed_env.party_obs import party_obs_dim

SLEEPER = '''
import time
import numpy as np


class Sleeper:
    """Waits 3 ms when asked for one decision (as calibration asks), then plays its highest
    legal action (any seat count)."""

    def act(self, obs, mask):
        if len(obs) == 1:
            time.sleep(0.003)
        return np.array([int(np.flatnonzero(row)[-1]) for row in mask], np.int64)
'''
TABLE = ["tournament", "--players", "4", "--games", "4"]


def _results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text())
    doc["settings"].pop("wall_s")  # the one number that is the machine's, not the run's
    return doc


def test_the_decision_states_of_a_table_of_four_are_its_own_observations():
    rules = speed_env.make_rules("us", players=4)
    obs, mask = states.decision_states(rules, 32)
    assert obs.shape == (32, party_obs_dim(rules))
    assert mask.shape == (32, speed_env.engine.n_actions(rules))
    assert (mask.sum(axis=1) >= 2).any()  # real decisions among them


def test_a_calibrated_table_of_four_repeats_byte_for_byte_from_its_think_file(tmp_path, capsys):
    bot = tmp_path / "sleeper.py"
    bot.write_text(SLEEPER)
    sleeper = f"py:{bot}:Sleeper"
    first, again = tmp_path / "first", tmp_path / "again"
    argv = [*TABLE, "--agents", f"greedy,{sleeper}", "--gauntlet", sleeper]
    argv += ["--think", "calibrated"]
    assert speed_cli.main([*argv, "--out", str(first)]) == 0
    assert f"calibration recorded in {first / 'think.json'}" in capsys.readouterr().err
    recorded = json.loads((first / "think.json").read_text())
    assert recorded["states"]["seats"] == 4
    think = _results(first)["settings"]["think"]
    assert think["mode"] == "calibrated" and think["calibration"] == recorded
    assert 3 <= think["charged_ms"][sleeper] <= 3 + 8 and think["charged_ms"]["greedy"] < 1
    again_argv = [*argv, "--think-file", str(first / "think.json"), "--out", str(again)]
    assert speed_cli.main(again_argv) == 0
    assert _results(again) == _results(first)
    for name in ("results.csv", "leaderboard.md", LOG_NAME):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def test_a_think_file_of_two_seats_is_refused_at_four_naming_both(tmp_path, capsys):
    two = speed_env.make_rules("us")
    found = calibrate("greedy", agents.make("greedy").act, states.decision_states(two, 8))
    path = tmp_path / "think.json"
    path.write_text(json.dumps(record.make_record({"greedy": found, "chain": found}, two)))
    with pytest.raises(ThinkError, match="decision states of 2 players, not this run's 4"):
        record.read(str(path), ["greedy"], speed_env.make_rules("us", players=4))
    argv = [*TABLE, "--agents", "greedy,chain", "--think", "calibrated", "--think-file", str(path)]
    assert speed_cli.main([*argv, "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert "decision states of 2 players, not this run's 4" in err and len(err.splitlines()) == 1
    # a file from before the seat count was recorded holds two-seat states
    old = json.loads(path.read_text())
    del old["states"]["seats"]
    path.write_text(json.dumps(old))
    assert record.read(str(path), ["greedy"], two)["agents"]["greedy"]
    with pytest.raises(ThinkError, match="of 2 players, not this run's 3"):
        record.read(str(path), ["greedy"], speed_env.make_rules("us", players=3))


def test_measured_is_refused_at_a_table_of_four_in_one_line(tmp_path, capsys):
    argv = [*TABLE, "--agents", "greedy,chain", "--think", "measured", "--out", str(tmp_path)]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "--think measured times each decision of a two-seat table only" in err
    assert len(err.splitlines()) == 1
