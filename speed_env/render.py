"""Draw a real-time Speed table from a ``snapshot()`` dict, as text or as an RGB frame.

The environments' ``render_mode="human"`` / ``"ansi"`` / ``"rgb_array"`` (through
:func:`render_mode`), replays and videos all draw through the two pure functions here,
so a table looks the same wherever it is shown and a saved snapshot (plain JSON) can be
re-drawn later without an engine:

* :func:`render_ansi` gives a compact multi-line text table, optionally coloured.
* :func:`render_rgb` gives an ``(H, W, 3)`` ``uint8`` image drawn with numpy alone
  (a built-in 3x5 pixel font, no matplotlib or PIL), whose size depends only on
  ``scale``, so consecutive frames can go straight into a video.

Both read only the snapshot, as the README describes it (`snapshot()`); the optional keys
``preset``, ``hand_visible`` (false draws a hand as card backs), ``flip_ms``,
``truncated`` and an in-flight move's ``cards`` are used when present. Player 0 sits at the
bottom, player 1 at the top, and player *k*'s side pile is drawn beside centre
pile *k*.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env.cards import card_str, is_red, parse_card

__all__ = ["RGB_CARD_SIZE", "render_ansi", "render_mode", "render_rgb", "rgb_shape", "strip_ansi"]


# --------------------------------------------------------------------------------------
# The snapshot, read once and checked, for both renderers
# --------------------------------------------------------------------------------------

_PHASES = ("play", "stuck", "over")


@dataclass(frozen=True)
class _Card:
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
class _Flight:
    cards: tuple[_Card, ...]  # several only for japanese ``multi_play``
    pile: int | None  # None: a ``stack_layout`` move onto the player's own layout
    lands_ms: int

    @property
    def card(self) -> _Card:
        """The (first) card in flight."""
        return self.cards[0]


@dataclass(frozen=True)
class _Seat:
    name: str
    hand: tuple[_Card | None, ...]
    hand_visible: bool
    draw_pile: int
    side_pile: int
    in_flight: _Flight | None
    played: int
    bounced: int


@dataclass(frozen=True)
class _Table:
    clock_ms: int
    phase: str
    preset: str | None
    centre: tuple[tuple[_Card | None, int], tuple[_Card | None, int]]
    seats: tuple[_Seat, _Seat]
    winner: str | None
    flip_ms: int | None
    truncated: bool


def _need(mapping: Mapping[str, Any], key: str, where: str) -> Any:
    # A clear message beats a bare KeyError when a hand-written snapshot is incomplete.
    if key not in mapping:
        raise ValueError(f"snapshot {where} has no {key!r} (have: {sorted(mapping)})")
    return mapping[key]


def _card(token: Any) -> _Card | None:
    # Parsing normalises input spellings ("TS", "Q♣") to the canonical output notation.
    if token is None:
        return None
    cid = parse_card(token)
    return _Card(card_str(cid), is_red(cid))


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"snapshot {what} must be a count (int >= 0), got {value!r}")
    return int(value)


def _flight(raw: Mapping[str, Any], where: str) -> _Flight:
    pile = raw.get("pile")
    if pile not in (0, 1, None):
        raise ValueError(f"snapshot {where} pile must be 0, 1 or None (a stack), got {pile!r}")
    # "cards" lists every card of a multi-card move; "card" alone is the contract's minimum.
    tokens = raw.get("cards") or [_need(raw, "card", where)]
    cards = tuple(_card(t) for t in tokens)
    if any(c is None for c in cards):
        raise ValueError(f"snapshot {where} must name the card in flight, got {tokens!r}")
    return _Flight(
        cards=cards,  # type: ignore[arg-type]  # None excluded above
        pile=None if pile is None else int(pile),
        lands_ms=int(_need(raw, "lands_ms", where)),
    )


def _seat(raw: Mapping[str, Any], k: int) -> _Seat:
    where = f"players[{k}]"
    flight_raw = raw.get("in_flight")
    flight = None if flight_raw is None else _flight(flight_raw, where + ".in_flight")
    return _Seat(
        name=str(raw.get("name", f"player_{k}")),
        hand=tuple(_card(t) for t in _need(raw, "hand", where)),
        hand_visible=bool(raw.get("hand_visible", True)),
        draw_pile=_count(_need(raw, "draw_pile", where), where + ".draw_pile"),
        side_pile=_count(raw.get("side_pile", 0), where + ".side_pile"),
        in_flight=flight,
        played=_count(raw.get("played", 0), where + ".played"),
        bounced=_count(raw.get("bounced", 0), where + ".bounced"),
    )


def _read(snapshot: Mapping[str, Any]) -> _Table:
    """Check a snapshot and turn it into the typed table both renderers draw."""
    if not isinstance(snapshot, Mapping):
        raise TypeError(
            f"snapshot must be a dict from env.snapshot(), got {type(snapshot).__name__}"
        )
    phase = _need(snapshot, "phase", "")
    if phase not in _PHASES:
        raise ValueError(f"snapshot phase must be one of {_PHASES}, got {phase!r}")
    centre_raw = _need(snapshot, "centre", "")
    players_raw = _need(snapshot, "players", "")
    if len(centre_raw) != 2 or len(players_raw) != 2:
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
    return _Table(
        clock_ms=_count(_need(snapshot, "clock_ms", ""), "clock_ms"),
        phase=phase,
        preset=snapshot.get("preset"),
        centre=centre,  # type: ignore[arg-type]  # length checked above
        seats=(_seat(players_raw[0], 0), _seat(players_raw[1], 1)),
        winner=snapshot.get("winner"),
        flip_ms=None if flip is None else int(flip),
        truncated=bool(snapshot.get("truncated", False)),
    )


def _seconds(ms: int, digits: int) -> str:
    return f"{ms / 1000:.{digits}f}"


# --------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------

_UNICODE_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_RED, _BLUE, _YELLOW, _DIM, _BOLD, _RESET = (
    "\x1b[31m",
    "\x1b[34m",
    "\x1b[33m",
    "\x1b[2m",
    "\x1b[1m",
    "\x1b[0m",
)
_ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    """``text`` without ANSI colour codes (to compare coloured and plain output)."""
    return _ANSI_CODE.sub("", text)


class _Ink:
    """Wraps text in ANSI codes only when colour is on, so layout never depends on it."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.on else text


