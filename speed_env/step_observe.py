"""One tick of a batch as one compiled pass: step each game, then observe it at once.

``BatchEnv`` and the PettingZoo env step through here. Stepping every game
(``engine.step_all``) and then observing every game (``observation.observe_all``)
reads each game's record twice; at a few thousand games the records (about
900 bytes each) and the observations (1 KB a game) no longer fit in the
core's cache, so the second pass reloads every record from memory. Here each
game is stepped and observed while its record is still in the cache, and the
per-game facts ``BatchEnv`` reports (illegal actions, ended, truncated, the
end-of-game results) are written in the same pass instead of by a dozen
numpy passes over the batch.

The observations and masks are kept in buffers from tick to tick, and only
what a tick changed is rewritten: most ticks of a game move nothing but the
clock (a card is in the air, or nobody can play), and then only the entries
that depend on the clock are (:func:`~speed_env.observation.observe_clock`);
a game where anything happened is observed whole. ``_events`` tells the two
apart. Where the caller wants fresh arrays (``BatchEnv``'s default), each
game's updated rows are copied into them in the same pass, while they are
still in the cache, instead of copying the whole buffers afterwards; and the
match points of a game that ended are counted here too, not by a numpy pass
over every game of the batch. The rules and the observation are exactly those of
:mod:`speed_env.engine` and :mod:`speed_env.observation`: this module only
orders their calls, and ``tests/env/test_observation_kernel.py`` checks the
result against a whole observation on every step of many games."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import njit

from speed_env.engine import DRAW, OVER, Config, cards_left, deal_seeded, legal_row, step_game
from speed_env.observation import observe_clock, observe_game


@njit(cache=True, inline="always")
def observe_whole(s: np.ndarray, cfg: Config, b: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """Rewrite game ``b``'s rows whole: both seats' observations and masks (also for the
    training env's compiled loops, which keep the same buffers)."""
    g = s[b]
    observe_game(g, cfg, obs, b)
    legal_row(g, cfg, 0, mask[0, b])
    legal_row(g, cfg, 1, mask[1, b])


@njit(cache=True, inline="always")
def _hand_out(
    b: int, obs: np.ndarray, mask: np.ndarray, out_obs: np.ndarray, out_mask: np.ndarray
) -> None:
    """Copy game ``b``'s rows of the buffers into the fresh arrays, while they are in the cache."""
    for q in range(2):
        for j in range(obs.shape[2]):
            out_obs[q, b, j] = obs[q, b, j]
        for j in range(mask.shape[2]):
            out_mask[q, b, j] = mask[q, b, j]


class Tick(NamedTuple):
    """What one tick of a batch of ``n`` games gives back."""

    obs: np.ndarray
    """float32 (2, n, obs_dim): both seats' observations after the tick (the buffer updated in
    place, or with ``fresh`` a new array holding the same numbers)."""
    mask: np.ndarray
    """int8 (2, n, n_actions): both seats' legal actions after the tick (the buffer, or with
    ``fresh`` a new array)."""
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
    points: np.ndarray
    """int64 (2, n): match points of an ``over`` game won by a seat (the winner scores the cards
    the loser has left: :func:`~speed_env.table.match_points`); 0 for the others."""


def in_parts(work: Callable[[int, int], Any], n: int, threads: int) -> list[Any]:
    """``work(lo, hi)`` over ``threads`` equal parts of ``range(n)``, each in a thread of a shared
    pool (``work`` must release the GIL to gain anything); the results in order."""
    if threads <= 1 or n < 2:
        return [work(0, n)]
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="speed_env"
        )
    bounds = np.linspace(0, n, min(threads, n) + 1).astype(int).tolist()
    parts = [pool.submit(work, lo, hi) for lo, hi in pairwise(bounds)]
    return [p.result() for p in parts]


_POOLS: dict[int, ThreadPoolExecutor] = {}  # by size, made on first use; threads hold no game state


class Batch(Protocol):
    """What :func:`run_tick` reads of a batch of games (a :class:`~speed_env.game.Games`)."""

    state: np.ndarray
    cfg: Config
    lat: np.ndarray
    obs_buf: np.ndarray
    mask_buf: np.ndarray
    threads: int


def run_tick(
    g: Batch, actions: np.ndarray, finished: np.ndarray, full: bool, fresh: bool = False
) -> tuple[Tick, int]:
    """One tick of every game of ``g`` through :func:`step_observe`: the :class:`Tick` and how
    many are over.

    ``g.obs_buf`` and ``g.mask_buf`` are the games' buffers, updated in place
    (all rewritten when ``full``); the rest of the tick is fresh. With
    ``fresh`` the tick's ``obs`` and ``mask`` are new arrays, each game's rows
    copied there in the same pass right after they are updated (cheaper than
    copying the buffers afterwards: the rows are still in the cache). The
    kernel gets a few plain arrays, not ``g`` or the named tuple: numba types
    plain arrays in C, a named tuple in Python (tens of microseconds a call,
    which a batch of one would feel). With ``g.threads`` above 1 the games are
    shared out among that many threads (each game is stepped by one of them,
    so the results are the same whatever the number).
    """
    s, obs, mask = g.state, g.obs_buf, g.mask_buf
    n = s.shape[0]
    rewards = np.empty((2, n), np.float32)
    flags = np.empty((5, n), np.bool_)  # illegal (2 rows), over, terminated, truncated
    ends = np.empty((8, n), np.int64)  # winner, played (2), bounced (2), clock, points (2)
    out_obs, out_mask = (np.empty_like(obs), np.empty_like(mask)) if fresh else (obs, mask)
    n_over = sum(
        in_parts(
            lambda lo, hi: step_observe(
                s,
                g.cfg,
                g.lat,
                actions,
                finished,
                full,
                obs,
                mask,
                rewards,
                flags,
                ends,
                lo,
                hi,
                fresh,
                out_obs,
                out_mask,
            ),
            n,
            g.threads,
        )
    )
    tick = Tick(
        out_obs,
        out_mask,
        rewards,
        flags[0:2],
        flags[2],
        flags[3],
        flags[4],
        ends[0].astype(np.int8),
        ends[1:3].astype(np.int32),
        ends[3:5].astype(np.int32),
        ends[5],
        ends[6:8],
    )
    return tick, n_over


