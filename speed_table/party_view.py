"""The seats of a Party Speed table (three or four: you and two or three bots, or three or four
bots watched), checked.

The page is sent the env's own ``snapshot()`` at every seat count (docs/envs/speed.md:
``players`` lists every seat, ``centre`` one pile per seat, player *k*'s side pile the one
beside centre pile *k*); this module checks that the seats asked for fit such a table.
"""

from __future__ import annotations

from typing import Any


def check_seats(agents: tuple[str, ...], players: int, record_dir: Any) -> None:
    """Refuse a table whose seats do not fit: one spec a seat; three or four seats are played
    (``speed play``, you and two or three bots) or watched (``speed watch``, three or four
    bots) but not recorded (a play record is a two-seat game's)."""
    if len(agents) != players:
        count = "two" if players == 2 else str(players)
        raise ValueError(f"agents needs {count} seat specs, got {agents!r}")
    if players > 2 and record_dir is not None:
        raise ValueError("play records are of two-seat games: --record needs one opponent")
