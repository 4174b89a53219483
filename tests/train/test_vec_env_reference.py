"""The training env's compiled skip loop plays exactly the games of the loop it replaced.

``ReferenceVecEnv`` is ``SpeedVecEnv`` with its skip-forced loop and its dealing
as they were before they were compiled and vectorised: a numpy step of the
games still waiting (``Games.step_games``) on every tick (no jump over the
ticks where only the clock moves), a whole observation of them
(``Games.observe_games``), the opponents called in Python on the same rows,
the games that ended paid and dealt anew a tick's at a time, their infos
written game by game, each new game's opponent drawn by ``rng.choice`` and its
reactions set one game at a time. For a fixed seed both must give
the same observations, masks, rewards, ends and infos at every step, the
opponents' tie-breaking generators included (``chain`` breaks ties at random,
so a call on other rows or in another order would show).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from train.vec_env.env import SpeedVecEnv


class ReferenceVecEnv(SpeedVecEnv):
    """The loop as it was: numpy bookkeeping around ``step_games`` and ``observe_games``."""

    def _new_games(self, g, rows, slots):
        seeds = self._seed + slots + self.restarts[slots] * self.n
        g.games.deal_seeded(rows, seeds.tolist())
        self._draw_seats(slots)
        pool = self.pool
        self.member[slots] = self.rng.choice(len(pool.members), size=len(slots), p=pool.weights())
        for m in self.member[slots]:
            pool.members[m].games += 1
            pool.members[m].window["games"] += 1
        for r, s in zip(rows.tolist(), slots.tolist(), strict=True):
            opp = self.pool.members[self.member[s]].reaction or self.reactions[1]
            mine = self.reactions[0]
            g.games.set_reactions((mine, opp) if self.seat[s] == 0 else (opp, mine), games=r)

    def _finish(self, g, ended, rewards, dones, infos):
        slots = ended + g.lo
        seat = self.seat[slots]
        truncated = g.games.truncated[ended]
        outcome = g.games.outcome(ended, seat)
        clock_ms = g.games.stats.clock_ms[ended]
        paid = outcome.copy()
        if self.truncation_reward is not None:
            paid[truncated] = self.truncation_reward
        g.games.observe_games(ended, g.obs, g.mask)
        for j, (r, s) in enumerate(zip(ended.tolist(), slots.tolist(), strict=True)):
            self.ep_return[s] += outcome[j]
            rewards[s] += paid[j]
            dones[s] = True
            infos[s] = {
                "terminal_observation": g.obs[seat[j], r].copy(),
                "TimeLimit.truncated": bool(truncated[j]) and self.truncation_reward is None,
                "episode": {"r": float(self.ep_return[s]), "l": int(self.ep_len[s]), "t": 0.0},
                "is_success": bool(outcome[j] > 0),
                "opponent": self.pool.members[self.member[s]].name,
                "seat": int(seat[j]),
                "ticks": int(clock_ms[j] // self.tick_ms),
            }
        self.pool.record(self.member[slots], outcome)
        self.counters["games"] += int(ended.size)
        self.ep_return[slots] = 0
        self.ep_len[slots] = 0
        self.restarts[slots] += 1
        self.game_no[slots] += 1
        self._new_games(g, ended, slots)

    def _run(self, g, actions, rewards, dones, infos):
        games = g.games
        pending = g.rows
        first = actions is not None
        if not first:
            pending = pending[g.mask[self.seat[g.lo : g.hi], g.rows].sum(axis=1) < 2]
        for _ in range(self.max_skip if self.skip_forced else 1):
            if pending.size == 0:
                break
            slots = pending + g.lo
            seat = self.seat[slots]
            a = np.zeros((2, pending.size), np.int64)
            cols = np.arange(pending.size)
            if first:
                a[seat, cols] = actions[pending]
            opp_mask = g.mask[1 - seat, pending]
            choice = np.flatnonzero(opp_mask[:, 1:].any(axis=1))
            if choice.size:
                a[1 - seat[choice], choice] = self.pool.act(
                    g.obs[1 - seat[choice], pending[choice]],
                    opp_mask[choice],
                    self.member[slots[choice]],
                    self.groups.index(g),
                )
            over = games.step_games(pending, a)
            ended = pending[over]
            if ended.size:
                self._finish(g, ended, rewards, dones, infos)
            games.observe_games(pending, g.obs, g.mask)
            first = False
            if not self.skip_forced:
                break
            rest = pending[~over]
            legal = g.mask[self.seat[rest + g.lo], rest]
            pending = rest[legal.sum(axis=1) < 2]
            if pending.size <= self.skip_tail * g.m:
                break


def _trace(cls, steps, **kwargs):
    """Every step's outputs (infos without their wall-clock field) under a random legal
    learner with its own fixed generator."""
    env = cls(**kwargs)
    rng = np.random.default_rng(4)
    out = [(env.reset(), env.action_masks())]
    for _ in range(steps):
        masks = env.action_masks()
        obs, rewards, dones, infos = env.step(
            np.where(masks > 0, rng.random(masks.shape), -1.0).argmax(axis=1)
        )
        for info in infos:
            info.get("episode", {}).pop("t", None)
        out.append((obs, env.action_masks(), rewards, dones, infos))
    return out, env


def _same(a, b):
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    ("steps", "settings"),
    [
        (150, {"n_envs": 24, "rules": "japanese,us", "opponent": "chain"}),
        (
            150,
            {
                "n_envs": 16,
                "rules": "us",
                "opponent": "greedy,chain@pro,random",
                "seat": "alternate",
            },
        ),
        (
            150,
            {"n_envs": 10, "rules": "japanese", "opponent": "chain", "skip_tail": 0.0, "seat": 1},
        ),
        (700, {"n_envs": 8, "rules": "us", "opponent": "greedy", "skip_forced": False}),
        (
            300,
            {
                "n_envs": 12,
                "rules": "japanese,us",
                "opponent": "chain",
                "max_game_ms": 4000,
                "stuck_countdown_ms": 700,
                "idle_flip_ms": 1500,
            },
        ),
    ],
    ids=["two-rules-chain", "mixed-pool", "no-tail", "every-tick", "cut-games"],
)
def test_compiled_skip_loop_plays_the_same_games_as_the_numpy_loop(steps, settings):
    new, env = _trace(SpeedVecEnv, steps, seed=9, **settings)
    old, ref = _trace(ReferenceVecEnv, steps, seed=9, **settings)
    ended = sum(int(step[3].sum()) for step in new[1:])
    assert ended > 5  # games ended and were dealt anew along the way
    if "max_game_ms" in settings:  # and some were cut by the clock inside the skip loop
        assert sum(info.get("TimeLimit.truncated", False) for s in new[1:] for info in s[4]) > 3
    for k, (a, b) in enumerate(zip(new, old, strict=True)):
        assert _same(a, b), f"step {k} differs"
    assert env.pool.describe() == ref.pool.describe()
    for g, h in zip(env.groups, ref.groups, strict=True):
        assert np.array_equal(g.games.lat, h.games.lat)  # each seat's reaction, game by game


def test_chain_played_row_by_row_in_the_kernel_acts_as_one_batch_call():
    """``act_row`` over a batch's rows in order, on one generator, gives ``act``'s actions."""
    from agents.chain import ChainAgent, act_row, work_arrays
    from speed_env.game import Games

    games = Games(64, "japanese")
    games.deal_seeded(np.arange(64), list(range(64)))
    for _ in range(40):  # into the middle of the games
        games.step_games(np.arange(64), np.zeros((2, 64), np.int64))
    obs, mask = games.observe()
    batch, rows = ChainAgent(games.rules, seed=3), ChainAgent(games.rules, seed=3)
    at, nr, hand_sizes, tag, w, rng = rows.kernel_args(obs.shape[2])
    for p in (0, 1):
        want = batch.act(obs[p], mask[p])
        work = work_arrays(mask.shape[2])  # one scratch for every row, as the skip loop does
        got = [
            act_row(obs[p], b, mask[p, b], at, nr, hand_sizes, tag, w, rng, work) for b in range(64)
        ]
        assert (mask[p, :, 1:].sum(axis=1) > 1).sum() > 5  # ties and choices to break
        assert got == want.tolist()


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_compiled_draws_take_the_numbers_of_the_numpy_calls(seed):
    """``vec_deal.draw_seats``, one compiled call for a pass's new games, makes the draws
    ``_draw_seats`` and a one-member pool's ``sample`` make a tick's games at a time: the same
    seats, and the generator in the same state after (odd runs leave half a 64-bit word
    buffered for the next seat, which must carry over)."""
    from speed_env.rules import make_rules
    from train.vec_env.deal import draw_seats
    from train.vec_env.pool import OpponentPool

    sizes = np.random.default_rng(seed).integers(1, 6, 40)
    numpy_rng, compiled_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    pool = OpponentPool.from_spec("random", [make_rules("us")])
    assert len(pool.members) == 1
    want = []
    for k in sizes.tolist():
        want += numpy_rng.integers(0, 2, k).tolist()
        pool.sample(k, numpy_rng)
    got = np.empty(int(sizes.sum()), np.int64)
    draw_seats(compiled_rng, sizes, got)
    assert got.tolist() == want
    assert 0 < sum(want) < len(want)
    assert compiled_rng.bit_generator.state == numpy_rng.bit_generator.state
