"""A reaction sweep's figures: win rate against latency difference, and the grid heatmap.

Drawn with :mod:`agents.runtime.plotting` (matplotlib, the ``[plot]`` extra, is
imported only when a figure is drawn).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.reaction_sweep.results import sweep_label
from agents.runtime import plotting


def curve_png(
    docs: Sequence[dict[str, Any]], labels: Sequence[str] | None = None, title: str | None = None
) -> bytes:
    """Win rate against latency difference for one or more sweeps.

    Each sweep's points carry their Wilson 95% intervals (a shaded band when
    each difference appears once, error bars otherwise); the fitted logistic
    is a line, and the break-even difference a marker at 50% with its
    bootstrap interval.
    """
    labels = list(labels) if labels is not None else [sweep_label(d) for d in docs]
    # A table of n seats breaks even at its fair share, 1/n; two players at half.
    shares = {1 / d["settings"].get("players", 2) for d in docs}
    fig, ax = plotting.figure(7, 4.5)
    lo_x, hi_x = math.inf, -math.inf
    for i, (doc, label) in enumerate(zip(docs, labels, strict=True)):
        colour = f"C{i}"
        rows = sorted(doc["points"], key=lambda r: r["latency_ms"] - r["opponent_latency_ms"])
        x = np.array([r["latency_ms"] - r["opponent_latency_ms"] for r in rows])
        y = np.array([r["win_rate"] for r in rows])
        lo = np.array([r["ci_low"] for r in rows])
        hi = np.array([r["ci_high"] for r in rows])
        if len(x):
            lo_x, hi_x = min(lo_x, x.min()), max(hi_x, x.max())
        # A band needs one y per x; repeated differences (a grid) take error bars instead.
        if len(np.unique(x)) == len(x) and len(x) > 1:
            ax.fill_between(x, lo, hi, color=colour, alpha=0.18, linewidth=0)
            ax.plot(x, y, "o", color=colour, label=label)
        else:
            ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o", color=colour, capsize=3, label=label)
        fit = doc.get("fit")
        if fit and len(x):
            xs = np.linspace(x.min() - 20, x.max() + 20, 200)
            ys = 1 / (1 + np.exp(-(fit["intercept"] + fit["slope_per_ms"] * xs)))
            ax.plot(xs, ys, "-", color=colour, alpha=0.8)
            be = fit["break_even_ms"]
            # Far outside the points the marker would stretch the axis, and it is extrapolation.
            if math.isfinite(be) and x.min() - 100 <= be <= x.max() + 100:
                ci = fit.get("break_even_ci")
                xerr = [[be - ci[0]], [ci[1] - be]] if ci and all(map(math.isfinite, ci)) else None
                ax.errorbar(
                    [be],
                    [1 / doc["settings"].get("players", 2)],
                    xerr=xerr,
                    fmt="D",
                    color=colour,
                    markersize=6,
                    capsize=4,
                    markeredgecolor="black",
                )
    for share in sorted(shares):
        ax.axhline(share, color="grey", linewidth=0.8, linestyle=":")
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_ylim(0, 1)
    ax.set_xlabel("median latency difference, agent − opponent (ms; > 0: the agent is slower)")
    if shares == {0.5}:
        ax.set_ylabel("agent's win rate (draws count half)")
        ax.set_title(title or "win rate against reaction latency (paired deals, Wilson 95% bands)")
    else:  # a table of three or four: the break-even marker sits at the fair share
        ax.set_ylabel("agent's win share (a draw shared out; dotted: fair share)")
        ax.set_title(
            title or "win share against reaction latency (seats rotated, Wilson 95% bands)"
        )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    return plotting.png_bytes(fig)


def grid_png(doc: dict[str, Any], title: str | None = None) -> bytes:
    """Heatmap of the agent's win rate over its latency (rows) and the opponent's (columns)."""
    rows = doc["points"]
    ys = sorted({r["latency_ms"] for r in rows})
    xs = sorted({r["opponent_latency_ms"] for r in rows})
    grid = np.full((len(ys), len(xs)), np.nan)
    for r in rows:
        grid[ys.index(r["latency_ms"]), xs.index(r["opponent_latency_ms"])] = r["win_rate"]
    s = doc["settings"]
    return plotting.heatmap_png(
        grid,
        [f"{v:g}" for v in xs],
        [f"{v:g}" for v in ys],
        size=(1.6 + 0.9 * len(xs), 1.2 + 0.7 * len(ys)),
        scale=plotting.Scale(0.0, 1.0, dark_beyond=0.3),
        cell_text=lambda v: f"{100 * v:.0f}%",
        fontsize=8,
        origin="lower",  # the lowest latency at the bottom, as on a plot's axis
        axis_labels=(
            f"opponent ({s['opponent']}) latency, ms",
            f"agent ({s['agent']}) latency, ms",
        ),
        title=title or f"{s['agent']}'s win rate against {s['opponent']}",
        colorbar_label="win rate",
    )
