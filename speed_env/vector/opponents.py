"""The opponents inside the single-seat vector envs: random play per game, and a Policy's batch.

:class:`GameRandom` is the default opponent seat of ``Speed-v1``'s and
``SpeedParty-v0``'s vector envs: one ``RandomPolicy`` per game, so each game's
opponent draws exactly what the single env's would. :func:`batch_actions` asks a
given :class:`~speed_env.policy.Policy` once for the rows of every game being
stepped and checks its answer, naming the policy.
"""

from __future__ import annotations

import numpy as np

from speed_env.game import ActionError
from speed_env.policy import Policy

_RANDOM_ROWS = 16  # uniform draws fetched per generator call by the default opponent


class GameRandom:
    """Uniform random legal play with one generator per game: ``RandomPolicy(seed)`` ``n`` times.

    Row ``i``'s draws are exactly those a ``RandomPolicy`` of its own makes
    (``rng.random((1, n_actions))`` a step): a generator's uniforms are one
    stream however they are fetched, so they are fetched ``_RANDOM_ROWS``
    steps at a time to keep the Python calls per step few.
    """

    def __init__(self, n: int, n_actions: int, seed: int = 0) -> None:
        self.rngs = [np.random.default_rng(seed) for _ in range(n)]  # RandomPolicy(seed)'s
        self.buf = np.empty((n, _RANDOM_ROWS, n_actions))
        self.cursor = np.full(n, _RANDOM_ROWS, np.int64)  # all spent: fetch on first use

    def reseed(self, game: int, seed: int) -> None:
        """Restart game ``game``'s generator from ``seed`` (what ``RandomPolicy.reseed`` does)."""
        self.rngs[game] = np.random.default_rng(seed)
        self.cursor[game] = _RANDOM_ROWS

    def act(self, games: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action for each of ``games`` (ascending indices), ``mask`` their rows."""
        for g in games[self.cursor[games] == _RANDOM_ROWS]:
            self.buf[g] = self.rngs[g].random(self.buf.shape[1:])
            self.cursor[g] = 0
        keys = np.where(mask > 0, self.buf[games, self.cursor[games]], -1.0)
        self.cursor[games] += 1
        return keys.argmax(axis=1).astype(np.int64)


def batch_actions(
    policy: Policy, obs: np.ndarray, mask: np.ndarray, games: np.ndarray, who: str
) -> np.ndarray:
    """``policy``'s actions for the rows ``obs``/``mask`` of ``games`` (one call), checked: one
    integer in the action space a row, else an :class:`~speed_env.ActionError` naming ``who``
    (and the game of the first action outside the space)."""
    actions = np.asarray(policy.act(obs, mask))
    if actions.shape != (games.size,) or not np.issubdtype(actions.dtype, np.integer):
        raise ActionError(
            f"{who} returned {actions.dtype} actions of shape {actions.shape}; act(obs, mask) "
            f"must return one integer action per row of obs: shape ({games.size},) here"
        )
    n = mask.shape[1]
    bad = (actions < 0) | (actions >= n)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ActionError(
            f"{who} returned action {int(actions[j])} in game {int(games[j])}, outside "
            f"the action space Discrete({n})"
        )
    return actions
