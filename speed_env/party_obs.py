"""The ego-centric observation of a seat at a table of three or four (Party Speed).

The two-seat observation (:mod:`speed_env.observation`) is untouched; this is
the n-seat one the n-seat parallel env (:mod:`speed_env.party`) gives. Seats
and piles are ego-centric, as the actions are: seat ``i`` is the ``i``-th
seat after me in seat order (``0`` is me), pile ``j`` the ``j``-th centre
pile from the one my own side pile feeds (the pile action ``1 + n * r + j``
plays on). Every entry lies in [0, 1] (float32); ``n`` seats, ``R`` ranks
(13, 14 with jokers); two decks, so a rank has up to 8 cards:

==============  ==========  =====================================================
name            size        meaning
==============  ==========  =====================================================
hand            R           my hand cards (slot tops) per rank / 8
centre_top      n·R         one-hot rank of the top of pile 0, then 1 … (ego order)
centre_size     n           cards in each centre pile / deck size
flight          n·(R+n+1)   each seat's card in flight (ego order, me first): rank
                            one-hot, pile one-hot (ego order), ms to land / 1000
cards           3n          each seat's hand size / H, draw pile / its start size,
                            cards left / (H + draw start size)
side_piles      n           cards in each side pile (ego order) / deck size
phase           2           1 while stuck; countdown left / stuck_countdown_ms
clock           1           clock / max_game_ms
since_placed    1           ms since a card was last put on a centre pile /
                            ``idle_flip_ms`` (at most 1; 0 with idle flips off)
==============  ==========  =====================================================

Other seats' hands and draw piles are hidden: only their counts are shown.

Two doors to the same numbers: :func:`observe_seat`, plain Python, one seat of
one game (the reference), and :func:`observe_seats`, compiled, every seat of
every game of a batch in one call (what the n-seat ``BatchEnv`` and vector
envs run); ``tests/env/test_party_obs.py`` checks them equal element for
element.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from speed_env import engine
from speed_env.engine import STUCK, C, Config, legal_row, rank
from speed_env.rules import Rules

RANK_COPIES = 8.0  # two decks: at most eight cards of one rank


def party_layout(rules: Rules) -> dict[str, slice]:
    """Named slices of the n-seat observation for ``rules`` (see the module docstring)."""
    n, r = rules.players, rules.n_ranks
    sizes = (
        ("hand", r),
        ("centre_top", n * r),
        ("centre_size", n),
        ("flight", n * (r + n + 1)),
        ("cards", 3 * n),
        ("side_piles", n),
        ("phase", 2),
        ("clock", 1),
        ("since_placed", 1),
    )
    out, at = {}, 0
    for name, size in sizes:
        out[name] = slice(at, at + size)
        at += size
    return out


def party_obs_dim(rules: Rules) -> int:
    """Length of the n-seat observation vector under ``rules``."""
    return party_layout(rules)["since_placed"].stop


def _unit(x: float) -> float:
    """``x`` clipped into [0, 1]."""
    return min(1.0, max(0.0, float(x)))


def observe_seat(g: Any, rules: Rules, p: int) -> np.ndarray:
    """Seat ``p``'s observation of game record ``g`` (a fresh float32 vector)."""
    n, nr, hs = rules.players, rules.n_ranks, rules.hand_size
    lay = party_layout(rules)
    obs = np.zeros(lay["since_placed"].stop, np.float32)
    deck = float(rules.deck_size)
    rank_of = engine.rank.py_func
    hand = obs[lay["hand"]]
    for card in g["hand"][p, :hs]:
        if card >= 0:
            hand[rank_of(int(card))] += 1.0 / RANK_COPIES
    top, size, side = obs[lay["centre_top"]], obs[lay["centre_size"]], obs[lay["side_piles"]]
    for j in range(n):
        k = (p + j) % n  # the pile my actions call j
        if g["centre_n"][k] > 0:
            top[j * nr + rank_of(int(g["centre"][k, g["centre_n"][k] - 1]))] = 1.0
        size[j] = _unit(g["centre_n"][k] / deck)
        side[j] = _unit(g["side_n"][k] / deck)
    flight, cards = obs[lay["flight"]], obs[lay["cards"]]
    draw_size = max(1, rules.draw_size)
    for i in range(n):
        q = (p + i) % n  # the i-th seat after me
        at = i * (nr + n + 1)
        if g["fl_kind"][q] != engine.K_NONE and g["fl_n"][q] > 0:
            flight[at + rank_of(int(g["fl_cards"][q, 0]))] = 1.0
            if g["fl_pile"][q] >= 0:
                flight[at + nr + (int(g["fl_pile"][q]) - p) % n] = 1.0
            flight[at + nr + n] = _unit((int(g["fl_land"][q]) - int(g["clock"])) / 1000.0)
        held = int((g["hand"][q, :hs] >= 0).sum()) + int(g["stk_n"][q, :hs].sum())
        left = held + int(g["draw_n"][q]) + int(g["fl_n"][q])
        cards[3 * i : 3 * i + 3] = (
            _unit(held / hs),
            _unit(g["draw_n"][q] / draw_size),
            _unit(left / (hs + draw_size)),
        )
    phase = obs[lay["phase"]]
    if g["phase"] == engine.STUCK:
        phase[0] = 1.0
        if g["flip_at"] >= 0 and rules.stuck_countdown_ms > 0:
            phase[1] = _unit((int(g["flip_at"]) - int(g["clock"])) / rules.stuck_countdown_ms)
    obs[lay["clock"]] = _unit(int(g["clock"]) / rules.max_game_ms)
    if rules.idle_flip_ms:
        idle = (int(g["clock"]) - int(g["placed_at"])) / rules.idle_flip_ms
        obs[lay["since_placed"]] = _unit(idle)
    return obs


