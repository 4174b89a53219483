"""Real-time training's own pieces (the recipe is :mod:`train.ppo`).

- :mod:`~train.realtime.human_likeness`: how often an agent makes a person's recorded plays.
"""

from __future__ import annotations
