"""RLlib for real-time Speed (the recipe is :mod:`train.rllib_ppo`; ``[ray]`` extra).

- :mod:`~train.rllib.env`: the multi-agent env, a game per env or a batch on ``BatchEnv``.
- :mod:`~train.rllib.module`: the masked actor-critic module the kit can save, and bots.
"""

from __future__ import annotations
