"""The ``Policy`` protocol every agent satisfies: heuristic, learned or human.

It lives in ``speed_env`` (not ``agents``) so env wrappers can hold an
opponent without importing the agents package. A policy acts on a *batch*:
``obs`` is float32 ``(n, obs_dim)`` and ``mask`` int8 ``(n, n_actions)``, both
from the acting seat's point of view; it returns ``n`` integer actions. A
batch of one is just ``n == 1``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit


@runtime_checkable
class Policy(Protocol):
    """Anything with ``act(obs, mask) -> actions`` over a batch of observations."""

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Choose one action per row of ``obs``; ``mask[i, a] == 1`` where ``a`` is legal."""
        ...


class RandomPolicy:
    """Uniform over each row's legal actions, from its own seeded generator.

    The kit's one random player: the single-seat envs' default opponent, the
    ``random`` agent, and (its input checked) the turn-based game's random agent
    (agents/vintage/registry.py)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Restart the generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per row."""
        # Random keys on legal entries, -1 elsewhere: argmax picks a uniform legal action.
        keys = np.where(mask > 0, self.rng.random(mask.shape), -1.0)
        return keys.argmax(axis=1).astype(np.int64)


@njit(cache=True)
def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (rows, n_actions).

    The draws come from uniforms ``u`` in [0, 1).

    Row ``i`` with ``k`` legal actions gets its ``floor(u[i] * k)``-th legal
    action. Compiled, so a random player costs a few ns a row at any width:
    ``speed bench`` feeds every system it compares from this one sampler. A
    row with no legal action gets 0.
    """
    rows, width = mask.shape
    out = np.zeros(rows, np.int64)
    for i in range(rows):
        k = 0
        for a in range(width):
            if mask[i, a]:
                k += 1
        pick = int(u[i] * k)
        for a in range(width):
            if mask[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1
    return out
