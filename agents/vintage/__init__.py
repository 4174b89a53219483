"""Vintage Speed's agents, the game's room in :mod:`agents` (its env is :mod:`speed_env.vintage`).

- :mod:`~agents.vintage.registry`: the vintage game's spec registry (``vintage-…`` kinds).
- :mod:`~agents.vintage.bots`: ``vintage-random``, ``vintage-greedy``, ``vintage-tactician``.
- :mod:`~agents.vintage.search`: ``vintage-search``, determinized rollout search, fair by
  construction.
- :mod:`~agents.vintage.ismcts`: ``vintage-ismcts``, OpenSpiel's information-set MCTS.
- :mod:`~agents.vintage.openspiel_seat`: ``vintage-openspiel:BOT``, any OpenSpiel bot at the
  table.
- :mod:`~agents.vintage.value`: the value network V(observation) the search can lean on.

The bots' classes are re-exported here (``from agents.vintage import VintageGreedy``).
"""

from __future__ import annotations

from agents.vintage.bots import TacticianWeights, VintageGreedy, VintageRandom, VintageTactician

__all__ = [
    "TacticianWeights",
    "VintageGreedy",
    "VintageRandom",
    "VintageTactician",
]
