"""The rank-relative network's gather: which observation entry each feature of each play reads.

The network (:mod:`agents.model_io.rankwise`) scores every play ``(rank r, pile p)`` with one
shared MLP over the observation *re-indexed relative to r and p*. :func:`action_features` is
that re-indexing as an index table, one row per play, for the two-seat observation
(:mod:`speed_env.observation`) and for the n-seat one of three or four seats
(:mod:`speed_env.party_obs`); the observation's length tells which, and how many seats.

- Each per-rank field is rotated so that its entry 0 is rank ``r`` (entry ``k`` is rank
  ``r + k`` mod 13: wrap-around ranks).
- Each per-pile field is reordered "pile p, then the piles after it in the observation's
  order" (two seats: "p, then the other").
- Each per-seat field (n seats: each seat's card in flight, its card counts) keeps the
  observation's seat order, which is already ego-centric (me first).
- The scalars every play shares (card counts, phase, clock, ...) are read as they are, and
  the pile ``p`` itself is a feature (piles are not symmetric: one is fed by my own side
  pile, and in ``japanese`` my own pile flips): at two seats one entry (0 or 1), at n seats a
  one-hot over the n piles.

Play row ``n * r + p`` is action ``1 + n * r + p`` at every seat count. The two-seat table is
the one every two-seat rankwise model was trained on: it must never change (a test pins it).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from agents.model_io.tensor_file import ModelFormatError
from speed_env.observation import layout_for_dim

N_RANKS = 13
"""The ranks the network plays: 13, wrap-around (no jokers)."""
RANK_FIELDS = (
    "hand",
    "stacked",
    "centre_top@p",
    "centre_top@q",
    "my_flight",
    "opp_flight",
    "opp_layout",
    "unknown",
    "my_colour_unseen",
    "opp_stacked",
    "side_known@p",
    "side_known@q",
)
"""The two-seat observation's per-rank fields each play reads rotated to its rank (``@p``: the
play's pile's half of a two-pile field, ``@q``: the other pile's)."""
PARTY_SEATS = (3, 4)
"""The seat counts of the n-seat observation."""


@cache
def seat_layout(obs_dim: int) -> tuple[int, dict[str, slice]]:
    """The seats and the named layout of an observation of ``obs_dim`` floats.

    Two seats: :func:`speed_env.observation.layout_for_dim`; three or four: the n-seat layout
    (:func:`speed_env.party_obs.party_layout`). ``ValueError`` for a length neither has.
    """
    try:
        return 2, layout_for_dim(obs_dim)
    except ValueError as two_seat:
        from speed_env.party_obs import party_layout
        from speed_env.rules import Rules

        for seats in PARTY_SEATS:
            for jokers in (False, True):  # 13 ranks, or 14 with jokers
                lay = party_layout(Rules(preset="us", players=seats, jokers=jokers))
                if lay["since_placed"].stop == obs_dim:
                    return seats, lay
        raise ValueError(f"{two_seat}, nor of three or four seats") from None


def _check_ranks(lay: dict[str, slice], obs_dim: int) -> None:
    if lay["hand"].stop - lay["hand"].start != N_RANKS:
        raise ModelFormatError(
            f"the rankwise network plays 13 ranks; an observation of {obs_dim} floats has jokers"
        )


def _rotated(start: int, r: int) -> list[int]:
    """The 13 entries of a per-rank block at ``start``, from rank ``r`` on."""
    return [start + (r + k) % N_RANKS for k in range(N_RANKS)]


def _spans(lay: dict[str, slice], *names: str) -> list[int]:
    """Every entry of the named fields, in order (the scalars every play reads alike)."""
    return [j for name in names for j in range(lay[name].start, lay[name].stop)]


