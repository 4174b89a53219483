"""What both tournaments' ``results.json`` share: head-to-head rows, rated agents, the frame.

Each game keeps its own ``summarise`` (:func:`agents.tournament.realtime.summarise`,
:func:`agents.tournament.vintage.summarise`) because the two measure on purpose in different
ways: a real-time pairing's games are independent draws on paired deals (Bradley–Terry
ratings, Wilson intervals), while the seat rotations of a deal at a bigger table share the
cards (ratings and intervals clustered by deal). What the two documents hold in common is
written here once:

- :class:`Match` and :func:`head_to_head`: one pairing's row in ``matches``;
- :func:`document`: the document itself, agents best first with their ratings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.stats import Ratings
from speed_env.registration import made_with


@dataclass
class Match:
    """One pairing's totals."""

    a: str
    b: str
    games: int
    wins_a: int
    wins_b: int
    draws: int
    win_rate_a: float
    win_rate_a_ci: list[float]


Interval = Callable[[int, int, float, int], tuple[float, float]]
"""``interval(a, b, score, games)``: the 95% interval of ``a``'s win rate against ``b``.

``score`` is ``a``'s wins, draws counting half, over their ``games``.
"""


def head_to_head(
    names: Sequence[str],
    a: int,
    b: int,
    counts: tuple[np.ndarray, np.ndarray, np.ndarray],
    interval: Interval,
) -> dict[str, Any] | None:
    """Agent ``a``'s row against ``b`` (a :class:`Match` as a dict); ``None`` if they never met.

    ``counts`` is ``(wins, draws, games)``, each ``(n, n)`` over ``names``: entry ``[a, b]``
    counts ``a``'s wins, the draws and the games of ``a`` with ``b``.
    """
    wins, draws, games = counts
    m = int(games[a, b])
    if m == 0:
        return None
    score = wins[a, b] + draws[a, b] / 2
    lo, hi = interval(a, b, score, m)
    return asdict(
        Match(
            names[a],
            names[b],
            m,
            int(wins[a, b]),
            int(wins[b, a]),
            int(draws[a, b]),
            score / m,
            [lo, hi],
        )
    )


def document(
    game: str,
    settings: dict[str, Any],
    ratings: Ratings,
    agents: Iterable[tuple[str, dict[str, Any]]],
    matches: list[dict[str, Any]],
    *,
    players: int = 2,
    **more: Any,
) -> dict[str, Any]:
    """The ``results.json`` document of a ``game`` tournament, its agents best first.

    It holds the env id and kit version it was made with (the real-time game at ``players``
    seats: :func:`speed_env.registration.made_with`), ``settings``, the agents,
    ``matches``, then ``more`` (a game's own tables: line-ups at N seats). ``agents`` is
    ``(name, fields)`` per agent, in the order of ``ratings`` (a
    :class:`agents.stats.Ratings`): each agent's entry is
    its name, rating and 95% interval, then its ``fields``.
    """
    rated = [
        {
            "name": name,
            "rating": float(ratings.rating[i]),
            "rating_ci": [float(ratings.low[i]), float(ratings.high[i])],
            **fields,
        }
        for i, (name, fields) in enumerate(agents)
    ]
    rated.sort(key=lambda x: -x["rating"])  # stable: equal ratings keep the settings' order
    env = made_with(game, players=players)
    return {**env, "settings": settings, "agents": rated, "matches": matches, **more}
