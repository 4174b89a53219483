"""Gymnasium vector envs over the batch engine: ``Speed-v1``'s ``make_vec`` and self-play rows.

Native :class:`gymnasium.vector.VectorEnv` classes step every game in
one compiled pass (the engine behind :class:`~speed_env.BatchEnv`), where
``vectorization_mode="sync"`` steps ``num_envs`` Python single envs one by
one:

==================================================  ===========================================
call                                                env
==================================================  ===========================================
``gymnasium.make_vec("speed_env/Speed-v1",          :class:`SpeedVectorEnv`: game ``i`` is sub-env
num_envs=N, **Speed-v1 kwargs)``                    ``i``, the learner in one seat, the opponent
                                                    inside (what ``Speed-v1`` is, ``N`` times)
``gymnasium.make_vec("speed_env/SpeedSelfPlay-v1",  :class:`SpeedSelfPlayVectorEnv`: row ``2g + s``
num_envs=2 * G)``                                   is seat ``s`` of game ``g``; the caller acts
                                                    for both seats
``gymnasium.make_vec("speed_env/SpeedParty-v0",     :class:`PartyVectorEnv`: game ``i`` is sub-env
num_envs=N, players=n, ...)``                       ``i``, the learner in one seat of three or
                                                    four, the other seats inside
==================================================  ===========================================

The pieces, one concern each:

- :mod:`~speed_env.vector.base`: what they share: rows over games, Gymnasium's
  info layout, the three autoreset modes and ``SyncVectorEnv``'s seeding.
- :mod:`~speed_env.vector.opponents`: the opponents inside: random play per game, a
  Policy's batch checked.
- :mod:`~speed_env.vector.single`: ``Speed-v1`` ``N`` times, the opponent inside.
- :mod:`~speed_env.vector.party`: ``SpeedParty-v0`` ``N`` times, the other seats inside.
- :mod:`~speed_env.vector.selfplay`: both seats of each game as rows.

docs/vector.md is the page: autoreset modes, seeding, and which library takes which.
"""

from speed_env.vector.base import check_autoreset_mode
from speed_env.vector.party import PartyVectorEnv
from speed_env.vector.selfplay import SELF_PLAY_ID, SpeedSelfPlayVectorEnv, self_play_single
from speed_env.vector.single import SpeedVectorEnv

__all__ = [
    "SELF_PLAY_ID",
    "PartyVectorEnv",
    "SpeedSelfPlayVectorEnv",
    "SpeedVectorEnv",
    "check_autoreset_mode",
    "self_play_single",
]
