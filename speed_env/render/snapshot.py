"""The snapshot reader the renderers share: a ``snapshot()`` dict, checked, as a typed table.

:func:`read_snapshot` reads only the snapshot, as the envs' ``snapshot()``
writes it (docs/envs/speed.md, ``snapshot()``); the optional keys ``preset``,
``hand_visible`` (false draws a hand as card backs), ``flip_ms``,
``truncated`` and an in-flight move's ``cards`` are used when present. A
missing or malformed entry is a ``ValueError`` naming it. The text
(:mod:`speed_env.render.text`) and image (:mod:`speed_env.render.image`)
renderers draw the :class:`Table` it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env.cards import card_str, is_red, parse_card

_PHASES = ("play", "stuck", "over")


@dataclass(frozen=True)
class Card:
    """One face-up card as the renderers need it."""

    token: str  # canonical notation, e.g. "10S", "RJ"
    red: bool

    @property
    def rank(self) -> str:
        """Rank part of the token ("10", "Q"; "JK" for a joker)."""
        return "JK" if self.token in ("RJ", "BJ") else self.token[:-1]

    @property
    def suit(self) -> str:
        """Suit letter (S H D C), or the joker's colour letter (R, B)."""
        return self.token[0] if self.token in ("RJ", "BJ") else self.token[-1]


@dataclass(frozen=True)
class Flight:
    """A seat's move in the air: its card(s), target pile and landing time."""

    cards: tuple[Card, ...]  # several only for japanese ``multi_play``
    pile: int | None  # None: a ``stack_layout`` move onto the player's own layout
    lands_ms: int

    @property
    def card(self) -> Card:
        """The (first) card in flight."""
        return self.cards[0]


@dataclass(frozen=True)
class Seat:
    """One player's side of the table."""

    name: str
    hand: tuple[Card | None, ...]
    hand_visible: bool
    draw_pile: int
    side_pile: int
    in_flight: Flight | None
    played: int
    bounced: int


@dataclass(frozen=True)
class Table:
    """The whole table as the renderers draw it."""

    clock_ms: int
    phase: str
    preset: str | None
    centre: tuple[tuple[Card | None, int], ...]  # one pile per seat
    seats: tuple[Seat, ...]  # two, or three or four for Party Speed
    winner: str | None
    flip_ms: int | None
    truncated: bool


def _need(mapping: Mapping[str, Any], key: str, where: str) -> Any:
    # A clear message beats a bare KeyError when a hand-written snapshot is incomplete.
    if key not in mapping:
        raise ValueError(f"snapshot {where} has no {key!r} (have: {sorted(mapping)})")
    return mapping[key]


def _card(token: Any) -> Card | None:
    # Parsing normalises input spellings ("TS", "Q♣") to the canonical output notation.
    if token is None:
        return None
    cid = parse_card(token)
    return Card(card_str(cid), is_red(cid))


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"snapshot {what} must be a count (int >= 0), got {value!r}")
    return int(value)


def _flight(raw: Mapping[str, Any], where: str, piles: int) -> Flight:
    pile = raw.get("pile")
    if pile is not None and pile not in range(piles):
        names = ", ".join(map(str, range(piles)))
        raise ValueError(f"snapshot {where} pile must be {names} or None (a stack), got {pile!r}")
    # "cards" lists every card of a multi-card move; "card" alone is the contract's minimum.
    tokens = raw.get("cards") or [_need(raw, "card", where)]
    cards = tuple(_card(t) for t in tokens)
    if any(c is None for c in cards):
        raise ValueError(f"snapshot {where} must name the card in flight, got {tokens!r}")
    return Flight(
        cards=cards,  # type: ignore[arg-type]  # None excluded above
        pile=None if pile is None else int(pile),
        lands_ms=int(_need(raw, "lands_ms", where)),
    )


def _seat(raw: Mapping[str, Any], k: int, piles: int) -> Seat:
    where = f"players[{k}]"
    flight_raw = raw.get("in_flight")
    flight = None if flight_raw is None else _flight(flight_raw, where + ".in_flight", piles)
    return Seat(
        name=str(raw.get("name", f"player_{k}")),
        hand=tuple(_card(t) for t in _need(raw, "hand", where)),
        hand_visible=bool(raw.get("hand_visible", True)),
        draw_pile=_count(_need(raw, "draw_pile", where), where + ".draw_pile"),
        side_pile=_count(raw.get("side_pile", 0), where + ".side_pile"),
        in_flight=flight,
        played=_count(raw.get("played", 0), where + ".played"),
        bounced=_count(raw.get("bounced", 0), where + ".bounced"),
    )


def read_snapshot(snapshot: Mapping[str, Any], *, party: bool = False) -> Table:
    """Check a snapshot and turn it into the typed table the renderers draw.

    Two seats and two centre piles, or with ``party`` three or four seats and a centre pile
    each (Party Speed's ``snapshot()``; :mod:`speed_env.render.party_image`)."""
    if not isinstance(snapshot, Mapping):
        raise TypeError(
            f"snapshot must be a dict from env.snapshot(), got {type(snapshot).__name__}"
        )
    phase = _need(snapshot, "phase", "")
    if phase not in _PHASES:
        raise ValueError(f"snapshot phase must be one of {_PHASES}, got {phase!r}")
    centre_raw = _need(snapshot, "centre", "")
    players_raw = _need(snapshot, "players", "")
    if party and (len(players_raw) not in (3, 4) or len(centre_raw) != len(players_raw)):
        raise ValueError(
            "a Party Speed table has 3 or 4 players and a centre pile each, got "
            f"{len(players_raw)} players and {len(centre_raw)} centre piles"
        )
    if not party and (len(centre_raw) != 2 or len(players_raw) != 2):
        raise ValueError(
            f"a Speed table has 2 centre piles and 2 players, got {len(centre_raw)} and "
            f"{len(players_raw)}"
        )
    centre = tuple(
        (
            _card(_need(pile, "top", f"centre[{i}]")),
            _count(_need(pile, "size", f"centre[{i}]"), f"centre[{i}].size"),
        )
        for i, pile in enumerate(centre_raw)
    )
    flip = snapshot.get("flip_ms")
    return Table(
        clock_ms=_count(_need(snapshot, "clock_ms", ""), "clock_ms"),
        phase=phase,
        preset=snapshot.get("preset"),
        centre=centre,
        seats=tuple(_seat(raw, k, len(centre)) for k, raw in enumerate(players_raw)),
        winner=snapshot.get("winner"),
        flip_ms=None if flip is None else int(flip),
        truncated=bool(snapshot.get("truncated", False)),
    )


def seconds(ms: int, digits: int) -> str:
    """``ms`` as seconds with ``digits`` decimals."""
    return f"{ms / 1000:.{digits}f}"
