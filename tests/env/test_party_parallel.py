"""Party Speed's parallel env: ``parallel_env(..., players=3|4)`` (issue 39 §2, first door).

The env is checked against PettingZoo's own checkers, against the engine's
n-seat door (:class:`speed_env.seats.SeatGames`, the same game move for move),
and for what a learner relies on: observations inside their spaces, fresh
arrays, ego-centric seats and piles, zero-sum rewards, copies that continue.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import speed_env
from speed_env.parallel import SpeedParallelEnv
from speed_env.party import PartyParallelEnv
from speed_env.party_obs import RANK_COPIES, party_layout
from speed_env.rules import RulesError
from speed_env.seats import SeatGames

PLAYERS = [3, 4]


def _random_actions(env, rng: np.random.Generator) -> dict[str, int]:
    """A uniformly random legal action for every live agent."""
    return {a: int(rng.choice(np.flatnonzero(env.action_mask(a)))) for a in env.agents}


def _play(env, seed: int, rng_seed: int, steps: int | None = None):
    """Reset with ``seed`` and play random legal actions; the list of actions and last step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    log, last = [], None
    while env.agents and (steps is None or len(log) < steps):
        actions = _random_actions(env, rng)
        log.append(actions)
        last = env.step(actions)
    return log, last


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_parallel_api_and_seed_tests_pass(players):
    parallel_api_test(speed_env.parallel_env("us", players=players), num_cycles=1000)
    parallel_api_test(
        speed_env.parallel_env("pagat", players=players, jokers=True, obs_format="box"),
        num_cycles=300,
    )
    parallel_seed_test(lambda: speed_env.parallel_env("us", players=players), num_cycles=200)


@pytest.mark.parametrize("players", PLAYERS)
def test_agents_spaces_and_masks(players):
    env = speed_env.parallel_env("us", players=players)
    assert isinstance(env, PartyParallelEnv)
    assert env.possible_agents == [f"player_{p}" for p in range(players)]
    obs, _ = env.reset(seed=3)
    assert env.agents == env.possible_agents
    n_actions = 1 + players * 13
    for agent in env.agents:
        assert env.action_space(agent).n == n_actions
        assert obs[agent]["action_mask"].dtype == np.int8
        assert obs[agent]["action_mask"].shape == (n_actions,)
        assert obs[agent]["observation"].dtype == np.float32
    jokers = speed_env.parallel_env("us", players=players, jokers=True)
    assert jokers.action_space("player_0").n == 1 + players * 14


def test_two_players_keep_the_two_seat_env():
    assert type(speed_env.parallel_env("us")) is SpeedParallelEnv
    assert type(speed_env.parallel_env("us", players=2)) is SpeedParallelEnv
    rules = speed_env.make_rules("pagat", players=3)
    assert speed_env.parallel_env(rules).n_players == 3


@pytest.mark.parametrize("players", PLAYERS)
def test_observations_stay_in_their_spaces_and_are_fresh_arrays(players):
    env = speed_env.parallel_env("us", players=players)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(0)
    seen: list[np.ndarray] = []
    steps = 0
    while env.agents and steps < 400:
        for agent, o in obs.items():
            assert env.observation_space(agent).contains(o), (agent, steps)
            seen += [o["observation"], o["action_mask"]]
        obs, *_ = env.step(_random_actions(env, rng))
        steps += 1
    # No two observations handed out (any agent, any step) share memory.
    for i, a in enumerate(seen[-8 * players :]):
        for b in seen[-8 * players :][i + 1 :]:
            assert not np.shares_memory(a, b)
    snapshot = [a.copy() for a in seen[:4]]
    env.reset(seed=12)
    for old, kept in zip(seen[:4], snapshot, strict=True):
        assert np.array_equal(old, kept)  # a later reset does not write into earlier arrays


@pytest.mark.parametrize("players", PLAYERS)
def test_observation_is_ego_centric(players):
    env = speed_env.parallel_env("us", players=players)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs, *_ = env.step(_random_actions(env, rng))
    table = env.table()
    lay = party_layout(env.rules)
    rank = {c: i for i, c in enumerate("A 2 3 4 5 6 7 8 9 10 J Q K".split())}

    def rank_of(card: str) -> int:
        return rank[card.rstrip("'")[:-1]]

    for p in range(players):
        vec = obs[f"player_{p}"]["observation"]
        hand = np.zeros(13, np.float32)
        for card in table["players"][p]["hand"]:
            if card is not None:
                hand[rank_of(card)] += 1 / RANK_COPIES
        assert np.allclose(vec[lay["hand"]], hand)
        tops = vec[lay["centre_top"]].reshape(players, 13)
        for j in range(players):
            pile = table["centre"][(p + j) % players]  # pile j counts from p's own pile
            assert tops[j].sum() == (1 if pile else 0)
            if pile:
                assert tops[j, rank_of(pile[0])] == 1  # the table lists piles top first
        draw = vec[lay["cards"]].reshape(players, 3)[:, 1]
        for i in range(players):
            q = (p + i) % players  # seat i counts from p itself
            assert draw[i] == pytest.approx(len(table["players"][q]["draw_pile"]) / 15, abs=1e-6)


