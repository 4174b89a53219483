"""A search's continuations played on: ``chain`` in every seat after the first tick.

Shared by the two-seat search (:mod:`agents.search.agent`) and the n-seat one
(:mod:`agents.search.party`), which differ only in their engine's step and how it observes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.chain import ChainAgent
from agents.search.settings import SearchSettings
from speed_env import engine
from speed_env.rules import Rules

__all__ = ["play_on_with_chain"]


def play_on_with_chain(
    state: np.ndarray,
    step: Callable[[np.ndarray], object],
    observed: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    first_view: tuple[np.ndarray, np.ndarray],
    seats: np.ndarray,
    first: np.ndarray,
    settings: SearchSettings,
    seed: int,
    rules: Rules,
) -> None:
    """Play continuations on, in place, at any seat count: ``first[j]`` for seat ``seats[j]``
    now, ``chain``'s choice for every other seat, then ``chain`` for every seat until the game
    ends or ``settings.depth`` ticks pass.

    ``state``: the engine's records (read for the games still on); ``step(actions)`` steps
    every game; ``observed(live)`` gives every seat's observations and masks after a step,
    fresh for the games ``live``; ``first_view``: the same before the first step.
    """
    obs, mask = first_view
    players, n = obs.shape[0], len(first)
    bot = ChainAgent(rules, seed)
    rows = np.arange(n)
    # Every seat's chain choice first, then the searched seat's overwritten: the same draws
    # from chain's generator whatever action is being tried.
    actions = np.stack([bot.act(obs[p], mask[p]) for p in range(players)]).astype(np.int64)
    actions[seats, rows] = first
    tick = 0
    live = rows
    while True:
        step(actions)
        tick += 1
        live = live[state["phase"][live] != engine.OVER]
        if live.size == 0 or (settings.depth and tick >= settings.depth):
            return
        obs, mask = observed(live)
        actions = np.zeros((players, n), np.int64)  # 0, a wait, for the games already over
        for p in range(players):
            actions[p, live] = bot.act(obs[p, live], mask[p, live])
