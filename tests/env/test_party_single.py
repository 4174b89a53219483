"""Party Speed's single-seat Gymnasium env (``PartyGymEnv``, ``speed_env/SpeedParty-v0``).

Checked against Gymnasium's own checker, against the engine's n-seat door
(:class:`speed_env.seats.SeatGames`: the same game, every seat's action
replayed), and for the contracts ``Speed-v1`` keeps: seeding, copies,
fresh observations inside the space, refusals by name. Games are cut short
(a few dozen ticks) wherever a whole game is not what is checked.
"""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.utils.seeding import np_random

import speed_env
from speed_env import ActionError, PartyGymEnv, RandomPolicy, RulesError
from speed_env.party_obs import party_obs_dim
from speed_env.reaction import ReactionError, delayed, make_profile
from speed_env.seats import SeatGames

PLAYERS = [3, 4]


class Recorder:
    """A random player that records the actions it returns."""

    def __init__(self, seed: int) -> None:
        self.inner = RandomPolicy(seed)
        self.actions: list[int] = []

    def reseed(self, seed: int) -> None:
        self.inner.reseed(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = self.inner.act(obs, mask)
        self.actions.append(int(out[0]))
        return out


def _play(env, rng: np.random.Generator, steps: int) -> list[tuple]:
    """Up to ``steps`` random legal learner steps; every step's five results."""
    out = []
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        result = env.step(action)
        out.append((action, *result))
        if result[2] or result[3]:
            break
    return out


def _same(a, b) -> bool:
    """Equal step results: arrays by value, dicts by key, the rest by ==."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("players", PLAYERS)
def test_gymnasium_check_env_passes(players):
    check_env(PartyGymEnv("us", players=players), skip_render_check=True)
    check_env(
        PartyGymEnv("pagat", players=players, jokers=True, obs_format="dict", seat=1),
        skip_render_check=True,
    )


@pytest.mark.parametrize("players", PLAYERS)
def test_spaces_types_and_masks(players):
    env = PartyGymEnv("us", players=players, jokers=True)
    n_actions = 1 + players * 14
    assert env.action_space == gymnasium.spaces.Discrete(n_actions)
    assert env.observation_space.shape == (party_obs_dim(env.rules),)
    obs, info = env.reset(seed=2)
    assert info["seat"] in range(players)
    mask = env.action_masks()
    assert mask.dtype == np.int8 and mask.shape == (n_actions,) and mask[0] == 1
    assert np.array_equal(info["action_mask"], mask)
    _, reward, terminated, truncated, info = env.step(0)
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert info["illegal"] is False and info["seat"] == env.seat
    boxed = PartyGymEnv("us", players=players, obs_format="dict")
    obs, info = boxed.reset(seed=2)
    assert boxed.observation_space.contains(obs) and "action_mask" not in info


@pytest.mark.parametrize("players", PLAYERS)
def test_the_learners_game_is_the_engines_with_every_seat_replayed(players):
    """The env plays the engine's n-seat game: the recorded actions of the learner and of each
    opponent, replayed on ``SeatGames`` from the same seed with the opponents' thinking
    charged on their own seats, give the same table and the learner's reward; every seat's
    rewards sum to zero."""
    seat, seed = 1, 40 + players
    think = [0.0, 40.0, 90.0][: players - 1]
    reaction = [200, 250, 300, 350][:players]
    opponents = [Recorder(i) for i in range(players - 1)]
    env = PartyGymEnv(
        "us",
        players=players,
        seat=seat,
        opponents=opponents,
        opponent_think=think,
        reaction=reaction,
    )
    env.reset(seed=seed)
    game_seed = int(np_random(seed)[0].integers(2**63))  # a fixed seat: the first draw
    profiles = [make_profile(ms) for ms in reaction]
    for i, ms in enumerate(think):
        profiles[(seat + 1 + i) % players] = delayed(profiles[(seat + 1 + i) % players], ms)
    engine = SeatGames(1, "us", players=players, reactions=profiles, seed=game_seed)
    assert env.table() == engine.table(0)
    rng = np.random.default_rng(players)
    for t, (action, _, reward, terminated, truncated, _) in enumerate(_play(env, rng, 5000)):
        joint = np.zeros((players, 1), np.int64)
        joint[seat, 0] = action
        for i, opponent in enumerate(opponents):
            joint[(seat + 1 + i) % players, 0] = opponent.actions[t]
        rewards = engine.step(joint)
        assert reward == float(rewards[seat, 0])
        assert float(rewards[:, 0].sum()) == pytest.approx(0.0, abs=1e-6)
    assert env.table() == engine.table(0)
    assert terminated and not truncated and engine.over[0]
    winner = env.table()["winner"]
    assert reward == pytest.approx(1.0 if winner == seat else -1.0 / (players - 1))
    with pytest.raises(RuntimeError, match="the game is over: call reset"):
        env.step(0)


@pytest.mark.parametrize("players", PLAYERS)
def test_same_seed_same_episode_and_the_seat_is_drawn(players):
    def episode(seed: int) -> list[tuple]:
        env = PartyGymEnv("us", players=players, opponents=RandomPolicy(0))
        first = env.reset(seed=seed)
        return [first, *_play(env, np.random.default_rng(0), 60)]

    assert _same(episode(5), episode(5))
    assert not _same(episode(5), episode(6))
    seats = {PartyGymEnv("us", players=players).reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == set(range(players))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_mid_game_continue_identically(players, how):
    env = PartyGymEnv("us", players=players, opponents=RandomPolicy(3))
    env.reset(seed=8)
    _play(env, np.random.default_rng(1), 30)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.table() == env.table() and twin.seat == env.seat
    assert all(a is not b for a, b in zip(twin.opponents, env.opponents, strict=True))
    a = _play(env, np.random.default_rng(2), 80)
    b = _play(twin, np.random.default_rng(2), 80)
    assert len(a) > 10 and _same(a, b)  # the opponents' generators were copied too
    assert twin.table() == env.table()


@pytest.mark.parametrize("players", PLAYERS)
def test_observations_stay_in_the_space_and_are_fresh_arrays(players):
    env = PartyGymEnv("pagat", players=players, jokers=True)
    obs, info = env.reset(seed=4)
    handed = [obs, info["action_mask"]]
    rng = np.random.default_rng(3)
    for _ in range(40):
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(env.action_masks())))
        )
        handed += [obs, info["action_mask"], env.action_masks()]
        if terminated or truncated:
            break
    for i, x in enumerate(handed):
        for y in handed[i + 1 :]:
            assert not np.shares_memory(x, y)
    kept = obs.copy()
    obs[:] = 7.0  # writing into what the env handed out changes nothing inside it
    assert np.array_equal(env._view()[0], kept)


def test_one_policy_is_copied_for_each_seat_each_with_its_own_generator():
    policy = RandomPolicy(0)
    env = PartyGymEnv("us", players=4, opponents=policy)
    assert env.opponents[0] is policy
    assert len({id(p) for p in env.opponents}) == 3
    env.reset(seed=1)
    states = [p.rng.bit_generator.state["state"]["state"] for p in env.opponents]
    assert len(set(states)) == 3  # each seat reseeded from its own draw
    listed = PartyGymEnv("us", players=3, opponents=[policy, policy])
    assert listed.opponents[0] is policy and listed.opponents[1] is not policy
    default = PartyGymEnv("us", players=3)
    assert all(isinstance(p, RandomPolicy) for p in default.opponents)
    assert default.opponents[0] is not default.opponents[1]


def test_an_illegal_action_waits_or_is_refused_before_any_opponent_moves():
    env = PartyGymEnv("us", players=3, seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    *_, info = env.step(illegal)
    assert info["illegal"] is True
    strict = PartyGymEnv("us", players=3, seat=0, illegal_action="raise")
    strict.reset(seed=0)
    before = [copy.deepcopy(p.rng.bit_generator.state) for p in strict.opponents]
    table = strict.table()
    with pytest.raises(
        ActionError, match=rf"action {illegal} of the learner \(seat 0\) is illegal"
    ):
        strict.step(illegal)
    assert [p.rng.bit_generator.state for p in strict.opponents] == before
    assert strict.table() == table
    with pytest.raises(ActionError, match=r"the learner \(seat 0\)"):
        strict.step(1.0)


def test_a_broken_opponent_is_named_by_its_seat():
    class Two:
        def act(self, obs, mask):
            return np.zeros(2, np.int64)

    env = PartyGymEnv("us", players=3, seat=0, opponents=[RandomPolicy(0), Two()])
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"the opponent Two \(seat 2\) returned actions of shape"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({}, RulesError, r"SpeedParty-v0 seats 3 or 4 players.*speed_env/Speed-v1"),
        ({"players": 2}, RulesError, r"two players play speed_env/Speed-v1"),
        ({"players": 5}, RulesError, r"rule option 'players' must be one of 2, 3, 4, got 5"),
        ({"rules": "japanese", "players": 5}, RulesError, r"'japanese' cannot deal 5 players"),
        ({"players": 3, "opponents": [RandomPolicy(0)]}, ValueError, r"opponents lists 1 .* 2"),
        ({"players": 4, "opponents": [RandomPolicy(0)] * 4}, ValueError, r"lists 4 .* of 3"),
        ({"players": 3, "opponents": [RandomPolicy(0), 3]}, TypeError, r"opponents\[1\] must"),
        ({"players": 3, "opponents": object()}, TypeError, r"opponents must have act"),
        ({"players": 3, "opponents": "greedy"}, TypeError, r"agents\.make\('greedy'\)"),
        ({"players": 3, "seat": 3}, ValueError, r"seat must be 0, 1, 2 or 'random', got 3"),
        ({"players": 3, "opponent_think": [10]}, ValueError, r"opponent_think lists 1"),
        ({"players": 3, "opponent_think": [10, -1]}, ReactionError, r"opponent_think\[1\]"),
        ({"players": 3, "render_mode": "rgb"}, ValueError, r"render_mode must be one of"),
        ({"players": 3, "illegal_action": "skip"}, ValueError, r"illegal_action must be one of"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        PartyGymEnv(**kwargs)


def test_the_registered_id_builds_it_and_refuses_two_players():
    env = gymnasium.make("speed_env/SpeedParty-v0", players=4, opponents=RandomPolicy(0))
    assert isinstance(env.unwrapped, PartyGymEnv) and env.unwrapped.n_players == 4
    assert env.spec is not None and env.spec.id == "speed_env/SpeedParty-v0"
    obs, info = env.reset(seed=0)
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"])
    with pytest.raises(RulesError, match="speed_env/Speed-v1"):
        gymnasium.make("speed_env/SpeedParty-v0", players=2)
    rules = speed_env.make_rules("pagat", players=3)
    assert PartyGymEnv(rules).n_players == 3  # players may come with a Rules value


def test_render_ansi_and_human_show_every_seat(capsys):
    env = PartyGymEnv("us", players=4, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert [line.split()[0] for line in text.splitlines()[3:]] == [f"player_{p}" for p in range(4)]
    hand = " ".join(env.table()["players"][2]["hand"])
    assert f"player_2  hand {hand}" in text
    human = PartyGymEnv("us", players=3, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None and "player_2  hand" in capsys.readouterr().out
    assert PartyGymEnv("us", players=3).render() is None
