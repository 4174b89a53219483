"""A Party Speed table (three or four seats) as an ``(H, W, 3)`` ``uint8`` RGB frame.

What the n-seat envs' ``render_mode="rgb_array"`` returns, drawn from their ``snapshot()``
with the two-seat frame's pieces (:mod:`speed_env.render.canvas`: the same felt, cards, backs
and counts). The two-seat layout faces two hands across two piles; at three or four seats the
browser table's n-seat page lays the table out as rows, and so does this frame:

- a status line: the clock, phase and preset, a pending flip, and the result;
- the centre: pile *k* (its top card, its size beneath) with seat *k*'s side pile to its left
  (the count on its back; none in ``japanese``), the pile's number under the side pile;
- a row per seat in seat order: ``P``\\ *k* (gold for the winner), its draw pile, its hand (an
  empty slot as a dark outline, a hidden hand as backs), its card in flight outlined in gold
  with the pile it is bound for and its landing time, and its played and bounced counts.

The shape depends only on the seat count and ``scale`` (:func:`party_rgb_shape`), so the
frames of one game stack into a video; drawing is deterministic.
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
    draw_empty,
    draw_face,
    draw_hand,
    draw_pile,
    result_label,
)
from speed_env.render.snapshot import Seat, Table, read_snapshot, seconds

# The layout, in base (scale 1) pixels.
_W = 200
_STATUS_Y = 2
_CENTRE_Y = _STATUS_Y + TEXT_H + 4
_PAIR_GAP = 8  # between one pile's pair (side pile, centre pile) and the next
_PAIR_W = 2 * CARD_W + 2
_SEATS_Y = _CENTRE_Y + CARD_H + TEXT_H + 7
_ROW_H = CARD_H + TEXT_H + 6  # a seat: its cards, then its counts
_LABEL_X = 2
_DRAW_X = 14
_HAND_X = _DRAW_X + CARD_W + 4
_SLOT = CARD_W + 3
_MAX_SLOTS = 7  # the largest hand_size
_FLIGHT_X = _HAND_X + _MAX_SLOTS * _SLOT + 4


def _height(players: int) -> int:
    return _SEATS_Y + players * _ROW_H + 2


def party_rgb_shape(players: int, scale: int = 2) -> tuple[int, int, int]:
    """Shape ``(H, W, 3)`` of every :func:`render_party_rgb` frame of ``players`` seats."""
    if players not in (3, 4):
        raise ValueError(f"players must be 3 or 4, got {players!r}")
    return (_height(players) * scale, _W * scale, 3)


def _draw_status(canvas: Canvas, table: Table) -> None:
    head = f"{seconds(table.clock_ms, 2)} s  {table.phase}  {table.preset or ''}"
    canvas.text(head, _LABEL_X, _STATUS_Y, LABEL)
    right = result_label(table, width=10, say_truncated=True)
    if not right and table.flip_ms is not None:
        right = f"flip {seconds(table.flip_ms, 2)}"
    if right:
        canvas.text(right, _W - 2 - round(canvas.text_width(right)), _STATUS_Y, GOLD)


def _draw_centre(canvas: Canvas, table: Table) -> None:
    n = len(table.centre)
    x0 = (_W - (n * _PAIR_W + (n - 1) * _PAIR_GAP)) // 2
    below = _CENTRE_Y + CARD_H + 2
    for k, ((top, size), seat) in enumerate(zip(table.centre, table.seats, strict=True)):
        side_x = x0 + k * (_PAIR_W + _PAIR_GAP)
        pile_x = side_x + CARD_W + 2
        if table.preset != "japanese":  # japanese deals no side piles
            draw_pile(canvas, side_x, _CENTRE_Y, seat.side_pile)
        canvas.text(f"#{k}", side_x + CARD_W // 2, below, LABEL, "ma")
        if top is None:
            draw_empty(canvas, pile_x, _CENTRE_Y)
        else:
            draw_face(canvas, top, pile_x, _CENTRE_Y)
        canvas.text(str(size), pile_x + CARD_W // 2, below, LABEL, "ma")


def _draw_seat(canvas: Canvas, table: Table, k: int, seat: Seat) -> None:
    y = _SEATS_Y + k * _ROW_H
    won = seat.name == table.winner
    canvas.text(f"P{k}", _LABEL_X, y + (CARD_H - TEXT_H) // 2, GOLD if won else LABEL)
    draw_pile(canvas, _DRAW_X, y, seat.draw_pile)
    if len(seat.hand) > _MAX_SLOTS:
        raise ValueError(
            f"render_party_rgb fits at most {_MAX_SLOTS} hand slots, got {len(seat.hand)}"
        )
    xs = [_HAND_X + i * _SLOT for i in range(len(seat.hand))]
    draw_hand(canvas, seat.hand, seat.hand_visible, xs, y)
    counts_y = y + CARD_H + 2
    canvas.text(f"played {seat.played} bounced {seat.bounced}", _DRAW_X, counts_y, LABEL)
    flight = seat.in_flight
    if flight is not None:
        canvas.outline(_FLIGHT_X - 1, y - 1, CARD_W + 2, CARD_H + 2, FLIGHT)
        draw_face(canvas, flight.card, _FLIGHT_X, y)
        where = "stack" if flight.pile is None else f"to {flight.pile}"
        if len(flight.cards) > 1:
            where += f" x{len(flight.cards)}"
        canvas.text(where, _FLIGHT_X + CARD_W + 3, y + 2, FLIGHT)
        canvas.text(seconds(flight.lands_ms, 2), _FLIGHT_X + CARD_W + 3, y + 10, FLIGHT)


def render_party_rgb(snapshot: Mapping[str, Any], *, scale: int = 2) -> np.ndarray:
    """Draw a Party Speed ``snapshot()`` (three or four seats) as an ``(H, W, 3)`` ``uint8``
    RGB image (needs Pillow); the layout is the module's.

    The shape is :func:`party_rgb_shape` ``(players, scale)`` (``(288, 400, 3)`` for three
    seats at the default ``scale=2``). A snapshot of two seats is refused, naming
    :func:`speed_env.render.render_rgb`, which draws it.
    """
    scale = check_scale(scale)
    players = snapshot.get("players") if isinstance(snapshot, Mapping) else None
    if isinstance(players, list) and len(players) == 2:
        raise ValueError("a snapshot of two seats is drawn by speed_env.render.render_rgb")
    table = read_snapshot(snapshot, party=True)
    canvas = Canvas(scale, (_W, _height(len(table.seats))))
    _draw_status(canvas, table)
    _draw_centre(canvas, table)
    for k, seat in enumerate(table.seats):
        _draw_seat(canvas, table, k, seat)
    return canvas.pixels()
