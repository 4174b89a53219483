"""A reaction sweep's results as documents: the ``reaction.json`` summary, its CSV rows, text.

``summarise`` turns the points' games into the JSON document (settings, one row
per point with its Wilson interval, the logistic fit and its bootstrap
intervals); ``rows_csv``, ``table`` and ``headline`` render it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from speed_env.reaction import make_profile
from speed_env.registration import made_with
from speed_lab.reaction_sweep.fit import bootstrap_fit, fit_logistic
from speed_lab.reaction_sweep.sweep import PointResult, SweepSettings, latency_axis_ms

CSV_COLUMNS = (
    "latency_ms",
    "opponent_latency_ms",
    "games",
    "wins",
    "losses",
    "draws",
    "win_rate",
    "ci_low",
    "ci_high",
)


def summarise(
    settings: SweepSettings, results: Sequence[PointResult], bootstrap: int = 1000
) -> dict[str, Any]:
    """The ``reaction.json`` document: the env id and kit version it was made with, settings, a
    row per point, and the fit with its intervals."""
    from agents.stats import wilson_interval

    axis = {lat: latency_axis_ms(lat, settings.jitter) for lat in settings.latencies}
    opp_axis = {lat: latency_axis_ms(lat) for lat in settings.opponent_latencies}
    rows: list[dict[str, Any]] = []
    for r in results:
        score = r.wins + r.draws / 2
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
                "opponent": f"{settings.opponent}@{r.opponent_latency}",
            }
        )
    doc: dict[str, Any] = {
        **made_with("realtime"),
        "settings": settings.to_dict(),
        "points": rows,
        "fit": None,
    }
    diffs = np.array([row["latency_ms"] - row["opponent_latency_ms"] for row in rows])
    if len(np.unique(diffs)) < 2:
        doc["fit_note"] = "no fit: it needs at least two different latency differences"
        return doc
    fit = fit_logistic(diffs, [r.games for r in results], [r.wins + r.draws / 2 for r in results])
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
    if bootstrap > 0:
        boot = bootstrap_fit(
            diffs, [r.outcomes for r in results], samples=bootstrap, seed=settings.seed
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


def rows_csv(doc: dict[str, Any]) -> str:
    """The points as CSV with exactly the columns of ``CSV_COLUMNS``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for row in doc["points"]:
        w.writerow(
            [
                f"{row['latency_ms']:g}",
                f"{row['opponent_latency_ms']:g}",
                row["games"],
                row["wins"],
                row["losses"],
                row["draws"],
                f"{row['win_rate']:.6f}",
                f"{row['ci_low']:.6f}",
                f"{row['ci_high']:.6f}",
            ]
        )
    return buf.getvalue()


def headline(doc: dict[str, Any]) -> str:
    """One paragraph of the fitted numbers, for the terminal and the notebook."""
    fit = doc["fit"]
    if fit is None:
        return doc.get("fit_note", "no fit")

    def ci(key: str) -> str:
        if key not in fit:
            return ""
        lo, hi = fit[key]
        return f" [95% CI {lo:.1f}, {hi:.1f}]"

    be = fit["break_even_ms"]
    text = (
        f"{sweep_label(doc)}: break-even at {be:+.1f} ms{ci('break_even_ci')} "
        f"(the agent wins half its games when {abs(be):.1f} ms {'slower' if be >= 0 else 'faster'} "
        f"than its opponent); {fit['ms_per_ten_points']:.1f} ms{ci('ms_per_ten_points_ci')} "
        f"of reaction = 10 points of win rate; at equal latency it wins "
        f"{100 * fit['win_rate_at_equal_latency']:.1f}%"
    )
    if "break_even_latency_ms" in fit:
        text += f"; break-even latency {fit['break_even_latency_ms']:.1f} ms"
    if not fit["converged"]:
        text += " (WARNING: the fit did not converge; the data may be separated)"
    elif fit.get("fit_p_value", 1.0) < 1e-3:  # nan compares false: no warning without dof
        text += (
            " (WARNING: the points are far from a logistic curve, deviance "
            f"{fit['deviance']:.0f} on {fit['dof']} dof; read the points, not the fit)"
        )
    return text


def table(doc: dict[str, Any]) -> str:
    """The points as a fixed-width table for the terminal."""
    lines = [
        f"{'latency':>8} {'opponent':>8} {'games':>6} {'wins':>6} {'losses':>6} {'draws':>5} "
        f"{'win %':>6}  95% CI"
    ]
    for r in doc["points"]:
        lines.append(
            f"{r['latency_ms']:>8g} {r['opponent_latency_ms']:>8g} {r['games']:>6} {r['wins']:>6} "
            f"{r['losses']:>6} {r['draws']:>5} {100 * r['win_rate']:>6.1f}  "
            f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        )
    return "\n".join(lines)


def sweep_label(doc: dict[str, Any]) -> str:
    """A sweep in a few words: agent (and its shape) against the opponent and its latency."""
    s = doc["settings"]
    opp = s["opponent_latencies"]
    opp_text = f"@{opp[0]}" if len(opp) == 1 else "@grid"
    agent = f"{s['agent']} ({s['jitter']}-shaped)" if s.get("jitter") else s["agent"]
    fixed = (
        all(make_profile(v).is_fixed for v in s["opponent_latencies"])
        and not s.get("jitter")
        and all(make_profile(v).is_fixed for v in s["latencies"])
    )
    return f"{agent} vs {s['opponent']}{opp_text}" + (" (fixed latencies)" if fixed else "")
