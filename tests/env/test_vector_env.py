"""The native vector envs (``speed_env.vector``) against Gymnasium's own vectorization.

Differential: ``gymnasium.make_vec("speed_env/Speed-v1", num_envs=N)`` and
``SyncVectorEnv`` of ``N`` ``gymnasium.make("speed_env/Speed-v1")`` envs, reset
with the same seed and given the same actions, must hand back the same
observations, rewards, flags, masks and infos on every step, through many
automatic resets, in each autoreset mode. The self-play rows env is checked the
same way against ``G`` ``speed_env.parallel_env`` games.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from helpers_deal import build_deal

import speed_env
from speed_env.policy import sample_legal
from speed_env.vector import SpeedSelfPlayVectorEnv, SpeedVectorEnv

# Short games: a 250 ms tick and a 25 s clock end a game in about 100 ticks, some by
# the clock (truncated), so a few hundred steps go through many resets of both kinds.
FAST = {"tick_ms": 250, "max_game_ms": 25_000}
MODES = list(AutoresetMode)


def assert_same(ours: Any, theirs: Any, where: str = "") -> None:
    """Equal structure and values; info arrays also of the same dtype."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert sorted(ours) == sorted(theirs), f"{where}: keys {sorted(ours)} != {sorted(theirs)}"
        for k in theirs:
            assert_same(ours[k], theirs[k], f"{where}[{k!r}]")
    elif isinstance(theirs, np.ndarray) and theirs.dtype == object:
        assert isinstance(ours, np.ndarray) and ours.dtype == object, where
        assert ours.shape == theirs.shape, where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if b is None or isinstance(b, str):
                assert a == b, f"{where}[{i}]: {a!r} != {b!r}"
            else:
                assert_same(a, b, f"{where}[{i}]")
    else:
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        np.testing.assert_array_equal(ours, theirs, err_msg=where)


def assert_same_infos(ours: dict[str, Any], theirs: dict[str, Any], where: str) -> None:
    assert_same(ours, theirs, where)
    for k, v in theirs.items():  # dtypes too, as _add_info makes them
        if isinstance(v, np.ndarray) and k not in ("final_obs",):
            assert ours[k].dtype == v.dtype, f"{where}[{k!r}]: {ours[k].dtype} != {v.dtype}"


def sync_speed(n: int, mode: AutoresetMode, **kwargs: Any) -> SyncVectorEnv:
    return SyncVectorEnv(
        [lambda: gym.make("speed_env/Speed-v1", **kwargs) for _ in range(n)], autoreset_mode=mode
    )


def run_against_sync(
    n: int,
    mode: AutoresetMode,
    steps: int,
    seed: int = 3,
    options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, int]:
    """Step both envs with the same random legal actions; compare everything; count the ends."""
    ours = gym.make_vec("speed_env/Speed-v1", num_envs=n, autoreset_mode=mode, **kwargs)
    theirs = sync_speed(n, mode, **kwargs)
    assert isinstance(ours, SpeedVectorEnv)
    assert ours.metadata["autoreset_mode"] == mode == theirs.metadata["autoreset_mode"]
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.single_action_space == theirs.single_action_space
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    obs, info = ours.reset(seed=seed, options=options)
    obs2, info2 = theirs.reset(seed=seed, options=options)
    assert_same(obs, obs2, "reset obs")
    assert_same_infos(info, info2, "reset infos")
    rng = np.random.default_rng(seed)
    counts = {"terminated": 0, "truncated": 0}
    for t in range(steps):
        mask = ours.action_masks()
        assert mask.dtype == np.int8
        if "action_mask" in info2:  # after a masked reset: the rows it reset
            given = info2["_action_mask"]
            np.testing.assert_array_equal(mask[given], info2["action_mask"][given])
        # Mostly legal actions, now and then any action (an illegal one is a wait).
        actions = sample_legal(mask, rng.random(n))
        wild = rng.random(n) < 0.1
        actions[wild] = rng.integers(0, mask.shape[1], wild.sum())
        out, out2 = ours.step(actions), theirs.step(actions)
        for name, a, b in zip(
            ("obs", "rewards", "terminated", "truncated"), out, out2, strict=False
        ):
            assert_same(a, b, f"step {t} {name}")
        assert out[1].dtype == np.float32
        assert out[2].dtype == out[3].dtype == np.bool_
        assert ours.observation_space.contains(out[0])
        info, info2 = out[4], out2[4]
        assert_same_infos(info, info2, f"step {t} infos")
        counts["terminated"] += int(out[2].sum())
        counts["truncated"] += int(out[3].sum())
        if mode == AutoresetMode.DISABLED and (out[2] | out[3]).any():
            done = out[2] | out[3]
            with pytest.raises(RuntimeError, match=f"game {int(np.flatnonzero(done)[0])} "):
                ours.step(actions)
            obs, info = ours.reset(options={"reset_mask": done.copy()})
            obs2, info2 = theirs.reset(options={"reset_mask": done.copy()})
            assert_same(obs, obs2, f"step {t} masked reset obs")
            assert_same_infos(info, info2, f"step {t} masked reset infos")
    return counts


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_speed_v1_vector_equals_sync_vector_env(mode: AutoresetMode) -> None:
    counts = run_against_sync(4, mode, 400, **FAST)
    # Many games ended, by a result and by the clock: the resets were compared too.
    assert counts["terminated"] >= 8 and counts["truncated"] >= 1, counts


