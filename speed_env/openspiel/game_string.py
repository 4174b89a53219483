"""The kit's game strings checked before OpenSpiel parses them: ``pyspiel.load_game``.

OpenSpiel reads a whole number in a game string (``python_speed(seed=...)``)
into a C++ ``int``; a number beyond it stops its parser with a bare
``CHECK_TRUE(success)`` that names neither the game nor the parameter, and a
Python ``int`` beyond it in a parameter dict fails pybind's cast as bare. So
:func:`install` routes ``pyspiel.load_game`` through :func:`load_game`, which
refuses, for the kit's games only, a whole-number parameter outside
:data:`INT_MIN` .. :data:`INT_MAX`, or a parameter the game does not have, with
a ``ValueError`` naming the game and the parameter; every other call goes to
OpenSpiel's own function unchanged. Each game then checks its parameters
against its own ranges (``int_param``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import pyspiel

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
"""The whole numbers OpenSpiel's game parameters hold (a C++ ``int``)."""

_WHOLE = re.compile(r"[+-]?\d+")
_KIT_GAMES: dict[str, tuple[str, ...]] = {}  # game name -> its parameters' names
_ORIGINAL: dict[str, Any] = {}


def _parameters(text: str) -> Iterator[tuple[str, str]]:
    """The ``name=value`` pairs at the top level of ``game(name=value,...)`` (a value may be a
    nested game string; its own parameters are its game's to check)."""
    inner = text[text.index("(") + 1 : -1]
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(inner):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    for part in parts:
        name, sep, value = part.partition("=")
        if sep:
            yield name.strip(), value.strip()


def check(game: str, params: Iterable[tuple[str, Any]]) -> None:
    """Refuse a parameter ``game`` does not have, or a whole number OpenSpiel cannot hold,
    naming it (ValueError)."""
    known = _KIT_GAMES[game]
    for name, value in params:
        if name not in known:  # with_defaults' refusal, before OpenSpiel's parser can stop
            raise ValueError(f"{game}: unknown parameter(s) {name}; known: {', '.join(known)}")
        if isinstance(value, str) and _WHOLE.fullmatch(value):
            digits = value.lstrip("+-").lstrip("0")
            # Python will not convert a string of more than 4,300 digits: say its length.
            fits = len(digits) <= 10 and INT_MIN <= int(value) <= INT_MAX
            shown = value if len(value) <= 40 else f"{value[:20]}… ({len(value):,} characters)"
        elif isinstance(value, int) and not isinstance(value, bool):
            fits = INT_MIN <= value <= INT_MAX
            shown = str(value) if value.bit_length() <= 64 else f"a {value.bit_length()}-bit int"
        else:
            continue
        if not fits:
            raise ValueError(
                f"{game}: parameter {name} must be a whole number OpenSpiel can hold "
                f"({INT_MIN} to {INT_MAX}), got {shown}"
            )


def load_game(*args: Any, **kwargs: Any) -> Any:
    """``pyspiel.load_game``, with a kit game's whole-number parameters checked first."""
    if args and isinstance(args[0], str):
        text = args[0].strip()
        name = text.partition("(")[0].strip()
        if name in _KIT_GAMES:
            if "(" in text and text.endswith(")"):
                check(name, _parameters(text))
            if len(args) > 1 and isinstance(args[1], dict):
                check(name, args[1].items())
    return _ORIGINAL["load_game"](*args, **kwargs)


def install(games: dict[str, Iterable[str]]) -> None:
    """Route ``pyspiel.load_game`` through :func:`load_game` for ``games`` (a game's name to
    its parameters' names; idempotent)."""
    _KIT_GAMES.update({name: tuple(params) for name, params in games.items()})
    current = pyspiel.load_game
    if current is not load_game:
        _ORIGINAL.setdefault("load_game", current)
        pyspiel.load_game = load_game
