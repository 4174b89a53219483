"""The kit's statistics: 95% intervals, clustered means and Bradley–Terry ratings.

The ratings come with their bootstraps. Pure functions over plain arrays, shared by both
games' tournaments, the training evaluations and the experiments (``speed_lab``):

- intervals: :func:`wilson_interval` (a proportion), :func:`mean_interval`
  (a mean of independent values, normal approximation),
  :func:`clustered_mean` (a mean whose values are correlated within
  clusters), :func:`percentile_interval` (a bootstrap's 95% percentiles);
  :data:`Z95` is the normal quantile they share;
- ratings: :func:`bradley_terry`, with intervals from a bootstrap of games
  (:func:`bootstrap_ratings`) or of clusters of games
  (:func:`cluster_bootstrap_ratings`).

A draw counts as half a win for each side throughout (win rates, the
Bradley–Terry fit and the bootstrap). Ratings are on the Elo scale: a
400-point gap means 10:1 odds, and the ratings are centred on 1500.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a 95% two-sided interval is ``mean ± Z95 * se``."""
ELO_SCALE = 400.0 / math.log(10.0)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``successes`` may hold half-points for draws)."""
    if n <= 0:
        return (0.0, 1.0)  # no games say nothing: every proportion is possible
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval holds p in exact arithmetic; rounding can leave a bound a hair past it
    # (2.8e-17 above p = 0 at n = 6), and a plotted error bar must not be negative.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """Mean of independent ``values`` and its 95% normal interval.

    The bounds are nan under two values.
    """
    x = np.asarray(values, np.float64)
    mean = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else math.nan
    return (mean, mean - half, mean + half)


def clustered_mean(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% interval, robust to correlation within ``clusters``.

    The standard error is the cluster-robust (sandwich) one of a ratio estimate,
    ``sqrt(C / (C - 1) * sum_c (Y_c - mean * m_c)^2) / M`` with ``Y_c`` the sum and
    ``m_c`` the count of cluster ``c``. With fewer than two clusters it falls
    back to treating the values as independent; with fewer than two values the
    interval is the mean itself.
    """
    values = np.asarray(values, np.float64)
    if values.size == 0:
        return (0.0, 0.0, 0.0)
    mean = float(values.mean())
    ids, inverse = np.unique(np.asarray(clusters), return_inverse=True)
    c = len(ids)
    if c >= 2:
        sums = np.bincount(inverse, weights=values, minlength=c)
        counts = np.bincount(inverse, minlength=c).astype(np.float64)
        # C / (C - 1): the small-sample correction, which matters with a handful of clusters.
        se = math.sqrt(c / (c - 1) * float(((sums - mean * counts) ** 2).sum())) / values.size
    elif values.size >= 2:
        se = float(values.std(ddof=1)) / math.sqrt(values.size)
    else:
        se = 0.0
    return (mean, mean - Z95 * se, mean + Z95 * se)


def percentile_interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5% and 97.5% percentiles of bootstrap ``samples`` along their first axis."""
    low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    return low, high


def bradley_terry(
    points: np.ndarray, games: np.ndarray, iters: int = 2000, tol: float = 1e-10
) -> np.ndarray:
    """Maximum-likelihood Bradley–Terry strengths as Elo-scale ratings centred on 1500.

    ``points[i, j]`` is what ``i`` scored against ``j`` (wins + draws / 2) and
    ``games[i, j]`` how many games they played. Uses the MM algorithm
    (Hunter 2004). A tiny prior (half a point each way against a virtual
    equal opponent) keeps ratings finite when a player wins or loses every game.
    """
    n = points.shape[0]
    # The prior: + 0.5 here and the 1 / (strength + 1) term below are one game against a
    # virtual opponent of strength 1.
    w = points.sum(axis=1) + 0.5
    g = games.astype(np.float64)
    strength = np.ones(n)
    for _ in range(iters):
        denom = (g / (strength[:, None] + strength[None, :])).sum(axis=1) + 1.0 / (strength + 1.0)
        new = w / denom
        # Strengths are fixed only up to a common factor: pinned to a geometric mean of 1, so
        # the change between steps measures convergence, not drift.
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - strength)) < tol:
            strength = new
            break
        strength = new
    logs = np.log(strength)
    return 1500.0 + ELO_SCALE * (logs - logs.mean())


@dataclass(frozen=True)
class Ratings:
    """Ratings with bootstrap percentile intervals (95%)."""

    rating: np.ndarray
    low: np.ndarray
    high: np.ndarray


def bootstrap_ratings(
    wins: np.ndarray, draws: np.ndarray, games: np.ndarray, samples: int = 300, seed: int = 0
) -> Ratings:
    """Bradley–Terry ratings and 95% bootstrap intervals.

    ``wins[i, j]`` counts i's wins over j, ``draws[i, j]`` (symmetric) their
    draws, ``games[i, j]`` (symmetric) their games. Each bootstrap sample
    redraws every pairing's results from its observed win/draw/loss shares.
    """
    points = wins + draws / 2.0
    rating = bradley_terry(points, games)
    rng = np.random.default_rng(seed)
    n = wins.shape[0]
    boot = np.empty((samples, n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if games[i, j] > 0]
    for s in range(samples):
        pts = np.zeros((n, n))
        for i, j in pairs:
            m = int(games[i, j])
            probs = np.array([wins[i, j], wins[j, i], draws[i, j]], dtype=np.float64) / m
            # Normalised again: rounded shares may sum past 1, which multinomial refuses.
            wi, wj, d = rng.multinomial(m, probs / probs.sum())
            pts[i, j] = wi + d / 2.0
            pts[j, i] = wj + d / 2.0
        boot[s] = bradley_terry(pts, games)
    if samples <= 0:  # no bootstrap asked for: a degenerate interval at the estimate
        return Ratings(rating=rating, low=rating.copy(), high=rating.copy())
    low, high = percentile_interval(boot)
    return Ratings(rating=rating, low=low, high=high)


def cluster_bootstrap_ratings(
    points: np.ndarray, games: np.ndarray, samples: int = 300, seed: int = 0
) -> Ratings:
    """Bradley–Terry ratings with 95% intervals from a bootstrap over clusters of games.

    ``points[c, i, j]`` is what ``i`` scored against ``j`` in cluster ``c`` (wins +
    draws / 2) and ``games[c, i, j]`` how many comparisons they had there. Each
    sample redraws whole clusters with replacement, so results that move
    together (the rotated seatings of one deal) are not counted as independent.
    """
    rating = bradley_terry(points.sum(axis=0), games.sum(axis=0))
    if samples <= 0 or points.shape[0] < 2:
        return Ratings(rating=rating, low=rating.copy(), high=rating.copy())
    rng = np.random.default_rng(seed)
    c = points.shape[0]
    boot = np.empty((samples, rating.size))
    for s in range(samples):
        # How often each cluster was drawn: weighting by it is resampling whole clusters.
        weight = np.bincount(rng.integers(0, c, c), minlength=c).astype(np.float64)
        boot[s] = bradley_terry(np.tensordot(weight, points, 1), np.tensordot(weight, games, 1))
    low, high = percentile_interval(boot)
    return Ratings(rating=rating, low=low, high=high)
