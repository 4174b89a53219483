"""The compiled half of ``SpeedVecEnv``'s skip-forced loop: ticks of the games still waiting.

The training env plays each game on, tick by tick, until its learner has a
choice, so every tick it steps a shrinking subset of the batch (a few dozen
games). In numpy that was a dozen calls a tick (step the subset, observe it,
find the games still forced, gather the opponent's rows), each with a fixed
cost of microseconds that so few games do not amortise. :func:`play_forced`
does a tick in one pass, game by game: the opponent's action, the step, the
observation (both seats' rows and masks, written whole), and whether the
learner is still forced to wait. It takes the following ticks itself, and
goes back to Python only where Python must act (as ``BatchEnv``'s step does, a
game where only the clock moved has only its clock entries rewritten: the
rows of ``obs`` and ``mask`` always hold every game's current observation):

- an opponent has a play and its policy runs in Python (any policy); with a
  ``chain`` bot (:class:`agents.chain.ChainAgent`, the usual training opponent)
  the kernel plays it itself (:func:`agents.chain.act_row`, the same scores
  and the same tie-breaking draws, in the same order, as ``act``), so it never
  has to go back;
- fewer than ``stop_at`` games still wait, or ``max_ticks`` ticks were taken.

Most of a forced game's ticks move only its clock: its card is in the air, or
the table counts down to a flip, and neither seat can act
(:func:`speed_env.engine.quiet_ticks` counts them: no landing, flip, idle
countdown or truncation falls due). Such a game *sleeps* through them: it
stays in the list, as forced with an opponent that has no play, but is not
stepped, and when it wakes (on the tick of its event) or the pass ends its
clock moves by the ticks it slept and the clock entries of its rows are
rewritten, which is exactly what ticking it would have left (no draw, no
count and no other entry changes on such a tick). About 70% of a training
run's game-ticks are jumped so.

Games that end are listed with their tick and left alone (they are not
stepped again this step); the caller deals them anew with their seats and
opponents drawn a tick's games at a time, in the order the Python loop drew
them, so the deals, seats and opponents are the same.
``tests/train/test_vec_env_reference.py`` checks every observation, reward and info
against the numpy loop this replaced, which steps every game on every tick.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from numba import njit

from agents.chain import ChainAgent, act_row, work_arrays
from agents.runtime.interrupts import sigint_deferred
from speed_env.engine import OVER, C, quiet_ticks, step_game
from speed_env.observation import observe_clock
from speed_env.step_observe import (
    _events,  # what BatchEnv's step reads to observe only the clock
    observe_whole,
)
from train.vec_env.deal import Group
from train.vec_env.pool import OpponentPool


@njit(cache=True, inline="always")
def _n_legal(mask: np.ndarray, q: int, b: int) -> int:
    """How many actions seat ``q`` of game ``b`` may take (1: only the wait)."""
    n = 0
    for a in range(mask.shape[2]):
        n += mask[q, b, a]
    return n


@njit(cache=True, inline="always")
def _has_play(mask: np.ndarray, q: int, b: int) -> bool:
    """Whether seat ``q`` of game ``b`` may do more than wait (any legal action past 0)."""
    for a in range(1, mask.shape[2]):  # noqa: SIM110 (a plain loop: numba compiles no any(genexpr))
        if mask[q, b, a] != 0:
            return True
    return False


# Placeholders of the right types: numba compiles one signature, chain or not.
NO_CHAIN: tuple[Any, ...] = (
    np.zeros(1, np.int64),
    0,
    np.zeros(1, np.float64),
    np.zeros(1, np.int64),
    np.zeros(1, np.float64),
)
"""Placeholder chain arguments of :func:`play_forced` where the opponents act in Python (its
types stay fixed, so it compiles once)."""
_NO_RNG = np.random.default_rng(0)  # never drawn from: chain is off


@njit(cache=True)
def play_forced(
    s: np.ndarray,
    cfg: Any,
    lat: np.ndarray,
    games: np.ndarray,
    seat: np.ndarray,
    mine: np.ndarray,
    theirs: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    max_ticks: int,
    stop_at: float,
    chain: bool,
    chain_args: tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray],
    rng: np.random.Generator,
    forced: np.ndarray,
    other_free: np.ndarray,
    ended: np.ndarray,
    ended_tick: np.ndarray,
    quiet: np.ndarray,
) -> tuple[int, int, int, int]:
    """Tick games ``games[j]`` while the learner is forced to wait.

    ``games`` are group rows; ``seat[b]`` is the learner's seat in game ``b``. The learner plays
    ``mine[j]`` on the first tick.

    Each tick steps every game of the list, updates the rows of ``obs``/``mask``
    (which hold each game's observation from before the tick) of each one that
    did not end, and keeps, in order, those where the learner has at
    most one legal action (the wait): written to ``forced``, with ``other_free``
    (the opponent has a play). The opponent plays ``theirs[j]`` on the first
    tick and waits after it, unless ``chain``: then it plays
    :func:`~agents.chain.act_row` with ``chain_args`` and ``rng`` wherever it
    has a play. Games that end go to ``ended`` with their tick in
    ``ended_tick``. Another tick is taken while more than ``stop_at`` games
    are kept, fewer than ``max_ticks`` were taken and (unless ``chain``) no
    kept game's opponent has a play. Returns (kept, ended, ticks, game-ticks).
    """
    at, nr, hand_sizes, tag, w = chain_args
    n_actions = mask.shape[2]
    tick_ms = cfg[C.tick_ms]
    src, n_src = games, games.shape[0]
    n_ended = ticks = stepped = 0
    # A game whose next ticks only move its clock (quiet_ticks) sleeps through them: from tick
    # asleep[b] to wake[b] it stays in the list untouched, and its clock and the clock entries
    # of its rows are brought up to date when it wakes or the pass ends (-1: awake).
    work = work_arrays(n_actions)  # chain's scratch, made once for the pass
    asleep = np.full(s.shape[0], -1, np.int64)
    wake = np.empty(s.shape[0], np.int64)
    while True:
        n_forced = 0
        any_free = False
        for j in range(n_src):
            b = src[j]
            g = s[b]
            q = seat[b]
            if asleep[b] >= 0:
                if ticks < wake[b]:  # forced, its opponent without a play: as it was
                    quiet[1] += 1
                    forced[n_forced] = b
                    other_free[n_forced] = False
                    n_forced += 1
                    continue
                g.clock += (ticks - asleep[b]) * tick_ms
                asleep[b] = -1
            # The chosen actions play on the first tick only; after it both wait unless
            # chain plays the opponent.
            a_mine = mine[j] if ticks == 0 else 0
            a_theirs = theirs[j] if ticks == 0 else 0
            free = _has_play(mask, 1 - q, b)
            if chain and free:
                a_theirs = act_row(
                    obs[1 - q], b, mask[1 - q, b], at, nr, hand_sizes, tag, w, rng, work
                )
            if a_mine == 0 and a_theirs == 0 and not free and _n_legal(mask, q, b) < 2:
                k = quiet_ticks(g, cfg)
                if k > 0:  # forced to wait, and so is the opponent: sleep through k ticks
                    asleep[b] = ticks
                    wake[b] = ticks + k
                    quiet[0] += 1
                    quiet[1] += 1
                    forced[n_forced] = b
                    other_free[n_forced] = False
                    n_forced += 1
                    continue
            before = _events(g)
            was_over = g.phase == OVER
            # step_game takes seat 0's action first.
            if q == 0:
                step_game(g, cfg, lat[b], a_mine, a_theirs)
            else:
                step_game(g, cfg, lat[b], a_theirs, a_mine)
            if (not was_over) and g.phase == OVER:
                ended[n_ended] = b
                ended_tick[n_ended] = ticks
                n_ended += 1
                continue
            if _events(g) != before:
                observe_whole(s, cfg, b, obs, mask)
            else:  # only the clock moved: its entries alone change (the mask does not)
                observe_clock(g, cfg, obs, b)
            if _n_legal(mask, q, b) < 2:
                free = _has_play(mask, 1 - q, b)
                # In place from the second tick on: entry n_forced <= j was read already.
                forced[n_forced] = b
                other_free[n_forced] = free
                any_free = any_free or free
                n_forced += 1
        stepped += n_src
        ticks += 1
        # An opponent with a play acts in Python, unless chain acts here: hand back.
        if (any_free and not chain) or n_forced <= stop_at or ticks >= max_ticks:
            for j in range(n_forced):  # the sleepers' clocks, to the end of the pass
                b = forced[j]
                if asleep[b] >= 0:
                    s[b].clock += (ticks - asleep[b]) * tick_ms
                    observe_clock(s[b], cfg, obs, b)
            return n_forced, n_ended, ticks, stepped
        src, n_src = forced, n_forced


Chain = tuple[tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray], np.random.Generator]


def compiled_chain(pool: OpponentPool, group: int, dim: int) -> Chain | None:
    """The arguments of a ``chain`` opponent that :func:`play_forced` plays itself.

    Given when the pool is that one bot, its policy for rules group ``group``; None when the
    opponents act in Python.
    """
    members = pool.members
    policy = members[0].policies[group] if len(members) == 1 else None
    if type(policy) is not ChainAgent:  # a subclass may act otherwise
        return None
    at, nr, hand_sizes, tag, w, rng = policy.kernel_args(dim)
    return (at, nr, hand_sizes, tag, w), rng


def tick_forced(
    group: Group,
    pending: np.ndarray,
    seat: np.ndarray,
    mine: np.ndarray,
    theirs: np.ndarray,
    max_ticks: int,
    stop_at: float,
    chain: Chain | None,
    quiet: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], int, int]:
    """:func:`play_forced` on rows ``pending`` of ``group``.

    Passes its games and their observation and mask rows; the kernel's fresh outputs are made
    here. Returns:

    - the games still forced, and whether each one's opponent has a play;
    - the games that ended split by tick, in order;
    - the ticks taken and the game-ticks stepped.

    ``quiet``, int64 of 2, counts the jumps over quiet ticks and the game-ticks they covered.
    """
    k = pending.size
    forced, free = np.empty(k, np.int64), np.empty(k, np.bool_)
    ended, ended_tick = np.empty(k, np.int64), np.empty(k, np.int64)
    chain_args, rng = chain or (NO_CHAIN, _NO_RNG)
    games = group.games
    # Numba unboxes ``rng`` by running Python code, where a Ctrl-C crashed the process.
    with sigint_deferred():
        n, n_ended, ticks, stepped = play_forced(
            games.state, games.cfg, games.lat, pending, seat, mine, theirs, group.obs, group.mask,
            int(max_ticks), float(stop_at), chain is not None, chain_args, rng,
            forced, free, ended, ended_tick, quiet,
        )  # fmt: skip
    # The kernel stepped the state itself: Games' observation buffers are stale.
    games.state_changed()
    parts = []
    if n_ended:
        # ended_tick only grows: cut where it changes, one part per tick, in order.
        cuts = [0, *(np.flatnonzero(np.diff(ended_tick[:n_ended])) + 1).tolist(), n_ended]
        parts = [ended[lo:hi] for lo, hi in pairwise(cuts)]
    return forced[:n], free[:n], parts, ticks, stepped
