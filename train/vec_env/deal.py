"""``SpeedVecEnv``'s restarts: the end of the games that ended in a pass, and their new deals.

A pass of the skip loop (:mod:`train.vec_env.skip_loop`) ends a few games; the env pays
them, writes their infos and deals their slots anew (:class:`Restarts`, the
env's mixin for it; :class:`Group` is one rules preset's slots). Done with
numpy, that was a dozen calls a tick (observe the ended games, gather the
learner's rows, read the results, deal, set each seat's reactions, observe
the new games), each with a fixed cost of microseconds that a handful of games
does not amortise. Here each of the two halves is one compiled call for the
pass, game by game: :func:`end_games` before the new seats and opponents are
drawn (a tick's new games at a time, in the order the tick-by-tick loop drew
them; with random seats and a one-member pool, the usual case, by
:func:`draw_seats` in one compiled call making exactly the draws of the numpy
calls), :func:`deal_games` after. Only the info dicts SB3 reads are made game
by game. ``tests/train/test_vec_env_reference.py`` checks every observation, reward
and info against the numpy version.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from speed_env.engine import C, deal_seeded
from speed_env.game import Games
from speed_env.observation import observe_game
from speed_env.reaction import ReactionProfile, delayed
from speed_env.step_observe import observe_whole
from train.vec_env.pool import OpponentPool


@njit(cache=True)
def end_games(
    s: np.ndarray,
    cfg: Any,
    rows: np.ndarray,
    seat: np.ndarray,
    obs: np.ndarray,
    last: np.ndarray,
    outcome: np.ndarray,
    truncated: np.ndarray,
    ticks: np.ndarray,
) -> None:
    """Close the games ``rows[j]`` that are over, the learner in seat ``seat[j]``.

    For each, the learner's last observation goes into ``last[j]``, with:

    - its outcome: +1 won, -1 lost, 0 a draw or truncated
      (:meth:`speed_env.game.Games.outcome`);
    - whether the clock cut the game;
    - its length in ticks.

    Rows ``obs[:, rows[j]]`` are overwritten: the game is dealt anew next.
    """
    for j in range(rows.shape[0]):
        b = rows[j]
        g = s[b]
        observe_game(g, cfg, obs, b)
        q = seat[j]
        # Copied now: this row of obs is overwritten when the slot is dealt anew.
        for i in range(obs.shape[2]):
            last[j, i] = obs[q, b, i]
        w = g.winner
        # Only a finished game has a winner: a cut one pays 0 whatever w holds.
        won = not g.truncated and (w == 0 or w == 1)
        outcome[j] = (1.0 if w == q else -1.0) if won else 0.0
        truncated[j] = g.truncated
        ticks[j] = g.clock // cfg[C.tick_ms]


@njit(cache=True)
def deal_games(
    s: np.ndarray,
    cfg: Any,
    lat: np.ndarray,
    rows: np.ndarray,
    seeds: np.ndarray,
    seat: np.ndarray,
    learner: np.ndarray,
    members: np.ndarray,
    member_lat: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Deal game ``rows[j]`` from ``seeds[j]``, uint64; write both seats' observations and masks.

    The learner's seat ``seat[j]`` gets the reaction ``learner``, the other seat its
    opponent's, ``member_lat[members[j]]``: engine parameters.
    """
    for j in range(rows.shape[0]):
        b = rows[j]
        g = s[b]
        deal_seeded(g, cfg, seeds[j])
        q = seat[j]
        for k in range(lat.shape[2]):
            lat[b, q, k] = learner[k]
            lat[b, 1 - q, k] = member_lat[members[j], k]
        observe_whole(s, cfg, b, obs, mask)


@njit(cache=True)
def draw_seats(rng: np.random.Generator, sizes: np.ndarray, seat: np.ndarray) -> None:
    """Draw seats and opponents for each run of ``sizes[i]`` new games in turn.

    1. the learner's seats into ``seat``: ``rng.integers(0, 2, k)``;
    2. the one-member pool's draw for their opponents: ``rng.random(k)``, as
       :meth:`train.vec_env.pool.OpponentPool.sample` draws.

    numba's generator methods follow numpy's algorithms on the same bit generator, so these are
    the very numbers, and the generator's state after them, of those numpy calls made one run
    at a time; ``tests/train/test_vec_env_reference.py`` checks it.
    """
    lo = 0
    for k in sizes:
        seat[lo : lo + k] = rng.integers(0, 2, k)
        # Drawn and dropped: the one-member pool's draw, which must still advance the stream.
        rng.random(k)
        lo += k


class Group:
    """The slots ``lo .. hi`` played under one set of rules."""

    def __init__(self, index: int, lo: int, hi: int, games: Games) -> None:
        self.index, self.lo, self.hi, self.games = index, lo, hi, games
        self.m = hi - lo
        self.obs = np.zeros((2, self.m, games.obs_dim), np.float32)
        self.mask = np.zeros((2, self.m, games.n_actions), np.int8)
        self.rows = np.arange(self.m)


