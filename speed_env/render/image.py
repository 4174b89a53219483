"""The image renderer: a real-time Speed table as an ``(H, W, 3)`` ``uint8`` RGB frame.

What ``render_mode="rgb_array"`` returns (:func:`speed_env.render.modes.render_mode`),
drawn from a ``snapshot()`` dict with Pillow's ``ImageDraw`` (shapes) and
its built-in scalable font (text). Pillow is the ``[render]`` extra
(``pip install 'speed-rl[render]'``) and is imported only when a frame is
drawn, so ``import speed_env`` does not load it; without it, drawing a frame
raises an ``ImportError`` that names the extra.

The layout is fixed in base pixels (a 160 x 140 table) and drawn at
``scale`` times that size, so a frame's shape depends only on ``scale``
(:func:`rgb_shape`) and consecutive frames can go straight into a video.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from speed_env.render.snapshot import Card, Flight, Table, read_snapshot, seconds

Colour = tuple[int, int, int]

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

# The fixed layout, in base (scale 1) pixels.
_CW, _CH = 13, 19
RGB_CARD_SIZE: tuple[int, int] = (_CW, _CH)
"""Width and height of a card in base pixels (multiply by ``scale``)."""

_TEXT_H = 5  # cap height of the text, in base pixels
_FONT_EM = 7  # the font size that gives that cap height
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
_H = _INFO0_Y + _TEXT_H + 2

_MID = _W // 2
_PILE_X = (_MID - 3 - _CW, _MID + 3)
_SIDE_X = (_PILE_X[0] - 8 - _CW, _PILE_X[1] + _CW + 8)
_DRAW_X = 4
_LEFT_COL_X = 2  # clock and flip, left of side pile 0
_RIGHT_COL_X = _SIDE_X[1] + _CW + 2  # phase, preset and result, right of side pile 1
_HAND_Y = (_HAND0_Y, _HAND1_Y)
_LANE_Y = (_LANE0_Y, _LANE1_Y)
_INFO_Y = (_INFO0_Y, _INFO1_Y)
_COUNT_DY = 7  # row of a count written on a pile's back, relative to the card

# Suit pips in a unit square (x right, y down), drawn scaled into a card's corner.
_HEART = (
    (0.5, 1.0),
    (0.0, 0.45),
    (0.0, 0.2),
    (0.25, 0.0),
    (0.5, 0.2),
    (0.75, 0.0),
    (1.0, 0.2),
    (1.0, 0.45),
)
_PIPS: dict[str, tuple[tuple[tuple[float, float], ...], ...]] = {
    "H": (_HEART,),
    "D": (((0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 0.5)),),
    "S": (
        tuple((x, 0.8 - 0.8 * y) for x, y in _HEART),  # an upside-down heart on a stem
        ((0.5, 0.6), (0.8, 1.0), (0.2, 1.0)),
    ),
    "C": (
        ((0.3, 0.0), (0.7, 0.0), (0.7, 0.35), (0.3, 0.35)),  # three lobes as squares
        ((0.0, 0.35), (0.4, 0.35), (0.4, 0.7), (0.0, 0.7)),
        ((0.6, 0.35), (1.0, 0.35), (1.0, 0.7), (0.6, 0.7)),
        ((0.5, 0.4), (0.8, 1.0), (0.2, 1.0)),
    ),
    "joker": (
        (
            (0.5, 0.0),
            (0.62, 0.35),
            (1.0, 0.38),
            (0.7, 0.6),
            (0.8, 1.0),
            (0.5, 0.75),
            (0.2, 1.0),
            (0.3, 0.6),
            (0.0, 0.38),
            (0.38, 0.35),
        ),
    ),
}


def rgb_shape(scale: int = 2) -> tuple[int, int, int]:
    """Shape ``(H, W, 3)`` of every :func:`render_rgb` frame at ``scale``."""
    return (_H * scale, _W * scale, 3)


def _pillow() -> tuple[Any, Any, Any]:
    """Pillow's ``Image``, ``ImageDraw`` and ``ImageFont``; an ``ImportError`` names the extra."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:
        raise ImportError(
            "render_mode='rgb_array' (speed_env.render.render_rgb) draws with Pillow, which is "
            "not installed: pip install 'speed-rl[render]' (or pip install pillow)"
        ) from exc
    return Image, ImageDraw, ImageFont


_FONTS: dict[int, Any] = {}  # by scale: loading a font costs more than drawing a frame
_CARDS: dict[tuple[Any, ...], Any] = {}  # card images by (card, scale): drawn once, then pasted


