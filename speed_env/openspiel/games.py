"""The kit's OpenSpiel games, by name: the one place that lists them.

Each game's module registers its game with ``pyspiel`` when imported (``pyspiel.register_game``)
and names it (``SHORT_NAME``, with its ``DEFAULT_PARAMS``); :func:`install` routes
``pyspiel.load_game`` and the state (de)serialization through the kit for every game listed
here. A new game is a module beside the others and a line in :data:`GAMES` and
:data:`CLASSES` (OpenSpiel's own Python games register the same way, in ``games/``).
"""

from __future__ import annotations

from types import ModuleType

from speed_env.openspiel import game_string, realtime_game, state_string, vintage_game

GAMES: tuple[ModuleType, ...] = (realtime_game, vintage_game)
"""Each game's module, its game registered with ``pyspiel`` by the import above."""

CLASSES: dict[str, type] = {
    "SpeedGame": realtime_game.SpeedGame,
    "SpeedState": realtime_game.SpeedState,
    "VintageSpeedGame": vintage_game.VintageSpeedGame,
    "VintageSpeedState": vintage_game.VintageSpeedState,
}
"""Each game's ``pyspiel.Game`` and ``pyspiel.State`` classes by name: the public names of
:mod:`speed_env.openspiel`."""


def install() -> None:
    """Route ``pyspiel``'s game loading and state strings through the kit for :data:`GAMES`.

    Idempotent: a second call changes nothing."""
    state_string.install(tuple(game.SHORT_NAME for game in GAMES))
    game_string.install({game.SHORT_NAME: game.DEFAULT_PARAMS for game in GAMES})
