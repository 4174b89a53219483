"""Ratings anchored on a fixed reference pool, so two report cards compare without replaying.

The reference pool (the protocol's opponents) plays a round robin under the
protocol once; its pairwise results ship with the kit as data
(``agents/cards/anchors.json``, made by ``python -m agents.evaluate.make_anchors``).
A Bradley–Terry fit of those results (:func:`agents.stats.bradley_terry`,
Elo scale, centred on 1500) gives each reference agent its **anchor**
rating. An evaluated agent's rating is then the one number ``x`` that best
explains its own results against the anchors with the anchors held fixed::

    P(agent beats j) = 1 / (1 + 10 ** ((r_j - x) / 400))

fitted by maximum likelihood (a draw is half a win, as everywhere in the
kit; half a win and half a loss against a virtual 1500 opponent keep ``x``
finite when the agent wins or loses everything, as ``bradley_terry`` does).
Its 95% interval is a bootstrap of the agent's games (each opponent's
win/draw/loss counts redrawn from their shares); the anchors carry no
uncertainty by definition, they *are* the scale. Because the scale is fixed
by the pool's own games, a rating means the same on every card of one
protocol version.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.stats import bradley_terry

LOG10_OVER_400 = math.log(10.0) / 400.0


def anchor_ratings(pool: dict[str, Any]) -> dict[str, float]:
    """Each reference agent's anchor rating from one rule set's pool results.

    ``pool`` is ``{"agents": [...], "wins": [[...]], "draws": [[...]], "games": [[...]]}``.
    """
    wins = np.asarray(pool["wins"], np.float64)
    draws = np.asarray(pool["draws"], np.float64)
    games = np.asarray(pool["games"], np.float64)
    ratings = bradley_terry(wins + draws / 2.0, games)
    return {name: float(r) for name, r in zip(pool["agents"], ratings, strict=True)}


def _fit(anchor: np.ndarray, points: np.ndarray, games: np.ndarray) -> float:
    """The maximum-likelihood rating against fixed ``anchor`` ratings.

    Newton on a concave log-likelihood, with the virtual half-win/half-loss against 1500.
    """
    # The virtual opponent: one game, half a point, so x stays finite on a clean sweep.
    r = np.append(anchor, 1500.0)
    s = np.append(points, 0.5)
    n = np.append(games, 1.0)
    x = 1500.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-LOG10_OVER_400 * (x - r)))
        grad = LOG10_OVER_400 * float((s - n * p).sum())
        hess = -(LOG10_OVER_400**2) * float((n * p * (1 - p)).sum())
        step = -grad / hess
        # Far from the optimum the curvature is tiny and a raw step huge: 400 is 10:1 odds.
        x += float(np.clip(step, -400.0, 400.0))
        if abs(step) < 1e-9:
            break
    return x


@dataclass(frozen=True)
class AnchoredRating:
    """An agent's rating on the anchored scale, with its 95% bootstrap interval."""

    rating: float
    low: float
    high: float
    opponents: tuple[str, ...]
    """The anchors it was fitted against (those it played)."""


def anchored_rating(
    anchors: dict[str, float],
    results: Sequence[tuple[str, int, int, int]],
    samples: int = 300,
    seed: int = 0,
) -> AnchoredRating | None:
    """The agent's rating from ``results``: per opponent ``(name, wins, draws, games)``.

    Opponents without an anchor are left out; ``None`` when none has one.
    """
    rows = [(name, w, d, g) for name, w, d, g in results if name in anchors and g > 0]
    if not rows:
        return None
    anchor = np.array([anchors[name] for name, *_ in rows])
    wins = np.array([w for _, w, _, _ in rows], np.float64)
    draws = np.array([d for _, _, d, _ in rows], np.float64)
    games = np.array([g for *_, g in rows], np.float64)
    rating = _fit(anchor, wins + draws / 2.0, games)
    if samples <= 0:
        return AnchoredRating(rating, rating, rating, tuple(name for name, *_ in rows))
    rng = np.random.default_rng(seed)
    losses = games - wins - draws
    boot = np.empty(samples)
    for k in range(samples):
        pts = np.empty(len(rows))
        for i in range(len(rows)):
            # One multinomial draw per opponent, in row order: the seed fixes the interval.
            probs = np.array([wins[i], draws[i], losses[i]]) / games[i]
            w, d, _ = rng.multinomial(int(games[i]), probs)
            pts[i] = w + d / 2.0
        boot[k] = _fit(anchor, pts, games)
    low, high = np.percentile(boot, [2.5, 97.5])
    return AnchoredRating(rating, float(low), float(high), tuple(name for name, *_ in rows))
