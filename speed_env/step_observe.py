"""One tick of a batch as one compiled pass: step each game, then observe it at once.

``BatchEnv`` and the PettingZoo env step through here. Stepping every game
(``engine.step_all``) and then observing every game (``observation.observe_all``)
reads each game's record twice; at a few thousand games the records (about
900 bytes each) and the observations (1 KB a game) no longer fit in the
core's cache, so the second pass reloads every record from memory. Here each
game is stepped and observed while its record is still in the cache, and the
per-game facts ``BatchEnv`` reports (illegal actions, ended, truncated) are
written in the same pass instead of by a dozen numpy passes over the batch.
The rules and the observation are exactly those of :mod:`speed_env.engine` and
:mod:`speed_env.observation`: this module only orders their calls.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from speed_env.engine import DRAW, OVER, Config, deal_seeded, legal_row, step_game
from speed_env.observation import observe_game


@njit(cache=True, inline="always")
def _observe(s: np.ndarray, cfg: Config, b: int, obs: np.ndarray, mask: np.ndarray) -> None:
    g = s[b]
    observe_game(g, cfg, obs, b)
    legal_row(g, cfg, 0, mask[0, b])
    legal_row(g, cfg, 1, mask[1, b])


class Tick(NamedTuple):
    """What one tick of a batch of ``n`` games gives back: fresh arrays the caller owns."""

    obs: np.ndarray
    """float32 (2, n, obs_dim): both seats' observations after the tick."""
    mask: np.ndarray
    """int8 (2, n, n_actions): both seats' legal actions after the tick."""
    rewards: np.ndarray
    """float32 (2, n): +1 / -1 to the seats of a game won on this tick, else 0."""
    illegal: np.ndarray
    """bool (2, n): the seat's action was illegal before the tick and was taken as a wait."""
    over: np.ndarray
    """bool (n,): the game is over and its end was not reported before (it ended on this tick)."""
    terminated: np.ndarray
    """bool (n,): ``over`` with a result (a win, or a draw by the rules)."""
    truncated: np.ndarray
    """bool (n,): ``over`` by the clock (``max_game_ms``)."""
    winner: np.ndarray
    """int8 (n,): 0 / 1 the winning seat, 2 a draw, of an ``over`` game; -1 for the others."""
    played: np.ndarray
    """int32 (2, n): cards each seat played in an ``over`` game; 0 for the others."""
    bounced: np.ndarray
    """int32 (2, n): cards each seat had bounce back in an ``over`` game; 0 for the others."""
    clock_ms: np.ndarray
    """int64 (n,): the length of an ``over`` game; 0 for the others."""


def new_tick(n: int, obs_dim: int, n_actions: int) -> Tick:
    """Uninitialised arrays for one tick of ``n`` games (:func:`step_observe` writes every entry)."""
    return Tick(
        np.empty((2, n, obs_dim), np.float32), np.empty((2, n, n_actions), np.int8),
        np.empty((2, n), np.float32), np.empty((2, n), np.bool_), np.empty(n, np.bool_),
        np.empty(n, np.bool_), np.empty(n, np.bool_), np.empty(n, np.int8),
        np.empty((2, n), np.int32), np.empty((2, n), np.int32), np.empty(n, np.int64),
    )


@njit(cache=True)
def step_observe(s: np.ndarray, cfg: Config, lat: np.ndarray, actions: np.ndarray, finished: np.ndarray,
                 out: Tick) -> int:
    """Step every game with ``actions`` (2, B), write every entry of ``out``; return how many are over.

    A game is ``over`` when it is over and ``finished[b]`` does not say its end
    was reported already (``BatchEnv(autoreset=False)`` reports an end once).
    """
    n_over = 0
    for b in range(s.shape[0]):
        g = s[b]
        was_over = g.phase == OVER
        before0, before1 = g.illegal[0], g.illegal[1]
        a0, a1 = actions[0, b], actions[1, b]
        step_game(g, cfg, lat[b], a0, a1)
        if was_over:  # only waiting is legal in a game that is over
            out.illegal[0, b] = a0 != 0
            out.illegal[1, b] = a1 != 0
        else:  # the engine counts the illegal actions it takes as waits
            out.illegal[0, b] = g.illegal[0] != before0
            out.illegal[1, b] = g.illegal[1] != before1
        out.rewards[0, b] = 0.0
        out.rewards[1, b] = 0.0
        if not was_over and g.phase == OVER and g.winner >= 0 and g.winner != DRAW:
            out.rewards[g.winner, b] = 1.0
            out.rewards[1 - g.winner, b] = -1.0
        ended = g.phase == OVER and not finished[b]
        out.over[b] = ended
        out.truncated[b] = ended and g.truncated
        out.terminated[b] = ended and not g.truncated
        out.winner[b] = g.winner if ended else -1
        for p in range(2):
            out.played[p, b] = g.played[p] if ended else 0
            out.bounced[p, b] = g.bounced[p] if ended else 0
        out.clock_ms[b] = g.clock if ended else 0
        n_over += ended
        _observe(s, cfg, b, out.obs, out.mask)
    return n_over


@njit(cache=True)
def restart_observe(s: np.ndarray, cfg: Config, games: np.ndarray, seeds: np.ndarray, obs: np.ndarray,
                    mask: np.ndarray) -> None:
    """Deal game ``games[j]`` afresh from ``seeds[j]`` and rewrite its observation and mask rows."""
    for j in range(games.shape[0]):
        b = games[j]
        deal_seeded(s[b], cfg, seeds[j])
        _observe(s, cfg, b, obs, mask)


@njit(cache=True)
def first_illegal(s: np.ndarray, cfg: Config, actions: np.ndarray, row: np.ndarray) -> int:
    """``p * B + b`` of the first in-space action the mask forbids now, or -1.

    When one is found, ``row`` holds that seat's mask (for the error message).
    """
    n = s.shape[0]
    for p in range(2):
        for b in range(n):
            a = actions[p, b]
            if a != 0:
                legal_row(s[b], cfg, p, row)
                if row[a] == 0:
                    return p * n + b
    return -1
