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

from speed_env.render.canvas import (
    CARD_H,
    CARD_W,
    FLIGHT,
    GOLD,
    LABEL,
    TEXT_H,
    Canvas,
    check_scale,
    draw_arrow,
    draw_empty,
    draw_face,
    draw_hand,
    draw_pile,
    result_label,
)
from speed_env.render.snapshot import Card, Flight, Table, read_snapshot, seconds

# The fixed layout, in base (scale 1) pixels.
_W = 160
_MAX_SLOTS = 7  # widest hand the fixed width holds (us/pagat use 5, japanese 4)
_SLOT_GAP = 3
_INFO1_Y = 2
_HAND1_Y = 10
_LANE1_Y = _HAND1_Y + CARD_H + 3  # player 1's card in flight, then an arrow down to its pile
_CENTRE_Y = _LANE1_Y + CARD_H + 6
_SIZES_Y = _CENTRE_Y + CARD_H + 2  # centre pile sizes under the piles
_LANE0_Y = _CENTRE_Y + CARD_H + 15  # player 0's arrow up to its pile, then its card in flight
_HAND0_Y = _LANE0_Y + CARD_H + 3
_INFO0_Y = _HAND0_Y + CARD_H + 3
_H = _INFO0_Y + TEXT_H + 2

_MID = _W // 2
_PILE_X = (_MID - 3 - CARD_W, _MID + 3)
_SIDE_X = (_PILE_X[0] - 8 - CARD_W, _PILE_X[1] + CARD_W + 8)
_DRAW_X = 4
_LEFT_COL_X = 2  # clock and flip, left of side pile 0
_RIGHT_COL_X = _SIDE_X[1] + CARD_W + 2  # phase, preset and result, right of side pile 1
_HAND_Y = (_HAND0_Y, _HAND1_Y)
_LANE_Y = (_LANE0_Y, _LANE1_Y)
_INFO_Y = (_INFO0_Y, _INFO1_Y)


def rgb_shape(scale: int = 2) -> tuple[int, int, int]:
    """Shape ``(H, W, 3)`` of every :func:`render_rgb` frame at ``scale``."""
    return (_H * scale, _W * scale, 3)


def _slot_xs(n: int) -> list[int]:
    if n > _MAX_SLOTS:
        raise ValueError(f"render_rgb fits at most {_MAX_SLOTS} hand slots, got {n}")
    total = n * CARD_W + (n - 1) * _SLOT_GAP
    x0 = _MID - total // 2
    return [x0 + i * (CARD_W + _SLOT_GAP) for i in range(n)]


# ----------------------------------------------------------------------------- the table


def _draw_seat(canvas: Canvas, table: Table, k: int) -> None:
    seat = table.seats[k]
    hand_y = _HAND_Y[k]
    draw_pile(canvas, _DRAW_X, hand_y, seat.draw_pile)
    xs = _slot_xs(len(seat.hand))
    draw_hand(canvas, seat.hand, seat.hand_visible, xs, hand_y)
    info = f"P{k} played {seat.played} bounced {seat.bounced}"
    info_colour = GOLD if seat.name == table.winner else LABEL
    canvas.text(info, _MID, _INFO_Y[k], info_colour, "ma")
    if seat.in_flight is not None:
        _draw_flight(canvas, seat.in_flight, seat.hand, k, xs)


def _draw_flight(
    canvas: Canvas, flight: Flight, hand: tuple[Card | None, ...], k: int, slot_xs: list[int]
) -> None:
    # The snapshot does not say which empty slot the card left; the first empty one is
    # the usual case. A card bound for a centre pile is drawn two thirds of the way
    # there, with an arrow at the pile; one being stacked on the layout stays above
    # its slot.
    target_x = _MID - CARD_W // 2 if flight.pile is None else _PILE_X[flight.pile]
    origin = next((x for x, c in zip(slot_xs, hand, strict=True) if c is None), target_x)
    x = origin + (target_x - origin) * 2 // 3 if flight.pile is not None else origin
    y = _LANE_Y[k]
    canvas.outline(x - 1, y - 1, CARD_W + 2, CARD_H + 2, FLIGHT)
    draw_face(canvas, flight.card, x, y)
    if flight.pile is not None:
        arrow_y = y + CARD_H + 2 if k == 1 else y - 6
        draw_arrow(canvas, target_x + CARD_W // 2, arrow_y, down=k == 1)
    # Landing time (and how many cards fly together) beside the card, where there is room.
    label = seconds(flight.lands_ms, 2)
    if len(flight.cards) > 1:
        label += f" x{len(flight.cards)}"
    tx = x + CARD_W + 3
    if tx + canvas.text_width(label) > _W:
        tx = x - 3 - round(canvas.text_width(label))
    canvas.text(label, tx, y + (CARD_H - TEXT_H) // 2, FLIGHT)


def _draw_centre(canvas: Canvas, table: Table) -> None:
    for i, (top, size) in enumerate(table.centre):
        x = _PILE_X[i]
        if top is None:
            draw_empty(canvas, x, _CENTRE_Y)
        else:
            draw_face(canvas, top, x, _CENTRE_Y)
        canvas.text(str(size), x + CARD_W // 2, _SIZES_Y, LABEL, "ma")
    if table.preset != "japanese":  # japanese deals no side piles
        for i, seat in enumerate(table.seats):
            draw_pile(canvas, _SIDE_X[i], _CENTRE_Y, seat.side_pile)


def _draw_status(canvas: Canvas, table: Table) -> None:
    line = TEXT_H + 3
    y = _CENTRE_Y + 1
    canvas.text(seconds(table.clock_ms, 2) + " s", _LEFT_COL_X, y, LABEL)
    if table.flip_ms is not None:
        canvas.text("flip", _LEFT_COL_X, y + line, GOLD)
        canvas.text(seconds(table.flip_ms, 2), _LEFT_COL_X, y + 2 * line, GOLD)
    canvas.text(table.phase, _RIGHT_COL_X, y, LABEL)
    canvas.text(table.preset or "", _RIGHT_COL_X, y + line, LABEL)
    result = result_label(table, width=8, say_truncated=False)
    if result:
        canvas.text(result, _RIGHT_COL_X, y + 2 * line, GOLD)


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
    scale = check_scale(scale)
    table = read_snapshot(snapshot)
    canvas = Canvas(scale, (_W, _H))
    _draw_centre(canvas, table)
    _draw_seat(canvas, table, 1)
    _draw_seat(canvas, table, 0)
    _draw_status(canvas, table)
    return canvas.pixels()
