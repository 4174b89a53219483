"""The statistics of a reaction sweep: a logistic curve of win rate against latency difference.

``fit_logistic`` fits ``P(win) = 1 / (1 + exp(-(a + b d)))`` by maximum
likelihood on the game counts; ``bootstrap_fit`` gives 95% intervals of the
break-even difference ``-a / b``, the ms per ten points ``ln(1.5) / |b|`` and
the slope from a bootstrap over deals (the same deals at every point).
:func:`agents.reaction_sweep.summary.summarise` puts them in a sweep's summary.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.stats import percentile_interval

LN_1_5 = math.log(1.5)
"""logit(0.6) - logit(0.5): the log-odds of ten points of win rate above even."""


def logit(share: float) -> float:
    """``log(share / (1 - share))``: 0 at an even share (two players' break-even)."""
    return 0.0 if share == 0.5 else math.log(share / (1.0 - share))


def ten_points(share: float) -> float:
    """The log-odds from ``share`` to ten points above it: ``LN_1_5`` from an even share.

    At a table of ``n`` the fair share is ``1/n``: 25% to 35% for four players.
    """
    return LN_1_5 if share == 0.5 else logit(share + 0.1) - logit(share)


@dataclass(frozen=True)
class LogisticFit:
    """``P(win) = 1 / (1 + exp(-(intercept + slope * d)))``, ``d`` the latency difference in ms."""

    intercept: float
    slope: float
    """Log-odds per ms; negative when being slower loses games."""
    converged: bool
    log_likelihood: float
    deviance: float
    """Twice the log-likelihood gap to the saturated model; about ``dof`` when the curve fits."""
    dof: int
    share: float = 0.5
    """The fair share the break-even is read at: ``1/n`` at a table of ``n`` (two: even)."""

    def win_rate(self, diff: np.ndarray | float) -> np.ndarray:
        """The fitted win rate at latency difference(s) ``diff`` (ms)."""
        return 1.0 / (
            1.0 + np.exp(-(self.intercept + self.slope * np.asarray(diff, dtype=np.float64)))
        )

    @property
    def break_even_ms(self) -> float:
        """The latency difference (agent - opponent, ms) at which the agent wins its fair share:
        half its games against one opponent, ``1/n`` of them at a table of ``n``."""
        if self.slope == 0:
            return math.nan
        offset = logit(self.share)
        return (
            -self.intercept / self.slope if offset == 0 else (offset - self.intercept) / self.slope
        )

    @property
    def ms_per_ten_points(self) -> float:
        """The latency change that moves the win rate from its fair share to ten points above it
        on the fitted curve (50% to 60% against one opponent)."""
        return ten_points(self.share) / abs(self.slope) if self.slope != 0 else math.inf

    @property
    def fit_p_value(self) -> float:
        """Chance of a deviance this large if the curve were right; nan with no dof.

        Chi-square by the Wilson–Hilferty approximation. Approximate: paired
        deals make games a little dependent. A tiny value
        says the win rate is not logistic in the latency difference (a fixed
        latency, for one, makes it a step: only who is faster matters).
        """
        k = self.dof
        if k <= 0:
            return math.nan
        z = ((self.deviance / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
        return 0.5 * math.erfc(z / math.sqrt(2))


def _log_lik(eta: np.ndarray, games: np.ndarray, score: np.ndarray) -> np.ndarray:
    # log(1 + e^eta) computed stably for large |eta|; one value per row.
    return (score * eta - games * np.logaddexp(0.0, eta)).sum(axis=-1)


def _check(d: np.ndarray, n: np.ndarray, s: np.ndarray) -> None:
    if d.ndim != 1 or n.shape != d.shape or s.shape[-1:] != d.shape:
        raise ValueError("diff, games and score must be 1-d arrays of the same length")
    if np.any(n <= 0) or np.any(s < 0) or np.any(s > n):
        raise ValueError("each point needs games > 0 and 0 <= score <= games")
    if len(np.unique(d)) < 2:
        raise ValueError("a logistic fit needs at least two different latency differences")


def _fit_many(
    d: np.ndarray, n: np.ndarray, scores: np.ndarray, max_iter: int = 100
) -> tuple[np.ndarray, ...]:
    """Maximum-likelihood ``(intercept, slope, converged, log_likelihood)`` per row of ``scores``.

    Newton's method on all rows at once, with step halving per row, on a
    centred and scaled difference (for conditioning). A row whose data
    separate perfectly has no finite maximum: it ends unconverged.
    """
    centre = float(np.average(d, weights=n))
    # ``or 1.0``: a zero spread would divide by zero (_check refuses it; a caller may not).
    scale = float(np.sqrt(np.average((d - centre) ** 2, weights=n))) or 1.0
    x = (d - centre) / scale
    rows = scores.shape[0]
    beta = np.zeros((rows, 2))
    eta = np.zeros_like(scores)
    ll = _log_lik(eta, n, scores)
    converged = np.zeros(rows, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            p = 1.0 / (1.0 + np.exp(-eta))
            resid = scores - n * p
            w = n * p * (1 - p)
            g0, g1 = resid.sum(axis=1), (resid * x).sum(axis=1)
            h00, h01, h11 = w.sum(axis=1), (w * x).sum(axis=1), (w * x * x).sum(axis=1)
            det = h00 * h11 - h01 * h01
            step = np.stack([(h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det], axis=1)
            # A singular Hessian gives no step, and a converged row must not move on noise.
            step[~np.isfinite(step).all(axis=1) | converged] = 0.0
            t = np.ones(rows)
            for _ in range(30):
                new = beta + t[:, None] * step
                new_eta = new[:, :1] + new[:, 1:] * x
                new_ll = _log_lik(new_eta, n, scores)
                worse = new_ll < ll - 1e-12  # a rounding-sized loss is no reason to halve
                if not worse.any():
                    break
                t = np.where(worse, t / 2, t)
            beta, eta, gain, ll = new, new_eta, new_ll - ll, new_ll
            converged |= (np.abs(t[:, None] * step).max(axis=1) < 1e-10) | (np.abs(gain) < 1e-13)
            if converged.all():
                break
    converged &= (
        np.abs(beta[:, 1]) <= 30
    )  # the curve has become a step: separated data, no finite slope
    slope = beta[:, 1] / scale
    return beta[:, 0] - slope * centre, slope, converged, ll


def fit_logistic(
    diff: Sequence[float] | np.ndarray,
    games: Sequence[float] | np.ndarray,
    score: Sequence[float] | np.ndarray,
    max_iter: int = 100,
    share: float = 0.5,
) -> LogisticFit:
    """Maximum-likelihood logistic fit of win rate against latency difference.

    ``diff[i]`` is point ``i``'s latency difference (ms), ``games[i]`` its
    games and ``score[i]`` its wins plus its share of its draws (half against one opponent).
    ``share`` is the fair share its break-even is read at. ``converged`` is
    false when the data separate perfectly (every game on one side of some
    difference won, every game on the other lost), where no finite maximum
    exists.
    """
    d = np.asarray(diff, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    _check(d, n, s)
    intercept, slope, converged, ll = _fit_many(d, n, s[None, :], max_iter)
    # The saturated model fits each point's own win rate (0 log 0 = 0).
    with np.errstate(divide="ignore", invalid="ignore"):
        q = s / n
        sat = np.where(s > 0, s * np.log(q), 0.0) + np.where(n - s > 0, (n - s) * np.log1p(-q), 0.0)
    deviance = float(2 * (sat.sum() - ll[0]))
    return LogisticFit(
        float(intercept[0]),
        float(slope[0]),
        bool(converged[0]),
        float(ll[0]),
        max(0.0, deviance),
        len(d) - 2,
        share,
    )


def deal_scores(outcomes: np.ndarray, seats: int = 2) -> np.ndarray:
    """Per deal, the agent's points from all its seatings (win 1, draw ``1/seats``, loss 0).

    ``outcomes`` are in deal-then-seating order, ``seats`` games a deal (two players: both
    seatings; a table of ``n``: the agent in each of its ``n`` seats).
    """
    o = np.asarray(outcomes, dtype=np.float64)
    # Two players: (o + 1) / 2 is exactly 1, 0.5, 0, the same numbers as the table's formula.
    per_game = (
        (o + 1.0) / 2.0 if seats == 2 else np.where(o > 0, 1.0, np.where(o == 0, 1 / seats, 0.0))
    )
    whole = o.size - o.size % seats
    if whole < o.size:  # a last, short deal (a count not a multiple of seats) is its own deal
        return np.concatenate(
            [per_game[:whole].reshape(-1, seats).sum(axis=1), [per_game[whole:].sum()]]
        )
    return per_game.reshape(-1, seats).sum(axis=1)


@dataclass(frozen=True)
class Bootstrap:
    """95% percentile intervals of the fitted quantities from a bootstrap over deals."""

    break_even_ms: tuple[float, float]
    ms_per_ten_points: tuple[float, float]
    slope: tuple[float, float]
    samples: int
    """Resamples whose fit converged with a negative slope (the intervals use these)."""
    dropped: int
    """Resamples left out: the fit did not converge, or being slower did not lose games."""
    joint: bool
    """True when every point shares its deals and a resample draws the same deals at every point."""


def bootstrap_fit(
    diff: Sequence[float] | np.ndarray,
    outcomes: Sequence[np.ndarray],
    samples: int = 1000,
    seed: int = 0,
    seats: int = 2,
) -> Bootstrap:
    """Bootstrap intervals of the break-even difference, ms per ten points and slope.

    ``outcomes[i]`` holds point ``i``'s games (+1/0/-1, deal order then
    seating; ``seats`` games a deal, the break-even read at the fair share ``1/seats``). A
    resample draws deals with replacement; when every point has
    the same number of deals (a sweep plays the same deals at every point)
    the same draw serves every point, keeping the correlation the shared
    deals create.
    """
    if samples < 1:
        raise ValueError(f"bootstrap samples must be at least 1, got {samples}")
    d = np.asarray(diff, dtype=np.float64)
    per_deal = [deal_scores(o, seats) for o in outcomes]
    games = np.array([len(o) for o in outcomes], dtype=np.float64)
    sizes = {len(s) for s in per_deal}
    # A lone game (an odd count) would make deal i a different deal at different points.
    joint = len(sizes) == 1 and all(len(o) % seats == 0 for o in outcomes)
    rng = np.random.default_rng(seed)
    if joint:
        deals = sizes.pop()
        counts = rng.multinomial(
            deals, np.full(deals, 1.0 / deals), size=samples
        )  # (samples, deals)
        scores = counts @ np.stack(per_deal).T  # (samples, points)
    else:
        scores = np.empty((samples, len(per_deal)))
        for i, s in enumerate(per_deal):
            counts = rng.multinomial(len(s), np.full(len(s), 1.0 / len(s)), size=samples)
            scores[:, i] = counts @ s
    _check(d, games, scores)
    intercept, slope, converged, _ = _fit_many(d, games, scores)
    # A resample where being slower does not lose has no break-even worth the name.
    used = converged & (slope < 0)

    def interval(values: np.ndarray) -> tuple[float, float]:
        if not values.size:
            return (math.nan, math.nan)
        lo, hi = percentile_interval(values)
        return (float(lo), float(hi))

    sl = slope[used]
    offset = logit(1 / seats)
    return Bootstrap(
        interval(-intercept[used] / sl if offset == 0 else (offset - intercept[used]) / sl),
        interval(ten_points(1 / seats) / np.abs(sl)),
        interval(sl),
        int(used.sum()),
        int(samples - used.sum()),
        joint,
    )
