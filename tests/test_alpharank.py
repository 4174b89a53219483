"""α-Rank beside Bradley–Terry (agents.alpharank): cycles share mass, a dominant agent takes it."""

from __future__ import annotations

import numpy as np
import pytest

from agents import alpharank as ar

pytest.importorskip("open_spiel.python.egt.alpharank")

RPS = np.array([[0.0, -0.4, 0.4], [0.4, 0.0, -0.4], [-0.4, 0.4, 0.0]])


def test_rock_paper_scissors_cycle_splits_the_mass_and_is_named() -> None:
    result = ar.alpharank(RPS, ["rock", "paper", "scissors"])
    assert sum(result.mass) == pytest.approx(1.0)
    # The cycle is symmetric: each agent holds a third, none dominates.
    assert result.mass == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-6)
    assert result.cycle is not None and set(result.cycle) == {"rock", "paper", "scissors"}
    text = "\n".join(ar.markdown(result))
    assert "cycle" in text and "rock" in text


def test_cycle_plus_a_dominant_agent_gives_it_the_mass() -> None:
    table = np.zeros((4, 4))
    table[:3, :3] = RPS
    table[3, :3] = 0.6  # beats all three
    table[:3, 3] = -0.6
    result = ar.alpharank(table, ["rock", "paper", "scissors", "boss"])
    assert result.ranked()[0][0] == "boss"
    assert result.mass[3] > 0.9
    assert result.cycle is not None  # the cycle below it is still reported


def test_transitive_table_has_no_cycle_and_ranks_in_order() -> None:
    table = np.array([[0.0, 0.5, 0.8], [-0.5, 0.0, 0.3], [-0.8, -0.3, 0.0]])
    result = ar.alpharank(table, ["a", "b", "c"])
    assert result.ranked()[0][0] == "a"
    assert result.cycle is None


def test_missing_pairing_is_refused_by_name() -> None:
    table = RPS.copy()
    table[0, 2] = np.nan
    with pytest.raises(ValueError, match="rock vs scissors"):
        ar.alpharank(table, ["rock", "paper", "scissors"])
    result, reason = ar.alpharank_or_reason(table, ["rock", "paper", "scissors"])
    assert result is None and "rock vs scissors" in reason


def test_payoff_from_scores() -> None:
    score = np.array([[0.5, 0.75], [0.25, 0.5]])
    np.testing.assert_allclose(ar.payoff_from_scores(score), [[0.0, 0.5], [-0.5, 0.0]])
