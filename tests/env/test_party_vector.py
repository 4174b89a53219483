"""``gymnasium.make_vec("speed_env/SpeedParty-v0")``: ``N`` games equal to ``N`` ``PartyGymEnv``s.

Game ``i`` of the vector env after ``reset(seed=s)`` must be the single env
reset with ``s + i`` and then unseeded at every game's end (``SyncVectorEnv``'s
seeding), step by step: observations, masks, rewards, flags and infos, with the
default random opponents (one generator per seat and game) and with given
policies, in the next-step and same-step autoreset modes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from speed_env.game import ActionError
from speed_env.party_single import PartyGymEnv
from speed_env.rules import RulesError
from speed_env.vector import PartyVectorEnv

ID = "speed_env/SpeedParty-v0"


class LastLegal:
    """Plays its last legal action, or waits every ``wait_every``-th call: no random draws,
    so a batch of rows plays as the rows one by one. Counts its reseeds."""

    def __init__(self, wait_every: int = 3) -> None:
        self.wait_every = wait_every
        self.reseeds: list[int] = []

    def reseed(self, seed: int) -> None:
        """Note the seed (a reseed at a seeded reset)."""
        self.reseeds.append(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last legal action of every row, or a wait where the row's clock says so."""
        last = np.array([np.flatnonzero(row)[-1] for row in mask], np.int64)
        clock = (obs[:, 0] * 1000).astype(np.int64)
        return np.where(clock % self.wait_every == 0, 0, last)


def learner_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A learner that waits a third of the time, else plays a random legal action."""
    out = np.zeros(len(masks), np.int64)
    for i, mask in enumerate(masks):
        if rng.random() >= 1 / 3:
            out[i] = rng.choice(np.flatnonzero(mask))
    return out


def assert_info_row(vec: dict[str, Any], row: int, single: dict[str, Any]) -> None:
    """The vector env's info of ``row`` holds exactly ``single``'s entries (beside a same-step
    autoreset's ``final_obs`` and ``final_info``, checked by the caller)."""
    final = {"final_obs", "final_info"}
    keys = {k for k in vec if not k.startswith("_") and k not in final and vec[f"_{k}"][row]}
    assert keys == set(single), (row, keys, set(single))
    for key, value in single.items():
        np.testing.assert_array_equal(vec[key][row], value, err_msg=f"{key} of row {row}")


def run_against_singles(
    n: int, steps: int, mode: AutoresetMode, make_opponents: Any, **kwargs: Any
) -> int:
    """Step the vector env and ``n`` single envs side by side; the games that ended."""
    vec = gymnasium.make_vec(
        ID, num_envs=n, autoreset_mode=mode, opponents=make_opponents(), **kwargs
    )
    singles = [PartyGymEnv(opponents=make_opponents(), **kwargs) for _ in range(n)]
    obs, info = vec.reset(seed=30)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=30 + i)
        np.testing.assert_array_equal(obs[i], o)
        assert_info_row(info, i, inf)
    rng = np.random.default_rng(1)
    ended, waiting = 0, [False] * n
    for _ in range(steps):
        actions = learner_actions(rng, vec.unwrapped.action_masks())
        obs, rewards, terms, truncs, info = vec.step(actions)
        for i, env in enumerate(singles):
            if waiting[i]:  # next-step autoreset: this step reset game i
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
                waiting[i] = False
            else:
                o, r, te, tr, inf = env.step(int(actions[i]))
                if te or tr:
                    ended += 1
                    if mode == AutoresetMode.SAME_STEP:
                        np.testing.assert_array_equal(info["final_obs"][i], o)
                        assert_info_row(info["final_info"], i, inf)
                        o, inf = env.reset()
                    else:
                        waiting[i] = True
            np.testing.assert_array_equal(obs[i], o)
            assert (rewards[i], terms[i], truncs[i]) == (np.float32(r), te, tr)
            assert_info_row(info, i, inf)
    return ended


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_random_opponents_play_as_n_single_envs(mode):
    ended = run_against_singles(3, 500, mode, lambda: None, players=3, tick_ms=100, seat="random")
    assert ended >= 3  # every env played past its first game


def test_given_policies_and_their_thinking_play_as_n_single_envs():
    ended = run_against_singles(
        2,
        900,
        AutoresetMode.NEXT_STEP,
        lambda: [LastLegal(2), LastLegal(3), LastLegal(5)],
        players=4,
        tick_ms=100,
        seat=1,
        opponent_think=[0, 60, 120],
        rules="pagat",
        jokers=True,
    )
    assert ended >= 2


