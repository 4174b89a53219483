"""A reaction sweep's results as text: the ``reaction.json`` summary's CSV rows, table, headline.

``summarise`` (:mod:`agents.reaction_sweep.summary`; the package re-exports it) turns the points'
games into the JSON document (settings, one row per point with its Wilson
interval, the logistic fit and its bootstrap intervals); ``rows_csv``,
``table`` and ``headline`` render it.
"""

from __future__ import annotations

from typing import Any

from agents.runtime.files import csv_text
from speed_env.reaction import make_profile

OUTCOME_COLUMNS = ("games", "wins", "losses", "draws", "win_rate", "ci_low", "ci_high")
"""A sweep point's games and win rate with its 95% interval: the last columns of each sweep's CSV
(this one's and :mod:`agents.think_sweep`'s)."""

CSV_COLUMNS = ("latency_ms", "opponent_latency_ms", *OUTCOME_COLUMNS)


def outcome_cells(point: dict[str, Any]) -> list[Any]:
    """``point``'s :data:`OUTCOME_COLUMNS` as CSV cells (rates to six decimals)."""
    rates = (f"{point[k]:.6f}" for k in ("win_rate", "ci_low", "ci_high"))
    return [point["games"], point["wins"], point["losses"], point["draws"], *rates]


def rows_csv(doc: dict[str, Any]) -> str:
    """The points as CSV with exactly the columns of ``CSV_COLUMNS``."""
    return csv_text(
        CSV_COLUMNS,
        (
            [f"{p['latency_ms']:g}", f"{p['opponent_latency_ms']:g}", *outcome_cells(p)]
            for p in doc["points"]
        ),
    )


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
    side = "slower" if be >= 0 else "faster"
    if "fair_share" in fit:  # a table of three or four: the fair share, against the field
        share = 100 * fit["fair_share"]
        fair = (
            f"the agent wins its fair share, {share:.0f}% of its games, when {abs(be):.1f} ms "
            f"{side} than each of the others"
        )
        ten = f"10 points of win share above {share:.0f}%"
    else:
        fair = f"the agent wins half its games when {abs(be):.1f} ms {side} than its opponent"
        ten = "10 points of win rate"
    text = (
        f"{sweep_label(doc)}: break-even at {be:+.1f} ms{ci('break_even_ci')} ({fair}); "
        f"{fit['ms_per_ten_points']:.1f} ms{ci('ms_per_ten_points_ci')} of reaction = {ten}; "
        f"at equal latency it wins {100 * fit['win_rate_at_equal_latency']:.1f}%"
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
    """The points as a fixed-width table for the terminal.

    Latencies are medians in ms, as on the plot: a fixed latency is its own median, a shaped
    ``--latencies L`` is ``L``.
    """
    lines = [
        f"{'agent median ms':>15} {'opponent median ms':>18} {'games':>6} {'wins':>6} "
        f"{'losses':>6} {'draws':>5} {'win %':>6}  95% CI"
    ]
    players = doc["settings"].get("players", 2)
    if players > 2:  # say what the win % is measured against
        lines.insert(
            0,
            f"a table of {players}: the agent in each seat in turn, {players - 1} opponents at "
            f"their latency; its fair share is {100 / players:.0f}%",
        )
    for r in doc["points"]:
        lines.append(
            f"{r['latency_ms']:>15g} {r['opponent_latency_ms']:>18g} {r['games']:>6} "
            f"{r['wins']:>6} "
            f"{r['losses']:>6} {r['draws']:>5} {100 * r['win_rate']:>6.1f}  "
            f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        )
    return "\n".join(lines)


def sweep_label(doc: dict[str, Any]) -> str:
    """A sweep in a few words: agent (and its shape) against the opponent and its latency."""
    s = doc["settings"]
    opp = s["opponent_latencies"]
    opp_text = f"@{opp[0]}" if len(opp) == 1 else "@grid"
    players = s.get("players", 2)
    if players > 2:
        opp_text += f" x{players - 1}"
    agent = f"{s['agent']} ({s['jitter']}-shaped)" if s.get("jitter") else s["agent"]
    fixed = (
        all(make_profile(v).is_fixed for v in s["opponent_latencies"])
        and not s.get("jitter")
        and all(make_profile(v).is_fixed for v in s["latencies"])
    )
    return f"{agent} vs {s['opponent']}{opp_text}" + (" (fixed latencies)" if fixed else "")
