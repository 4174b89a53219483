"""What a finished chunk's result can hold.

These are the checks a logged chunk passes before a resume trusts it.

A chunk line of ``OUT/chunks.jsonl`` (:mod:`agents.tournament.chunk_log`) is read back into the
game's result dataclass; before a resumed run counts it, the result must be one the chunk could have
produced. Each check returns the first problem, naming the field (``wins_a + wins_b + draws
is 7, games is 8``), or ``None``:

- :func:`realtime`: :class:`agents.tournament.realtime.ChunkResult`, each deal twice (seats
  swapped);
- another game's check sits in its own room (:func:`agents.tournament.vintage_stats.check_chunk`),
  built from :func:`count` and :func:`ints`.

A number must be a JSON integer (not ``true``, not ``1.0``) and no count negative: a count
that is not one is what made the statistics fail far from the file ("math domain error").
"""

from __future__ import annotations

from typing import Any

__all__ = ["count", "ints", "realtime", "whole"]


def whole(value: Any) -> bool:
    """Whether ``value`` is a JSON integer (not ``true``, not ``1.0``)."""
    # bool is an int subclass, and JSON ``true`` must not pass for 1.
    return isinstance(value, int) and not isinstance(value, bool)


def count(name: str, value: Any) -> str | None:
    """``value`` must be a count: a whole number, not negative."""
    if not whole(value) or value < 0:
        return f"{name} is {value!r}, not a count"
    return None


def ints(name: str, values: Any, length: int, allowed: range | None = None) -> str | None:
    """``values`` must be a list of ``length`` integers (each in ``allowed``)."""
    if not isinstance(values, list) or len(values) != length:
        size = len(values) if isinstance(values, list) else type(values).__name__
        return f"{name} holds {size} entries, not {length}"
    for k, v in enumerate(values):
        if not whole(v) or (allowed is not None and v not in allowed):
            return f"{name}[{k}] is {v!r}"
    return None


_REALTIME_COUNTS = (
    *("wins_a", "wins_b", "draws", "games", "truncated"),
    *("played_a", "played_b", "bounced_a", "bounced_b", "illegal_a", "illegal_b", "game_ms"),
)


def realtime(result: Any) -> str | None:
    """The first impossible field of a real-time chunk result, or ``None``."""
    games = 2 * result.chunk.count  # each deal with both seatings
    for name in _REALTIME_COUNTS:
        problem = count(name, getattr(result, name))
        if problem:
            return problem
    if result.games != games:
        return f"games is {result.games}, but the chunk's {result.chunk.count} deals make {games}"
    if result.wins_a + result.wins_b + result.draws != games:
        total = result.wins_a + result.wins_b + result.draws
        return f"wins_a + wins_b + draws is {total}, games is {games}"
    if result.truncated > result.draws:
        return f"truncated is {result.truncated}, more than the {result.draws} draws"
    problem = ints("outcomes", result.outcomes, games, range(-1, 2))
    if problem:
        return problem
    for value, name in ((1, "wins_a"), (-1, "wins_b"), (0, "draws")):
        if result.outcomes.count(value) != getattr(result, name):
            return f"{name} is {getattr(result, name)}, but outcomes hold {value} that often"
    for name in ("points_a", "points_b"):
        problem = ints(name, getattr(result, name), games, range(0, 1 << 31))
        if problem:
            return problem
    if not isinstance(result.replays, list) or not all(isinstance(r, dict) for r in result.replays):
        return "replays is not a list of frames"
    return None
