"""``opponent_think=``: Speed-v1 and its vector env charge the opponent's thinking as latency."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import speed_env
from speed_env.policy import Policy


class FirstPlay(Policy):
    """Plays the highest legal action (a card when one is legal), no randomness."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([int(np.flatnonzero(row)[-1]) for row in mask], np.int64)


def opponent_landing(env: gymnasium.Env | speed_env.SpeedGymEnv, games: object) -> tuple[int, int]:
    """``(clock, lands_ms)`` of the opponent's first card in flight while the learner waits."""
    for _ in range(500):
        clock = games.snapshot(0)["clock_ms"]  # type: ignore[attr-defined]
        env.step(0)
        flight = games.snapshot(0)["players"][1]["in_flight"]  # type: ignore[attr-defined]
        if flight is not None:
            return clock, flight["lands_ms"]
    raise AssertionError("the opponent never played")


@pytest.mark.parametrize("think", [0.0, 30.0, 12.4])
def test_speed_v1_lands_the_opponents_card_opponent_think_later(think: float):
    env = speed_env.SpeedGymEnv(
        "us", opponent=FirstPlay(), seat=0, reaction=100, opponent_think=think
    )
    env.reset(seed=5)
    clock, lands = opponent_landing(env, env.games)
    assert lands - clock == round(100 + think)  # committed at the tick's start, 100 ms + thinking


def test_the_vector_env_charges_the_opponent_in_every_game_whatever_its_seat():
    env = gymnasium.make_vec(
        "speed_env/Speed-v1", num_envs=4, reaction=100, opponent_think=40, opponent=FirstPlay()
    )
    env.reset(seed=1)
    inner = env.unwrapped
    for g in range(4):
        learner = int(inner.seat[g])
        assert inner.games.lat[g, 1 - learner, 1] == 140  # mu: 100 + 40
        assert inner.games.lat[g, learner, 1] == 100


@pytest.mark.parametrize("bad", [-1, float("nan"), "5", True])
def test_a_bad_opponent_think_is_refused_by_name(bad: object):
    with pytest.raises(ValueError, match="opponent_think must be a number of ms"):
        speed_env.SpeedGymEnv("us", opponent_think=bad)
    with pytest.raises(ValueError, match="opponent_think must be a number of ms"):
        gymnasium.make_vec("speed_env/Speed-v1", num_envs=2, opponent_think=bad)