@pytest.mark.parametrize("players", PLAYERS)
def test_a_seeded_game_is_the_same_game_through_seat_games(players):
    env = speed_env.parallel_env("us", players=players, reaction=[200, 250, 300, 350][:players])
    engine = SeatGames(1, "us", players=players, reactions=[200, 250, 300, 350][:players], seed=9)
    env.reset(seed=9)
    rng = np.random.default_rng(2)
    assert env.table() == engine.table(0)
    steps = 0
    while env.agents:
        masks = engine.masks()
        for p, agent in enumerate(env.possible_agents):
            assert np.array_equal(env.action_mask(agent), masks[p, 0])
        actions = _random_actions(env, rng)
        _, rewards, *_ = env.step(actions)
        got = engine.step(np.array([[actions[a]] for a in env.possible_agents], np.int64))
        assert [rewards[a] for a in env.possible_agents] == got[:, 0].tolist()
        assert env.table() == engine.table(0)
        steps += 1
    assert engine.over[0] and steps > 10
    assert env.table()["winner"] == engine.table(0)["winner"]


@pytest.mark.parametrize("players", PLAYERS)
def test_rewards_sum_to_zero_at_the_end_and_pay_the_winner(players):
    wins = 0
    for seed in range(4):
        env = speed_env.parallel_env("us", players=players)
        _, (_, rewards, terms, truncs, infos) = _play(env, seed, seed)
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-6)
        winner = infos["player_0"]["winner"]
        if winner is not None and winner < players:
            wins += 1
            assert all(terms.values()) and not any(truncs.values())
            for p, agent in enumerate(env.possible_agents):
                want = 1.0 if p == winner else -1.0 / (players - 1)
                assert rewards[agent] == pytest.approx(want)
    assert wins > 0


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_mid_game_continue_identically(players, how):
    env = speed_env.parallel_env("us", players=players)
    _play(env, seed=21, rng_seed=3, steps=40)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.table() == env.table()
    rng = np.random.default_rng(4)
    while env.agents:
        actions = _random_actions(env, rng)
        a = env.step(actions)
        b = twin.step(actions)
        for x, y in zip(a, b, strict=True):
            for agent in env.possible_agents:
                if isinstance(x[agent], dict):
                    assert x[agent].keys() == y[agent].keys()
                    for k in x[agent]:
                        assert np.array_equal(x[agent][k], y[agent][k])
                else:
                    assert x[agent] == y[agent]
        assert twin.table() == env.table()
    assert not twin.agents


@pytest.mark.parametrize("players", PLAYERS)
def test_illegal_missing_and_bad_actions(players):
    env = speed_env.parallel_env("us", players=players)
    env.reset(seed=0)
    mask = env.action_mask("player_1")
    illegal = int(np.flatnonzero(mask == 0)[0])
    _, _, _, _, infos = env.step({"player_1": illegal})
    assert infos["player_1"]["illegal"] == 1 and infos["player_1"]["illegal_total"] == 1
    assert infos["player_0"]["missing"] and infos["player_0"]["missing_total"] == 1
    with pytest.raises(speed_env.ActionError, match="player_2"):
        env.step({"player_2": 1.5})
    with pytest.raises(speed_env.ActionError, match="unknown agent"):
        env.step({f"player_{players}": 0})
    strict = speed_env.parallel_env("us", players=players, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(speed_env.ActionError, match="illegal now"):
        strict.step({"player_1": illegal})


def test_max_cycles_truncates_and_bad_settings_are_refused():
    env = speed_env.parallel_env("us", players=3, max_cycles=5)
    env.reset(seed=1)
    for _ in range(5):
        _, rewards, terms, truncs, _ = env.step(dict.fromkeys(env.agents, 0))
    assert all(truncs.values()) and not any(terms.values()) and not env.agents
    assert set(rewards.values()) == {0.0}
    with pytest.raises(ValueError, match="one per seat"):
        speed_env.parallel_env("us", players=3, reaction=[200, 250])
    with pytest.raises(ValueError, match="render_mode must be one of"):
        speed_env.parallel_env("us", players=3, render_mode="rgb")
    with pytest.raises(RulesError, match="players"):
        speed_env.parallel_env("us", players=5)


# api_test's advice for dict observations (the two-seat AEC test ignores the same two).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", PLAYERS)
def test_the_aec_env_seats_them_one_turn_each_and_refuses_a_bad_move_at_once(players):
    api_test(speed_env.env("us", players=players), num_cycles=500)
    api_test(speed_env.env("pagat", players=players, obs_format="box"), num_cycles=200)
    aec = speed_env.env("us", players=players, illegal_action="raise")
    aec.reset(seed=0)
    turns = []
    for _ in range(players):
        turns.append(aec.agent_selection)
        aec.step(0)
    assert turns == [f"player_{p}" for p in range(players)]  # one turn per seat, in seat order
    assert aec.unwrapped.table()["clock_ms"] == 50  # the tick resolved once all had acted
    agent = aec.agent_selection
    illegal = int(np.flatnonzero(aec.unwrapped.action_mask(agent) == 0)[0])
    with pytest.raises(speed_env.ActionError, match=f"{illegal} of {agent} is illegal now"):
        aec.step(illegal)