class _Canvas:
    """One frame being drawn at its final scale, in base-pixel coordinates."""

    def __init__(self, scale: int, size: tuple[int, int] = (_W, _H)) -> None:
        image_mod, draw_mod, font_mod = _pillow()
        self.scale = scale
        self.image = image_mod.new("RGB", (size[0] * scale, size[1] * scale), _FELT)
        self.draw = draw_mod.Draw(self.image)
        if scale not in _FONTS:
            _FONTS[scale] = font_mod.load_default(size=_FONT_EM * scale)
        self.font = _FONTS[scale]

    def rect(self, x: int, y: int, w: int, h: int, colour: Colour) -> None:
        """Fill a ``w`` x ``h`` rectangle whose top-left corner is ``(x, y)``."""
        if w > 0 and h > 0:
            s = self.scale
            self.draw.rectangle((x * s, y * s, (x + w) * s - 1, (y + h) * s - 1), fill=colour)

    def outline(self, x: int, y: int, w: int, h: int, colour: Colour) -> None:
        """A frame one base pixel wide around the rectangle ``(x, y, w, h)``."""
        s = self.scale
        box = (x * s, y * s, (x + w) * s - 1, (y + h) * s - 1)
        self.draw.rectangle(box, outline=colour, width=s)

    def polygon(self, points: Any, x: float, y: float, size: float, colour: Colour) -> None:
        """A polygon given in a unit square, drawn ``size`` base pixels wide at ``(x, y)``."""
        s = self.scale
        self.draw.polygon([((x + px * size) * s, (y + py * size) * s) for px, py in points], colour)

    def text(self, text: str, x: int, y: int, colour: Colour, anchor: str = "la") -> None:
        """``text`` with its top (cap height) at row ``y``; ``anchor`` as Pillow's (``"ma"``:
        centred on ``x``)."""
        s = self.scale
        # Pillow's "a" anchor is the ascender line; the caps start about a fifth of an em lower.
        top = y * s - round(0.2 * _FONT_EM * s)
        self.draw.text((x * s, top), text, fill=colour, font=self.font, anchor=anchor)

    def paste(self, card: tuple[Any, ...], x: int, y: int) -> None:
        """The card image ``card`` (see :func:`_draw_card`) with its top-left at ``(x, y)``."""
        key = (*card, self.scale)
        if key not in _CARDS:
            sprite = _Canvas(self.scale, (_CW, _CH))
            _draw_card(sprite, card)
            _CARDS[key] = sprite.image
        self.image.paste(_CARDS[key], (x * self.scale, y * self.scale))

    def text_width(self, text: str) -> float:
        """Width of ``text`` in base pixels."""
        return float(self.draw.textlength(text, font=self.font)) / self.scale

    def pixels(self) -> np.ndarray:
        """The frame as a fresh ``(H, W, 3)`` uint8 array."""
        return np.array(self.image, dtype=np.uint8)  # writable, the caller's


# ----------------------------------------------------------------------------- cards and piles


def _face(canvas: _Canvas, card: Card, x: int, y: int) -> None:
    canvas.paste(("face", card.token, card.red), x, y)


