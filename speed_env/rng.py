"""Counter-based randomness: every random draw of a game is a pure function of
(game seed, stream, counter).

A game seeded ``s`` therefore plays out the same whatever the batch size or
its position in a batch, and however many draws other games made. Draws are
addressed by *purpose* (a stream) and a counter within it, not taken from a
shared sequence, so the engine and the reference referee in ``tests/`` agree
draw for draw without sharing any state:

=======================  =========================================================
stream                   counter
=======================  =========================================================
``DEAL`` (1)             position ``j`` in the canonical deck (sort keys)
``DEAL_RED/BLACK`` (2/3) position in the seat's canonical cards (``japanese``: RED for
                         seats 0 and 2, BLACK for 1 and 3; seats 2 and 3 from 64)
``TIE`` (4)              how many exact landing ties this game has had
``LATENCY + seat`` (5/6) ``3 * n + {0, 1, 2}`` for the seat's ``n``-th committed play
``PARTY_LATENCY + s``    the same for seat ``s + 2`` of a party game (seats 2 and 3:
(12/13)                  ``LATENCY + 3`` would be pile 0's ``REBUILD`` stream)
``REBUILD + pile`` (8…)  ``64 * (times that side pile was rebuilt) + j`` (piles 0…3: 8…11)
=======================  =========================================================

The bits are splitmix64 (Steele, Lea and Flood 2014) of a per-stream key
plus the counter; a uniform float takes the top 53 bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba import types as nb_types

DEAL = 1
DEAL_RED = 2
DEAL_BLACK = 3
TIE = 4
LATENCY = 5
REBUILD = 8
PARTY_LATENCY = 12

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0xD1B54A32D192ED03)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0
MASK64 = (1 << 64) - 1


@njit(cache=True, inline="always")
def splitmix64(x: np.uint64) -> np.uint64:
    """One splitmix64 output for state ``x`` (wrapping 64-bit arithmetic)."""
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def bits(seed: np.uint64, stream: int, counter: int) -> np.uint64:
    """64 random bits for draw ``counter`` of ``stream`` in the game seeded ``seed``."""
    key = splitmix64(seed ^ (np.uint64(stream) * _STREAM))
    return splitmix64(key + np.uint64(counter))


@njit(cache=True, inline="always")
def uniform(seed: np.uint64, stream: int, counter: int) -> float:
    """A float in [0, 1) for draw ``counter`` of ``stream`` (53 random bits)."""
    return float(bits(seed, stream, counter) >> _S11) * _INV53


def seed_to_u64(seed: int) -> np.uint64:
    """Map any Python int seed onto the engine's unsigned 64-bit seeds."""
    return np.uint64(int(seed) & MASK64)


@njit(
    nb_types.int64[::1](nb_types.uint64, nb_types.int64, nb_types.int64, nb_types.int64), cache=True
)
def shuffle_order(seed: np.uint64, stream: int, counter0: int, n: int) -> np.ndarray:
    """Order in which to take ``n`` items: a stable argsort of their random keys.

    Item ``j`` gets key ``bits(seed, stream, counter0 + j)``; the result lists
    item indices by ascending key, which is the shuffled order (top first).
    """
    keys = np.empty(n, dtype=np.uint64)
    for j in range(n):
        keys[j] = bits(seed, stream, counter0 + j)
    return np.argsort(keys, kind="mergesort")
