"""One tick of chosen games of a batch, stepped and observed in one compiled pass.

The training env (``train.vec_env.SpeedVecEnv``) plays each game on, tick by
tick, until its learner has a choice, so every tick it steps a shrinking
subset of the batch. Stepping the subset (``engine.step_some``), observing it
(``observation.observe_games``) and then finding, with numpy, the games
where the learner is still forced to wait and those where its opponent has a
play took a dozen calls a tick, each with a fixed cost of microseconds that
the few dozen games of a tick do not amortise. Here one call does all of it,
game by game: step, observe (both seats' rows and masks, the game's whole
observation), and sort the game into *ended*, *still forced* (``seat`` has at
most one legal action, the wait) or neither; for a forced game it also says
whether the other seat has a play. And where no policy has anything to choose
(every game still forced has both seats waiting) it takes the next tick
itself, without going back to Python. The rules and observations are exactly
those of :mod:`speed_env.engine` and :mod:`speed_env.observation`: this
module only orders their calls (``tests/test_training.py`` checks the
training env's games against the tick-by-tick path).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from speed_env.engine import OVER, Config, legal_row, step_game
from speed_env.observation import observe_game


@njit(cache=True)
def play_forced(
    s: np.ndarray,
    cfg: Config,
    lat: np.ndarray,
    games: np.ndarray,
    seat: np.ndarray,
    mine: np.ndarray,
    theirs: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    max_ticks: int,
    stop_at: float,
    forced: np.ndarray,
    other_free: np.ndarray,
    ended: np.ndarray,
) -> tuple[int, int, int, int]:
    """Tick games ``games[j]`` (``seat[b]`` of game ``b`` playing ``mine[j]``, the other seat
    ``theirs[j]``), then keep ticking, all waiting, those where both seats are forced to wait.

    A tick steps each game of the list, observes into ``obs``/``mask`` each one
    that did not end, and keeps, in order, the running games where ``seat[b]``
    has at most one legal action (the wait): those are written to ``forced``,
    with ``other_free`` saying whether the other seat has a play. The next tick
    steps the kept games with both seats waiting; it is taken only while no game
    ended (the caller deals those anew), no kept game's other seat has a play
    (the caller's policy must choose it), more than ``stop_at`` games are kept,
    and fewer than ``max_ticks`` ticks were taken. Returns (games kept, games
    ended, written to ``ended``, ticks taken, game-ticks stepped).
    """
    n_actions = mask.shape[2]
    src = games
    n_src = games.shape[0]
    n_ended = 0
    ticks = 0
    stepped = 0
    while True:
        n_forced = 0
        any_free = False
        for j in range(n_src):
            b = src[j]
            g = s[b]
            q = seat[b]
            a_mine = mine[j] if ticks == 0 else 0
            a_theirs = theirs[j] if ticks == 0 else 0
            was_over = g.phase == OVER
            if q == 0:
                step_game(g, cfg, lat[b], a_mine, a_theirs)
            else:
                step_game(g, cfg, lat[b], a_theirs, a_mine)
            if (not was_over) and g.phase == OVER:
                ended[n_ended] = b
                n_ended += 1
                continue
            observe_game(g, cfg, obs, b)
            legal_row(g, cfg, 0, mask[0, b])
            legal_row(g, cfg, 1, mask[1, b])
            legal = 0
            for a in range(n_actions):
                legal += mask[q, b, a]
            if legal < 2:
                free = False
                for a in range(1, n_actions):
                    if mask[1 - q, b, a] != 0:
                        free = True
                        break
                # In place: entry n_forced <= j of the list has been read already.
                forced[n_forced] = b
                other_free[n_forced] = free
                any_free = any_free or free
                n_forced += 1
        stepped += n_src
        ticks += 1
        if n_ended or any_free or n_forced <= stop_at or ticks >= max_ticks:
            return n_forced, n_ended, ticks, stepped
        src = forced
        n_src = n_forced