def _token(card: _Card, unicode_suits: bool) -> str:
    if unicode_suits and card.token not in ("RJ", "BJ"):
        return card.token[:-1] + _UNICODE_SUITS[card.token[-1]]
    return card.token


def _ansi_card(card: _Card | None, visible: bool, ink: _Ink, unicode_suits: bool) -> str:
    # Every cell is 5 columns wide ("[10S]") so rows line up with or without colour.
    if card is None:
        return ink("[   ]", _DIM)
    if not visible:
        return ink("[###]", _BLUE)
    text = f"[{_token(card, unicode_suits):>3}]"
    return ink(text, _RED) if card.red else text


def _ansi_flight(seat: _Seat, ink: _Ink, unicode_suits: bool) -> str:
    if seat.in_flight is None:
        return ""
    f = seat.in_flight
    cards = "+".join(_token(c, unicode_suits) for c in f.cards)
    target = "stack" if f.pile is None else f"pile {f.pile}"
    text = f"{cards} -> {target} @ {_seconds(f.lands_ms, 3)} s"
    return "   " + ink(text, _RED if f.card.red else _YELLOW)


def _ansi_seat_lines(seat: _Seat, table: _Table, ink: _Ink, unicode_suits: bool) -> list[str]:
    name = ink(seat.name, _BOLD) if seat.name == table.winner else seat.name
    # japanese calls the draw pile a stock and has no side piles.
    piles = (
        f"stock {seat.draw_pile}"
        if table.preset == "japanese"
        else f"draw {seat.draw_pile}  side {seat.side_pile}"
    )
    info = f"{name}  {piles}  played {seat.played}  bounced {seat.bounced}"
    cells = " ".join(_ansi_card(c, seat.hand_visible, ink, unicode_suits) for c in seat.hand)
    hand = "  " + cells + _ansi_flight(seat, ink, unicode_suits)
    return [info, hand]


