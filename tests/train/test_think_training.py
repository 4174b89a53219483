"""Thinking time charged to the frozen agents of ``speed exploit`` and ``speed train league``
(train/common/think.py): in the training env, in the score and the payoff table alike, recorded,
and refused where it cannot be charged (docs/thinking-time.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.think import record
from agents.think.calibrate import Calibration
from agents.think.plan import ThinkPlan
from speed_cli import main as cli
from speed_env.reaction import delayed, make_profile
from speed_env.rules import make_rules
from train.common.paired_score import score_rows
from train.league.run import LeagueSettings, run_league
from train.vec_env.env import SpeedVecEnv
from train.vec_env.mixture import frozen_pool

TINY_FLAGS = ["--n-envs", "16", "--n-steps", "32", "--batch-size", "256", "--n-epochs", "1"]
TINY_FLAGS += ["--net-arch", "32", "--eval-games", "40", "--eval-every", "512", "--no-progress"]
LEAGUE_RECIPE = {"n_envs": 8, "n_steps": 32, "batch_size": 256, "n_epochs": 1,
                 "net_arch": "32", "eval_games": 2}  # fmt: skip
SLOW_MS = 300.0
"""A cost large enough to change games of 20 deals."""


def calibration_file(path: Path, costs: dict[str, float]) -> str:
    """A think.json charging ``costs`` (as a run on this kit and the us rules writes one)."""
    made = {s: Calibration(ms, ms, 256, 1.0) for s, ms in costs.items()}
    path.write_text(json.dumps(record.make_record(made, make_rules("us"))))
    return str(path)


def opponent_latency(env: SpeedVecEnv) -> np.ndarray:
    """The engine's reaction parameters of the opponent's seat, game by game."""
    games = env.groups[0].games
    return np.stack([games.lat[i, 1 - int(env.seat[i])] for i in range(env.n)])


# ---------------------------------------------------------------------- the training env
@pytest.mark.parametrize(
    ("spec", "think", "ms"),
    [
        ("chain@think=30ms", None, 30.0),  # off charges what an agent declares itself
        ("chain@think=30ms", ThinkPlan("declared", (("chain@think=30ms", 30.0),)), 30.0),
        ("greedy", ThinkPlan("calibrated", (("greedy", 12.5),)), 12.5),
        ("greedy", None, 0.0),
    ],
)
def test_the_training_env_moves_the_targets_seat_by_its_charged_thinking(spec, think, ms):
    rules = make_rules("us")
    pool = frozen_pool([spec], [1.0], [rules], 0, "a test", reaction="human", think=think)
    env = SpeedVecEnv(8, rules, opponent=pool, reaction="human", seat="random", seed=3)
    env.reset()
    want = delayed(make_profile("human"), ms).params()
    assert np.allclose(opponent_latency(env), want)
    learner = np.stack([env.groups[0].games.lat[i, int(env.seat[i])] for i in range(env.n)])
    assert np.allclose(learner, make_profile("human").params())  # the learner pays nothing


# ---------------------------------------------------------------------- speed exploit
@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The same exploiter of random, seed and budget, with thinking off and charged 300 ms."""
    root = tmp_path_factory.mktemp("think-exploit")
    think = calibration_file(root / "given.json", {"random": SLOW_MS})
    base = ["exploit", "random", "--timesteps", "512", "--seed", "1", *TINY_FLAGS]
    out = {"off": root / "off", "calibrated": root / "calibrated"}
    assert cli([*base, "--out", str(out["off"])]) == 0
    extra = ["--think", "calibrated", "--think-file", think]
    assert cli([*base, *extra, "--out", str(out["calibrated"])]) == 0
    return out


def held(out: Path) -> dict:
    return json.loads((out / "exploit.json").read_text())


def test_an_exploit_run_records_the_charge_and_its_games_differ_from_off(runs):
    off, charged = held(runs["off"]), held(runs["calibrated"])
    assert off["think"]["mode"] == "off" and off["think"]["charged_ms"] == {"random": 0.0}
    assert charged["think"]["mode"] == "calibrated"
    assert charged["think"]["charged_ms"] == {"random": SLOW_MS}
    assert charged["think"]["calibration"]["agents"]["random"]["think_ms"] == SLOW_MS
    # the calibration charged is the run folder's own think.json, reusable with --think-file
    kept = json.loads((runs["calibrated"] / "think.json").read_text())
    assert kept["agents"] == {"random": charged["think"]["calibration"]["agents"]["random"]}
    # the same seed and deals: only the charge differs, so the games trained on differ, and
    # the exploiters learned from them with them
    weights = [(runs[k] / "model.safetensors").read_bytes() for k in ("off", "calibrated")]
    assert weights[0] != weights[1]
    manifest = json.loads((runs["calibrated"] / "model.json").read_text())
    assert "calibrated" in json.dumps(manifest)