def _two_seat_row(lay: dict[str, slice], r: int, p: int, zero: int, one: int) -> list[int]:
    """Play ``(r, p)``'s features in the two-seat observation (unchanged since it shipped)."""
    q = 1 - p
    idx: list[int] = []
    for name in RANK_FIELDS:
        field, _, which = name.partition("@")
        idx += _rotated(lay[field].start + N_RANKS * {"": 0, "p": p, "q": q}[which], r)
    joker, size = lay["centre_joker"].start, lay["centre_size"].start
    idx += [joker + 2 * p, joker + 2 * p + 1, joker + 2 * q, joker + 2 * q + 1]
    idx += [size + p, size + q]
    for flight in ("my_flight", "opp_flight"):
        at = lay[flight].start + N_RANKS  # pile one-hot, then ms to land
        idx += [at + p, at + q, at + 2]
    for field in ("side_piles", "idle_rebuilds"):
        idx += [lay[field].start + p, lay[field].start + q]
    idx += _spans(lay, "my_cards", "opp_cards", "phase", "seat", "clock", "rules", "since_placed")
    # The pile itself as a feature: the padded constant 1 for pile 1, 0 for pile 0.
    idx.append(one if p else zero)
    return idx


def _party_row(lay: dict[str, slice], n: int, r: int, p: int, zero: int, one: int) -> list[int]:
    """Play ``(r, p)``'s features in the n-seat observation of ``n`` seats."""
    piles = [(p + k) % n for k in range(n)]  # pile p, then the piles after it
    top, size, side = lay["centre_top"].start, lay["centre_size"].start, lay["side_piles"].start
    idx = _rotated(lay["hand"].start, r)
    for j in piles:
        idx += _rotated(top + N_RANKS * j, r)
    idx += [size + j for j in piles]
    width = N_RANKS + n + 1  # each seat's flight: rank one-hot, pile one-hot, ms to land
    for seat in range(n):  # the observation's seat order: me, then the seats after me
        at = lay["flight"].start + seat * width
        idx += _rotated(at, r)
        idx += [at + N_RANKS + j for j in piles]
        idx.append(at + N_RANKS + n)
    idx += [side + j for j in piles]
    idx += _spans(lay, "cards", "phase", "clock", "since_placed")
    # The pile as a one-hot over the n piles, read from the padded constants.
    idx += [one if j == p else zero for j in range(n)]
    return idx


@cache
def action_features(obs_dim: int) -> np.ndarray:
    """Index table ``(P, F)``: which padded entry each feature of each play reads.

    ``P = n * 13`` plays at ``n`` seats (``n`` piles); row ``n * r + p`` is play action
    ``1 + n * r + p``: rank ``r`` on pile ``p``. Its ``F`` entries index the observation padded
    with ``[0, 1]``, at indices ``obs_dim`` and ``obs_dim + 1``.
    """
    seats, lay = seat_layout(obs_dim)
    _check_ranks(lay, obs_dim)
    zero, one = obs_dim, obs_dim + 1
    rows = [
        _two_seat_row(lay, r, p, zero, one)
        if seats == 2
        else _party_row(lay, seats, r, p, zero, one)
        for r in range(N_RANKS)
        for p in range(seats)
    ]
    table = np.array(rows, np.int64)
    # Cached and shared by every caller: read-only so that none can alter it.
    table.setflags(write=False)
    return table


def n_features(obs_dim: int) -> int:
    """``F``: how many features each play action reads (the gather's width)."""
    return int(action_features(obs_dim).shape[1])


def n_plays(obs_dim: int) -> int:
    """``P``: the play actions (13 ranks times one pile per seat) the gather scores."""
    return int(action_features(obs_dim).shape[0])


def rank_blocks(obs_dim: int) -> list[int]:
    """Where each per-rank block of 13 entries of the observation starts."""
    seats, lay = seat_layout(obs_dim)
    _check_ranks(lay, obs_dim)
    if seats == 2:
        return [
            lay[field].start + N_RANKS * (which == "q")
            for field, _, which in (name.partition("@") for name in RANK_FIELDS)
        ]
    width = N_RANKS + seats + 1
    return [
        lay["hand"].start,
        *(lay["centre_top"].start + N_RANKS * j for j in range(seats)),
        *(lay["flight"].start + width * i for i in range(seats)),
    ]


def rotate_ranks(obs: np.ndarray, steps: int = 1) -> np.ndarray:
    """``obs`` with every card's rank moved up by ``steps``, mod 13, in every per-rank field.

    A test of the network's symmetry; the scalars are unchanged.
    """
    out = np.array(obs, copy=True)
    for start in rank_blocks(obs.shape[-1]):
        block = obs[..., start : start + N_RANKS]
        out[..., start : start + N_RANKS] = np.roll(block, steps, axis=-1)
    return out