def _back(canvas: _Canvas, x: int, y: int, count: int | None = None) -> None:
    canvas.paste(("back", count is not None), x, y)
    if count is not None:
        canvas.text(str(count), x + _CW // 2, y + _COUNT_DY, _LABEL, "ma")


def _draw_card(canvas: _Canvas, key: tuple[Any, ...]) -> None:
    """Draw the card ``key`` names (a face, or a back with or without a band for a count) at
    (0, 0) of a card-sized canvas: each is drawn once per scale, then pasted."""
    if key[0] == "face":
        _, token, red = key
        canvas.rect(0, 0, _CW, _CH, _CARD_EDGE)
        canvas.rect(1, 1, _CW - 2, _CH - 2, _CARD_WHITE)
        ink = _INK_RED if red else _INK_BLACK
        joker = token in ("RJ", "BJ")
        canvas.text("JK" if joker else token[:-1], 2, 2, ink)
        for shape in _PIPS["joker" if joker else token[-1]]:
            canvas.polygon(shape, _CW - 8, _CH - 8, 6, ink)
        return
    canvas.rect(0, 0, _CW, _CH, _BACK_LIGHT)
    canvas.rect(1, 1, _CW - 2, _CH - 2, _BACK)
    # A dotted lattice reads as a card back even at scale 1; a count leaves it a band.
    band = range(_COUNT_DY - 1, _COUNT_DY + _TEXT_H + 1) if key[1] else range(0)
    for dy in range(3, _CH - 2, 3):
        if dy not in band:
            for dx in range(3, _CW - 2, 3):
                canvas.rect(dx, dy, 1, 1, _BACK_LIGHT)


def _empty(canvas: _Canvas, x: int, y: int, count: int | None = None) -> None:
    canvas.outline(x, y, _CW, _CH, _FELT_DARK)
    if count is not None:
        canvas.text(str(count), x + _CW // 2, y + _COUNT_DY, _FELT_DARK, "ma")


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
    tip = ((0.5, 1.0), (0.0, 0.0), (1.0, 0.0)) if down else ((0.5, 0.0), (0.0, 1.0), (1.0, 1.0))
    canvas.polygon([(px * 5 / 3, py) for px, py in tip], centre_x - 2.5, y, 3, _FLIGHT)


# ----------------------------------------------------------------------------- the table


def _draw_seat(canvas: _Canvas, table: Table, k: int) -> None:
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
    info = f"P{k} played {seat.played} bounced {seat.bounced}"
    info_colour = _GOLD if seat.name == table.winner else _LABEL
    canvas.text(info, _MID, _INFO_Y[k], info_colour, "ma")
    if seat.in_flight is not None:
        _draw_flight(canvas, seat.in_flight, seat.hand, k, xs)


def _draw_flight(
    canvas: _Canvas, flight: Flight, hand: tuple[Card | None, ...], k: int, slot_xs: list[int]
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
    label = seconds(flight.lands_ms, 2)
    if len(flight.cards) > 1:
        label += f" x{len(flight.cards)}"
    tx = x + _CW + 3
    if tx + canvas.text_width(label) > _W:
        tx = x - 3 - round(canvas.text_width(label))
    canvas.text(label, tx, y + (_CH - _TEXT_H) // 2, _FLIGHT)


def _draw_centre(canvas: _Canvas, table: Table) -> None:
    for i, (top, size) in enumerate(table.centre):
        x = _PILE_X[i]
        if top is None:
            _empty(canvas, x, _CENTRE_Y)
        else:
            _face(canvas, top, x, _CENTRE_Y)
        canvas.text(str(size), x + _CW // 2, _SIZES_Y, _LABEL, "ma")
    if table.preset != "japanese":  # japanese deals no side piles
        for i, seat in enumerate(table.seats):
            _pile(canvas, _SIDE_X[i], _CENTRE_Y, seat.side_pile)


def _draw_status(canvas: _Canvas, table: Table) -> None:
    line = _TEXT_H + 3
    y = _CENTRE_Y + 1
    canvas.text(seconds(table.clock_ms, 2) + " s", _LEFT_COL_X, y, _LABEL)
    if table.flip_ms is not None:
        canvas.text("flip", _LEFT_COL_X, y + line, _GOLD)
        canvas.text(seconds(table.flip_ms, 2), _LEFT_COL_X, y + 2 * line, _GOLD)
    canvas.text(table.phase, _RIGHT_COL_X, y, _LABEL)
    canvas.text(table.preset or "", _RIGHT_COL_X, y + line, _LABEL)
    result = _result(table)
    if result:
        canvas.text(result, _RIGHT_COL_X, y + 2 * line, _GOLD)


def _result(table: Table) -> str:
    if table.winner is None:
        return ""
    if table.winner == "draw":
        return "draw"
    for k, seat in enumerate(table.seats):
        if seat.name == table.winner:
            return f"P{k} wins"
    return str(table.winner)[:8]


def render_rgb(snapshot: Mapping[str, Any], *, scale: int = 2) -> np.ndarray:
    """Draw the table in ``snapshot`` as an ``(H, W, 3)`` ``uint8`` RGB image (needs Pillow).

    Green felt; player 1's hand at the top and player 0's at the bottom, each with
    its draw pile (a blue back with the count on it) on the left and a line with
    its played and bounced counts; the two centre piles in the middle with their
    sizes beneath, flanked by the side piles (counts on their backs; none in
    ``japanese``); a card in flight drawn between its owner's hand and its pile,
    outlined in gold, with an arrow to the pile and its landing time; the clock
    and any pending flip on the left, phase, preset and result on the right.
    Hidden hands are drawn as blue backs, empty slots as dark outlines, red suits
    and the red joker in red.

    The shape is :func:`rgb_shape` ``(scale)`` (``(284, 320, 3)`` at the default
    ``scale=2``) whatever the snapshot holds, so frames can be stacked into a
    video; drawing is deterministic. The layout scales with ``scale`` and the
    text is drawn at that size, so a larger scale gives crisper text.
    """
    if isinstance(scale, bool) or not isinstance(scale, int | np.integer) or scale < 1:
        raise ValueError(f"scale must be an int >= 1, got {scale!r}")
    table = read_snapshot(snapshot)
    canvas = _Canvas(int(scale))
    _draw_centre(canvas, table)
    _draw_seat(canvas, table, 1)
    _draw_seat(canvas, table, 0)
    _draw_status(canvas, table)
    return canvas.pixels()