class Restarts:
    """``SpeedVecEnv``'s restarts, the Python half.

    It pays and records the games that ended in a pass of the skip loop and deals their slots
    anew. A mixin: it reads and writes the env's per-slot arrays, declared below, and draws from
    its generator.
    """

    n: int
    obs_dim: int
    seat_choice: int | str
    rng: np.random.Generator
    pool: OpponentPool
    reactions: tuple[ReactionProfile, ReactionProfile]
    truncation_reward: float | None
    counters: dict[str, int]
    _seed: int
    _opp_params: np.ndarray
    seat: np.ndarray
    member: np.ndarray
    restarts: np.ndarray
    game_no: np.ndarray
    ep_return: np.ndarray
    ep_len: np.ndarray
    ep_start: np.ndarray

    def _draw_seats(self, slots: np.ndarray) -> None:
        """The learner's seat in the new games of ``slots`` (``seat_choice``)."""
        if self.seat_choice == "random":
            self.seat[slots] = self.rng.integers(0, 2, len(slots))
        elif self.seat_choice == "alternate":
            # Each slot alternates, and neighbouring slots start in different seats.
            self.seat[slots] = (slots + self.game_no[slots]) % 2
        else:
            self.seat[slots] = int(self.seat_choice)

    def _new_games(
        self, g: Group, rows: np.ndarray, slots: np.ndarray, sizes: list[int] | None = None
    ) -> None:
        """Deal fresh games in ``rows`` of group ``g`` and draw their seats and opponents: for
        each run of ``sizes`` games (default: all at once) the seats, then the opponents (the
        order of the draws the tick-by-tick loop made, a tick's new games at a time); write
        their observations and masks."""
        sizes = sizes or [len(slots)]
        # The common case, compiled: one opponent and random seats.
        if self.seat_choice == "random" and len(self.pool.members) == 1:
            seat = np.empty(len(slots), np.int64)
            draw_seats(self.rng, np.array(sizes, np.int64), seat)  # the numbers of the loop below
            self.seat[slots] = seat
            self.member[slots] = 0
            self.pool.count_dealt(self.member[slots])
        else:
            lo = 0
            for k in sizes:
                part = slots[lo : lo + k]
                self._draw_seats(part)
                self.member[part] = self.pool.sample(k, self.rng)
                lo += k
        # A fresh deal per game of each slot: slot + restarts * n never repeats across slots.
        seeds = (self._seed + slots + self.restarts[slots] * self.n).astype(np.uint64)
        # Seat reactions follow who sits where: the learner's profile, the opponent's own if any.
        deal_games(
            g.games.state, g.games.cfg, g.games.lat, rows, seeds, self.seat[slots],
            self.reactions[0].params(), self.member[slots], self._opponent_params(), g.obs, g.mask,
        )  # fmt: skip
        g.games.state_changed()

    def _opponent_params(self) -> np.ndarray:
        """Each pool member's reaction as the engine's parameters (its own profile, else the
        env's opponent profile) moved by its thinking, one row a member; kept until the pool
        grows."""
        members = self.pool.members
        # Members are only ever added (a snapshot is retired, not removed), so the length
        # tells when the cached stack is stale.
        if len(self._opp_params) != len(members):
            self._opp_params = np.stack(
                [delayed(m.reaction or self.reactions[1], m.think_ms).params() for m in members]
            )
        return self._opp_params

    def _finish(
        self,
        g: Group,
        parts: list[np.ndarray],
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
    ) -> None:
        """Pay and record the games that ended in one pass of the loop (``parts``: their rows,
        a tick's at a time, in order); deal their slots new games.

        One round of compiled and array work for every game of the pass
        (:mod:`train.vec_env.deal`): only the info dicts, and the draws of seats
        and opponents (a tick's games at a time), are made game by game."""
        ended = parts[0] if len(parts) == 1 else np.concatenate(parts)
        n = ended.size
        slots = ended + g.lo
        seat = self.seat[slots]
        last = np.empty((n, self.obs_dim), np.float32)
        outcome = np.empty(n, np.float32)
        truncated = np.empty(n, np.bool_)
        ticks = np.empty(n, np.int64)
        end_games(g.games.state, g.games.cfg, ended, seat, g.obs, last, outcome, truncated, ticks)
        # The episode return keeps the true outcome; only the reward paid for a cut game differs.
        paid = outcome.copy()
        if self.truncation_reward is not None:
            paid[truncated] = self.truncation_reward
        now = time.perf_counter()
        self.ep_return[slots] += outcome
        rewards[slots] += paid
        dones[slots] = True
        names = [m.name for m in self.pool.members]
        columns = zip(
            slots.tolist(),
            self.ep_return[slots].tolist(),
            self.ep_len[slots].tolist(),
            (now - self.ep_start[slots]).round(6).tolist(),
            (outcome > 0).tolist(),
            self.member[slots].tolist(),
            seat.tolist(),
            ticks.tolist(),
            # SB3 bootstraps from the value of a TimeLimit.truncated game; with a
            # truncation_reward the cut is a real ending, paid, not bootstrapped.
            (truncated & (self.truncation_reward is None)).tolist(),
            strict=True,
        )
        for j, (s, r, length, t, won, who, q, tick, cut) in enumerate(columns):
            infos[s] = {
                "terminal_observation": last[j],  # a row of a fresh array: nothing writes it
                "TimeLimit.truncated": cut,
                "episode": {"r": r, "l": length, "t": t},
                "is_success": won,
                "opponent": names[who],
                "seat": q,
                "ticks": tick,
            }
        self.pool.record(self.member[slots], outcome)
        self.counters["games"] += n
        self.ep_return[slots] = 0
        self.ep_len[slots] = 0
        self.ep_start[slots] = now
        self.restarts[slots] += 1
        self.game_no[slots] += 1
        self._new_games(g, ended, slots, [len(p) for p in parts])
