"""The browser table's message protocol: what the page may send, and how it is checked.

Every message, both ways, is one JSON object in a text WebSocket frame, with a
``"type"`` naming it. The server checks each message from the page in two
steps, and a message that fails either gets an ``error`` reply and changes
nothing:

1. **Shape** (this module, :func:`parse`): at most :data:`MAX_MESSAGE_BYTES`
   bytes of UTF-8 text holding a JSON object; a known ``type``; exactly the
   fields that type allows (required ones present, no others); each of the
   right JSON type (``true`` is not a number, ``1.0`` is not an integer) and in
   range.
2. **Timing** (the game session, :mod:`speed_table.session`): a shape-valid
   message that cannot be used now, such as a play while your card is in
   flight, during the stuck countdown, before the game starts or after it
   ends, a play of an empty slot or of a card that does not go on that pile,
   ``speed`` or ``pause`` while playing rather than watching.

Page → server
=========  ============================================  ===========================================
type       fields                                        meaning
=========  ============================================  ===========================================
``start``  ``mirror``: bool, optional (default false)    deal a new game (the first, or a rematch);
                                                         ``mirror`` gives the bot your profile
``play``   ``slot``: int, 0 … hand size − 1;             play the card in that slot of your hand (or
           ``pile``: int, 0 or 1 (0 … n − 1 at a table   layout) onto centre pile ``pile``
           of n)
``speed``  ``factor``: one of 0.5, 1, 2                  watch mode: how fast the clock runs
``pause``  ``paused``: bool                              watch mode: stop or restart the clock
``ping``   ``t``: number, optional                       answered by ``pong`` with the same ``t``
=========  ============================================  ===========================================

Server → page
==============  ================================================================================
type            fields
==============  ================================================================================
``welcome``     ``mode`` (``play``/``watch``), ``seat`` (your seat, ``null`` when watching),
                ``seats`` (the players' names: two, or one a seat at a table of three or four,
                whose ``snapshot`` lists every seat and one centre pile per seat), ``rules``,
                ``tick_ms``, ``hand_size``, ``reaction`` (each seat's profile label),
                ``countdown_ms``, ``min_plays_for_profile``
``countdown``   ``game``, ``ms``: the game starts in ``ms`` milliseconds
``state``       ``game``, ``snapshot`` (the table as you may see it: ``snapshot()`` of the env, the
                opponent's hidden hand shown as ``"?"`` per card with ``hand_visible: false``),
                ``speed``, ``paused``
``played``      your play was accepted: ``slot``, ``pile``, ``card``, ``latency_ms`` (your reaction
                time for it, ``null`` when it cannot be measured)
``result``      ``game``, ``winner``, ``you`` (``win``/``loss``/``draw``/``none``, ``null`` when
                watching), ``snapshot`` (the whole table), ``latencies_ms`` (this game's),
                ``profile`` (your session's profile, see :mod:`speed_env.latency_fit`), ``replay``
``error``       ``code`` (one of :data:`ERROR_CODES`), ``message`` (what was wrong), ``about``
                (the type of the message refused, when known)
``pong``        ``t``
``fatal``       ``message``, ``title``: the table cannot start (a bot that cannot be built), or a
                bot failed mid-game (the message names it, the call and the game); the socket
                closes
``full``        ``message``, ``max_games``: the server already runs its most games at once
                (``--max-games``); sent instead of ``welcome``, then the socket closes with code
                1013 (try again later)
==============  ================================================================================
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_MESSAGE_BYTES = 1024
"""Longest text frame the page may send; every valid message is far shorter."""

SPEED_FACTORS = (0.5, 1.0, 2.0)
"""Clock speeds ``speed watch`` offers."""

INVALID = "invalid"
"""Malformed: not JSON, not an object, unknown type, a missing, extra or ill-typed field."""
OUT_OF_TURN = "out_of_turn"
"""Well formed but not usable now (no game running, a card already in flight …)."""
ILLEGAL = "illegal"
"""The play names an empty slot or a card that does not go on that pile."""
WRONG_MODE = "wrong_mode"
"""A player's message while watching, or a watcher's message while playing."""
NO_PROFILE = "no_profile"
"""A mirror rematch before enough of your plays were timed to fit a profile."""
ERROR_CODES = (INVALID, OUT_OF_TURN, ILLEGAL, WRONG_MODE, NO_PROFILE)


class ProtocolError(ValueError):
    """A message from the page was refused; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str, about: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.about = about

    def reply(self) -> dict[str, Any]:
        """The ``error`` message sent back to the page."""
        return error_message(self.code, self.message, self.about)


# ------------------------------------------------------------------ page → server
@dataclass(frozen=True)
class Start:
    """Deal a new game; ``mirror`` gives the bot the player's measured reaction profile."""

    mirror: bool = False


@dataclass(frozen=True)
class Play:
    """Play the card in hand slot ``slot`` onto centre pile ``pile``."""

    slot: int
    pile: int


@dataclass(frozen=True)
class Speed:
    """Watch mode: run the clock ``factor`` times as fast as real time."""

    factor: float


@dataclass(frozen=True)
class Pause:
    """Watch mode: stop (``True``) or restart (``False``) the clock."""

    paused: bool


@dataclass(frozen=True)
class Ping:
    """Round-trip probe; answered with ``pong`` carrying ``t``."""

    t: float | None = None


ClientMessage = Start | Play | Speed | Pause | Ping


@dataclass(frozen=True)
class _Field:
    kind: str  # "bool", "int" or "number" (a number has bounds or choices: it always fits a float)
    required: bool = True
    lo: float | None = None
    hi: float | None = None
    choices: tuple[float, ...] | None = None