@njit(cache=True, inline="always")
def clip_unit(x: float) -> float:
    """:func:`_unit` compiled: ``x`` clipped into [0, 1]."""
    return min(1.0, max(0.0, x))


@njit(cache=True, inline="always")
def observe_game(g: Any, cfg: Config, obs: np.ndarray, b: int) -> None:
    """Write every seat's observation of record ``g`` into ``obs[:, b]`` (the whole row).

    :func:`observe_seat`'s numbers, computed as it computes them (float64,
    rounded once into the float32 row), for all seats in one pass.
    """
    n = engine.seats(g)
    nr, hs = cfg[C.n_ranks], cfg[C.hand_size]
    deck = float(cfg[C.deck_size])
    draw_size = max(1, cfg[C.draw_size])
    at_top = nr
    at_size = at_top + n * nr
    at_flight = at_size + n
    width = nr + n + 1
    at_cards = at_flight + n * width
    at_side = at_cards + 3 * n
    at_phase = at_side + n
    at_clock = at_phase + 2
    clock = g.clock
    stuck = g.phase == STUCK
    countdown = 0.0
    if stuck and g.flip_at >= 0 and cfg[C.countdown_ms] > 0:
        countdown = clip_unit((g.flip_at - clock) / cfg[C.countdown_ms])
    since = 0.0
    if cfg[C.idle_flip_ms] != 0:
        since = clip_unit((clock - g.placed_at) / cfg[C.idle_flip_ms])
    for p in range(n):
        row = obs[p, b]
        row[:] = 0.0
        for i in range(hs):
            card = g.hand[p, i]
            if card >= 0:
                row[rank(card)] += 1.0 / RANK_COPIES
        for j in range(n):
            k = (p + j) % n  # the pile my actions call j
            if g.centre_n[k] > 0:
                row[at_top + j * nr + rank(g.centre[k, g.centre_n[k] - 1])] = 1.0
            row[at_size + j] = clip_unit(g.centre_n[k] / deck)
            row[at_side + j] = clip_unit(g.side_n[k] / deck)
        for i in range(n):
            q = (p + i) % n  # the i-th seat after me
            at = at_flight + i * width
            if g.fl_kind[q] != engine.K_NONE and g.fl_n[q] > 0:
                row[at + rank(g.fl_cards[q, 0])] = 1.0
                if g.fl_pile[q] >= 0:
                    row[at + nr + (g.fl_pile[q] - p) % n] = 1.0
                row[at + nr + n] = clip_unit((g.fl_land[q] - clock) / 1000.0)
            held = 0
            for m in range(hs):
                held += (g.hand[q, m] >= 0) + g.stk_n[q, m]
            left = held + g.draw_n[q] + g.fl_n[q]
            row[at_cards + 3 * i] = clip_unit(held / hs)
            row[at_cards + 3 * i + 1] = clip_unit(g.draw_n[q] / draw_size)
            row[at_cards + 3 * i + 2] = clip_unit(left / (hs + draw_size))
        if stuck:
            row[at_phase] = 1.0
            row[at_phase + 1] = countdown
        row[at_clock] = clip_unit(clock / cfg[C.max_game_ms])
        row[at_clock + 1] = since