@njit(cache=True, inline="always")
def _events(g: Any) -> tuple[int, int, int, int, int]:
    """Changes whenever anything but the clock changes in the game's observation or mask.

    Every commit counts in ``commits`` (a play-out flip choice changes
    ``fl_kind``), every landing in ``played``, ``bounced`` or ``fl_kind``,
    every flip in ``flips``, every change of phase or countdown in ``phase``
    and ``flip_at``. The observation test checks it on every step of many games.
    """
    counts = (
        g.commits[0]
        + g.commits[1]
        + g.played[0]
        + g.played[1]
        + g.bounced[0]
        + g.bounced[1]
        + g.flips
    )
    return (int(counts), int(g.phase), int(g.flip_at), int(g.fl_kind[0]), int(g.fl_kind[1]))


@njit(cache=True, nogil=True)
def step_observe(
    s: np.ndarray,
    cfg: Config,
    lat: np.ndarray,
    actions: np.ndarray,
    finished: np.ndarray,
    full: bool,
    obs: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    flags: np.ndarray,
    ends: np.ndarray,
    lo: int,
    hi: int,
    fresh: bool,
    out_obs: np.ndarray,
    out_mask: np.ndarray,
) -> int:
    """Step every game with ``actions`` (2, B), update ``obs`` and ``mask`` and write every entry of
    ``rewards``, ``flags`` and ``ends`` (laid out as in :func:`run_tick`); return how many are over.

    ``obs`` and ``mask`` must hold the games' rows from before the
    tick (unless ``full``): a game where only the clock moved gets only its
    clock entries rewritten (:func:`~speed_env.observation.observe_clock`), a
    game where anything happened is observed whole. With ``fresh`` each game's
    updated rows are then copied into ``out_obs`` and ``out_mask``. A game is
    ``over`` when it is over and ``finished[b]`` does not say its end was
    reported already (``BatchEnv(autoreset=False)`` reports an end once). Only
    games ``lo`` to ``hi - 1`` are stepped: threads may share a batch out (the
    GIL is released).
    """
    n_over = 0
    for b in range(lo, hi):
        g = s[b]
        before = _events(g)
        was_over = g.phase == OVER
        before0, before1 = g.illegal[0], g.illegal[1]
        a0, a1 = actions[0, b], actions[1, b]
        step_game(g, cfg, lat[b], a0, a1)
        if was_over:  # only waiting is legal in a game that is over
            flags[0, b] = a0 != 0
            flags[1, b] = a1 != 0
        else:  # the engine counts the illegal actions it takes as waits
            flags[0, b] = g.illegal[0] != before0
            flags[1, b] = g.illegal[1] != before1
        rewards[0, b] = 0.0
        rewards[1, b] = 0.0
        if not was_over and g.phase == OVER and g.winner >= 0 and g.winner != DRAW:
            rewards[g.winner, b] = 1.0
            rewards[1 - g.winner, b] = -1.0
        ended = g.phase == OVER and not finished[b]
        flags[2, b] = ended
        flags[3, b] = ended and not g.truncated
        flags[4, b] = ended and g.truncated
        ends[0, b] = g.winner if ended else -1
        for p in range(2):
            ends[1 + p, b] = g.played[p] if ended else 0
            ends[3 + p, b] = g.bounced[p] if ended else 0
            # match points (us / pagat): the winner scores the cards the loser has left
            won = ended and g.winner == p
            ends[6 + p, b] = cards_left(g, cfg, 1 - p) if won else 0
        ends[5, b] = g.clock if ended else 0
        n_over += ended
        if full or _events(g) != before:
            observe_whole(s, cfg, b, obs, mask)
        else:
            observe_clock(g, cfg, obs, b)
        if fresh:
            _hand_out(b, obs, mask, out_obs, out_mask)
    return n_over


@njit(cache=True)
def restart_observe(
    s: np.ndarray,
    cfg: Config,
    games: np.ndarray,
    seeds: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    out_obs: np.ndarray,
    out_mask: np.ndarray,
) -> None:
    """Deal game ``games[j]`` afresh from ``seeds[j]`` and rewrite its observation and mask rows,
    in the buffers ``obs`` and ``mask`` and in ``out_obs`` and ``out_mask`` (which may be them)."""
    for j in range(games.shape[0]):
        b = games[j]
        deal_seeded(s[b], cfg, seeds[j])
        observe_whole(s, cfg, b, obs, mask)
        _hand_out(b, obs, mask, out_obs, out_mask)


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
