"""The meta-strategy of a population: a mixture over its members read off their payoff table.

A population of ``n`` agents that met on paired deals gives the score table ``score[i, j]``,
``i``'s share of the points against ``j`` (a draw half), ``score[i, j] + score[j, i] == 1``.
The meta-game is the symmetric zero-sum matrix game ``A = score - 1/2``: a player picks a
member, the other too, and the first gets ``A[i, j]``. Its value is 0 (the game is symmetric),
and a **Nash equilibrium** ``x`` is a mixture no member beats on average:
``max_i (A @ x)[i] == 0``. It is found exactly by the linear program

    maximise v  subject to  A.T @ x >= v,  sum(x) == 1,  x >= 0

(von Neumann's; scipy's HiGHS solver, which is deterministic). Where several equilibria
exist the solver returns one of them, the same one for the same table.

α-Rank (:mod:`agents.alpharank`) is the other choice: the stationary mass of an evolutionary
process over the same table, which also spreads over cycles but is not an equilibrium.

:func:`gain` is the PSRO exploitability estimate: how far a new member scores above 1/2
against the meta-strategy of the members before it (0 once nothing beats the mixture).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

METHODS = ("nash", "alpharank")
"""The solvers :func:`solve` knows."""
TOLERANCE = 1e-9
"""How far from its constraints a solution may lie (the LP solver's own precision is ~1e-12)."""
DIGITS = 12
"""Decimals kept of each weight: a table solved on another machine gives the same file."""


@dataclass(frozen=True)
class MetaStrategy:
    """A mixture over a population's members and the game it was solved for."""

    weights: tuple[float, ...]
    """Probability of each member, in the table's order (sums to 1)."""
    value: float
    """What the mixture guarantees against any member, ``min_j (x @ A)[j]`` (0 at a Nash
    equilibrium of a symmetric game; below 0 for an α-Rank mass a member beats)."""
    method: str
    """``nash`` or ``alpharank``."""


def check_scores(score: np.ndarray) -> np.ndarray:
    """The score table as a float ``(n, n)`` array; ValueError naming what is wrong.

    Wrong: not square, a missing or out-of-range entry, or a pair not summing to 1.
    """
    table = np.asarray(score, dtype=float)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] == 0:
        raise ValueError(f"a payoff table must be square and non-empty, got shape {table.shape}")
    if not np.all(np.isfinite(table)) or table.min() < 0 or table.max() > 1:
        raise ValueError("a payoff table holds scores in [0, 1], one for every pairing")
    if not np.allclose(table + table.T, 1.0, atol=1e-9):
        i, j = np.argwhere(~np.isclose(table + table.T, 1.0, atol=1e-9))[0]
        raise ValueError(
            f"payoff table entries [{i}, {j}] and [{j}, {i}] sum to "
            f"{table[i, j] + table[j, i]:g}, not 1 (each pairing's scores are shares of its games)"
        )
    return table


def guaranteed(score: np.ndarray, weights: Sequence[float]) -> float:
    """The least any single member scores above 1/2 against the mixture, negated.

    ``min_j (x @ A)[j]``: what the mixture ``weights`` is sure of against every member.
    """
    a = check_scores(score) - 0.5
    return float(np.min(np.asarray(weights, dtype=float) @ a))


def best_reply(score: np.ndarray, weights: Sequence[float]) -> tuple[int, float]:
    """The member that scores most against the mixture, and its score above 1/2."""
    a = check_scores(score) - 0.5
    against = a @ np.asarray(weights, dtype=float)
    k = int(np.argmax(against))
    return k, float(against[k])


def nash(score: np.ndarray) -> MetaStrategy:
    """A Nash equilibrium of the symmetric meta-game, by the module docstring's linear program."""
    from scipy.optimize import linprog

    a = check_scores(score) - 0.5
    n = a.shape[0]
    # Variables (x_1 .. x_n, v); linprog minimises, so the objective is -v.
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    # v - (A.T @ x)[j] <= 0 for every column j.
    upper = np.hstack([-a.T, np.ones((n, 1))])
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * n + [(None, None)]
    solved = linprog(
        cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0], bounds=bounds, method="highs"
    )
    if not solved.success:  # pragma: no cover - a bounded feasible LP always solves
        raise RuntimeError(f"the meta-game's linear program failed: {solved.message}")
    x = np.clip(solved.x[:n], 0.0, None)
    x = x / x.sum()
    weights = tuple(round(float(w), DIGITS) + 0.0 for w in x)
    return MetaStrategy(weights, round(float(solved.x[-1]), DIGITS) + 0.0, "nash")


def alpharank_mass(score: np.ndarray, names: Sequence[str]) -> MetaStrategy:
    """α-Rank's stationary mass over the members (needs OpenSpiel, like the reports' α-Rank)."""
    from agents.alpharank import alpharank, payoff_from_scores

    table = check_scores(score)
    ranked = alpharank(payoff_from_scores(table), list(names))
    total = sum(ranked.mass) or 1.0
    weights = tuple(round(m / total, DIGITS) + 0.0 for m in ranked.mass)
    return MetaStrategy(weights, round(guaranteed(table, weights), DIGITS) + 0.0, "alpharank")


def solve(score: np.ndarray, names: Sequence[str], method: str = "nash") -> MetaStrategy:
    """The meta-strategy ``method`` (:data:`METHODS`) gives for the table."""
    if method == "nash":
        return nash(score)
    if method == "alpharank":
        return alpharank_mass(score, names)
    raise ValueError(f"meta-strategy method must be one of {', '.join(METHODS)}, got {method!r}")


def gain(scores_of_new: Sequence[float], weights: Sequence[float]) -> float:
    """A new member's score above 1/2 against a meta-strategy of the members before it.

    ``scores_of_new[j]`` is its score against member ``j``; PSRO's exploitability estimate.
    """
    s = np.asarray(scores_of_new, dtype=float)
    w = np.asarray(weights, dtype=float)
    if s.shape != w.shape:
        raise ValueError(f"{len(s)} scores for a meta-strategy over {len(w)} members")
    return float(s @ w - 0.5)