@njit(cache=True, inline="always")
def observe_clock(g: Any, cfg: Config, obs: np.ndarray, b: int) -> None:
    """Rewrite only the entries of game ``b``'s rows that move with the clock alone: each
    seat's flight times, the countdown, the clock and the idle clock."""
    n = engine.seats(g)
    nr = cfg[C.n_ranks]
    width = nr + n + 1
    at_flight = nr + n * nr + n
    at_phase = at_flight + n * width + 3 * n + n
    clock = g.clock
    countdown = 0.0
    if g.phase == STUCK and g.flip_at >= 0 and cfg[C.countdown_ms] > 0:
        countdown = clip_unit((g.flip_at - clock) / cfg[C.countdown_ms])
    since = 0.0
    if cfg[C.idle_flip_ms] != 0:
        since = clip_unit((clock - g.placed_at) / cfg[C.idle_flip_ms])
    for p in range(n):
        row = obs[p, b]
        for i in range(n):
            q = (p + i) % n
            if g.fl_kind[q] != engine.K_NONE and g.fl_n[q] > 0:
                row[at_flight + i * width + nr + n] = clip_unit((g.fl_land[q] - clock) / 1000.0)
        if g.phase == STUCK:
            row[at_phase + 1] = countdown
        row[at_phase + 2] = clip_unit(clock / cfg[C.max_game_ms])
        row[at_phase + 3] = since


@njit(cache=True, inline="always")
def observe_whole(s: np.ndarray, cfg: Config, b: int, obs: np.ndarray, mask: np.ndarray) -> None:
    """Rewrite game ``b``'s rows whole: every seat's observation and mask."""
    g = s[b]
    observe_game(g, cfg, obs, b)
    for p in range(engine.seats(g)):
        legal_row(g, cfg, p, mask[p, b])


@njit(cache=True, nogil=True)
def observe_range(
    s: np.ndarray, cfg: Config, obs: np.ndarray, mask: np.ndarray, lo: int, hi: int
) -> None:
    """Observe games ``lo`` to ``hi - 1`` whole into ``obs`` and ``mask`` (seats, B, …)."""
    for b in range(lo, hi):
        observe_whole(s, cfg, b, obs, mask)


def observe_seats(state: np.ndarray, rules: Rules) -> np.ndarray:
    """Every seat's observation of every game of ``state``: float32 ``(seats, B, dim)``, row
    ``[p, b]`` equal to ``observe_seat(state[b], rules, p)`` (one compiled call)."""
    n, count = rules.players, state.shape[0]
    obs = np.empty((n, count, party_obs_dim(rules)), np.float32)
    mask = np.empty((n, count, engine.n_actions(rules)), np.int8)
    cfg = engine.config(rules, 1)  # the observation reads no tick length
    observe_range(state, cfg, obs, mask, 0, count)
    return obs
