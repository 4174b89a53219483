"""The payoff table: members' scores against each other on paired deals.

``score[i, j]`` is member ``i``'s share of the points against member ``j`` (a win 1, a draw
1/2) over the games of their pairing, which the tournament harness plays on paired deals
(:mod:`agents.tournament.realtime`: each deal twice, seats swapped). So
``score[i, j] + score[j, i] == 1`` and the diagonal is 1/2. A new member extends the table
by one row and column: a gauntlet of it against every member before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Games:
    """How the payoff games are played (everything their results depend on)."""

    rules: Any
    """:class:`speed_env.rules.Rules`."""
    games: int
    """Games per pairing (``games / 2`` deals, each with both seatings)."""
    seed: int
    reaction: str = "human"
    workers: int = 1
    backend: Any = None
    """:class:`agents.runtime.jobs.Backend` (None: local processes)."""
    think: Any = None
    """The plan charging the members' thinking (:mod:`train.common.think`; ``None``: off), the
    one their training charged; a learned member it has no cost for is charged nothing."""


def gauntlet_scores(
    new: str, members: Sequence[str], games: Games, *, progress: bool = False, name: str = ""
) -> tuple[list[float], bool]:
    """``new``'s score against each of ``members``, and whether every game was played.

    Ctrl-C stops the games; the scores are then not whole (False), and the caller drops them.
    With ``progress``, a bar on stderr counts the finished chunks (labelled ``name``).
    """
    import contextlib

    from agents.runtime.progress import chunk_progress
    from speed_env.reaction import make_profile
    from train.common.paired_score import gauntlet
    from train.common.think import charging_nothing_to

    with (
        chunk_progress(f"{name or new} v. {len(members)} members")
        if progress
        else contextlib.nullcontext() as bar
    ):
        played, complete = gauntlet(
            new, members, rules=games.rules, reaction=make_profile(games.reaction),
            games=games.games, seed=games.seed, workers=games.workers, backend=games.backend,
            progress=bar, think=charging_nothing_to(games.think, members),
        )  # fmt: skip
    scores = []
    for mine in played:
        wins, draws, n = (sum(getattr(r, f) for r in mine) for f in ("wins_a", "draws", "games"))
        scores.append((wins + draws / 2) / n if n else float("nan"))
    return scores, complete


def first_table(
    members: Sequence[str], games: Games, *, progress: bool = False
) -> tuple[np.ndarray, bool]:
    """The table of the starting population: each member's gauntlet against those before it."""
    table = np.full((1, 1), 0.5)
    for k in range(1, len(members)):
        row, complete = gauntlet_scores(members[k], members[:k], games, progress=progress)
        if not complete:
            return table, False
        table = extend(table, row)
    return table, True


def extend(table: np.ndarray, row: Sequence[float]) -> np.ndarray:
    """The table with a new member: ``row[j]`` its score against member ``j``."""
    n = table.shape[0]
    if len(row) != n:
        raise ValueError(f"a new member needs {n} scores, got {len(row)}")
    out = np.full((n + 1, n + 1), 0.5)
    out[:n, :n] = table
    out[n, :n] = row
    out[:n, n] = 1.0 - np.asarray(row, dtype=float)
    return out
