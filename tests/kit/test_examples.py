"""The worked examples of examples/ run as a user runs them, and honour the action masks.

Each example is a script that trains or plays a few thousand steps and ends by
printing ``RESULT {json}``; these tests run it in a fresh interpreter (the
kit's venv, or for AgileRL the venv ``make setup-agilerl`` builds, since
AgileRL pins pettingzoo<1.27) and check what it measured. A missing library
skips its test with the reason, except under CI (``CI=true``), where
``make test`` has installed everything and a missing one is a failure.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
AGILERL_PYTHON = ROOT / ".venv-agilerl" / "bin" / "python"

pytestmark = pytest.mark.slow


def missing(what: str, how: str) -> None:
    """Skip (or, under CI, fail) because ``what`` is not installed; ``how`` says how to get it."""
    message = f"{what} is not installed ({how})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {message}")
    pytest.skip(message)


def need_modules(*modules: str) -> None:
    """Skip unless every module can be imported in this venv (the ``examples`` extra)."""
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    if absent:
        missing(", ".join(absent), "pip install -e '.[examples]', which `make setup` does")


def run_example(script: str, *args: str, python: Path | str = sys.executable) -> dict:
    """Run ``examples/<script>`` with ``python``; return the JSON of its ``RESULT`` line."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [str(python), str(EXAMPLES / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, f"{script} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"{script} printed no RESULT line:\n{out.stdout[-3000:]}"
    return json.loads(lines[-1].removeprefix("RESULT "))


def test_supersuit_to_sb3_maskable_ppo_chooses_no_illegal_action():
    need_modules("supersuit", "sb3_contrib")
    result = run_example(
        "supersuit_sb3_maskable.py", "--timesteps", "2048", "--eval-steps", "400", "--games", "4"
    )
    assert result["timesteps"] >= 2048
    assert result["actions_chosen"] == 400 * 4 * 2  # every tick, both seats of every game
    assert result["illegal_chosen"] == 0
    # The same count sees illegal choices when the masks are left out: the check can fail.
    assert result["illegal_chosen_without_masks"] > 0


def test_torchrl_pettingzoo_wrapper_ppo_chooses_no_illegal_action():
    need_modules("torchrl", "tensordict")
    result = run_example("torchrl_ppo.py", "--frames", "2000", "--frames-per-batch", "1000")
    assert result["frames"] == 2000 and result["actions_chosen"] == 4000
    assert result["illegal_chosen"] == 0


def test_tianshou_pettingzoo_env_dqn_chooses_no_illegal_action():
    need_modules("tianshou")
    result = run_example(
        "tianshou_dqn.py", "--epochs", "1", "--epoch-steps", "1000", "--eval-steps", "1000"
    )
    assert result["train_env_steps"] >= 1000 and result["eval_env_steps"] >= 1000
    assert result["illegal_chosen"] == 0


def test_agilerl_ippo_with_masks_in_infos_chooses_no_illegal_action():
    if not AGILERL_PYTHON.exists():
        missing(
            "the AgileRL venv",
            "`make setup-agilerl` builds .venv-agilerl; AgileRL pins pettingzoo<1.27",
        )
    result = run_example(
        "agilerl_ippo.py", "--steps", "1024", "--learn-step", "512", python=AGILERL_PYTHON
    )
    assert result["env_steps"] == 1024 and result["actions_chosen"] == 2048
    assert result["illegal_chosen"] == 0
    assert result["versions"]["pettingzoo"].startswith("1.26")


def test_openspiel_loads_both_games_and_its_ismcts_plays_vintage():
    need_modules("pyspiel", "open_spiel")
    result = run_example("openspiel_ismcts.py", "--games", "4", "--simulations", "20")
    assert result["games"] == 4
    # Vintage returns: +1 to the winner, minus penalty / 100 to the others (at most 3.85 here).
    for key in ("ismcts_mean_return", "random_mean_return"):
        assert -4.0 <= result[key] <= 1.0
    assert result["realtime_ticks"] > 0 and sorted(result["realtime_returns"]) in (
        [-1.0, 1.0],
        [0.0, 0.0],
    )


