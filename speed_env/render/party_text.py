"""A Party Speed table (three or four seats) as plain text, drawn from the full ``table()``.

What the n-seat single-seat env's ``render_mode="ansi"`` returns and ``"human"``
prints. The two-seat renderers (:mod:`~speed_env.render.text`,
:mod:`~speed_env.render.image`) draw a two-seat ``snapshot()``; this one reads
the full table of any seat count (docs/rules.md, "The full table"): a line for
the clock and phase, one for the centre piles (top card and size), one for the
side piles, then one per seat, every hand shown. :func:`render_party_snapshot` draws the
same lines from the public ``snapshot()`` (what replays keep: ``speed replay``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render_party_text(table: Mapping[str, Any]) -> str:
    """The table of any seat count as a few lines of text (no colour)."""
    seats = [
        (
            seat["hand"],
            len(seat["draw_pile"]),
            seat["played"],
            seat["in_flight"] and (seat["in_flight"]["cards"], seat["in_flight"]["pile"]),
        )
        for seat in table["players"]
    ]
    winner = table.get("winner")  # a seat, or "draw"
    return _lines(
        table,
        [(pile[0] if pile else None, len(pile)) for pile in table["centre"]],
        [len(pile) for pile in table["side_piles"]],
        seats,
        None if winner is None else "draw" if winner == "draw" else f"player_{winner}",
    )


def render_party_snapshot(snapshot: Mapping[str, Any]) -> str:
    """A Party Speed ``snapshot()`` (the public table: counts, not piles; what replays keep) as
    :func:`render_party_text`'s lines."""
    seats = [
        (
            seat["hand"],
            seat["draw_pile"],
            seat["played"],
            seat["in_flight"]
            and (
                seat["in_flight"].get("cards") or [seat["in_flight"]["card"]],
                seat["in_flight"]["pile"],
            ),
        )
        for seat in snapshot["players"]
    ]
    return _lines(
        snapshot,
        [(pile["top"], pile["size"]) for pile in snapshot["centre"]],
        [seat["side_pile"] for seat in snapshot["players"]],
        seats,
        snapshot.get("winner"),  # an agent name, or "draw"
    )


def _lines(
    head: Mapping[str, Any],
    centre: list[tuple[str | None, int]],
    sides: list[int],
    seats: list[tuple[list[str | None], int, int, Any]],
    winner: str | None,
) -> str:
    """The text: ``head``'s clock and phase, the centre ``(top, size)`` and side pile counts,
    a line a seat ``(hand, draw pile count, played, (cards in flight, pile) or None)``."""
    phase = str(head["phase"])
    if head.get("flip_ms") is not None:
        phase += f", flip at {int(head['flip_ms']) / 1000:.2f} s"
    lines = [f"clock {int(head['clock_ms']) / 1000:.2f} s   phase {phase}"]
    piles = "   ".join(f"{k}: {top or '--'} ({size})" for k, (top, size) in enumerate(centre))
    lines.append(f"centre    {piles}")
    lines.append("side      " + " / ".join(str(n) for n in sides))
    for p, (hand, draw, played, flight) in enumerate(seats):
        cards = " ".join(card or "--" for card in hand)
        flying = "-" if not flight else f"{' '.join(flight[0])} to {flight[1]}"
        lines.append(
            f"player_{p}  hand {cards}   draw {draw}   played {played}   in flight {flying}"
        )
    if head.get("truncated"):
        lines.append("over: truncated")
    elif winner is not None:
        lines.append("over: draw" if winner == "draw" else f"over: {winner} wins")
    return "\n".join(lines)
