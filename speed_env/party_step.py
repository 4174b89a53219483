"""One tick of a batch of three- or four-seat games as one compiled pass: step, then observe.

The n-seat twin of :mod:`speed_env.step_observe` (which stays the two-seat
path, unchanged): each game is stepped by the engine's n-seat kernel
(:func:`speed_env.engine.step_seats`) and, while its record is in the cache,
every seat's observation (:mod:`speed_env.party_obs`) and mask is rewritten,
and the per-game facts the n-seat ``BatchEnv`` and vector envs report are
written in the same pass. Only a game where anything but the clock moved is
observed whole; in the others the clock entries alone are rewritten (most
ticks: a card is in the air, or nobody can play).

Arrays are seat-major with ``n`` seats: ``actions``, ``rewards`` ``(n, B)``;
``flags`` ``(n + 3, B)``: illegal per seat, then over, terminated, truncated;
``ends`` ``(3 n + 2, B)``: winner, played per seat, bounced per seat, clock,
match points per seat. :func:`run_party_tick` returns them as a
:class:`~speed_env.step_observe.Tick`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from speed_env import engine
from speed_env.engine import OVER, Config, cards_left, deal_seeded, step_seats
from speed_env.party_obs import observe_clock, observe_whole
from speed_env.step_observe import Batch, Tick, in_parts


@njit(cache=True, inline="always")
def _events(g: Any) -> tuple[int, int, int, int]:
    """Changes whenever anything but the clock changes in the game's observations or masks:
    commits, landings (``played``, ``bounced``), flips, the phase and its countdown, and the
    kinds of the cards in flight (a play-out flip choice changes only those)."""
    counts = g.flips
    kinds = 0
    for p in range(engine.seats(g)):
        counts += g.commits[p] + g.played[p] + g.bounced[p]
        kinds = kinds * 8 + g.fl_kind[p] + 1
    return (int(counts), int(g.phase), int(g.flip_at), int(kinds))


@njit(cache=True, inline="always")
def _hand_out(
    b: int, obs: np.ndarray, mask: np.ndarray, out_obs: np.ndarray, out_mask: np.ndarray
) -> None:
    """Copy game ``b``'s rows of the buffers into the fresh arrays, while they are in the cache."""
    for q in range(obs.shape[0]):
        for j in range(obs.shape[2]):
            out_obs[q, b, j] = obs[q, b, j]
        for j in range(mask.shape[2]):
            out_mask[q, b, j] = mask[q, b, j]


@njit(cache=True, nogil=True)
def party_step_observe(
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
    """Step games ``lo`` to ``hi - 1`` with ``actions`` (n, B), update ``obs`` and ``mask`` and
    write their entries of ``rewards``, ``flags`` and ``ends`` (the module docstring); return
    how many are over (ended and not already reported in ``finished``)."""
    n_over = 0
    for b in range(lo, hi):
        g = s[b]
        n = engine.seats(g)
        before = _events(g)
        was_over = g.phase == OVER
        # each seat's illegal count before the tick (scalars: no array per game and tick)
        i0, i1, i2 = g.illegal[0], g.illegal[1], g.illegal[2]
        i3 = g.illegal[3] if n > 3 else 0
        a3 = actions[3, b] if n > 3 else 0
        step_seats(g, cfg, lat[b], actions[0, b], actions[1, b], actions[2, b], a3)
        for p in range(n):
            if was_over:  # only waiting is legal in a game that is over
                flags[p, b] = actions[p, b] != 0
            else:  # the engine counts the illegal actions it takes as waits
                was = i0 if p == 0 else (i1 if p == 1 else (i2 if p == 2 else i3))
                flags[p, b] = g.illegal[p] != was
            rewards[p, b] = 0.0
        if not was_over and g.phase == OVER and 0 <= g.winner < n:
            for p in range(n):
                rewards[p, b] = 1.0 if p == g.winner else -1.0 / (n - 1)
        ended = g.phase == OVER and not finished[b]
        flags[n, b] = ended
        flags[n + 1, b] = ended and not g.truncated
        flags[n + 2, b] = ended and g.truncated
        ends[0, b] = g.winner if ended else -1
        won = ended and 0 <= g.winner < n
        others = 0
        if won:
            for p in range(n):
                if p != g.winner:
                    others += cards_left(g, cfg, p)
        for p in range(n):
            ends[1 + p, b] = g.played[p] if ended else 0
            ends[1 + n + p, b] = g.bounced[p] if ended else 0
            # match points (us / pagat): the winner scores every other seat's cards left
            ends[2 + 2 * n + p, b] = others if won and g.winner == p else 0
        ends[1 + 2 * n, b] = g.clock if ended else 0
        n_over += ended
        if full or _events(g) != before:
            observe_whole(s, cfg, b, obs, mask)
        else:
            observe_clock(g, cfg, obs, b)
        if fresh:
            _hand_out(b, obs, mask, out_obs, out_mask)
    return n_over


@njit(cache=True)
def party_restart_observe(
    s: np.ndarray,
    cfg: Config,
    games: np.ndarray,
    seeds: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    out_obs: np.ndarray,
    out_mask: np.ndarray,
) -> None:
    """Deal game ``games[j]`` afresh from ``seeds[j]`` and rewrite its rows, in the buffers
    ``obs`` and ``mask`` and in ``out_obs`` and ``out_mask`` (which may be them)."""
    for j in range(games.shape[0]):
        b = games[j]
        deal_seeded(s[b], cfg, seeds[j])
        observe_whole(s, cfg, b, obs, mask)
        _hand_out(b, obs, mask, out_obs, out_mask)


def run_party_tick(
    g: Batch, actions: np.ndarray, finished: np.ndarray, full: bool, fresh: bool = False
) -> tuple[Tick, int]:
    """One tick of every game of ``g`` (n seats) through :func:`party_step_observe`: the
    :class:`~speed_env.step_observe.Tick` (arrays ``(n, B)`` where the two-seat tick has
    ``(2, B)``) and how many games are over. As :func:`~speed_env.step_observe.run_tick`."""
    s, obs, mask = g.state, g.obs_buf, g.mask_buf
    n, count = obs.shape[0], s.shape[0]
    rewards = np.empty((n, count), np.float32)
    flags = np.empty((n + 3, count), np.bool_)
    ends = np.empty((3 * n + 2, count), np.int64)
    out_obs, out_mask = (np.empty_like(obs), np.empty_like(mask)) if fresh else (obs, mask)

    def part(lo: int, hi: int) -> int:
        return int(
            party_step_observe(
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
            )
        )

    n_over = sum(in_parts(part, count, g.threads))
    tick = Tick(
        out_obs,
        out_mask,
        rewards,
        flags[0:n],
        flags[n],
        flags[n + 1],
        flags[n + 2],
        ends[0].astype(np.int8),
        ends[1 : 1 + n].astype(np.int32),
        ends[1 + n : 1 + 2 * n].astype(np.int32),
        ends[1 + 2 * n],
        ends[2 + 2 * n :],
    )
    return tick, n_over
