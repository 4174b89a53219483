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


@njit(cache=True)
def step_observe(
    s: np.ndarray, cfg: Config, lat: np.ndarray, actions: np.ndarray, finished: np.ndarray,
    obs: np.ndarray, mask: np.ndarray, rewards: np.ndarray, illegal: np.ndarray, over: np.ndarray,
    truncated: np.ndarray,
) -> int:
    """Step every game with ``actions`` (2, B) and write what the step returns; the number ended.

    Writes, for each game ``b``: ``rewards[:, b]`` (+1/-1 to the seats of a game
    won on this tick, else 0), ``illegal[p, b]`` (seat ``p``'s action was not
    legal before the tick, so it was taken as a wait), ``over[b]`` (the game is
    over and ``finished[b]`` does not say it already ended), ``truncated[b]``
    (over by the clock), and the observation and mask rows of both seats after
    the tick. Every entry of the output arrays is written.
    """
    n = 0
    for b in range(s.shape[0]):
        g = s[b]
        was_over = g.phase == OVER
        before0, before1 = g.illegal[0], g.illegal[1]
        a0, a1 = actions[0, b], actions[1, b]
        step_game(g, cfg, lat[b], a0, a1)
        if was_over:  # only waiting is legal in a game that is over
            illegal[0, b] = a0 != 0
            illegal[1, b] = a1 != 0
        else:
            illegal[0, b] = g.illegal[0] != before0
            illegal[1, b] = g.illegal[1] != before1
        rewards[0, b] = 0.0
        rewards[1, b] = 0.0
        if not was_over and g.phase == OVER and g.winner >= 0 and g.winner != DRAW:
            rewards[g.winner, b] = 1.0
            rewards[1 - g.winner, b] = -1.0
        ended = g.phase == OVER and not finished[b]
        over[b] = ended
        truncated[b] = ended and g.truncated
        n += ended
        _observe(s, cfg, b, obs, mask)
    return n


@njit(cache=True)
def restart_observe(
    s: np.ndarray, cfg: Config, games: np.ndarray, seeds: np.ndarray, obs: np.ndarray, mask: np.ndarray
) -> None:
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
