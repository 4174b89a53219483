"""Vintage expert iteration's pieces (the recipe is :mod:`train.vintage_expert`).

- :mod:`~train.vintage.expert_targets`: search targets, games played in chunks, values kept.
- :mod:`~train.vintage.expert_fit`: the held-out games and how a fit is judged.
- :mod:`~train.vintage.expert_command`: ``speed train-expert``'s game and help texts.
"""

from __future__ import annotations