@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [
        (AutoresetMode.SAME_STEP, {"rules": "japanese", "obs_format": "dict", "seat": 1}),
        (AutoresetMode.NEXT_STEP, {"rules": "pagat", "seat": 0}),
    ],
    ids=["japanese-dict-seat1", "pagat-seat0"],
)
def test_speed_v1_vector_keywords_equal_sync(mode: AutoresetMode, kwargs: dict[str, Any]) -> None:
    counts = run_against_sync(3, mode, 250, seed=11, **FAST, **kwargs)
    assert counts["terminated"] + counts["truncated"] >= 4, counts


def test_a_deal_in_the_reset_options_starts_every_game_from_it() -> None:
    """SyncVectorEnv hands the same options to every sub-env: so does the native env."""
    deal = build_deal("us", hands=("AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H"), centre=("6D", "7D"))
    counts = run_against_sync(3, AutoresetMode.NEXT_STEP, 150, options={"deal": deal}, **FAST)
    assert counts["terminated"] + counts["truncated"] >= 2, counts


class HighestLegal:
    """A policy that draws no random numbers: the highest legal action."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


def test_deterministic_opponent_equals_sync() -> None:
    """A policy without randomness plays the batch exactly as it plays each single env."""
    counts = run_against_sync(3, AutoresetMode.NEXT_STEP, 250, opponent=HighestLegal(), **FAST)
    assert counts["terminated"] >= 3, counts


def test_unseeded_reset_continues_each_games_stream() -> None:
    ours = gym.make_vec("speed_env/Speed-v1", num_envs=3, **FAST)
    theirs = sync_speed(3, AutoresetMode.NEXT_STEP, **FAST)
    ours.reset(seed=[5, None, 9])
    theirs.reset(seed=[5, None, 9])
    for _ in range(2):  # game 1 came from OS entropy: compare the seeded games only
        a, b = ours.reset(), theirs.reset()
        assert_same(a[0][[0, 2]], b[0][[0, 2]])


def test_make_vec_picks_the_native_env_and_sync_on_request() -> None:
    env = gym.make_vec("speed_env/Speed-v1", num_envs=2)
    assert isinstance(env, SpeedVectorEnv)
    assert env.spec is not None and env.spec.id == "speed_env/Speed-v1"
    sync = gym.make_vec("speed_env/Speed-v1", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    sync.close()
    assert isinstance(
        gym.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=4), SpeedSelfPlayVectorEnv
    )


def test_observations_are_never_aliased() -> None:
    env = gym.make_vec("speed_env/Speed-v1", num_envs=2, obs_format="dict", **FAST)
    obs, _ = env.reset(seed=0)
    kept = {k: v.copy() for k, v in obs.items()}
    obs["observation"][:] = 7
    obs["action_mask"][:] = 0
    masks = env.action_masks()
    masks[:] = 0
    obs2, *_ = env.step(np.zeros(2, np.int64))
    again, _ = env.reset(seed=0)
    assert_same(again, kept)
    assert not np.shares_memory(obs2["observation"], again["observation"])
    assert env.action_masks().any()


@pytest.mark.parametrize("env_id", ["speed_env/Speed-v1", "speed_env/SpeedSelfPlay-v1"])
def test_deepcopy_and_pickle_continue_the_same_games(env_id: str) -> None:
    env = gym.make_vec(env_id, num_envs=4, autoreset_mode="same_step", **FAST)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        env.step(sample_legal(env.action_masks(), rng.random(4)))
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    ends = 0
    for _ in range(200):  # through resets: the games' generators were copied too
        actions = sample_legal(env.action_masks(), rng.random(4))
        out = env.step(actions)
        for twin in twins:
            for ours, theirs in zip(twin.step(actions), out, strict=True):
                assert_same(ours, theirs)
        ends += int((out[2] | out[3]).sum())
    assert ends >= 2


def test_render_gives_every_games_frame() -> None:
    env = gym.make_vec("speed_env/Speed-v1", num_envs=3, render_mode="ansi")
    env.reset(seed=0)
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert all(isinstance(f, str) and f.startswith("Speed (us)") for f in frames)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        gym.make_vec("speed_env/Speed-v1", num_envs=3, render_mode="movie")


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        gym.make_vec("speed_env/Speed-v1", num_envs=2, autoreset_mode="sometimes")
    with pytest.raises(TypeError, match=r"agents\.make\('greedy'\)"):
        gym.make_vec("speed_env/Speed-v1", num_envs=2, opponent="greedy")
    with pytest.raises(ValueError, match="num_envs must be"):
        SpeedVectorEnv(0)
    env = gym.make_vec("speed_env/Speed-v1", num_envs=3, autoreset_mode="same_step")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, np.int64))
    env.reset(seed=0)
    with pytest.raises(speed_env.ActionError, match=r"shape \(3,\)"):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(speed_env.ActionError, match="sub-env 1 is outside"):
        env.step(np.array([0, 99, 0]))
    with pytest.raises(ValueError, match="one per game"):
        env.reset(seed=[1, 2])
    strict = gym.make_vec("speed_env/Speed-v1", num_envs=2, illegal_action="raise", seat=0)
    strict.reset(seed=0)
    illegal = np.argmin(strict.action_masks(), axis=1)  # a 0 in every mask: some play is illegal
    with pytest.raises(speed_env.ActionError, match="row 0 is illegal now; legal"):
        strict.step(illegal)


# ----------------------------------------------------------------- self-play rows
def run_against_parallel(g: int, mode: AutoresetMode, steps: int, seed: int = 7) -> int:
    """The rows env against ``g`` parallel envs; returns how many games ended."""
    rows = gym.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=2 * g, autoreset_mode=mode, **FAST)
    pars = [speed_env.parallel_env(obs_format="box", **FAST) for _ in range(g)]
    obs, info = rows.reset(seed=seed)
    par_out = [p.reset(seed=seed + k) for k, p in enumerate(pars)]
    agents = ("player_0", "player_1")

    def check_rows(obs: np.ndarray, info: dict[str, Any], k: int, po: dict, pi: dict) -> None:
        for s, a in enumerate(agents):
            r = 2 * k + s
            np.testing.assert_array_equal(obs[r], po[a])
            np.testing.assert_array_equal(info["action_mask"][r], pi[a]["action_mask"])

    for k, (po, pi) in enumerate(par_out):
        check_rows(obs, info, k, po, pi)
    rng = np.random.default_rng(seed)
    ended_games = 0
    restart = [False] * g
    for t in range(steps):
        mask = rows.action_masks()
        actions = sample_legal(mask, rng.random(2 * g))
        obs, rew, term, trunc, info = rows.step(actions)
        assert term.dtype == trunc.dtype == np.bool_ and rew.dtype == np.float32
        for k, p in enumerate(pars):
            r0, r1 = 2 * k, 2 * k + 1
            assert term[r0] == term[r1] and trunc[r0] == trunc[r1], (t, k)
            if restart[k]:  # next-step: this step dealt the game's next deal
                po, pi = p.reset()
                restart[k] = False
                check_rows(obs, info, k, po, pi)
                assert not rew[[r0, r1]].any() and not term[[r0, r1]].any()
                assert not info["_illegal"][[r0, r1]].any()
                continue
            po, prew, pterm, ptrunc, pi = p.step(
                {a: int(actions[2 * k + s]) for s, a in enumerate(agents)}
            )
            ended = not p.agents
            final = mode == AutoresetMode.SAME_STEP and ended
            for s, a in enumerate(agents):
                r = 2 * k + s
                assert rew[r] == prew[a] and term[r] == pterm[a] and trunc[r] == ptrunc[a]
                given = info["final_info"] if final else info
                step_info = {
                    key: v[r]
                    for key, v in given.items()
                    if not key.startswith("_") and given[f"_{key}"][r]
                }
                for key in ("illegal", "winner", "played", "bounced", "clock_ms", "points"):
                    assert (key in step_info) == (key in pi[a]), (t, r, key)
                    if key in pi[a]:
                        assert step_info[key] == pi[a][key], (t, r, key)
                if final:
                    np.testing.assert_array_equal(info["final_obs"][r], po[a])
                else:
                    np.testing.assert_array_equal(obs[r], po[a])
            if ended:
                ended_games += 1
                assert rew[r0] == -rew[r1]
                if mode == AutoresetMode.SAME_STEP:
                    po, pi = p.reset()
                    check_rows(obs, info, k, po, pi)
                elif mode == AutoresetMode.NEXT_STEP:
                    restart[k] = True
        if mode == AutoresetMode.DISABLED and (term | trunc).any():
            done = term | trunc
            with pytest.raises(RuntimeError, match=f"game {int(np.flatnonzero(done)[0]) // 2} "):
                rows.step(actions)
            obs, info = rows.reset(options={"reset_mask": done})
            for k in np.flatnonzero(done[::2]):
                po, pi = pars[k].reset()
                check_rows(obs, info, int(k), po, pi)
    return ended_games


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_self_play_rows_equal_parallel_env(mode: AutoresetMode) -> None:
    assert run_against_parallel(3, mode, 400) >= 6


def test_self_play_refuses_odd_rows_and_single_make() -> None:
    with pytest.raises(ValueError, match="num_envs=5 is odd"):
        gym.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=5)
    with pytest.raises(gym.error.Error, match=r"vector env only.*make_vec"):
        gym.make("speed_env/SpeedSelfPlay-v1")
    env = gym.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="only some rows of game 1"):
        env.reset(options={"reset_mask": np.array([False, False, True, False])})


@pytest.mark.parametrize("env_id", ["speed_env/Speed-v1", "speed_env/SpeedSelfPlay-v1"])
def test_disabled_autoreset_refuses_a_misspelt_reset_mask(env_id: str) -> None:
    """Under DISABLED a typo of ``reset_mask`` would restart every game in play: it is refused,
    naming the key and the known ones, and no game is reset."""
    env = gym.make_vec(env_id, num_envs=4, autoreset_mode="disabled", **FAST)
    env.reset(seed=0)
    env.step(np.zeros(4, np.int64))
    before = [env.unwrapped.snapshot(g)["clock_ms"] for g in range(env.unwrapped.n_games)]
    with pytest.raises(ValueError, match=r"'reset_masks'.*'reset_mask', 'deal'"):
        env.reset(options={"reset_masks": np.ones(4, bool)})
    after = [env.unwrapped.snapshot(g)["clock_ms"] for g in range(env.unwrapped.n_games)]
    assert after == before and min(after) > 0


def test_autoreset_modes_ignore_unknown_reset_keys_as_sync_vector_env_does() -> None:
    """In NEXT_STEP (as SyncVectorEnv of Speed-v1) an unknown key is ignored: a full reset."""
    env = gym.make_vec("speed_env/Speed-v1", num_envs=2, **FAST)
    obs, _ = env.reset(seed=3, options={"something_else": 1})
    again, _ = env.reset(seed=3)
    np.testing.assert_array_equal(obs, again)
