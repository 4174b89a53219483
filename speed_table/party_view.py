"""The public table of a Party Speed game (three or four seats), in the two-seat snapshot's shape.

The browser table sends the page the env's ``snapshot()`` (docs/envs/speed.md). The n-seat env
(:class:`speed_env.party.PartyParallelEnv`) gives its full table (``table()``, hidden piles in
order) but no snapshot yet, so :func:`snapshot` reads the public part of that table into the
snapshot's fields: ``players`` lists every seat (``player_0`` …), ``centre`` one pile per seat,
player *k*'s side pile being the one beside centre pile *k*. A two-seat env keeps its own
``snapshot()`` (:func:`table_snapshot` passes it through), so two-seat messages are unchanged.
"""

from __future__ import annotations

from typing import Any


def check_seats(agents: tuple[str, ...], players: int, mode: str, record_dir: Any) -> None:
    """Refuse a table whose seats do not fit: one spec a seat; three or four seats are played
    (not watched) and not recorded (a play record is a two-seat game's)."""
    if len(agents) != players:
        count = "two" if players == 2 else str(players)
        raise ValueError(f"agents needs {count} seat specs, got {agents!r}")
    if players > 2 and mode != "play":
        raise ValueError("a table of three or four is played (speed play), not watched")
    if players > 2 and record_dir is not None:
        raise ValueError("play records are of two-seat games: --record needs one opponent")


def table_snapshot(env: Any) -> dict[str, Any]:
    """The env's public table: its own ``snapshot()``, or :func:`snapshot` of its full table."""
    if hasattr(env, "snapshot"):
        return env.snapshot()  # type: ignore[no-any-return]
    points = env.games.points()
    return snapshot(env.table(), env.rules, None if points is None else points[:, 0].tolist())


def snapshot(table: dict[str, Any], rules: Any, points: list[int] | None = None) -> dict[str, Any]:
    """The snapshot fields of an n-seat full ``table`` under ``rules``.

    ``points`` are each seat's match points (``us``/``pagat``), shown once the game is over.
    """
    n = len(table["players"])
    names = [f"player_{p}" for p in range(n)]
    players = []
    for p, seat in enumerate(table["players"]):
        flight = seat["in_flight"]
        players.append(
            {
                "name": names[p],
                "hand": list(seat["hand"]),
                "draw_pile": len(seat["draw_pile"]),
                "side_pile": len(table["side_piles"][p]),
                "in_flight": None
                if flight is None
                else {
                    "card": flight["cards"][0],
                    "pile": None if flight["kind"] == "stack" else flight["pile"],
                    "lands_ms": flight["lands_ms"],
                    "cards": list(flight["cards"]),
                    "kind": flight["kind"],
                },
                "played": seat["played"],
                "bounced": seat["bounced"],
            }
        )
    idle = rules.idle_flip_ms
    winner = table["winner"]
    out: dict[str, Any] = {
        "preset": rules.preset,
        "clock_ms": table["clock_ms"],
        "phase": table["phase"],
        "flip_ms": table["flip_ms"],
        "idle_ms": table["placed_ms"] + idle if idle and table["phase"] == "play" else None,
        "centre": [
            {"top": pile[0] if pile else None, "size": len(pile)} for pile in table["centre"]
        ],
        "players": players,
        "winner": names[winner] if isinstance(winner, int) else winner,
        "truncated": table["truncated"],
        "flips": table["flips"],
        "reshuffles": table["reshuffles"],
    }
    if points is not None and table["phase"] == "over":
        out["points"] = dict(zip(names, points, strict=True))
    return out
