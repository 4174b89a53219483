"""What both tournaments' results documents share (agents.tournament.summary)."""

from __future__ import annotations

import numpy as np

from agents.stats import Ratings
from agents.tournament.summary import document, head_to_head

NAMES = ("a", "b", "c")
#          a  b  c      a won 3 of 4 against b (one draw), c played nobody
WINS = np.array([[0, 2, 0], [1, 0, 0], [0, 0, 0]], float)
DRAWS = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], float)
GAMES = np.array([[0, 4, 0], [4, 0, 0], [0, 0, 0]], float)


def test_a_head_to_head_row_counts_draws_half_and_pairs_that_never_met_have_none():
    seen = []

    def interval(a: int, b: int, score: float, m: int) -> tuple[float, float]:
        seen.append((a, b, score, m))
        return 0.25, 0.75

    row = head_to_head(NAMES, 0, 1, (WINS, DRAWS, GAMES), interval)
    assert row == {
        "a": "a",
        "b": "b",
        "games": 4,
        "wins_a": 2,
        "wins_b": 1,
        "draws": 1,
        "win_rate_a": 2.5 / 4,
        "win_rate_a_ci": [0.25, 0.75],
    }
    assert seen == [(0, 1, 2.5, 4)]
    assert head_to_head(NAMES, 0, 2, (WINS, DRAWS, GAMES), interval) is None
    assert len(seen) == 1  # no interval for a pairing without games


def test_the_document_rates_each_agent_and_lists_the_best_first():
    ratings = Ratings(
        np.array([1400.0, 1600.0]), np.array([1300.0, 1500.0]), np.array([1500.0, 1700.0])
    )
    doc = document(
        "realtime", {"seed": 1}, ratings, [("a", {"games": 4}), ("b", {"games": 5})], [], extra=[1]
    )
    assert [a["name"] for a in doc["agents"]] == ["b", "a"]
    assert doc["agents"][0] == {
        "name": "b",
        "rating": 1600.0,
        "rating_ci": [1500.0, 1700.0],
        "games": 5,
    }
    assert list(doc)[-4:] == ["settings", "agents", "matches", "extra"]
    assert doc["settings"] == {"seed": 1} and doc["extra"] == [1]
