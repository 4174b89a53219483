"""The meta-strategy solver (agents/league/meta.py): exact Nash equilibria of symmetric games."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from agents.league import meta

RPS = np.array(
    [
        #  rock paper scissors
        [0.5, 0.0, 1.0],  # rock
        [1.0, 0.5, 0.0],  # paper
        [0.0, 1.0, 0.5],  # scissors
    ]
)


def random_table(n: int, seed: int) -> np.ndarray:
    """A random symmetric zero-sum score table: ``t[i, j] + t[j, i] == 1``, 1/2 on the diagonal."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)), 1)
    return upper + np.tril(1.0 - upper.T, -1) + 0.5 * np.eye(n)


def test_rock_paper_scissors_is_uniform():
    solved = meta.nash(RPS)
    assert solved.weights == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert solved.value == pytest.approx(0.0, abs=1e-9) and solved.method == "nash"


def test_a_dominated_member_gets_no_weight():
    # rock, paper, scissors and a "fool" that every one of them beats 80% of the time
    table = np.full((4, 4), 0.5)
    table[:3, :3] = RPS
    table[3, :3], table[:3, 3] = 0.2, 0.8
    solved = meta.nash(table)
    assert solved.weights[3] == 0.0
    assert solved.weights[:3] == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_a_member_that_beats_everyone_takes_all_the_weight():
    table = np.array([[0.5, 0.3, 0.4], [0.7, 0.5, 0.55], [0.6, 0.45, 0.5]])
    assert meta.nash(table).weights == pytest.approx([0.0, 1.0, 0.0], abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_the_solution_is_an_equilibrium_of_the_game_it_solves(seed):
    table = random_table(2 + seed, seed)
    solved = meta.nash(table)
    x = np.asarray(solved.weights)
    a = table - 0.5
    assert x.min() >= 0 and x.sum() == pytest.approx(1.0, abs=1e-9)
    # what the mixture is sure of is its recorded value, 0 in a symmetric game ...
    assert meta.guaranteed(table, x) == pytest.approx(solved.value, abs=1e-9)
    assert solved.value == pytest.approx(0.0, abs=1e-9)
    # ... and no member scores above 1/2 against it
    assert (a @ x).max() <= 1e-9
    assert meta.best_reply(table, x)[1] <= 1e-9


def test_the_solver_is_repeatable():
    table = random_table(7, 3)
    assert meta.nash(table) == meta.nash(table.copy())


def test_a_table_that_is_not_a_symmetric_game_is_refused_naming_the_entries():
    bad = RPS.copy()
    bad[0, 1] = 0.3
    with pytest.raises(ValueError, match=r"entries \[0, 1\] and \[1, 0\] sum to 1.3"):
        meta.nash(bad)
    with pytest.raises(ValueError, match="square"):
        meta.nash(np.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="one for every pairing"):
        meta.nash(np.array([[0.5, np.nan], [np.nan, 0.5]]))
    with pytest.raises(ValueError, match="method must be one of nash, alpharank"):
        meta.solve(RPS, ["r", "p", "s"], "elo")


def test_gain_is_the_new_members_score_over_half_against_the_mixture():
    assert meta.gain([0.9, 0.5, 0.2], [0.5, 0.5, 0.0]) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="2 scores for a meta-strategy over 3 members"):
        meta.gain([0.9, 0.5], [0.5, 0.5, 0.0])


@pytest.mark.skipif(importlib.util.find_spec("open_spiel") is None, reason="needs OpenSpiel")
def test_alpharank_is_the_other_method():
    solved = meta.solve(RPS, ["rock", "paper", "scissors"], "alpharank")
    assert solved.method == "alpharank"
    assert solved.weights == pytest.approx([1 / 3] * 3, abs=1e-6)
    table = np.array([[0.5, 0.3, 0.4], [0.7, 0.5, 0.55], [0.6, 0.45, 0.5]])
    solved = meta.solve(table, ["a", "b", "c"], "alpharank")
    assert max(range(3), key=lambda k: solved.weights[k]) == 1
    assert solved.value == pytest.approx(meta.guaranteed(table, solved.weights), abs=1e-9)
