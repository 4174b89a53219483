"""The policy a recipe trains: its network, its masked distribution, its PPO, its files.

- :mod:`~train.policy.masked_policy`: the masked categorical computed once a batch.
- :mod:`~train.policy.rankwise_policy`: the rank-relative network as a MaskablePPO policy.
- :mod:`~train.policy.rollout`: the lean rollout collector (``--rollout lean``), a MaskablePPO
  subclass.
- :mod:`~train.policy.checkpoint`: a MaskablePPO policy to and from the kit's model format.

The bottom room of :mod:`train`: it imports no other room.
"""

from __future__ import annotations
