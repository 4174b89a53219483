"""Real-time training's own pieces (the recipe is :mod:`train.ppo`).

- :mod:`~train.realtime.pool`: the opponents a learner trains against, sampled per game.
- :mod:`~train.realtime.rankwise_policy`: the rank-relative network as a MaskablePPO policy.
- :mod:`~train.realtime.human_likeness`: how often an agent makes a person's recorded plays.
"""

from __future__ import annotations
