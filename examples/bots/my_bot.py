"""A user's own bot, as docs/how-strong.md walks it through ``speed evaluate``, ``speed exploit``
and a league: ``py:examples/bots/my_bot.py:Bot`` (the bot of docs/evaluate.md, section 1).

A policy is anything with ``act(obs, mask) -> actions`` over a batch: ``obs`` float32
``(n, obs_dim)``, ``mask`` int8 ``(n, n_actions)``, both from the acting seat's side.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Bot:
    """Plays the legal card of the highest action index; waits (action 0) when it has none."""

    def __init__(self, rules: Any, seed: int | None) -> None:
        self.rules = rules  # the real-time Rules it plays (None in Vintage Speed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row: the highest legal index (0, waiting, is always legal)."""
        return (mask * np.arange(mask.shape[1])).argmax(axis=1)
