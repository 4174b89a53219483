"""Agent specs: a spec string (``greedy@pro``, ``ppo:PATH``, ``py:FILE:NAME``) to an agent.

- :mod:`~agents.specs.registry`: :class:`Registry`, one per game, and the spec grammar all share
  (``make`` over every game's registry: :mod:`agents.games.registry`).
- :mod:`~agents.specs.realtime`: the real-time game's registry and its kinds (``random`` …
  ``selfplay``, ``ppo:``, ``openspiel:``); :mod:`agents` is its façade.
- :mod:`~agents.specs.user_files`: a user's own agent, ``py:PATH.py:NAME`` or
  ``package.module:NAME``.
- :mod:`~agents.specs.guarded`: every call into an agent, attributed to its spec and checked.
"""

from __future__ import annotations
