"""The text renderer: a real-time Speed table as a compact multi-line text table.

What ``render_mode="ansi"`` returns and ``"human"`` prints
(:func:`speed_env.render.modes.render_mode`), drawn from a ``snapshot()`` dict
through :func:`speed_env.render.snapshot.read_snapshot`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from speed_env.render.snapshot import Card, Seat, Table, read_snapshot, seconds

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


def _token(card: Card, unicode_suits: bool) -> str:
    if unicode_suits and card.token not in ("RJ", "BJ"):
        return card.token[:-1] + _UNICODE_SUITS[card.token[-1]]
    return card.token


def _ansi_card(card: Card | None, visible: bool, ink: _Ink, unicode_suits: bool) -> str:
    # Every cell is 5 columns wide ("[10S]") so rows line up with or without colour.
    if card is None:
        return ink("[   ]", _DIM)
    if not visible:
        return ink("[###]", _BLUE)
    text = f"[{_token(card, unicode_suits):>3}]"
    return ink(text, _RED) if card.red else text


def _ansi_flight(seat: Seat, ink: _Ink, unicode_suits: bool) -> str:
    if seat.in_flight is None:
        return ""
    f = seat.in_flight
    cards = "+".join(_token(c, unicode_suits) for c in f.cards)
    target = "stack" if f.pile is None else f"pile {f.pile}"
    text = f"{cards} -> {target} @ {seconds(f.lands_ms, 3)} s"
    return "   " + ink(text, _RED if f.card.red else _YELLOW)


def _ansi_seat_lines(seat: Seat, table: Table, ink: _Ink, unicode_suits: bool) -> list[str]:
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


def _ansi_centre(table: Table, ink: _Ink, unicode_suits: bool) -> str:
    piles = [
        f"pile {i} {_ansi_card(top, True, ink, unicode_suits)} x{size}"
        for i, (top, size) in enumerate(table.centre)
    ]
    if table.preset == "japanese":
        return "  " + "   ".join(piles)
    s0, s1 = (seat.side_pile for seat in table.seats)
    return f"  side {s0} | {piles[0]} | {piles[1]} | side {s1}"


def _ansi_result(table: Table, ink: _Ink) -> str | None:
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
    table = read_snapshot(snapshot)
    ink = _Ink(color)
    header = f"Speed ({table.preset or '?'})  clock {seconds(table.clock_ms, 3)} s  {table.phase}"
    if table.flip_ms is not None:
        header += f"  flip at {seconds(table.flip_ms, 3)} s"
    top, bottom = table.seats[1], table.seats[0]
    lines = [header]
    lines += _ansi_seat_lines(top, table, ink, unicode_suits)
    lines.append(_ansi_centre(table, ink, unicode_suits))
    lines += reversed(_ansi_seat_lines(bottom, table, ink, unicode_suits))
    result = _ansi_result(table, ink)
    if result is not None:
        lines.append(result)
    return "\n".join(lines)
