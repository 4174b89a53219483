"""``SpeedVecEnv``: hundreds of Speed games as one stable-baselines3 ``VecEnv``.

- :mod:`~train.vec_env.env`: :class:`SpeedVecEnv`, the learner's seats, opponents inside.
- :mod:`~train.vec_env.party_env`: ``PartyVecEnv``, the same at tables of three or four, bots
  (and snapshots of the learner) in the other seats.
- :mod:`~train.vec_env.deal`: the restarts: games that ended, and their new deals.
- :mod:`~train.vec_env.skip_loop`: the compiled loop over ticks where the learner can only wait.
- :mod:`~train.vec_env.pool`: the opponents a learner trains against, sampled per game.
- :mod:`~train.vec_env.mixture`: a fixed mixture of frozen agents as the pool, each call
  attributed.
- :mod:`~train.vec_env.info_masks`: ``InfoMaskVecEnv``, masks read from ``infos``.

The package re-exports :class:`SpeedVecEnv` (``from train.vec_env import SpeedVecEnv``).
"""

from __future__ import annotations

from train.vec_env.env import SpeedVecEnv, parse_rules_list

__all__ = [
    "SpeedVecEnv",
    "parse_rules_list",
]