def _ansi_centre(table: _Table, ink: _Ink, unicode_suits: bool) -> str:
    piles = [
        f"pile {i} {_ansi_card(top, True, ink, unicode_suits)} x{size}"
        for i, (top, size) in enumerate(table.centre)
    ]
    if table.preset == "japanese":
        return "  " + "   ".join(piles)
    s0, s1 = (seat.side_pile for seat in table.seats)
    return f"  side {s0} | {piles[0]} | {piles[1]} | side {s1}"


def _ansi_result(table: _Table, ink: _Ink) -> str | None:
    if table.winner == "draw":
        return ink("result: draw", _BOLD)
    if table.winner is not None:
        return ink(f"winner: {table.winner}", _BOLD)
    if table.truncated:
        return "truncated: no winner"
    if table.phase == "over":
        return "game over: no winner"
    return None


def render_ansi(
    snapshot: Mapping[str, Any], *, color: bool = False, unicode_suits: bool = False
) -> str:
    """Draw the table in ``snapshot`` as a compact multi-line text table.

    Player 1's row is at the top, the two centre piles (top card and size, each
    beside its side pile's count) in the middle, player 0's row at the bottom;
    each row shows the hand (``[###]`` for a hidden card, ``[   ]`` for an empty
    or in-flight slot), the card in flight with an arrow to its pile (``stack``
    for a japanese ``stack_layout`` move; ``+`` joins a ``multi_play``'s cards)
    and its landing time, and the draw pile, side pile, played and bounced
    counts (``stock`` and no side piles in ``japanese``). The header gives
    preset, clock, phase and any pending flip; the last line names the winner
    once the game is over (or says it was truncated).

    ``color=True`` adds ANSI colours (red suits red, backs blue); stripped of its
    codes the text is the same as without. ``unicode_suits=True`` writes ``♠ ♥ ♦ ♣``
    instead of the letters, which some terminals cannot show.
    """
    table = _read(snapshot)
    ink = _Ink(color)
    header = f"Speed ({table.preset or '?'})  clock {_seconds(table.clock_ms, 3)} s  {table.phase}"
    if table.flip_ms is not None:
        header += f"  flip at {_seconds(table.flip_ms, 3)} s"
    top, bottom = table.seats[1], table.seats[0]
    lines = [header]
    lines += _ansi_seat_lines(top, table, ink, unicode_suits)
    lines.append(_ansi_centre(table, ink, unicode_suits))
    lines += reversed(_ansi_seat_lines(bottom, table, ink, unicode_suits))
    result = _ansi_result(table, ink)
    if result is not None:
        lines.append(result)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Pixels: a tiny bitmap font and pip shapes
# --------------------------------------------------------------------------------------


def _bitmap(rows: Sequence[str]) -> np.ndarray:
    return np.array([[ch == "#" for ch in row] for row in rows], dtype=bool)


# 3x5 glyphs, one string per row; enough for card ranks and suits, counters and labels.
_GLYPH_ROWS: dict[str, tuple[str, ...]] = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    ".": ("...", "...", "...", "...", ".#."),
    ":": ("...", ".#.", "...", ".#.", "..."),
    "-": ("...", "...", "###", "...", "..."),
    "_": ("...", "...", "...", "...", "###"),
    ">": ("#..", ".#.", "..#", ".#.", "#.."),
    "<": ("..#", ".#.", "#..", ".#.", "..#"),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    "?": ("###", "..#", ".##", "...", ".#."),
    " ": ("...", "...", "...", "...", "..."),
}
_GLYPH_W, _GLYPH_H = 3, 5
_ADVANCE = _GLYPH_W + 1

# 5x5 pips drawn in the card's corner: the suit shape (a star for jokers).
_PIP_ROWS: dict[str, tuple[str, ...]] = {
    "S": ("..#..", ".###.", "#####", "..#..", ".###."),
    "H": (".#.#.", "#####", "#####", ".###.", "..#.."),
    "D": ("..#..", ".###.", "#####", ".###.", "..#.."),
    "C": (".###.", "#####", "#####", "..#..", ".###."),
    "joker": ("#.#.#", ".###.", "#####", ".###.", "#.#.#"),
}


