"""Copies that keep the whole game: ``pickle`` and ``copy.deepcopy`` of every env.

Gymnasium's ``EzPickle`` pickles an env as its constructor arguments only, so
a copy is a fresh env that was never reset. Search, MCTS and subprocess
vector envs need the same game instead. :class:`GamePickle` keeps EzPickle's
arguments (a copy is still built, and its arguments checked, by the
constructor) and adds the instance's state on top: the engine's arrays, the
seed generator, an opponent policy and its generator, whatever the env holds.
A copy made at any point, by either route, continues exactly like the
original under the same actions (every random draw derives from that state)
and shares nothing with it.
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle

_EZPICKLE_KEYS = ("_ezpickle_args", "_ezpickle_kwargs")


class GamePickle(EzPickle):
    """``EzPickle`` plus the instance state: pickling and deep-copying keep the game in play."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        """Keep the constructor's ``arguments`` for the copy: its ``locals()``, taken first thing
        in ``__init__`` (every named parameter, passed again by keyword; ``**options`` spread)."""
        named = {k: v for k, v in arguments.items() if k not in ("self", "__class__", "options")}
        EzPickle.__init__(self, **named, **arguments.get("options", {}))

    def __getstate__(self) -> dict[str, Any]:
        """EzPickle's constructor arguments and every other attribute of the env."""
        state = EzPickle.__getstate__(self)
        state["_game_state"] = {k: v for k, v in self.__dict__.items() if k not in _EZPICKLE_KEYS}
        return state

    def __setstate__(self, d: dict[str, Any]) -> None:
        """Rebuild from the constructor arguments, then restore the game's state."""
        EzPickle.__setstate__(self, d)
        self.__dict__.update(d.get("_game_state", {}))
