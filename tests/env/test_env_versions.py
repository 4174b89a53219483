"""Env versions: ``speed_v1`` through both registries, outdated ids refused naming the new id;
Party Speed's own ids (``speed_party_v0``, ``SpeedParty-v0``).

PettingZoo's convention (a change to the game or the observation bumps the version) and
Gymnasium's (an outdated version raises, naming the current one): nothing maps an old id to
the new env.
"""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import pettingzoo
import pytest
from gymnasium.error import DeprecatedEnv
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import speed_env
from speed_env.party import PartyParallelEnv
from speed_env.policy import RandomPolicy
from speed_env.registration import (
    GYMNASIUM_ENVS,
    OUTDATED,
    PARTY_GYMNASIUM_ENVS,
    PARTY_ID,
    PARTY_PETTINGZOO_ENVS,
    PETTINGZOO_ENVS,
    OutdatedEnvError,
)
from speed_env.rules import RulesError
from speed_env.vintage.single import VintageSingleEnv

# What the error must say about v0 -> v1: the idle rule and each observation size v0 had.
CHANGES = ("idle_flip_ms", "128", "138", "193")


def _assert_names_new_id_and_changes(error: pytest.ExceptionInfo[OutdatedEnvError], new_id: str):
    message = str(error.value)
    assert f"use {new_id} instead" in message
    for what in CHANGES:
        assert what in message, what


@pytest.mark.parametrize("env_type", ["parallel", "aec"])
def test_pettingzoo_refuses_speed_v0_naming_speed_v1_and_what_changed(env_type):
    with pytest.raises(OutdatedEnvError) as error:
        pettingzoo.make(env_type, "speed_env/speed_v0", rules="us")
    _assert_names_new_id_and_changes(error, "speed_env/speed_v1")


def test_gymnasium_refuses_speed_v0_naming_speed_v1_and_what_changed():
    # Gymnasium warns that the id is out of date (its own convention; the kit filters that
    # warning, pytest.warns records it anyway), then ours raises.
    with (
        pytest.raises(OutdatedEnvError) as error,
        pytest.warns(DeprecationWarning, match="out of date.*upgrading to version `v1`"),
    ):
        gymnasium.make("speed_env/Speed-v0", opponent=RandomPolicy(0))
    _assert_names_new_id_and_changes(error, "speed_env/Speed-v1")
    assert isinstance(error.value, DeprecatedEnv)  # catchable as Gymnasium's own error


def test_speed_v1_builds_each_env_through_both_registries():
    par = pettingzoo.make("parallel", "speed_env/speed_v1", rules="pagat", max_cycles=5)
    assert isinstance(par, speed_env.SpeedParallelEnv) and par.rules.preset == "pagat"
    assert par.metadata["name"] == "speed_v1"
    aec = pettingzoo.make("aec", "speed_env/speed_v1", rules="japanese")
    assert isinstance(aec, pettingzoo.AECEnv) and aec.unwrapped.rules.preset == "japanese"
    gym = gymnasium.make("speed_env/Speed-v1", opponent=RandomPolicy(0))
    assert isinstance(gym.unwrapped, speed_env.SpeedGymEnv)
    assert gym.spec is not None and gym.spec.id == "speed_env/Speed-v1"


def test_the_vintage_env_keeps_v0():
    vintage = pettingzoo.make("aec", "speed_env/vintage_speed_v0", num_players=3)
    vintage.reset(seed=0)
    assert vintage.agents == ["player_0", "player_1", "player_2"]
    single = gymnasium.make("speed_env/VintageSpeed-v0", num_players=2)
    assert isinstance(single.unwrapped, VintageSingleEnv)


def test_every_outdated_id_points_at_a_registered_current_id():
    registered = set(GYMNASIUM_ENVS) | {i for ids in PETTINGZOO_ENVS.values() for i in ids}
    for old_id, (new_id, changes) in OUTDATED.items():
        assert old_id in registered and new_id in registered and changes
        assert new_id not in OUTDATED
    # Every registered id that raises is listed in OUTDATED, with its own error message.
    raising = {i for i, e in GYMNASIUM_ENVS.items() if "outdated" in e} | {
        i for ids in PETTINGZOO_ENVS.values() for i, e in ids.items() if "outdated" in e
    }
    assert raising == set(OUTDATED)


# api_test warns about the classic {"observation", "action_mask"} Dict (tests/env/test_envs.py).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
def test_the_checkers_pass_on_envs_made_from_the_new_ids():
    parallel_api_test(pettingzoo.make("parallel", "speed_env/speed_v1"), num_cycles=200)
    api_test(pettingzoo.make("aec", "speed_env/speed_v1"), num_cycles=100)
    check_env(
        gymnasium.make("speed_env/Speed-v1", opponent=RandomPolicy(0)).unwrapped,
        skip_render_check=True,
    )


def test_outdated_id_under_warnings_as_errors_names_the_new_id() -> None:
    """``-W error``: the kit's error, not Gymnasium's "out of date" warning, reaches the user."""
    code = (
        "import gymnasium, speed_env\n"
        "try:\n"
        "    gymnasium.make('speed_env/Speed-v0')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith(
        "OutdatedEnvError speed_env/Speed-v0 is out of date: use speed_env/Speed-v1"
    ), out.stdout + out.stderr
    assert "DeprecationWarning" not in out.stderr


# api_test's advice for dict observations (as for the two-seat AEC env above).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [3, 4])
def test_the_party_id_builds_party_speed_and_passes_the_checkers(players):
    par = pettingzoo.make("parallel", "speed_env/speed_party_v0", players=players, jokers=True)
    assert isinstance(par, PartyParallelEnv) and par.n_players == players
    assert par.metadata["name"] == "speed_party_v0"
    parallel_api_test(par, num_cycles=100)
    aec = pettingzoo.make("aec", "speed_env/speed_party_v0", players=players)
    assert isinstance(aec.unwrapped, PartyParallelEnv)
    api_test(aec, num_cycles=60)
    gym = gymnasium.make("speed_env/SpeedParty-v0", players=players)
    check_env(gym.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_type", ["parallel", "aec"])
def test_the_party_id_refuses_two_players_naming_speed_v1(env_type):
    with pytest.raises(RulesError, match=r"seats 3 or 4 players.*speed_env/speed_v1"):
        pettingzoo.make(env_type, "speed_env/speed_party_v0")
    with pytest.raises(RulesError, match="must be one of 2, 3, 4, got 5"):
        pettingzoo.make(env_type, "speed_env/speed_party_v0", players=5)


def test_party_ids_keep_out_of_the_two_seat_tables():
    """Two-player files and cards list the two-seat tables' ids; the party ids are new ids
    (spaces of their own), listed in tables of their own and registered from them."""
    two_seat = set(GYMNASIUM_ENVS) | {i for ids in PETTINGZOO_ENVS.values() for i in ids}
    party = set(PARTY_GYMNASIUM_ENVS) | {i for ids in PARTY_PETTINGZOO_ENVS.values() for i in ids}
    assert party == {PARTY_ID, "speed_env/SpeedParty-v0"} and not party & two_seat
    assert "speed_env/speed_party-v0" in pettingzoo.parallel_registry  # PettingZoo's spelling
    assert "speed_env/SpeedParty-v0" in gymnasium.registry
