"""The opponents' thinking at `speed train realtime --players 3|4`: charged on their seats,
recorded in the run (summary.json, the model's manifest, pool.json), calibrated refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.think.plan import ThinkPlan
from speed_cli import main as cli
from speed_env.reaction import delayed, make_profile
from speed_env.rules import make_rules
from train.ppo import Config, check_config

SLOW = "chain@think=5ms"
TINY = [
    *("--timesteps", "256", "--n-envs", "8", "--n-steps", "32", "--batch-size", "128"),
    *("--n-epochs", "1", "--net-arch", "16", "--eval-every", "256", "--eval-games", "6"),
    *("--no-progress",),
]


def test_each_bot_seat_of_the_party_env_moves_by_its_charged_thinking():
    from train.vec_env.party_env import PartyVecEnv

    plan = ThinkPlan("declared", ((SLOW, 5.0), ("greedy", 0.0)))
    env = PartyVecEnv(16, make_rules("us", players=3), opponent=f"{SLOW},greedy", think=plan)
    env.reset()
    human = make_profile("human")
    want = {SLOW: delayed(human, 5.0).params(), "greedy": human.params()}
    for b in range(env.n):
        for p in range(3):
            m = int(env.member[b, p])
            profile = human.params() if m < 0 else want[env.members[m]]  # the learner: nothing
            assert np.allclose(env.games.lat[b, p], profile)
    assert {m["name"]: m["think_ms"] for m in env.describe()} == {SLOW: 5.0, "greedy": 0.0}


def test_think_declared_at_three_seats_is_charged_and_recorded(tmp_path, capsys):
    out = tmp_path / "think"
    argv = ["train", "realtime", "--players", "3", *TINY, "--out", str(out)]
    assert cli([*argv, "--opponent", SLOW, "--eval-opponents", SLOW, "--think", "declared"]) == 0
    assert f"thinking (declared): charged to every play of {SLOW} 5 ms" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["think"]["mode"] == "declared"
    assert summary["think"]["charged_ms"] == {SLOW: 5.0}
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["training"]["think"]["charged_ms"] == {SLOW: 5.0}
    pool = json.loads((out / "pool.json").read_text())
    assert [(m["name"], m["think_ms"], m["p"]) for m in pool] == [(SLOW, 5.0, 1.0)]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        ({"think": "declared"}, r"--think declared: agent 'greedy' declares no thinking cost"),
    ],
)
def test_thinking_a_party_run_cannot_charge_is_refused_by_name(flags, named):
    with pytest.raises(ValueError, match=named):
        check_config(Config(**{"players": 3, "opponent": "greedy", **flags}))
