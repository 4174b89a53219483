"""The decision states every agent is calibrated on: the same few hundred for every agent.

They are recorded from seeded games of ``greedy`` in every seat on the run's rules, at its
seat count (``rules.players``: an agent of a table of four is timed on what it reads there, the
n-seat observation; the engine is deterministic, so every machine records the same states):
every seat's observation and mask at every tick of :data:`GAMES` games, then :data:`COUNT` of
them taken evenly spread.
"""

from __future__ import annotations

import numpy as np

from speed_env.batch import BatchEnv
from speed_env.rules import Rules

COUNT = 256
"""Decision states an agent is timed on (after :data:`~agents.think.calibrate.WARMUP` more)."""
GAMES = 8
"""Seeded games the states are drawn from."""
SEED = 40
"""The games' seed: fixed, so the states are the same in every run and on every machine."""


def decision_states(rules: Rules, count: int = COUNT) -> tuple[np.ndarray, np.ndarray]:
    """``(obs, mask)`` of ``count`` decision states at ``rules``' seat count, in a fixed order."""
    from agents.greedy import GreedyAgent

    env = BatchEnv(GAMES, rules, autoreset=False)  # its seat axis: rules.players
    seats = range(rules.players)
    bots = [GreedyAgent(rules, SEED + seat) for seat in seats]
    obs, mask = env.reset(seed=SEED)
    seen_obs, seen_mask = [], []
    running = np.ones(GAMES, bool)  # a finished game's seats decide nothing
    while running.any():
        for seat in seats:
            seen_obs.append(obs[seat][running])
            seen_mask.append(mask[seat][running])
        actions = np.stack([bots[p].act(obs[p], mask[p]) for p in seats])
        obs, mask, _, term, trunc, _ = env.step(actions)
        running &= ~(term | trunc)
    all_obs, all_mask = np.concatenate(seen_obs), np.concatenate(seen_mask)
    if len(all_obs) < count:
        raise ValueError(f"the seeded games hold {len(all_obs)} decision states, not {count}")
    pick = np.linspace(0, len(all_obs) - 1, count).round().astype(np.int64)
    return all_obs[pick].copy(), all_mask[pick].copy()