def test_cleanrl_ppo_trains_on_make_vec_logs_and_evaluates(tmp_path):
    log = tmp_path / "log.csv"
    result = run_example(
        "cleanrl_ppo.py",
        *("--num-envs", "16", "--num-steps", "128", "--total-timesteps", "4096"),
        *("--minibatch-size", "256", "--eval-every", "1", "--eval-games", "8"),
        *("--final-games", "24", "--csv", str(log)),
    )
    assert result["steps"] == 4096 and 0 < result["decisions"] < result["steps"]
    assert result["illegal_chosen"] == 0  # the env's own count: masks reached the logits
    rows = list(csv.DictReader(log.read_text().splitlines()))
    assert [int(r["step"]) for r in rows] == [2048, 4096]  # a row per rollout of 16 x 128 steps
    for row in rows:
        assert float(row["steps_per_s"]) > 0
        assert 0 <= float(row["eval_random"]) <= 1 and 0 <= float(row["eval_greedy"]) <= 1
    assert [r["opponent"] for r in result["final"]] == ["random", "greedy"]
    for r in result["final"]:
        assert r["wins"] + r["losses"] + r["draws"] == r["games"] == 24
        assert r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] and 0 <= r["win_rate"] <= 1


def test_cleanrl_ppo_self_play_acts_both_seats_of_every_game():
    result = run_example(
        "cleanrl_ppo.py",
        *("--self-play", "--num-envs", "16", "--num-steps", "512", "--total-timesteps", "8192"),
        *("--minibatch-size", "512", "--eval-opponents", "greedy", "--final-games", "16"),
    )
    assert result["steps"] == 8192 and result["decisions"] > 0
    assert result["illegal_chosen"] == 0
    # Rows are seats: a game's two rows end on the same step, +1 and -1 (or 0 and 0).
    assert result["train_games"] > 0 and result["train_games"] % 2 == 0
    assert result["train_return_sum"] == 0
    (final,) = result["final"]
    assert final["opponent"] == "greedy" and final["games"] == 16
    assert final["wins"] + final["losses"] + final["draws"] == 16


def test_cleanrl_ppo_refuses_an_unknown_opponent_in_one_line():
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "cleanrl_ppo.py"), "--opponent", "nosuchbot"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and "nosuchbot" in out.stderr and "Traceback" not in out.stderr


def test_cleanrl_ppo_advantages_skip_forced_ticks_and_the_autoreset_row(monkeypatch):
    """Two envs, six ticks each (D a decision, . a forced wait, * the game's end paying +1,
    r the autoreset step, which shows the old game's last observation: no transition):

        env 0:  D  .  .  *  r  D      the new game's decision bootstraps from the critic
        env 1:  D  .  D  *  r  .      two decisions in one game: gamma and lambda per decision
    """
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", EXAMPLES / "cleanrl_ppo.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "cleanrl_ppo", module)  # dataclasses look the module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    rewards = np.zeros((6, 2), np.float32)
    rewards[3] = 1.0
    dones = np.zeros((6, 2), bool)
    dones[3] = True
    decision = np.zeros((6, 2), bool)
    decision[[0, 5], 0] = decision[[0, 2], 1] = True
    values = np.zeros((6, 2), np.float32)
    values[[0, 5], 0] = 0.25, 0.5
    values[[0, 2], 1] = 0.2, 0.6
    last_value = np.array([0.75, 0.9], np.float32)
    gamma, lam = 0.5, 0.9
    adv = module.decision_gae(rewards, dones, decision, values, last_value, gamma, lam)
    # env 0: the +1 three ticks later is not discounted (no decision between), the next game
    # adds nothing; the last decision bootstraps from last_value
    assert adv[:, 0].tolist() == pytest.approx([1.0 - 0.25, 0, 0, 0, 0, gamma * 0.75 - 0.5])
    # env 1: B = 1 - 0.6; A = gamma * V(B) - V(A) + gamma * lam * B; nothing on other rows
    b = 1.0 - 0.6
    a = gamma * 0.6 - 0.2 + gamma * lam * b
    assert adv[:, 1].tolist() == pytest.approx([a, 0, b, 0, 0, 0])