# Colours (RGB). Only card ink for red cards uses strong red, which the tests rely on.
_FELT = (22, 110, 52)
_FELT_DARK = (14, 78, 36)
_LABEL = (228, 232, 220)
_GOLD = (250, 204, 40)
_CARD_WHITE = (246, 246, 240)
_CARD_EDGE = (60, 60, 60)
_INK_BLACK = (20, 20, 24)
_INK_RED = (205, 22, 34)
_BACK = (34, 62, 160)
_BACK_LIGHT = (92, 128, 220)
_FLIGHT = (250, 204, 40)

# --------------------------------------------------------------------------------------
# Pixels: the fixed layout, in base (scale 1) pixels
# --------------------------------------------------------------------------------------

_CW, _CH = 13, 19
RGB_CARD_SIZE: tuple[int, int] = (_CW, _CH)
"""Width and height of a card in base pixels (multiply by ``scale``)."""

_W = 160
_MAX_SLOTS = 7  # widest hand the fixed width holds (us/pagat use 5, japanese 4)
_SLOT_GAP = 3
_INFO1_Y = 2
_HAND1_Y = 10
_LANE1_Y = _HAND1_Y + _CH + 3  # player 1's card in flight, then an arrow down to its pile
_CENTRE_Y = _LANE1_Y + _CH + 6
_SIZES_Y = _CENTRE_Y + _CH + 2  # centre pile sizes under the piles
_LANE0_Y = _CENTRE_Y + _CH + 15  # player 0's arrow up to its pile, then its card in flight
_HAND0_Y = _LANE0_Y + _CH + 3
_INFO0_Y = _HAND0_Y + _CH + 3
_H = _INFO0_Y + _GLYPH_H + 2

_MID = _W // 2
_PILE_X = (_MID - 3 - _CW, _MID + 3)
_SIDE_X = (_PILE_X[0] - 8 - _CW, _PILE_X[1] + _CW + 8)
_DRAW_X = 4
_LEFT_COL_X = 2  # clock and flip, left of side pile 0
_RIGHT_COL_X = _SIDE_X[1] + _CW + 2  # phase, preset and result, right of side pile 1
_HAND_Y = (_HAND0_Y, _HAND1_Y)
_LANE_Y = (_LANE0_Y, _LANE1_Y)
_INFO_Y = (_INFO0_Y, _INFO1_Y)


def rgb_shape(scale: int = 2) -> tuple[int, int, int]:
    """Shape ``(H, W, 3)`` of every :func:`render_rgb` frame at ``scale``."""
    return (_H * scale, _W * scale, 3)


def _lit(mask: np.ndarray) -> np.ndarray:
    """Offsets ``(2, n)`` (rows, then columns) of the lit pixels of a bitmap."""
    return np.array(np.nonzero(mask), dtype=np.int64)


def _lattice(skip_rows: range = range(0)) -> np.ndarray:
    # A dotted lattice reads as a card back even at scale 1; the band variant leaves
    # room for a pile's count.
    mask = np.zeros((_CH, _CW), dtype=bool)
    mask[3 : _CH - 2 : 3, 3 : _CW - 2 : 3] = True
    mask[skip_rows.start : skip_rows.stop] = False
    return mask


_COUNT_DY = 7  # row of a count written on a pile's back, relative to the card
# Every bitmap as lit-pixel offsets, so a whole frame's text is drawn in one assignment.
_BITMAPS: dict[str, np.ndarray] = (
    {ch: _lit(_bitmap(rows)) for ch, rows in _GLYPH_ROWS.items()}
    | {"pip " + name: _lit(_bitmap(rows)) for name, rows in _PIP_ROWS.items()}
    | {
        "back": _lit(_lattice()),
        "back with count": _lit(_lattice(range(_COUNT_DY - 1, _COUNT_DY + _GLYPH_H + 1))),
    }
)


def _fill(block: np.ndarray, colour: tuple[int, int, int]) -> None:
    """Paint an ``(h, w, 3)`` block one colour.

    Broadcasting a 3-tuple over a whole image runs numpy's slow 3-element inner
    loop per pixel; painting one row and copying it row by row is ~50x faster.
    """
    if block.size:
        block[0] = colour
        block[1:] = block[0]


