"""Party Speed's batch doors: the compiled n-seat observation, ``BatchEnv`` and the self-play
rows env with three and four seats (issue 39 §2), and the lazy compile of the n-seat kernels.

Each door is checked against the n-seat references already in place: the
plain-Python observation (:func:`speed_env.party_obs.observe_seat`), the
engine's n-seat door (:class:`speed_env.seats.SeatGames`) and the n-seat
parallel env, step for step over seeded random games.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import speed_env
from speed_env.game import ActionError
from speed_env.party_obs import observe_seat, party_obs_dim
from speed_env.rules import RulesError
from speed_env.seats import SeatGames
from speed_env.vector import SpeedSelfPlayVectorEnv


def _pick(mask: np.ndarray, rng: np.random.Generator, wait: float = 0.5) -> np.ndarray:
    """A uniformly random legal action for every row of ``mask``, a wait with chance ``wait``."""
    keys = np.where(mask > 0, rng.random(mask.shape), -1.0)
    actions = keys.argmax(axis=-1).astype(np.int64)
    actions[rng.random(actions.shape) < wait] = 0
    return actions


@pytest.mark.parametrize(
    ("players", "jokers", "hand_size"),
    [(3, False, 3), (3, True, 7), (4, False, 7), (4, True, 3)],
)
def test_compiled_observation_equals_the_reference_for_every_seat(players, jokers, hand_size):
    from speed_env.party_obs import observe_seats  # here: the tree before it fails this test only

    games = SeatGames(3, "us", players=players, jokers=jokers, hand_size=hand_size, seed=21)
    rng = np.random.default_rng(players)
    for _ in range(250):
        obs = observe_seats(games.state, games.rules)
        assert obs.shape == (players, 3, party_obs_dim(games.rules))
        for b in range(games.n):
            for p in range(players):
                np.testing.assert_array_equal(
                    obs[p, b], observe_seat(games.state[b], games.rules, p)
                )
        if games.over.all():
            break
        games.step(_pick(games.masks(), rng))


@pytest.mark.parametrize("players", [3, 4])
def test_batch_env_plays_the_engines_games_with_a_seat_axis_of_n(players):
    n, seed = 4, 40
    env = speed_env.BatchEnv(n, "us", players=players, tick_ms=100)
    obs, mask = env.reset(seed=seed)
    assert obs.shape == (players, n, party_obs_dim(env.rules)) and obs.dtype == np.float32
    assert mask.shape == (players, n, env.n_actions) and env.n_actions == 1 + players * 13
    ref = SeatGames(n, "us", players=players, tick_ms=100, seed=seed)
    restarts = np.zeros(n, np.int64)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(500):
        np.testing.assert_array_equal(mask, ref.masks())
        for b in range(n):
            for p in range(players):
                np.testing.assert_array_equal(obs[p, b], observe_seat(ref.state[b], ref.rules, p))
        actions = _pick(mask, rng)
        rewards_ref = ref.step(actions)
        over = ref.over
        final = ref.state.copy()
        obs, mask, rewards, terminated, truncated, infos = env.step(actions)
        np.testing.assert_array_equal(rewards, rewards_ref)
        np.testing.assert_array_equal(terminated | truncated, over)
        np.testing.assert_array_equal(infos["_final_obs"], over)
        for b in np.flatnonzero(over).tolist():
            ended += 1
            assert infos["winner"][b] == final["winner"][b]
            np.testing.assert_array_equal(infos["played"][:, b], final["played"][b])
            assert infos["points"].shape == (players, n)
            won = final["winner"][b]
            if 0 <= won < players:  # zero-sum: +1 the winner, -1/(n-1) each other seat
                assert rewards[won, b] == 1.0
                assert rewards[:, b].sum() == pytest.approx(0.0, abs=1e-6)
            for p in range(players):
                np.testing.assert_array_equal(
                    infos["final_obs"][p, b], observe_seat(final[b], ref.rules, p)
                )
            restarts[b] += 1  # game b's k-th restart is the game seeded seed + b + k * n
            ref.reset_game(b, seed + b + int(restarts[b]) * n)
    assert ended >= 3


@pytest.mark.parametrize("players", [3, 4])
def test_batch_env_formats_copies_threads_and_pickles_alike(players):
    plain = speed_env.BatchEnv(6, "pagat", tick_ms=100, players=players)
    box = speed_env.BatchEnv(
        6, "pagat", tick_ms=100, players=players, obs_format="box", copy=False, threads=2
    )
    obs, mask = plain.reset(seed=9)
    obs_b, info_b = box.reset(seed=9)
    np.testing.assert_array_equal(obs, obs_b)
    np.testing.assert_array_equal(mask, info_b["action_mask"])
    rng = np.random.default_rng(2)
    for _ in range(80):
        actions = _pick(mask, rng)
        obs, mask, rewards, *_ = plain.step(actions)
        out_b = box.step(actions)
        np.testing.assert_array_equal(obs, out_b[0])
        np.testing.assert_array_equal(mask, out_b[-1]["action_mask"])
        np.testing.assert_array_equal(rewards, out_b[1])
    assert out_b[0] is box.games.obs_buf  # copy=False hands out the env's own buffers
    # a copy and an unpickled env go on exactly as the env
    clone, thawed = copy.deepcopy(plain), pickle.loads(pickle.dumps(plain))
    for actions in rng.integers(0, 2, (40, players, 6)):
        want = plain.step(actions)
        for other in (clone, thawed):
            got = other.step(actions)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[2], want[2])


def test_batch_env_refuses_two_seat_shaped_actions_at_a_table_of_four():
    env = speed_env.BatchEnv(3, "us", players=4)
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"shape \(4, 3\)"):
        env.step(np.zeros((2, 3), np.int64))


def test_batch_env_without_autoreset_reports_an_end_once():
    env = speed_env.BatchEnv(2, "us", players=3, tick_ms=250, autoreset=False)
    obs, mask = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ends = np.zeros(2, np.int64)
    while not env.all_finished:
        obs, mask, rewards, terminated, truncated, infos = env.step(_pick(mask, rng, wait=0.2))
        ends += terminated | truncated
    np.testing.assert_array_equal(ends, [1, 1])
    after = env.step(np.zeros((3, 2), np.int64))
    assert not after[3].any() and not after[4].any() and not after[2].any()


@pytest.mark.parametrize("players", [3, 4])
def test_self_play_rows_are_the_seats_of_the_parallel_envs_games(players):
    games = 2
    vec = gymnasium.make_vec(
        "speed_env/SpeedPartySelfPlay-v0", num_envs=players * games, players=players, tick_ms=100
    )
    assert isinstance(vec, SpeedSelfPlayVectorEnv)
    envs = [
        speed_env.parallel_env("us", players=players, tick_ms=100, obs_format="box")
        for _ in range(games)
    ]
    obs, infos = vec.reset(seed=7)
    refs = [e.reset(seed=7 + g) for g, e in enumerate(envs)]
    rng = np.random.default_rng(0)
    agents = [f"player_{s}" for s in range(players)]
    ended = 0
    for _ in range(400):
        for g, (ref_obs, ref_infos) in enumerate(refs):
            for s, a in enumerate(agents):
                np.testing.assert_array_equal(obs[players * g + s], ref_obs[a])
                np.testing.assert_array_equal(
                    infos["action_mask"][players * g + s], ref_infos[a]["action_mask"]
                )
        actions = _pick(infos["action_mask"], rng)
        obs, rewards, terms, truncs, infos = vec.step(actions)
        for g, env in enumerate(envs):
            if not env.agents:  # ended on the last step: the next-step autoreset
                refs[g] = env.reset()
                continue
            step = {a: int(actions[players * g + s]) for s, a in enumerate(agents)}
            o, r, te, tr, i = env.step(step)
            refs[g] = (o, i)
            rows = slice(players * g, players * (g + 1))
            np.testing.assert_array_equal(rewards[rows], [r[a] for a in agents])
            np.testing.assert_array_equal(terms[rows], [te[a] for a in agents])
            np.testing.assert_array_equal(truncs[rows], [tr[a] for a in agents])
            if not env.agents:
                ended += 1
                won = i[agents[0]]["winner"]
                name = None if won is None else ("draw" if won == players else f"player_{won}")
                assert list(infos["winner"][rows]) == [name] * players
    assert ended >= 2


def test_self_play_rows_refuse_a_row_count_that_is_not_whole_games():
    with pytest.raises(ValueError, match="num_envs=6 is not a multiple of players=4"):
        SpeedSelfPlayVectorEnv(6, "us", players=4)


def test_speed_v1_vector_env_refuses_three_players_naming_the_doors_that_seat_them():
    # Speed-v1's spaces are two seats': a learner against opponents at three is SpeedParty-v0's
    # vector env; refused by name, never two seats playing and a third waiting for ever.
    doors = r"SpeedParty-v0.*SpeedPartySelfPlay-v0.*players=3.*BatchEnv"
    with pytest.raises(RulesError, match=doors):
        gymnasium.make_vec("speed_env/Speed-v1", num_envs=2, players=3)


def _fresh_process(code: str, stdin: bytes = b"") -> object:
    """What ``code``, run in a fresh interpreter, prints last (as JSON)."""
    out = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, check=True, timeout=600
    )
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def test_three_and_four_seat_kernels_compile_only_when_such_a_game_is_built():
    # Counted on a per-game kernel (engine.land): its versions are the record types compiled
    # so far. The two-seat path first, then a game of three, in a fresh process.
    code = (
        "import json, numpy as np, speed_env\n"
        "from speed_env import engine\n"
        "from speed_env.seats import SeatGames\n"
        "env = speed_env.BatchEnv(2); env.reset(seed=0); env.step(np.zeros((2, 2), np.int64))\n"
        "two = len(engine.land.signatures)\n"
        "SeatGames(1, 'us', players=3).step(np.zeros((3, 1), np.int64))\n"
        "print(json.dumps([two, len(engine.land.signatures)]))\n"
    )
    assert _fresh_process(code) == [1, 2]


def test_games_of_three_unpickled_in_a_fresh_process_compile_their_kernels_and_go_on():
    batch = speed_env.BatchEnv(2, players=3)
    batch.reset(seed=4)
    games = SeatGames(2, "us", players=3, seed=4)
    code = (
        "import json, pickle, sys, numpy as np\n"
        "batch, games = pickle.loads(sys.stdin.buffer.read())\n"
        "obs = batch.step(np.zeros((3, 2), np.int64))[0]\n"
        "games.step(np.zeros((3, 2), np.int64))\n"
        "print(json.dumps([obs.sum().item(), games.state['clock'].tolist()]))\n"
    )
    got = _fresh_process(code, pickle.dumps((batch, games)))
    obs = batch.step(np.zeros((3, 2), np.int64))[0]
    games.step(np.zeros((3, 2), np.int64))
    assert got == [obs.sum().item(), games.state["clock"].tolist()]
