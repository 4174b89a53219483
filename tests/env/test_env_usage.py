"""The envs as a user's own script meets them: masks through Gymnasium's
wrappers, the opponent spelled as a spec, the parallel env's call order and a left-out
agent."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import speed_env
from speed_env import RandomPolicy

GYM_ID = "speed_env/Speed-v1"
"""The registry id of the single-seat env (the one place a version bump changes it here)."""
VINTAGE_GYM_ID = "speed_env/VintageSpeed-v0"


# ----------------------------------------------------------------- masks through wrappers


def test_gymnasium_make_hides_action_masks_and_the_wrapper_way_finds_them():
    """Gymnasium 1.x wrappers do not forward attributes: ``gymnasium.make(...).action_masks()``
    is an ``AttributeError``. ``env.get_wrapper_attr("action_masks")()`` (what sb3-contrib's
    ``get_action_masks`` calls) and ``info["action_mask"]`` give the learner's mask."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(GYM_ID, opponent=RandomPolicy(0))
    _, info = env.reset(seed=0)
    with pytest.raises(AttributeError):
        env.action_masks()  # type: ignore[attr-defined]
    for _ in range(30):
        mask = env.get_wrapper_attr("action_masks")()
        assert np.array_equal(mask, info["action_mask"])
        assert np.array_equal(mask, env.unwrapped.action_masks())
        action = int(np.flatnonzero(mask)[-1])
        _, _, term, trunc, info = env.step(action)
        assert info["illegal"] is False
        if term or trunc:
            _, info = env.reset()


def test_the_vintage_single_env_gives_its_masks_through_the_wrappers_too():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(VINTAGE_GYM_ID, num_players=3)
    _, info = env.reset(seed=0)
    for _ in range(20):
        mask = env.get_wrapper_attr("action_masks")()
        assert np.array_equal(mask, info["action_mask"])
        _, _, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        assert info["illegal"] is False
        if term or trunc:
            _, info = env.reset()


def test_maskable_ppo_finds_the_masks_of_a_gymnasium_make_env():
    """sb3-contrib's own pattern: ``MaskablePPO`` on ``gymnasium.make(...)`` masks its actions
    (``is_masking_supported``), and ``get_action_masks(env)`` feeds ``predict``."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(GYM_ID, opponent=RandomPolicy(0))
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    assert is_masking_supported(model.get_env())  # the VecEnv SB3 built around it
    obs, _ = env.reset(seed=3)
    for _ in range(40):
        masks = get_action_masks(env)
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[int(action)] == 1
        obs, _, term, trunc, info = env.step(int(action))
        assert info["illegal"] is False
        if term or trunc:
            obs, _ = env.reset()


# ----------------------------------------------------------------- the opponent


def test_the_default_opponent_is_a_random_player():
    env = speed_env.SpeedGymEnv()
    assert isinstance(env.opponent, RandomPolicy)
    assert "RandomPolicy" in (speed_env.SpeedGymEnv.__doc__ or "") + (
        speed_env.single.__doc__ or ""
    )


def test_an_agent_spec_opponent_through_the_registry_shows_agents_make():
    with pytest.raises(TypeError, match=r"agents\.make\('greedy'\)"):
        gymnasium.make(GYM_ID, opponent="greedy")


def test_speed_env_does_not_import_agents():
    """The refusal above is why: ``speed_env`` may not depend on ``agents``."""
    import subprocess
    import sys

    code = "import sys, speed_env; speed_env.SpeedGymEnv(); print('agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------- the parallel env's calls


def test_parallel_step_before_reset_says_reset_has_not_been_called():
    """Before: "the game is over", for a game that had not started."""
    env = speed_env.parallel_env()
    with pytest.raises(RuntimeError, match="reset\\(\\) has not been called"):
        env.step({"player_0": 0, "player_1": 0})
    env.reset(seed=0)
    env.step({"player_0": 0, "player_1": 0})


def test_parallel_step_that_leaves_out_a_live_agent_is_a_counted_wait():
    env = speed_env.parallel_env()
    env.reset(seed=0)
    twin = speed_env.parallel_env()
    twin.reset(seed=0)
    for k in range(1, 4):
        obs, rew, term, trunc, infos = env.step({"player_0": 0})
        twin_out = twin.step({"player_0": 0, "player_1": 0})
        assert infos["player_1"]["missing"] is True and infos["player_1"]["missing_total"] == k
        assert infos["player_0"]["missing"] is False and infos["player_0"]["missing_total"] == 0
        assert env.table() == twin.table()  # the same game as an explicit wait
        twin_obs = twin_out[0]["player_1"]["observation"]
        assert np.array_equal(obs["player_1"]["observation"], twin_obs)
    _, _, _, _, infos = env.step({"player_0": 0, "player_1": None})  # None: a wait, not missing
    assert infos["player_1"]["missing"] is False and infos["player_1"]["missing_total"] == 3
    env.reset(seed=1)
    _, _, _, _, infos = env.step({"player_0": 0, "player_1": 0})
    assert infos["player_1"]["missing_total"] == 0  # counted per game


def test_parallel_step_refuses_what_is_not_a_dict_of_actions():
    env = speed_env.parallel_env()
    env.reset(seed=0)
    with pytest.raises(speed_env.ActionError, match="dict of actions by agent"):
        env.step([0, 0])  # type: ignore[arg-type]
    env.step({"player_0": 0, "player_1": 0})


def test_the_parallel_api_test_still_passes():
    from pettingzoo.test import parallel_api_test

    parallel_api_test(speed_env.parallel_env(), num_cycles=200)
