"""The thinking experiment's points as its JSON document: win rates, break-evens, comparisons.

:func:`summarise` turns the games of every point (:func:`agents.think_sweep.sweep.run_sweep`)
into the document :mod:`agents.think_sweep.report` renders: a row per point with its 95%
interval over paired deals, per budget its logistic fit and break-even cost, the best budget at
each level, and the network's win rate minus each search's, read deal by deal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.reaction_sweep.fit import bootstrap_fit, deal_scores, fit_logistic
from agents.think_sweep.sweep import Point, ThinkSweepSettings
from speed_env.registration import made_with

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def deal_interval(outcomes: np.ndarray) -> tuple[float, float, float]:
    """Win rate and its 95% interval over paired deals: (rate, low, high)."""
    per_deal = deal_scores(outcomes) / 2.0  # a deal's two games: 0, 0.25 … 1
    rate = float((outcomes.astype(np.float64) + 1).sum() / 2 / outcomes.size)
    if len(per_deal) < 2:
        return rate, 0.0, 1.0
    half = Z95 * float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal))
    return rate, max(0.0, rate - half), min(1.0, rate + half)


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float] | None:
    """``a``'s win rate minus ``b``'s on the same deals, with its 95% interval over the deals.

    ``None`` when the two did not play the same number of whole deals (an interrupted run).
    """
    if a.size != b.size or a.size % 2:
        return None
    per_deal = (deal_scores(a) - deal_scores(b)) / 2.0
    diff = float(per_deal.mean())
    if len(per_deal) < 2:
        return diff, -1.0, 1.0
    half = Z95 * float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal))
    return diff, diff - half, diff + half


def network_vs_search(
    points: Sequence[Point], outcomes: Mapping[int, np.ndarray]
) -> list[dict[str, Any]]:
    """At each level, the network's win rate minus each search budget's, paired over the deals.

    Every point plays the same deals, so the difference is read deal by deal: a far tighter
    interval than the two win rates' own.
    """
    net = {p.level: k for k, p in enumerate(points) if p.budget.worlds is None and k in outcomes}
    out = []
    for k, p in enumerate(points):
        if p.budget.worlds is None or k not in outcomes or p.level not in net:
            continue
        d = paired_difference(outcomes[net[p.level]], outcomes[k])
        if d is not None:
            out.append(
                {"level": p.level, "search": p.budget.label, "difference": d[0], "ci": [d[1], d[2]]}
            )
    return out


def _break_even(
    costs: np.ndarray, outcomes: list[np.ndarray], bootstrap: int, seed: int
) -> dict[str, Any]:
    """The logistic fit of one budget's win rate against its cost, and its break-even cost."""
    if len(np.unique(costs)) < 2:
        return {"break_even_ms": None, "note": "no fit: one cost level"}
    games = [len(o) for o in outcomes]
    scores = [float((o.astype(np.float64) + 1).sum() / 2) for o in outcomes]
    fit = fit_logistic(costs, games, scores)
    out: dict[str, Any] = {
        "intercept": fit.intercept,
        "slope_per_ms": fit.slope,
        "win_rate_free": float(fit.win_rate(0.0)),
        "break_even_ms": None,
        "break_even_ci": None,
    }
    if fit.slope >= 0:
        out["note"] = "no loss measured as the cost grows: no break-even"
        return out
    be = fit.break_even_ms
    if be < 0:
        out["note"] = "below 50% even with thinking free: never level"
        return out
    out["break_even_ms"] = be
    out["extrapolated"] = bool(be > costs.max())
    if bootstrap > 0:
        boot = bootstrap_fit(costs, outcomes, samples=bootstrap, seed=seed)
        out["break_even_ci"] = list(boot.break_even_ms)
    return out


def summarise(
    settings: ThinkSweepSettings,
    points: Sequence[Point],
    outcomes: Mapping[int, np.ndarray],
    costs_record: Mapping[str, Any],
    complete: bool,
) -> dict[str, Any]:
    """The experiment's JSON document: settings, costs, a row per point, per budget its break-even,
    and the best budget at each level."""
    rows: list[dict[str, Any]] = []
    for k, p in enumerate(points):
        if k not in outcomes:
            continue
        o = outcomes[k]
        rate, lo, hi = deal_interval(o)
        rows.append(
            {
                "budget": p.budget.label,
                "agent": p.budget.spec,
                "worlds": p.budget.worlds,
                "level": p.level,
                "cost_ms": p.cost_ms,
                "charged": p.charged_ms is not None,
                "games": int(o.size),
                "wins": int((o == 1).sum()),
                "losses": int((o == -1).sum()),
                "draws": int((o == 0).sum()),
                "win_rate": rate,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    budgets = []
    for b in settings.budgets():
        ks = [k for k, p in enumerate(points) if p.budget == b and k in outcomes]
        entry: dict[str, Any] = {
            "budget": b.label,
            "agent": b.spec,
            "worlds": b.worlds,
            "calibrated_ms": float(costs_record["agents"][b.spec]["think_ms"]),
            "all_states_ms": costs_record["agents"][b.spec].get("all_states_ms"),
        }
        if ks:
            cost = np.array([points[k].cost_ms for k in ks])
            entry |= _break_even(cost, [outcomes[k] for k in ks], settings.bootstrap, settings.seed)
        budgets.append(entry)
    best = {}
    for level in dict.fromkeys(r["level"] for r in rows):
        at = [r for r in rows if r["level"] == level]
        top = max(at, key=lambda r: r["win_rate"])
        best[level] = {"budget": top["budget"], "win_rate": top["win_rate"]}
    return {
        **made_with("realtime", players=settings.rules.players),
        "settings": settings.to_dict(),
        "complete": complete,
        "calibration": dict(costs_record),
        "points": rows,
        "budgets": budgets,
        "best_budget": best,
        "network_vs_search": network_vs_search(points, outcomes),
        "interval": "95%, normal over paired deals (a deal's two seatings one sample)",
        "fit": "per budget: P(win) = 1 / (1 + exp(-(intercept + slope * cost_ms))); "
        "break-even cost = -intercept / slope, its interval a bootstrap over deals",
    }
