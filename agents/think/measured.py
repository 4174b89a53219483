"""``measured``: each decision's own wall time, charged to its game's seat as it happens.

Every running game's decision is one call at batch one, timed, and the seat's profile in that
game is moved by the time it took before the tick is played: the card a slow decision commits
lands that much later. Only true where games are played one at a time (one worker), and never
repeatable: the results say so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from speed_env.reaction import ReactionProfile, delayed


def act_and_charge(
    act_row: Callable[[int, np.ndarray, np.ndarray], np.ndarray],
    obs: np.ndarray,
    mask: np.ndarray,
    running: np.ndarray,
    latency: np.ndarray,
    base: ReactionProfile,
) -> np.ndarray:
    """One seat's actions, each running game's decision timed and charged to its profile.

    ``act_row(i, obs_row, mask_row)`` is the seat's checked ``act`` on game ``i`` alone;
    ``latency`` is that seat's rows of the engine's profiles (``games.lat[:, seat]``), rewritten
    in place. A finished game's seat waits (action 0), uncharged. Returns the actions.
    """
    actions = np.zeros(len(obs), np.int64)
    for i in np.flatnonzero(running):
        before = _now_ms()
        actions[i] = act_row(int(i), obs[i : i + 1], mask[i : i + 1])[0]
        ms = round(_now_ms() - before, 3)
        latency[i] = delayed(base, ms).params()
    return actions


def _now_ms() -> float:
    """A monotonic clock in ms."""
    return time.perf_counter() * 1000.0


def note(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` (machine facts) with the words every ``measured`` result carries."""
    return {**record, "note": "measured on this machine as it played: not repeatable"}