class _Canvas:
    """One frame being drawn at its final scale, in base-pixel coordinates.

    Rectangles are filled at once; bitmaps (text, pips, back lattices) are queued
    and drawn together by :meth:`finish`, because one numpy assignment for the
    frame costs far less than one per glyph. So bitmaps always lie on top of
    rectangles, which the layout relies on and never needs the other way round.
    """

    def __init__(self, scale: int) -> None:
        self.scale = scale
        self.pixels = np.empty(rgb_shape(scale), dtype=np.uint8)
        _fill(self.pixels, _FELT)
        self._stamps: list[tuple[str, int, int, tuple[int, int, int]]] = []

    def rect(self, x: int, y: int, w: int, h: int, colour: tuple[int, int, int]) -> None:
        """Fill a ``w`` x ``h`` rectangle whose top-left corner is ``(x, y)``."""
        s = self.scale
        block = self.pixels[max(y, 0) * s : max(y + h, 0) * s, max(x, 0) * s : max(x + w, 0) * s]
        _fill(block, colour)

    def outline(self, x: int, y: int, w: int, h: int, colour: tuple[int, int, int]) -> None:
        """A one-pixel frame around the rectangle ``(x, y, w, h)``."""
        self.rect(x, y, w, 1, colour)
        self.rect(x, y + h - 1, w, 1, colour)
        self.rect(x, y, 1, h, colour)
        self.rect(x + w - 1, y, 1, h, colour)

    def stamp(self, bitmap: str, x: int, y: int, colour: tuple[int, int, int]) -> None:
        """Queue bitmap ``bitmap`` (a key of ``_BITMAPS``) with its top-left at ``(x, y)``."""
        self._stamps.append((bitmap, x, y, colour))

    def text(self, text: str, x: int, y: int, colour: tuple[int, int, int]) -> None:
        """Queue ``text`` in the 3x5 font (upper case; unknown characters as ``?``)."""
        for i, ch in enumerate(text.upper()):
            self.stamp(ch if ch in _GLYPH_ROWS else "?", x + i * _ADVANCE, y, colour)

    def finish(self) -> np.ndarray:
        """Draw the queued bitmaps and return the frame."""
        if not self._stamps:
            return self.pixels
        names, xs, ys, colours = zip(*self._stamps, strict=True)
        offsets = [_BITMAPS[name] for name in names]
        counts = np.array([o.shape[1] for o in offsets])
        dy, dx = np.concatenate(offsets, axis=1)
        py = np.repeat(np.array(ys), counts) + dy
        px = np.repeat(np.array(xs), counts) + dx
        rgb = np.repeat(np.array(colours, dtype=np.uint8), counts, axis=0)
        # Clip at the frame's edge so a long label is cut off rather than wrapped.
        keep = (py >= 0) & (py < _H) & (px >= 0) & (px < _W)
        py, px, rgb = py[keep], px[keep], rgb[keep]
        s = self.scale
        sub = np.arange(s)
        rows = (py * s)[:, None, None] + sub[None, :, None]
        cols = (px * s)[:, None, None] + sub[None, None, :]
        self.pixels[rows, cols] = rgb[:, None, None, :]
        return self.pixels


def _text_width(text: str) -> int:
    return max(len(text) * _ADVANCE - 1, 0)


