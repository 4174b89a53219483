"""Leagues of agents: the meta-game a population's payoff table makes, and its mixed agent.

- :mod:`~agents.league.meta`: the meta-strategy of a payoff table: its Nash equilibrium by a
  linear program, or α-Rank's mass; each member's gain against it.
- :mod:`~agents.league.mixture`: :class:`~agents.league.mixture.MixturePolicy`, one member
  drawn per game from a meta-strategy.
- :mod:`~agents.league.record`: ``league.json``, the file a league leaves, read back as the
  members and weights of the ``league:DIR`` agent.
- :mod:`~agents.league.bundle`: a finished league copied into the kit
  (``agents/models/league/``), which the ``league`` agent plays;
  ``python -m agents.league.bundle DIR``.
"""

from __future__ import annotations
