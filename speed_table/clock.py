"""The table's clocks: the session's monotonic time, and when each of your plays became legal.

A play's latency (:mod:`speed_env.latency_fit`) is the wall time from the tick
at which that play (a rank onto a pile) became legal in your action mask, which
is the moment the page was sent the table that allowed it, to the moment your
``play`` message reached the server.
"""

from __future__ import annotations

import time

import numpy as np


def now() -> float:
    """The session clock: monotonic seconds."""
    return time.monotonic()


class LegalSince:
    """For each play action, the wall time (seconds) at which it last became legal.

    ``update`` is called with your mask after every tick, ``latency_ms`` when a
    play arrives. Wait (action 0) and actions beyond ``n_plays`` (the variant
    moves the page does not offer) are not tracked.
    """

    def __init__(self, n_plays: int) -> None:
        self.n_plays = n_plays
        self.since: dict[int, float] = {}

    def clear(self) -> None:
        """Forget every action (a new game)."""
        self.since.clear()

    def update(self, mask: np.ndarray, now: float) -> None:
        """Record the actions that became legal at ``now`` and drop those no longer legal."""
        legal = np.flatnonzero(mask[1 : 1 + self.n_plays]) + 1
        # An action still legal keeps its first time: latency counts from when it became
        # legal, not from the latest tick.
        kept = {int(a): self.since.get(int(a), now) for a in legal}
        self.since = kept

    def latency_ms(self, action: int, now: float) -> float | None:
        """Milliseconds since ``action`` became legal, or ``None`` if it is not legal now."""
        start = self.since.get(action)
        return None if start is None else max(0.0, (now - start) * 1000.0)


__all__ = ["LegalSince", "now"]
