"""A mixed agent: one member of a population drawn per game from a meta-strategy.

Games are the rows of the batch ``act`` is called with (the tournament, evaluation and the
batch envs each play one game per row). Row ``i`` draws its member once, from a uniform that
is a pure function of the policy's seed and ``i`` (:mod:`speed_env.rng`'s counter-based
bits), so a tournament chunk, which builds its agents with a seed of its own, draws the same
members whatever the number of workers, and a batch of one row draws as row 0 of any batch.
A batch env that restarts a finished game in the same row keeps that row's member; a mixture
over many rows is still the meta-strategy's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from speed_env.policy import Policy
from speed_env.rng import seed_to_u64, uniform

MEMBER_STREAM = 16
"""The counter-based stream the draws come from (the engine's streams stop below 16)."""


class MixturePolicy:
    """Each row (game) played by a member drawn from ``weights``; a :class:`Policy`."""

    def __init__(
        self,
        members: Sequence[Policy],
        weights: Sequence[float],
        seed: int | None = None,
        names: Sequence[str] = (),
    ) -> None:
        w = np.asarray(weights, dtype=float)
        if len(members) == 0 or w.shape != (len(members),):
            raise ValueError(f"{len(members)} members need as many weights, got {len(w)}")
        if np.any(w < 0) or not w.sum() > 0:
            raise ValueError("a mixture's weights must be non-negative, not all zero")
        self.members = list(members)
        self.names = list(names) or [f"member {k}" for k in range(len(members))]
        self.cumulative = np.cumsum(w / w.sum())
        self.seed = 0 if seed is None else int(seed)
        self.who = np.zeros(0, np.int64)
        """Each row's member, drawn when the row is first seen."""

    def member_of(self, rows: int) -> np.ndarray:
        """The member each of ``rows`` rows plays (drawing the rows not yet seen)."""
        seen = len(self.who)
        if rows > seen:
            key = seed_to_u64(self.seed)
            u = np.array([uniform(key, MEMBER_STREAM, i) for i in range(seen, rows)])
            # searchsorted on the cumulative weights; the clip guards a sum of 1 - 1e-16.
            new = np.minimum(np.searchsorted(self.cumulative, u, side="right"), len(self.members))
            self.who = np.concatenate([self.who, np.minimum(new, len(self.members) - 1)])
        return self.who[:rows]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each row's action from its member."""
        who = self.member_of(len(obs))
        out = np.zeros(len(obs), np.int64)
        for m in np.unique(who):
            rows = np.flatnonzero(who == m)
            out[rows] = np.asarray(self.members[m].act(obs[rows], mask[rows])).reshape(-1)
        return out
