"""What a finished chunk's result can hold.

These are the checks a logged chunk passes before a resume trusts it.

A chunk line of ``OUT/chunks.jsonl`` (:mod:`agents.tournament.chunk_log`) is read back into the
game's result dataclass; before a resumed run counts it, the result must be one the chunk could have
produced. Each check returns the first problem, naming the field (``wins_a + wins_b + draws
is 7, games is 8``), or ``None``:

- :func:`realtime`: :class:`agents.tournament.realtime.ChunkResult`, each deal twice (seats
  swapped);
- :func:`vintage`: :class:`agents.tournament.vintage_stats.ChunkResult`, each deal once per
  rotation, the seats filled by the chunk's line-up.

A number must be a JSON integer (not ``true``, not ``1.0``) and no count negative: a count
that is not one is what made the statistics fail far from the file ("math domain error").
"""

from __future__ import annotations

from typing import Any

__all__ = ["realtime", "vintage"]


def _whole(value: Any) -> bool:
    # bool is an int subclass, and JSON ``true`` must not pass for 1.
    return isinstance(value, int) and not isinstance(value, bool)


def _count(name: str, value: Any) -> str | None:
    if not _whole(value) or value < 0:
        return f"{name} is {value!r}, not a count"
    return None


def _ints(name: str, values: Any, length: int, allowed: range | None = None) -> str | None:
    """``values`` must be a list of ``length`` integers (each in ``allowed``)."""
    if not isinstance(values, list) or len(values) != length:
        size = len(values) if isinstance(values, list) else type(values).__name__
        return f"{name} holds {size} entries, not {length}"
    for k, v in enumerate(values):
        if not _whole(v) or (allowed is not None and v not in allowed):
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
        problem = _count(name, getattr(result, name))
        if problem:
            return problem
    if result.games != games:
        return f"games is {result.games}, but the chunk's {result.chunk.count} deals make {games}"
    if result.wins_a + result.wins_b + result.draws != games:
        total = result.wins_a + result.wins_b + result.draws
        return f"wins_a + wins_b + draws is {total}, games is {games}"
    if result.truncated > result.draws:
        return f"truncated is {result.truncated}, more than the {result.draws} draws"
    problem = _ints("outcomes", result.outcomes, games, range(-1, 2))
    if problem:
        return problem
    for value, name in ((1, "wins_a"), (-1, "wins_b"), (0, "draws")):
        if result.outcomes.count(value) != getattr(result, name):
            return f"{name} is {getattr(result, name)}, but outcomes hold {value} that often"
    for name in ("points_a", "points_b"):
        problem = _ints(name, getattr(result, name), games, range(0, 1 << 31))
        if problem:
            return problem
    if not isinstance(result.replays, list) or not all(isinstance(r, dict) for r in result.replays):
        return "replays is not a list of frames"
    return None


def vintage(result: Any, lineup: tuple[int, ...], players: int) -> str | None:
    """The first impossible field of a vintage chunk result, or ``None``.

    The chunk seats ``lineup`` at tables of ``players``.
    """
    chunk = result.chunk
    games = chunk.count * players  # each deal once per rotation
    problem = (
        _ints("deal", result.deal, games, range(chunk.start, chunk.start + chunk.count))
        or _ints("rotation", result.rotation, games, range(players))
        # -1 is a drawn lock, -2 a truncated game (vintage_stats.ChunkResult.winner).
        or _ints("winner", result.winner, games, range(-2, players))
        or _ints("turns", result.turns, games, range(0, 1 << 31))
    )
    if problem:
        return problem
    expected = [(chunk.start + i, r) for i in range(chunk.count) for r in range(players)]
    if list(zip(result.deal, result.rotation, strict=True)) != expected:
        return "deal and rotation do not hold each deal once per rotation"
    for name in ("seating", "penalty"):
        rows = getattr(result, name)
        if not isinstance(rows, list) or len(rows) != games:
            return f"{name} holds {len(rows) if isinstance(rows, list) else 0} games, not {games}"
    for g in range(games):
        r = result.rotation[g]
        # The inverse of "line-up position p sits in seat (p + r) % players".
        seats = [lineup[(s - r) % players] for s in range(players)]
        if result.seating[g] != seats:
            return f"seating[{g}] is {result.seating[g]!r}, but rotation {r} seats {seats}"
        problem = _ints(f"penalty[{g}]", result.penalty[g], players, range(0, 1 << 31))
        if problem:
            return problem
    return None