def test_the_paired_score_charges_the_opponents_thinking_and_not_the_scored_agent():
    plan = ThinkPlan("calibrated", (("chain", SLOW_MS),))  # greedy, scored, has no cost
    kw = {"rules": make_rules("us"), "reaction": make_profile("human"), "tick_ms": 50}
    free = score_rows("greedy", {"chain": 1.0}, games=40, seed=5, **kw)[0]
    slow = score_rows("greedy", {"chain": 1.0}, games=40, seed=5, think=plan, **kw)[0]
    assert free["games"] == slow["games"] == 40
    assert slow["score"] > free["score"] + 0.2  # chain 300 ms slower loses the same deals


def test_a_declared_target_is_charged_what_it_declares(tmp_path, capsys):
    out = tmp_path / "d"
    argv = ["exploit", "greedy@think=300ms", "--timesteps", "512", *TINY_FLAGS]
    assert cli([*argv, "--think", "declared", "--out", str(out)]) == 0
    assert held(out)["think"]["charged_ms"] == {"greedy@think=300ms": SLOW_MS}
    assert "thinking (declared): charged to every play of greedy@think=300ms 300 ms" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["greedy", "--think", "measured"], "--think measured cannot charge a training run"),
        (["greedy", "--think", "declared"], "agent 'greedy' declares no thinking cost"),
        (["greedy", "--think", "sometimes"], "--think must be one of off, declared, calibrated"),
        (["greedy", "--think-file", "x.json"], "give it with --think calibrated"),
    ],
)
def test_exploit_refuses_what_it_cannot_charge_in_one_line(argv, named, tmp_path, capsys):
    out = tmp_path / "x"
    assert cli(["exploit", *argv, "--timesteps", "512", *TINY_FLAGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert named in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_resume_with_another_think_is_refused_naming_it(runs, capsys):
    out = str(runs["off"])
    assert cli(["exploit", "--resume", "--think", "declared", "--out", out]) == 2
    err = capsys.readouterr().err.strip()
    assert "was trained with --think off, not declared" in err and len(err.splitlines()) == 1


# ---------------------------------------------------------------------- speed train league
def league(out: Path, **settings) -> dict:
    cfg = LeagueSettings(rules="us", rounds=1, timesteps_per_round=256, games_per_pairing=20,
                         **settings)  # fmt: skip
    assert run_league(cfg, out, recipe=LEAGUE_RECIPE, say=lambda line: None) == 0
    return json.loads((out / "league.json").read_text())


def test_the_league_charges_its_frozen_members_in_the_payoff_table(tmp_path):
    think = calibration_file(tmp_path / "given.json", {"random": 0, "greedy": 0, "chain": SLOW_MS})
    off = league(tmp_path / "off")
    slow = league(tmp_path / "slow", think="calibrated", think_file=think)
    assert slow["think"]["charged_ms"] == {"random": 0.0, "greedy": 0.0, "chain": SLOW_MS}
    assert slow["settings"]["think"] == "calibrated" and off["think"]["mode"] == "off"
    # chain 300 ms slower scores less against greedy in the starting table (row chain, col greedy)
    assert slow["rounds"][0]["table"][2][1] < off["rounds"][0]["table"][2][1]
    assert (tmp_path / "slow" / "think.json").is_file()
    # the member trained against the same charges (the meta-strategy's members of weight > 0)
    member = json.loads((tmp_path / "slow" / "members" / "round_01" / "exploit.json").read_text())
    assert member["think"]["mode"] == "calibrated" and member["think"]["charged_ms"]
    for spec, ms in member["think"]["charged_ms"].items():
        assert ms == slow["think"]["charged_ms"][spec]


def test_a_declared_league_charges_what_an_include_declares(tmp_path):
    held = league(tmp_path / "d", think="declared", include=("greedy@think=300ms",))
    charged = held["think"]["charged_ms"]
    assert charged == {"random": 0.0, "greedy": 0.0, "chain": 0.0, "greedy@think=300ms": SLOW_MS}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--think", "measured"], "--think measured cannot charge a training run"),
        (
            ["--think", "declared", "--include", "chain@pro"],
            "agent 'chain@pro' declares no thinking",
        ),
    ],
)
def test_league_refuses_what_it_cannot_charge_in_one_line(argv, named, tmp_path, capsys):
    out = tmp_path / "l"
    code = cli(["train", "league", *argv, "--rounds", "1", "--out", str(out), "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert named in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_resumed_league_with_another_think_is_refused(tmp_path, capsys):
    out = tmp_path / "r"
    league(out)
    code = cli(["train", "league", "--resume", "--think", "declared", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "--think 'declared' is not the league's own ('off')" in err
