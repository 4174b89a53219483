"""Fit a reaction profile to measured latencies: a person's at the browser table, or any others.

A play's **latency** is the wall time from the moment that play became possible
to the moment the card was committed (at the browser table,
:class:`speed_table.clock.LegalSince` times it). It is what a bot's reaction
profile (:mod:`speed_env.reaction`) stands for: how long after a chance appears
the card is down.

The profile is summarised by its median and spread (the interquartile range)
and fitted as an ex-Gaussian with a floor (:class:`speed_env.reaction.ReactionProfile`),
by the method of moments: mean ``mu + tau``, variance ``sigma² + tau²``,
skewness ``2 tau³ / (sigma² + tau²)^(3/2)``. Plays slower than
:data:`OUTLIER_MS` are left out of the fit and the summary (you were not
reacting, you were looking elsewhere); at least :data:`MIN_PLAYS` timed plays
are needed for a fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from speed_env.reaction import ReactionProfile

MIN_PLAYS = 5
"""Timed plays needed before a profile is fitted (and a mirror rematch offered)."""

OUTLIER_MS = 5000.0
"""Latencies above this are not counted as reactions."""


def _kept(latencies: Sequence[float]) -> np.ndarray:
    arr = np.asarray([x for x in latencies if x is not None and math.isfinite(x)], dtype=np.float64)
    return arr[arr <= OUTLIER_MS]


def count_timed(latencies: Sequence[float]) -> int:
    """How many latencies count as reactions (finite, at most :data:`OUTLIER_MS`)."""
    return int(_kept(latencies).size)


def fit_exgauss(latencies: Sequence[float]) -> dict[str, float] | None:
    """Method-of-moments ex-Gaussian ``{mu, sigma, tau, floor}`` (ms); ``None`` under MIN_PLAYS."""
    x = _kept(latencies)
    if x.size < MIN_PLAYS:
        return None
    mean = float(x.mean())
    sd = float(x.std(ddof=1))
    floor = max(1.0, float(x.min()))
    if sd < 1e-9:
        return {"mu": mean, "sigma": 0.0, "tau": 0.0, "floor": floor}
    skew = float(np.mean(((x - mean) / sd) ** 3))
    # The ex-Gaussian's skewness lies in (0, 2): clip a sample's into it.
    g = min(max(skew, 0.05), 1.9) / 2.0
    tau = sd * g ** (1.0 / 3.0)
    sigma = sd * math.sqrt(max(1.0 - g ** (2.0 / 3.0), 0.0))
    mu = max(0.0, mean - tau)
    return {"mu": mu, "sigma": sigma, "tau": tau, "floor": floor}


def summarize(latencies: Sequence[float]) -> dict[str, Any]:
    """Count, median, quartiles and the ex-Gaussian fit of some latencies (ms), JSON-ready."""
    x = _kept(latencies)
    out: dict[str, Any] = {
        "n": int(x.size),
        "outliers": len([v for v in latencies if v is not None]) - int(x.size),
    }
    if x.size == 0:
        out.update(median_ms=None, p25_ms=None, p75_ms=None, iqr_ms=None, min_ms=None, fit=None)
        return out
    p25, med, p75 = (float(v) for v in np.percentile(x, [25, 50, 75]))
    out.update(
        median_ms=round(med, 1),
        p25_ms=round(p25, 1),
        p75_ms=round(p75, 1),
        iqr_ms=round(p75 - p25, 1),
        min_ms=round(float(x.min()), 1),
        fit=None
        if (fit := fit_exgauss(x.tolist())) is None
        else {k: round(v, 1) for k, v in fit.items()},
    )
    return out


def mirror_profile(latencies: Sequence[float], tick_ms: int) -> ReactionProfile | None:
    """A bot profile "as fast as you": the fit, plus half a tick (``None`` under :data:`MIN_PLAYS`).

    A bot commits on the tick it sees a chance; your play waits for the next
    tick after your message arrives, half a tick on average. The half tick is
    added so the bot lands its cards as late after a chance as you do.
    """
    fit = fit_exgauss(latencies)
    if fit is None:
        return None
    half = tick_ms / 2.0
    mu, sigma, tau, floor = fit["mu"] + half, fit["sigma"], fit["tau"], fit["floor"] + half
    if sigma == 0 and tau == 0:
        return ReactionProfile(max(1.0, round(mu, 1)), 0.0, 0.0, 1.0)
    return ReactionProfile(round(mu, 1), round(sigma, 1), round(tau, 1), round(floor, 1))
