"""The games, each one object the harness, the commands and evaluation ask for what differs.

- :mod:`~agents.games.registry`: every game by name (:func:`load_game`), and the agent specs
  of all of them (:func:`make`, :func:`parse_spec`).
- :mod:`~agents.games.realtime`: real-time Speed: two seats on paired deals, three or four by
  seat rotation.
- :mod:`~agents.games.party`: the real-time tournament at tables of three or four.
- :mod:`~agents.games.vintage`: Vintage Speed: 2 to 10 seats, seat rotation.
- :mod:`~agents.games.agent_side`: what every game asks of its agent registry, written once.
- :mod:`~agents.games.tournament_side`: what every game's tournament asks of its chunk module,
  written once.
- :mod:`~agents.games.think_calibration`: every agent of a run timed on the fixed decision
  states (``--think calibrated``), for the commands and for training.

The protocol a game object keeps is :class:`agents.tournament.game.Game`.
"""

from __future__ import annotations

from agents.games.registry import GAMES, game_names, game_of_spec, load_game

__all__ = ["GAMES", "game_names", "game_of_spec", "load_game"]
