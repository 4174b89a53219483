"""A Party Speed table (three or four seats) as plain text, drawn from the full ``table()``.

What the n-seat single-seat env's ``render_mode="ansi"`` returns and ``"human"``
prints. The two-seat renderers (:mod:`~speed_env.render.text`,
:mod:`~speed_env.render.image`) draw a two-seat ``snapshot()``; this one reads
the full table of any seat count (docs/rules.md, "The full table"): a line for
the clock and phase, one for the centre piles (top card and size), one for the
side piles, then one per seat, every hand shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render_party_text(table: Mapping[str, Any]) -> str:
    """The table of any seat count as a few lines of text (no colour)."""
    seats = table["players"]
    phase = str(table["phase"])
    if table.get("flip_ms") is not None:
        phase += f", flip at {int(table['flip_ms']) / 1000:.2f} s"
    lines = [f"clock {int(table['clock_ms']) / 1000:.2f} s   phase {phase}"]
    centre = "   ".join(
        f"{k}: {pile[0] if pile else '--'} ({len(pile)})" for k, pile in enumerate(table["centre"])
    )
    lines.append(f"centre    {centre}")
    lines.append("side      " + " / ".join(str(len(pile)) for pile in table["side_piles"]))
    for p, seat in enumerate(seats):
        hand = " ".join(card or "--" for card in seat["hand"])
        flight = seat["in_flight"]
        flying = "-" if not flight else f"{' '.join(flight['cards'])} to {flight['pile']}"
        lines.append(
            f"player_{p}  hand {hand}   draw {len(seat['draw_pile'])}   "
            f"played {seat['played']}   in flight {flying}"
        )
    if table.get("truncated"):
        lines.append("over: truncated")
    elif table.get("winner") is not None:  # a seat, or "draw"
        winner = table["winner"]
        lines.append("over: draw" if winner == "draw" else f"over: player_{winner} wins")
    return "\n".join(lines)
