"""Heuristic Speed bots, vectorised over a batch of observations.

Each bot reads only its own observation (the published named slices of
:func:`speed_env.observation_layout`) and mask, never hidden state, and acts
on a whole batch with array code, so a tournament of heuristics runs at
engine speed. ``random`` (:class:`speed_env.policy.RandomPolicy`, the one
uniform-random player of both games) and ``greedy`` read the mask alone, so
they play any rules as they are.
"""

from __future__ import annotations

import numpy as np

from speed_env.policy import RandomPolicy
from speed_env.rules import Rules


class GreedyAgent(RandomPolicy):
    """Plays a legal card as soon as it can (a random one among its legal plays)."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A random legal play per row; wait only when there is none."""
        keys = self.rng.random(mask.shape)
        keys[:, 0] = -0.5  # waiting loses to any legal play
        keys = np.where(mask > 0, keys, -1.0)  # an illegal action loses even to waiting
        return keys.argmax(axis=1)
