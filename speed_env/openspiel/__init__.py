"""Both Speed games as OpenSpiel games (extra ``[openspiel]``).

``import speed_env.openspiel`` registers them with ``pyspiel``, so that
``pyspiel.load_game`` knows them by name:

- :mod:`~speed_env.openspiel.vintage_game`: ``python_vintage_speed``, Vintage Speed:
  sequential, imperfect information, explicit chance, with a fair ``resample_from_infostate``.
- :mod:`~speed_env.openspiel.realtime_game`: ``python_speed``, real-time Speed, one
  simultaneous joint move per tick (``pyspiel.convert_to_turn_based`` plays it one seat at a
  time).
- :mod:`~speed_env.openspiel.games`: the games, by name: which modules register with ``pyspiel``
  and their classes.
- :mod:`~speed_env.openspiel.game_type`: what both games declare alike: their
  ``pyspiel.GameType`` and their parameters.
- :mod:`~speed_env.openspiel.game_string`: the kit's game strings checked before OpenSpiel
  parses them (a parameter beyond a C++ ``int`` refused by name, not by a bare CHECK).
- :mod:`~speed_env.openspiel.state_string`: a state as its game string and action history,
  replayed on load: never a pickle.

Both games' play equals the kit's envs' on the same deals and actions (tested).
``pyspiel.serialize_game_and_state`` and ``pyspiel.deserialize_game_and_state`` use
:mod:`~speed_env.openspiel.state_string` for these games.
``import speed_env`` does not import this package (nor ``pyspiel``).
"""

from __future__ import annotations

from speed_env.openspiel import games

games.install()

__all__ = list(games.CLASSES)  # each game's Game and State classes


def __getattr__(name: str) -> type:
    """A game's OpenSpiel class by its name (``SpeedGame`` ...), as :data:`games.CLASSES` has it;
    the classes live in their games' modules, so this package names no game."""
    try:
        return games.CLASSES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
