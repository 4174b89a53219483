"""The compiled half of ``SpeedVecEnv``'s restarts: the end of the games that ended, new deals.

A pass of the skip loop (:mod:`train.skip_loop`) ends a few games; the env pays
them, writes their infos and deals their slots anew. Done with numpy, that was
a dozen calls a pass (observe the ended games, gather the learner's rows, read
the results, deal, set each seat's reactions, observe the new games), each
with a fixed cost of microseconds that a handful of games does not amortise.
Here each of the two halves is one call, game by game: :func:`end_games` before
the new seats and opponents are drawn (a tick's new games at a time, in the
order the tick-by-tick loop drew them; with random seats and a one-member pool,
the usual case, by :func:`draw_seats` in one compiled call making exactly the
draws of the numpy calls), :func:`deal_games` after.
``tests/test_vec_env_reference.py`` checks every observation, reward and info
against the numpy version.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from speed_env.engine import C, deal_seeded, legal_row
from speed_env.observation import observe_game


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
    """For each game ``rows[j]`` that is over, with the learner in seat ``seat[j]``: the
    learner's last observation into ``last[j]``, its outcome (+1 won, -1 lost, 0 a draw or
    truncated: :meth:`speed_env.game.Games.outcome`), whether the clock cut the game, and its
    length in ticks. Rows ``obs[:, rows[j]]`` are overwritten (the game is dealt anew next)."""
    for j in range(rows.shape[0]):
        b = rows[j]
        g = s[b]
        observe_game(g, cfg, obs, b)
        q = seat[j]
        for i in range(obs.shape[2]):
            last[j, i] = obs[q, b, i]
        w = g.winner
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
    """Deal game ``rows[j]`` from ``seeds[j]`` (uint64), give the learner's seat ``seat[j]``
    the reaction ``learner`` and the other seat its opponent's, ``member_lat[members[j]]``
    (engine parameters), and write both seats' observations and masks."""
    for j in range(rows.shape[0]):
        b = rows[j]
        g = s[b]
        deal_seeded(g, cfg, seeds[j])
        q = seat[j]
        for k in range(lat.shape[2]):
            lat[b, q, k] = learner[k]
            lat[b, 1 - q, k] = member_lat[members[j], k]
        observe_game(g, cfg, obs, b)
        legal_row(g, cfg, 0, mask[0, b])
        legal_row(g, cfg, 1, mask[1, b])


@njit(cache=True)
def draw_seats(rng: np.random.Generator, sizes: np.ndarray, seat: np.ndarray) -> None:
    """For each run of ``sizes[i]`` new games in turn, the learner's seats into ``seat``
    (``rng.integers(0, 2, k)``), then the one-member pool's draw for their opponents
    (``rng.random(k)``: :meth:`train.pool.OpponentPool.sample`): numba's generator methods
    follow numpy's algorithms on the same bit generator, so these are the very numbers, and
    the generator's state after them, of those numpy calls made one run at a time
    (``tests/test_vec_env_reference.py`` checks it)."""
    lo = 0
    for k in sizes:
        seat[lo : lo + k] = rng.integers(0, 2, k)
        rng.random(k)
        lo += k
