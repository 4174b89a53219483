"""The registered two-seat ids build two-seat envs only: asked for three or four players they
refuse in one line naming the Party Speed id to ask for (PettingZoo's rule: an id has one
observation and action space), while ``speed_env.parallel_env(rules, players=n)`` and
``speed_env.env`` keep building whichever game the seat count asks for."""

from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
import pytest

import speed_env
from speed_env.party import PartyParallelEnv
from speed_env.rules import RulesError, make_rules
from speed_env.vector import SpeedSelfPlayVectorEnv


def _one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("env_type", ["parallel", "aec"])
@pytest.mark.parametrize(
    "asked", [{"players": 3}, {"rules": make_rules("pagat", players=4)}], ids=["option", "rules"]
)
def test_speed_v1_refuses_three_or_four_players_naming_speed_party_v0(env_type, asked):
    with pytest.raises(RulesError) as err:
        pettingzoo.make(env_type, "speed_env/speed_v1", **asked)
    text = _one_line(err)
    assert text.startswith("speed_env/speed_v1 seats 2 players")
    assert f'pettingzoo.make("{env_type}", "speed_env/speed_party_v0")' in text


@pytest.mark.parametrize("env_type", ["parallel", "aec"])
def test_speed_v1_still_builds_the_two_seat_env_and_reports_bad_options_as_before(env_type):
    env = pettingzoo.make(env_type, "speed_env/speed_v1", rules="pagat", tick_ms=100)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.unwrapped.metadata["name"] == "speed_v1"
    with pytest.raises(RulesError, match="unknown rule option 'jokerz'"):
        pettingzoo.make(env_type, "speed_env/speed_v1", jokerz=True)


def test_speed_gym_v1_refuses_three_players_naming_speed_party_gym_v0():
    with pytest.raises(RulesError) as err:
        gymnasium.make("speed_env/Speed-v1", players=3)
    text = _one_line(err)
    assert "this env seats 2 players" in text and "speed_env/SpeedParty-v0" in text


def test_speed_self_play_v1_refuses_three_players_naming_the_party_rows_id():
    with pytest.raises(RulesError) as err:
        gymnasium.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=6, players=3)
    text = _one_line(err)
    assert text.startswith("speed_env/SpeedSelfPlay-v1 seats 2 players")
    assert "speed_env/SpeedPartySelfPlay-v0" in text
    rows = gymnasium.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=4)
    assert (rows.unwrapped.players, rows.single_action_space.n) == (2, 27)


def test_the_party_rows_id_seats_three_or_four_and_refuses_two():
    rows = gymnasium.make_vec("speed_env/SpeedPartySelfPlay-v0", num_envs=6, players=3)
    assert isinstance(rows, SpeedSelfPlayVectorEnv) and rows.players == 3
    one = speed_env.parallel_env("us", players=3, obs_format="box")
    assert rows.single_observation_space == one.observation_space("player_0")
    obs, _ = rows.reset(seed=3)
    ref, _ = one.reset(seed=3)
    np.testing.assert_array_equal(obs[:3], np.stack([ref[f"player_{s}"] for s in range(3)]))
    with pytest.raises(RulesError, match=r"SpeedPartySelfPlay-v0 seats 3 or 4.*SpeedSelfPlay-v1"):
        gymnasium.make_vec("speed_env/SpeedPartySelfPlay-v0", num_envs=6)
    with pytest.raises(gymnasium.error.Error, match=r"vector env only.*make_vec"):
        gymnasium.make("speed_env/SpeedPartySelfPlay-v0", players=3)


def test_the_convenience_functions_keep_seating_any_count():
    assert isinstance(speed_env.parallel_env("us", players=4), PartyParallelEnv)
    aec = speed_env.env("us", players=4)
    assert aec.possible_agents == [f"player_{p}" for p in range(4)]
    assert aec.unwrapped.metadata["name"] == "speed_party_v0"
