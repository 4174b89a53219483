"""Thinking charged to the opponents of ``speed train realtime`` (train/common/think.py): in the
training pool (:meth:`OpponentPool.from_spec`), recorded in the run, and a resume that would
charge otherwise refused (docs/thinking-time.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.think.plan import ThinkPlan
from speed_cli import main as cli
from speed_env.reaction import delayed, make_profile
from speed_env.rules import make_rules
from train.vec_env.env import SpeedVecEnv
from train.vec_env.pool import OpponentPool

TINY = ["--n-envs", "8", "--n-steps", "32", "--batch-size", "128", "--n-epochs", "1"]
TINY += ["--net-arch", "16", "--eval-games", "2", "--eval-every", "256", "--no-progress"]
TINY += ["--timesteps", "256", "--eval-opponents", "random"]


def opponent_latency(env: SpeedVecEnv) -> np.ndarray:
    """The engine's reaction parameters of the opponent's seat, game by game."""
    games = env.groups[0].games
    return np.stack([games.lat[i, 1 - int(env.seat[i])] for i in range(env.n)])


@pytest.mark.parametrize(
    ("opponent", "think", "ms"),
    [
        ("chain@think=5ms", None, 5.0),  # off: what the spec declares
        ("search:ms_per_world=0.5", None, 8.0),  # search's own: 16 worlds x 0.5 ms
        ("chain@think=5ms", ThinkPlan("declared", (("chain@think=5ms", 5.0),)), 5.0),
        ("greedy", ThinkPlan("calibrated", (("greedy", 12.5),)), 12.5),
        ("greedy", None, 0.0),
    ],
)
def test_the_opponent_seat_of_the_training_env_moves_by_its_charged_thinking(opponent, think, ms):
    rules = make_rules("us")
    pool = OpponentPool.from_spec(opponent, [rules], think=think)
    env = SpeedVecEnv(8, rules, opponent=pool, reaction="human", seed=3)
    env.reset()
    assert np.allclose(opponent_latency(env), delayed(make_profile("human"), ms).params())
    learner = np.stack([env.groups[0].games.lat[i, int(env.seat[i])] for i in range(env.n)])
    assert np.allclose(learner, make_profile("human").params())  # the learner pays nothing


def test_an_opponent_spec_string_is_charged_its_declared_thinking():
    env = SpeedVecEnv(4, "us", opponent="chain@think=5ms,greedy", reaction="human", seed=1)
    env.reset()
    want = {"chain@think=5ms": 5.0, "greedy": 0.0}
    for i in range(env.n):
        name = env.pool.members[int(env.member[i])].name
        profile = delayed(make_profile("human"), want[name]).params()
        assert np.allclose(env.groups[0].games.lat[i, 1 - int(env.seat[i])], profile)
    assert {m["name"]: m["think_ms"] for m in env.pool.describe()} == want


def slow_bot(path: Path, ms: float) -> str:
    """A py: bot declaring ``ms`` of thinking a play."""
    path.write_text(
        "import numpy as np\n"
        "class Bot:\n"
        f"    think_ms = {ms}\n"
        "    def __init__(self, rules, seed):\n"
        "        pass\n"
        "    def act(self, obs, mask):\n"
        "        return (mask * np.arange(mask.shape[1])).argmax(axis=1)\n"
    )
    return f"py:{path}:Bot"


@pytest.mark.slow
def test_train_realtime_records_the_charge_and_refuses_a_resume_charged_otherwise(tmp_path, capsys):
    spec = slow_bot(tmp_path / "bot.py", 7.0)
    out = tmp_path / "run"
    assert cli(["train", "realtime", "--opponent", spec, *TINY, "--out", str(out)]) == 0
    said = f"thinking (off): charged to every play of {spec} 7 ms; the learner nothing"
    assert said in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["think"]["charged_ms"] == {spec: 7.0, "random": 0.0}
    assert [m["think_ms"] for m in summary["pool"]] == [7.0]
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["training"]["think"]["charged_ms"][spec] == 7.0
    slow_bot(tmp_path / "bot.py", 9.0)  # the bot now declares another cost
    capsys.readouterr()
    # The bot is code: a resume names it again (the record alone never imports it).
    resume = ["train", "realtime", "--resume", "--opponent", spec, "--timesteps", "1024"]
    assert cli([*resume, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "charged its opponents' thinking" in err and "7" in err and "9" in err
    assert cli(["train", "realtime", "--resume", "--think", "declared", "--out", str(out)]) == 2
    assert "was trained with --think off, not declared" in capsys.readouterr().err


def test_train_realtime_refuses_measured_in_one_line(tmp_path, capsys):
    argv = ["train", "realtime", "--think", "measured", *TINY, "--out", str(tmp_path / "r")]
    assert cli(argv) == 2
    assert "--think measured cannot charge a training run" in capsys.readouterr().err
