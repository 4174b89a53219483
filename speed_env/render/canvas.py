"""The drawing kit both RGB layouts share: a Pillow canvas in base pixels, colours, cards.

:mod:`speed_env.render.image` (two seats) and :mod:`speed_env.render.party_image` (three or
four) draw their tables with these pieces, so a card, a pile and a count look the same in both.
Pillow is the ``[render]`` extra, imported only when a canvas is made
(:class:`Canvas`); without it that raises an ``ImportError`` naming the extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from speed_env.render.snapshot import Card, Table

Colour = tuple[int, int, int]

# Colours (RGB). Only card ink for red cards uses strong red, which the tests rely on.
FELT = (22, 110, 52)
FELT_DARK = (14, 78, 36)
LABEL = (228, 232, 220)
GOLD = (250, 204, 40)
CARD_WHITE = (246, 246, 240)
CARD_EDGE = (60, 60, 60)
INK_BLACK = (20, 20, 24)
INK_RED = (205, 22, 34)
BACK = (34, 62, 160)
BACK_LIGHT = (92, 128, 220)
FLIGHT = (250, 204, 40)

# Sizes, in base (scale 1) pixels.
CARD_W, CARD_H = 13, 19
RGB_CARD_SIZE: tuple[int, int] = (CARD_W, CARD_H)
"""Width and height of a card in base pixels (multiply by ``scale``)."""

TEXT_H = 5  # cap height of the text, in base pixels
FONT_EM = 7  # the font size that gives that cap height
COUNT_DY = 7  # row of a count written on a pile's back, relative to the card

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


def check_scale(scale: object) -> int:
    """``scale`` as an int >= 1 (a frame's size in pixels per base pixel), else a ``ValueError``
    naming it: both layouts take it alike."""
    if isinstance(scale, bool) or not isinstance(scale, int | np.integer) or scale < 1:
        raise ValueError(f"scale must be an int >= 1, got {scale!r}")
    return int(scale)


class Canvas:
    """One frame being drawn at its final scale, in base-pixel coordinates."""

    def __init__(self, scale: int, size: tuple[int, int]) -> None:
        image_mod, draw_mod, font_mod = _pillow()
        self.scale = scale
        self.image = image_mod.new("RGB", (size[0] * scale, size[1] * scale), FELT)
        self.draw = draw_mod.Draw(self.image)
        if scale not in _FONTS:
            _FONTS[scale] = font_mod.load_default(size=FONT_EM * scale)
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
        top = y * s - round(0.2 * FONT_EM * s)
        self.draw.text((x * s, top), text, fill=colour, font=self.font, anchor=anchor)

    def paste(self, card: tuple[Any, ...], x: int, y: int) -> None:
        """The card image ``card`` (see :func:`_draw_card`) with its top-left at ``(x, y)``."""
        key = (*card, self.scale)
        if key not in _CARDS:
            sprite = Canvas(self.scale, (CARD_W, CARD_H))
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


def draw_face(canvas: Canvas, card: Card, x: int, y: int) -> None:
    """``card`` face up with its top-left corner at ``(x, y)``."""
    canvas.paste(("face", card.token, card.red), x, y)


def draw_back(canvas: Canvas, x: int, y: int, count: int | None = None) -> None:
    """A card back at ``(x, y)``, with ``count`` written on it when given."""
    canvas.paste(("back", count is not None), x, y)
    if count is not None:
        canvas.text(str(count), x + CARD_W // 2, y + COUNT_DY, LABEL, "ma")


def _draw_card(canvas: Canvas, key: tuple[Any, ...]) -> None:
    """Draw the card ``key`` names (a face, or a back with or without a band for a count) at
    (0, 0) of a card-sized canvas: each is drawn once per scale, then pasted."""
    if key[0] == "face":
        _, token, red = key
        token = token.removesuffix("'")  # a second deck's twin (three or four players)
        canvas.rect(0, 0, CARD_W, CARD_H, CARD_EDGE)
        canvas.rect(1, 1, CARD_W - 2, CARD_H - 2, CARD_WHITE)
        ink = INK_RED if red else INK_BLACK
        joker = token in ("RJ", "BJ")
        canvas.text("JK" if joker else token[:-1], 2, 2, ink)
        for shape in _PIPS["joker" if joker else token[-1]]:
            canvas.polygon(shape, CARD_W - 8, CARD_H - 8, 6, ink)
        return
    canvas.rect(0, 0, CARD_W, CARD_H, BACK_LIGHT)
    canvas.rect(1, 1, CARD_W - 2, CARD_H - 2, BACK)
    # A dotted lattice reads as a card back even at scale 1; a count leaves it a band.
    band = range(COUNT_DY - 1, COUNT_DY + TEXT_H + 1) if key[1] else range(0)
    for dy in range(3, CARD_H - 2, 3):
        if dy not in band:
            for dx in range(3, CARD_W - 2, 3):
                canvas.rect(dx, dy, 1, 1, BACK_LIGHT)


def draw_empty(canvas: Canvas, x: int, y: int, count: int | None = None) -> None:
    """An empty place for a card at ``(x, y)`` (a dark outline), ``count`` in it when given."""
    canvas.outline(x, y, CARD_W, CARD_H, FELT_DARK)
    if count is not None:
        canvas.text(str(count), x + CARD_W // 2, y + COUNT_DY, FELT_DARK, "ma")


def draw_pile(canvas: Canvas, x: int, y: int, count: int) -> None:
    """A face-down pile with its count written on it (an outline when empty)."""
    if count > 0:
        draw_back(canvas, x, y, count)
    else:
        draw_empty(canvas, x, y, count)


def draw_hand(
    canvas: Canvas, hand: tuple[Card | None, ...], visible: bool, xs: Sequence[int], y: int
) -> None:
    """A hand's slots at ``xs`` on row ``y``: a card face up (a back when not ``visible``), an
    empty slot as a dark outline."""
    for x, card in zip(xs, hand, strict=True):
        if card is None:
            draw_empty(canvas, x, y)
        elif visible:
            draw_face(canvas, card, x, y)
        else:
            draw_back(canvas, x, y)


def draw_arrow(canvas: Canvas, centre_x: int, y: int, down: bool) -> None:
    """A 5-wide, 3-tall arrowhead in rows ``y`` to ``y + 2``, pointing down or up."""
    tip = ((0.5, 1.0), (0.0, 0.0), (1.0, 0.0)) if down else ((0.5, 0.0), (0.0, 1.0), (1.0, 1.0))
    canvas.polygon([(px * 5 / 3, py) for px, py in tip], centre_x - 2.5, y, 3, FLIGHT)


# ----------------------------------------------------------------------------- the status line


def result_label(table: Table, *, width: int, say_truncated: bool) -> str:
    """The result a status line shows: ``P<k> wins``, ``draw`` or ``""`` while play goes on.

    A winner that names no seat is shown cut to ``width`` characters (what the layout has room
    for); ``say_truncated`` shows a truncated game as ``truncated`` (the n-seat frame says it;
    the two-seat frame never has).
    """
    if say_truncated and table.truncated:
        return "truncated"
    if table.winner is None:
        return ""
    if table.winner == "draw":
        return "draw"
    for k, seat in enumerate(table.seats):
        if seat.name == table.winner:
            return f"P{k} wins"
    return str(table.winner)[:width]