def _fields(hand_size: int, piles: int = 2) -> dict[str, tuple[type, dict[str, _Field]]]:
    return {
        "start": (Start, {"mirror": _Field("bool", required=False)}),
        "play": (
            Play,
            {
                "slot": _Field("int", lo=0, hi=hand_size - 1),
                "pile": _Field("int", lo=0, hi=piles - 1),
            },
        ),
        "speed": (Speed, {"factor": _Field("number", choices=SPEED_FACTORS)}),
        "pause": (Pause, {"paused": _Field("bool")}),
        # Well inside a float's exact integers (2**53), so ``t`` comes back as it was sent.
        "ping": (Ping, {"t": _Field("number", required=False, lo=-1e15, hi=1e15)}),
    }


MESSAGE_TYPES = tuple(_fields(5))  # any hand size: only the names are read
"""The ``type`` values the page may send."""


def _show(value: Any) -> str:
    """A value from the page as JSON text for an error message: ASCII only, and cut short.

    ASCII, so a lone surrogate in a string is escaped and the reply can always be sent.
    """
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, int) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_value(kind: str, name: str, value: Any, spec: _Field, about: str) -> Any:
    # bool is a subclass of int in Python, but not a number in this protocol.
    if kind == "bool":
        if not isinstance(value, bool):
            raise ProtocolError(
                INVALID, f"{about}.{name} must be true or false, got {_show(value)}", about
            )
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProtocolError(INVALID, f"{about}.{name} must be a number, got {_show(value)}", about)
    if kind == "int" and not isinstance(value, int):
        raise ProtocolError(
            INVALID, f"{about}.{name} must be a whole number, got {_show(value)}", about
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ProtocolError(INVALID, f"{about}.{name} must be finite, got {value!r}", about)
    # Compared as they came (a JSON integer may have any number of digits: Python compares
    # it with a float exactly, where float(value) would overflow).
    if spec.choices is not None and value not in spec.choices:
        allowed = ", ".join(f"{c:g}" for c in spec.choices)
        raise ProtocolError(
            INVALID, f"{about}.{name} must be one of {allowed}, got {_show(value)}", about
        )
    if (spec.lo is not None and value < spec.lo) or (spec.hi is not None and value > spec.hi):
        raise ProtocolError(
            INVALID,
            f"{about}.{name} must be between {spec.lo:g} and {spec.hi:g}, got {_show(value)}",
            about,
        )
    return float(value) if kind == "number" else value


def parse(
    raw: str | bytes | Mapping[str, Any], *, hand_size: int = 5, piles: int = 2
) -> ClientMessage:
    """Check one message from the page and return it typed.

    ``raw`` is text, or an already decoded object. Raises :class:`ProtocolError`, code
    ``invalid``, naming what is wrong and what would be right. ``hand_size`` bounds
    ``play.slot``, ``piles`` (the centre piles: one a seat) ``play.pile``.
    """
    if isinstance(raw, bytes):
        raise ProtocolError(INVALID, "messages must be JSON text frames, not binary")
    if isinstance(raw, str):
        # surrogatepass: a lone surrogate, which a JSON string may carry, is measured, not
        # a UnicodeEncodeError.
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
            raise ProtocolError(INVALID, f"message longer than {MAX_MESSAGE_BYTES} bytes")
        try:
            data = json.loads(raw)
        # RecursionError: deeply nested arrays, even within the byte bound, outrun the decoder.
        except (json.JSONDecodeError, RecursionError):
            raise ProtocolError(INVALID, "message is not valid JSON") from None
    else:
        data = raw
    if not isinstance(data, Mapping):
        raise ProtocolError(
            INVALID, f'message must be a JSON object with a "type", got {type(data).__name__}'
        )
    kind = data.get("type")
    table = _fields(hand_size, piles)
    if not isinstance(kind, str) or kind not in table:
        raise ProtocolError(
            INVALID, f"unknown message type {_show(kind)}; expected one of {', '.join(table)}"
        )
    cls, specs = table[kind]
    extra = sorted(set(data) - set(specs) - {"type"})
    if extra:
        allowed = ", ".join(specs) or "none"
        names = ", ".join(_show(name) for name in extra)
        raise ProtocolError(
            INVALID, f"{kind} has unknown field(s) {names}; allowed: {allowed}", kind
        )
    values: dict[str, Any] = {}
    for name, spec in specs.items():
        if name not in data:
            if spec.required:
                raise ProtocolError(INVALID, f"{kind} needs the field {name!r}", kind)
            continue
        values[name] = _check_value(spec.kind, name, data[name], spec, kind)
    return cls(**values)


# ------------------------------------------------------------------ server → page
def error_message(code: str, message: str, about: str | None = None) -> dict[str, Any]:
    """An ``error`` reply; ``code`` is one of :data:`ERROR_CODES`."""
    if code not in ERROR_CODES:  # pragma: no cover - a programming error, not user input
        raise ValueError(f"unknown error code {code!r}")
    return {"type": "error", "code": code, "message": message, "about": about}


def hide_hand(snapshot: dict[str, Any], seat: int) -> dict[str, Any]:
    """The snapshot as the player at ``seat`` sees it: every opponent's hidden hand as card backs.

    In ``japanese`` the layouts are face up, so nothing is hidden. A card in
    flight is public (it is in the air, face up).
    """
    if snapshot.get("preset") == "japanese":
        return snapshot
    out = dict(snapshot)
    players = [dict(p) for p in snapshot["players"]]
    for k, other in enumerate(players):
        if k != seat:
            other["hand"] = [None if c is None else "?" for c in other["hand"]]
            other["hand_visible"] = False
    out["players"] = players
    return out