def test_each_opponent_seat_is_asked_once_a_step_for_every_game():
    calls: list[int] = []

    class Counting(LastLegal):
        def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            calls.append(len(obs))
            return super().act(obs, mask)

    vec = gymnasium.make_vec(ID, num_envs=5, players=4, opponents=Counting())
    vec.reset(seed=0)
    vec.step(np.zeros(5, np.int64))
    assert calls == [5, 5, 5]  # three opponent seats, one call each over the five games
    assert vec.unwrapped.action_masks().dtype == np.int8


def test_a_seeded_reset_reseeds_a_given_policy_from_game_0():
    policy = LastLegal()
    vec = gymnasium.make_vec(ID, num_envs=3, players=3, opponents=[policy, LastLegal()])
    vec.reset(seed=8)
    single = LastLegal()
    PartyGymEnv(players=3, opponents=[single, LastLegal()]).reset(seed=8)
    assert policy.reseeds == single.reseeds and len(policy.reseeds) == 1


def test_disabled_autoreset_waits_for_a_reset_mask():
    vec = gymnasium.make_vec(ID, num_envs=2, players=3, autoreset_mode="disabled", tick_ms=200)
    vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        _, _, terms, truncs, _ = vec.step(learner_actions(rng, vec.unwrapped.action_masks()))
        if (terms | truncs).any():
            break
    ended = terms | truncs
    assert ended.any()
    with pytest.raises(RuntimeError, match="autoreset_mode is DISABLED"):
        vec.step(np.zeros(2, np.int64))
    vec.reset(options={"reset_mask": ended})
    vec.step(np.zeros(2, np.int64))


def test_the_vector_env_refuses_what_the_single_env_refuses():
    with pytest.raises(RulesError, match="make_vec\\('speed_env/Speed-v1'"):
        gymnasium.make_vec(ID, num_envs=2)  # players=2, the default: Speed-v1's game
    with pytest.raises(ValueError, match="opponents lists 1 policies"):
        gymnasium.make_vec(ID, num_envs=2, players=3, opponents=[LastLegal()])
    with pytest.raises(TypeError, match="make_vec\\('speed_env/SpeedParty-v0'"):
        gymnasium.make_vec(ID, num_envs=2, players=3, opponents="greedy")
    with pytest.raises(ValueError, match="seat must be 0, 1, 2 or 'random'"):
        gymnasium.make_vec(ID, num_envs=2, players=3, seat=3)
    with pytest.raises(RulesError, match="unknown rule option 'oponents'"):
        gymnasium.make_vec(ID, num_envs=2, players=3, oponents=None)

    class Broken(LastLegal):
        def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            return np.full(len(obs), 999)

    vec = gymnasium.make_vec(ID, num_envs=2, players=3, opponents=[LastLegal(), Broken()])
    vec.reset(seed=0)
    with pytest.raises(ActionError, match=r"Broken \(opponents\[1\]\) returned action 999"):
        vec.step(np.zeros(2, np.int64))


def test_it_is_a_gymnasium_vector_env_its_batches_in_its_spaces_and_seeded():
    from gymnasium.utils.env_checker import data_equivalence

    vec = PartyVectorEnv(4, players=3)
    assert isinstance(vec, gymnasium.vector.VectorEnv)
    first = vec.reset(seed=11)
    again = PartyVectorEnv(4, players=3).reset(seed=11)
    assert data_equivalence(first, again)
    assert vec.observation_space.contains(first[0])
    obs, rewards, terms, truncs, _ = vec.step(vec.action_space.sample() * 0)
    assert vec.observation_space.contains(obs)
    assert rewards.dtype == np.float32 and terms.dtype == truncs.dtype == np.bool_


def test_each_game_is_drawn_as_text_as_the_single_env_draws_it():
    vec = gymnasium.make_vec(ID, num_envs=2, players=4, render_mode="ansi")
    vec.reset(seed=12)
    frames = vec.render()
    for i, frame in enumerate(frames):
        single = PartyGymEnv(players=4, render_mode="ansi")
        single.reset(seed=12 + i)
        assert frame == single.render() and frame.count("player_") == 4
    with pytest.raises(ValueError, match=r"render_mode must be one of"):
        gymnasium.make_vec(ID, num_envs=2, players=4, render_mode="rgb")
