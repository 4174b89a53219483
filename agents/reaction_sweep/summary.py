"""A latency sweep's points as the ``reaction.json`` summary: a row per point and the fit.

``summarise`` turns the points' games (:class:`agents.reaction_sweep.work.PointResult`)
into the JSON document: the settings, one row per point with its Wilson
interval, the logistic fit (:mod:`agents.reaction_sweep.fit`) and its bootstrap
intervals. The evaluation card reads its break-even latency from it; ``speed
experiment reaction`` writes it and renders it (:mod:`agents.reaction_sweep.results`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.reaction_sweep.fit import bootstrap_fit, fit_logistic
from agents.reaction_sweep.work import PointResult, SweepSettings, latency_axis_ms
from speed_env.registration import made_with


def summarise(
    settings: SweepSettings, results: Sequence[PointResult], bootstrap: int = 1000
) -> dict[str, Any]:
    """The ``reaction.json`` document.

    It holds the env id and kit version it was made with, the settings, a row per point, and
    the fit with its intervals.
    """
    from agents.stats import wilson_interval

    axis = {
        lat: latency_axis_ms(lat, settings.jitter, settings.jitter_at) for lat in settings.latencies
    }
    opp_axis = {lat: latency_axis_ms(lat) for lat in settings.opponent_latencies}
    n = settings.players
    # The field is n - 1 copies of the opponent: a row names one, the settings say how many.
    field = "" if n == 2 else f" x{n - 1}"
    rows: list[dict[str, Any]] = []
    for r in results:
        score = r.wins + r.draws / n  # a draw shares the game out: half of it against one
        lo, hi = wilson_interval(score, r.games)
        rows.append(
            {
                "latency_ms": axis[r.latency],
                "opponent_latency_ms": opp_axis[r.opponent_latency],
                "games": r.games,
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "win_rate": score / r.games,
                "ci_low": lo,
                "ci_high": hi,
                "agent": settings.agent_label(r.latency),
                "opponent": f"{settings.opponent}@{r.opponent_latency}{field}",
            }
        )
    doc: dict[str, Any] = {
        **made_with("realtime", players=n),
        "settings": settings.to_dict(),
        "points": rows,
        "fit": None,
    }
    # On the median axis, as plotted: the fit's break-even then reads off the same x.
    diffs = np.array([row["latency_ms"] - row["opponent_latency_ms"] for row in rows])
    if len(np.unique(diffs)) < 2:
        doc["fit_note"] = "no fit: it needs at least two different latency differences"
        return doc
    fit = fit_logistic(
        diffs,
        [r.games for r in results],
        [r.wins + r.draws / n for r in results],
        share=settings.fair_share,
    )
    out: dict[str, Any] = {
        "model": "P(win) = 1 / (1 + exp(-(intercept + slope * d))), "
        "d = latency_ms - opponent_latency_ms",
        "intercept": fit.intercept,
        "slope_per_ms": fit.slope,
        "converged": fit.converged,
        "log_likelihood": fit.log_likelihood,
        "deviance": fit.deviance,
        "dof": fit.dof,
        "fit_p_value": fit.fit_p_value,
        "win_rate_at_equal_latency": float(fit.win_rate(0.0)),
        "break_even_ms": fit.break_even_ms,
        "ms_per_ten_points": fit.ms_per_ten_points,
    }
    if n > 2:  # where the break-even and the ten points are read: the fair share, not half
        out["fair_share"] = settings.fair_share
    if bootstrap > 0:
        boot = bootstrap_fit(  # the sweep's own seed: the same intervals on every rerun
            diffs, [r.outcomes for r in results], samples=bootstrap, seed=settings.seed, seats=n
        )
        out |= {
            "break_even_ci": list(boot.break_even_ms),
            "ms_per_ten_points_ci": list(boot.ms_per_ten_points),
            "slope_ci": list(boot.slope),
            "bootstrap": {
                "samples": bootstrap,
                "used": boot.samples,
                "dropped": boot.dropped,
                "resampling": "deals, the same draw at every point"
                if boot.joint
                else "deals, per point",
            },
        }
    opponent_ms = {row["opponent_latency_ms"] for row in rows}
    if len(opponent_ms) == 1:  # one opponent latency: break-even as an absolute latency too
        base = opponent_ms.pop()
        out["break_even_latency_ms"] = base + fit.break_even_ms
        if "break_even_ci" in out:
            out["break_even_latency_ci"] = [base + v for v in out["break_even_ci"]]
    doc["fit"] = out
    return doc
