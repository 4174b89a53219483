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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from speed_env import engine
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