def _text_centred(
    canvas: _Canvas, text: str, centre_x: int, y: int, colour: tuple[int, int, int]
) -> None:
    canvas.text(text, centre_x - _text_width(text) // 2, y, colour)


# --------------------------------------------------------------------------------------
# Pixels: cards and piles
# --------------------------------------------------------------------------------------


def _face(canvas: _Canvas, card: _Card, x: int, y: int) -> None:
    canvas.rect(x, y, _CW, _CH, _CARD_EDGE)
    canvas.rect(x + 1, y + 1, _CW - 2, _CH - 2, _CARD_WHITE)
    ink = _INK_RED if card.red else _INK_BLACK
    canvas.text(card.rank, x + 2, y + 2, ink)
    canvas.text(card.suit, x + 2, y + 8, ink)
    pip = "pip joker" if card.token in ("RJ", "BJ") else "pip " + card.suit
    canvas.stamp(pip, x + _CW - 7, y + _CH - 7, ink)


def _back(canvas: _Canvas, x: int, y: int, count: int | None = None) -> None:
    canvas.rect(x, y, _CW, _CH, _BACK_LIGHT)
    canvas.rect(x + 1, y + 1, _CW - 2, _CH - 2, _BACK)
    if count is None:
        canvas.stamp("back", x, y, _BACK_LIGHT)
    else:
        canvas.stamp("back with count", x, y, _BACK_LIGHT)
        _text_centred(canvas, str(count), x + _CW // 2, y + _COUNT_DY, _LABEL)


def _empty(canvas: _Canvas, x: int, y: int, count: int | None = None) -> None:
    canvas.outline(x, y, _CW, _CH, _FELT_DARK)
    if count is not None:
        _text_centred(canvas, str(count), x + _CW // 2, y + _COUNT_DY, _FELT_DARK)


def _pile(canvas: _Canvas, x: int, y: int, count: int) -> None:
    """A face-down pile with its count written on it (an outline when empty)."""
    if count > 0:
        _back(canvas, x, y, count)
    else:
        _empty(canvas, x, y, count)


def _slot_xs(n: int) -> list[int]:
    if n > _MAX_SLOTS:
        raise ValueError(f"render_rgb fits at most {_MAX_SLOTS} hand slots, got {n}")
    total = n * _CW + (n - 1) * _SLOT_GAP
    x0 = _MID - total // 2
    return [x0 + i * (_CW + _SLOT_GAP) for i in range(n)]


def _arrow(canvas: _Canvas, centre_x: int, y: int, down: bool) -> None:
    """A 5-wide, 3-tall arrowhead in rows ``y`` to ``y + 2``, pointing down or up."""
    widths = (5, 3, 1) if down else (1, 3, 5)
    for row, w in enumerate(widths):
        canvas.rect(centre_x - w // 2, y + row, w, 1, _FLIGHT)


def _draw_seat(canvas: _Canvas, table: _Table, k: int) -> None:
    seat = table.seats[k]
    hand_y = _HAND_Y[k]
    _pile(canvas, _DRAW_X, hand_y, seat.draw_pile)
    xs = _slot_xs(len(seat.hand))
    for x, card in zip(xs, seat.hand, strict=True):
        if card is None:
            _empty(canvas, x, hand_y)
        elif seat.hand_visible:
            _face(canvas, card, x, hand_y)
        else:
            _back(canvas, x, hand_y)
    info = f"P{k} PLAYED {seat.played} BOUNCED {seat.bounced}"
    info_colour = _GOLD if seat.name == table.winner else _LABEL
    _text_centred(canvas, info, _MID, _INFO_Y[k], info_colour)
    if seat.in_flight is not None:
        _draw_flight(canvas, seat.in_flight, seat.hand, k, xs)


def _draw_flight(
    canvas: _Canvas,
    flight: _Flight,
    hand: tuple[_Card | None, ...],
    k: int,
    slot_xs: list[int],
) -> None:
    # The snapshot does not say which empty slot the card left; the first empty one is
    # the usual case. A card bound for a centre pile is drawn two thirds of the way
    # there, with an arrow at the pile; one being stacked on the layout stays above
    # its slot.
    target_x = _MID - _CW // 2 if flight.pile is None else _PILE_X[flight.pile]
    origin = next((x for x, c in zip(slot_xs, hand, strict=True) if c is None), target_x)
    x = origin + (target_x - origin) * 2 // 3 if flight.pile is not None else origin
    y = _LANE_Y[k]
    canvas.outline(x - 1, y - 1, _CW + 2, _CH + 2, _FLIGHT)
    _face(canvas, flight.card, x, y)
    if flight.pile is not None:
        arrow_y = y + _CH + 2 if k == 1 else y - 6
        _arrow(canvas, target_x + _CW // 2, arrow_y, down=k == 1)
    # Landing time (and how many cards fly together) beside the card, where there is room.
    label = _seconds(flight.lands_ms, 2)
    if len(flight.cards) > 1:
        label += f" X{len(flight.cards)}"
    tx = x + _CW + 3
    if tx + _text_width(label) > _W:
        tx = x - 3 - _text_width(label)
    canvas.text(label, tx, y + (_CH - _GLYPH_H) // 2, _FLIGHT)


def _draw_centre(canvas: _Canvas, table: _Table) -> None:
    for i, (top, size) in enumerate(table.centre):
        x = _PILE_X[i]
        if top is None:
            _empty(canvas, x, _CENTRE_Y)
        else:
            _face(canvas, top, x, _CENTRE_Y)
        _text_centred(canvas, str(size), x + _CW // 2, _SIZES_Y, _LABEL)
    if table.preset != "japanese":  # japanese deals no side piles
        for i, seat in enumerate(table.seats):
            _pile(canvas, _SIDE_X[i], _CENTRE_Y, seat.side_pile)


def _draw_status(canvas: _Canvas, table: _Table) -> None:
    line = _GLYPH_H + 2
    y = _CENTRE_Y + 1
    # Seconds without a unit: an "S" in the 3x5 font is too easily read as a 5.
    canvas.text("T " + _seconds(table.clock_ms, 2), _LEFT_COL_X, y, _LABEL)
    if table.flip_ms is not None:
        canvas.text("FLIP", _LEFT_COL_X, y + line, _GOLD)
        canvas.text(_seconds(table.flip_ms, 2), _LEFT_COL_X, y + 2 * line, _GOLD)
    canvas.text(table.phase, _RIGHT_COL_X, y, _LABEL)
    canvas.text(table.preset or "", _RIGHT_COL_X, y + line, _LABEL)
    result = _rgb_result(table)
    if result:
        canvas.text(result, _RIGHT_COL_X, y + 2 * line, _GOLD)


def _rgb_result(table: _Table) -> str:
    if table.winner is None:
        return ""
    if table.winner == "draw":
        return "DRAW"
    for k, seat in enumerate(table.seats):
        if seat.name == table.winner:
            return f"P{k} WINS"
    return str(table.winner)[:8]


def render_rgb(snapshot: Mapping[str, Any], *, scale: int = 2) -> np.ndarray:
    """Draw the table in ``snapshot`` as an ``(H, W, 3)`` ``uint8`` RGB image.

    Green felt; player 1's hand at the top and player 0's at the bottom, each with
    its draw pile (a blue back with the count on it) on the left and a line with
    its played and bounced counts; the two centre piles in the middle with their
    sizes beneath, flanked by the side piles (counts on their backs; none in
    ``japanese``); a card in flight drawn between its owner's hand and its pile,
    outlined in gold, with an arrow to the pile and its landing time; the clock
    and any pending flip on the left, phase, preset and result on the right.
    Hidden hands are drawn as blue backs, empty slots as dark outlines, red suits
    and the red joker in red.

    The shape is :func:`rgb_shape` ``(scale)`` (``(280, 320, 3)`` at the default
    ``scale=2``) whatever the snapshot holds, so frames can be stacked into a
    video; drawing is deterministic. Every base pixel becomes a ``scale`` x
    ``scale`` block, so the font stays crisp.
    """
    if isinstance(scale, bool) or not isinstance(scale, int | np.integer) or scale < 1:
        raise ValueError(f"scale must be an int >= 1, got {scale!r}")
    table = _read(snapshot)
    canvas = _Canvas(int(scale))
    _draw_centre(canvas, table)
    _draw_seat(canvas, table, 1)
    _draw_seat(canvas, table, 0)
    _draw_status(canvas, table)
    return canvas.finish()


def render_mode(snapshot: Mapping[str, Any], mode: str) -> str | np.ndarray | None:
    """What an env's ``render()`` returns in render mode ``mode``.

    ``"human"`` prints the text table to the terminal and returns ``None``;
    ``"ansi"`` returns that text; ``"rgb_array"`` returns :func:`render_rgb`'s frame.
    """
    if mode == "human":
        print(render_ansi(snapshot), flush=True)
        return None
    if mode == "ansi":
        return render_ansi(snapshot)
    if mode == "rgb_array":
        return render_rgb(snapshot)
    raise ValueError(f"render mode must be 'human', 'ansi' or 'rgb_array', got {mode!r}")
