"""``speed train league``: PSRO on the kit, a population trained against its own meta-strategy.

- :mod:`~train.league.run`: the league, round by round: :func:`~train.league.run.run_league`.
- :mod:`~train.league.member`: one member, a best response to a weighted mixture of frozen
  agents (:func:`~train.league.member.train_member`, the default recipe).
- :mod:`~train.league.payoff`: the payoff table, members against each other on paired deals.
- :mod:`~train.league.files`: ``league.json``, ``league.csv`` and ``league.png``.
"""

from __future__ import annotations
