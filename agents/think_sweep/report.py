"""The thinking experiment's results as files: the CSV, the table, the headline and the plot.

:func:`agents.think_sweep.sweep.summarise` makes the JSON document; this module renders it and
writes the run folder's files atomically (:data:`FILES`). Nothing here reads a clock, so the same
games and costs give byte-identical files.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from agents.reaction_sweep.results import OUTCOME_COLUMNS, outcome_cells
from agents.runtime import plotting
from agents.runtime.files import csv_text, write_together

FILES = {
    "csv": "think_sweep.csv",
    "json": "think_sweep.json",
    "plot": "winrate_vs_think.png",
    "costs": "think_costs.json",
}
"""The files a run leaves in its folder (``costs``: the calibration it charged)."""

CSV_COLUMNS = ("budget", "agent", "worlds", "level", "cost_ms", *OUTCOME_COLUMNS)


def rows_csv(doc: dict[str, Any]) -> str:
    """The points as CSV with exactly the columns of :data:`CSV_COLUMNS`."""
    return csv_text(
        CSV_COLUMNS,
        (
            [
                r["budget"],
                r["agent"],
                "" if r["worlds"] is None else r["worlds"],
                r["level"],
                f"{r['cost_ms']:g}",
                *outcome_cells(r),
            ]
            for r in doc["points"]
        ),
    )


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(doc: dict[str, Any]) -> str:
    """A Markdown table: a row per budget, its cost and its win rate at each level."""
    levels = list(dict.fromkeys(r["level"] for r in doc["points"]))
    head = ["budget", "ms a choice", *levels, "break-even ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in doc["budgets"]:
        cells = [b["budget"], f"{b['calibrated_ms']:g}"]
        for level in levels:
            row = next(
                (r for r in doc["points"] if r["budget"] == b["budget"] and r["level"] == level),
                None,
            )
            cells.append(
                ""
                if row is None
                else f"{_pct(row['win_rate'])} [{100 * row['ci_low']:.0f}, "
                f"{100 * row['ci_high']:.0f}]"
            )
        cells.append(break_even_text(b))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def versus_table(doc: dict[str, Any]) -> str:
    """A Markdown table: the network's win rate minus each search's, paired, at each level."""
    pairs = doc.get("network_vs_search") or []
    if not pairs:
        return ""
    levels = list(dict.fromkeys(p["level"] for p in pairs))
    head = ["network minus", *levels]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for search in dict.fromkeys(p["search"] for p in pairs):
        cells = [search]
        for level in levels:
            hit = [p for p in pairs if p["search"] == search and p["level"] == level]
            cells.append(
                f"{100 * hit[0]['difference']:+.1f} [{100 * hit[0]['ci'][0]:+.0f}, "
                f"{100 * hit[0]['ci'][1]:+.0f}]"
                if hit
                else ""
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def break_even_text(budget: dict[str, Any]) -> str:
    """A budget's break-even cost as text: ``41 [30, 60]``, with a note where there is none."""
    be = budget.get("break_even_ms")
    if be is None:
        return budget.get("note", "no points")
    ci = budget.get("break_even_ci")
    text = f"{be:.3g}"
    if ci and all(map(math.isfinite, ci)):
        text += f" [{ci[0]:.3g}, {ci[1]:.3g}]"
    return text + (" (extrapolated)" if budget.get("extrapolated") else "")


def headline(doc: dict[str, Any]) -> str:
    """Where the best budget lies, free and with its thinking charged."""
    best = doc["best_budget"]
    parts = [f"{level}: {b['budget']} ({_pct(b['win_rate'])})" for level, b in best.items()]
    return f"best budget against {doc['settings']['opponent']} at each level: " + "; ".join(parts)


def curve_png(doc: dict[str, Any]) -> bytes:
    """Win rate against thinking cost per decision: a budget's points and its fitted curve.

    Each point carries its 95% interval over paired deals; the line is the budget's logistic
    fit (the points joined where there is none) and ◆ its break-even cost, where inside the
    costs played.
    """
    fig, ax = plotting.figure(8, 4.8)
    top = max((r["cost_ms"] for r in doc["points"]), default=1.0) or 1.0
    for i, b in enumerate(doc["budgets"]):
        rows = sorted(
            (r for r in doc["points"] if r["budget"] == b["budget"]), key=lambda r: r["cost_ms"]
        )
        if not rows:
            continue
        colour = f"C{i}"
        x = np.array([r["cost_ms"] for r in rows])
        y = np.array([r["win_rate"] for r in rows])
        err = [y - [r["ci_low"] for r in rows], [r["ci_high"] for r in rows] - y]
        label = f"{b['budget']} ({b['calibrated_ms']:g} ms a choice)"
        ax.errorbar(x, y, yerr=err, fmt="o", color=colour, capsize=3, label=label, alpha=0.9)
        if "intercept" in b:
            xs = np.linspace(0.0, top, 200)
            ax.plot(
                xs, 1 / (1 + np.exp(-(b["intercept"] + b["slope_per_ms"] * xs))), "-", color=colour
            )
        else:
            ax.plot(x, y, "-", color=colour, alpha=0.6)
        be = b.get("break_even_ms")
        if be is not None and not b.get("extrapolated"):
            ax.plot([be], [0.5], "D", color=colour, markersize=7, markeredgecolor="black")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlim(-0.02 * top, 1.04 * top)
    ax.set_xlabel("thinking charged per decision, ms (0: off)")
    ax.set_ylabel(f"win rate against {doc['settings']['opponent']} (draws half)")
    ax.set_title("win rate against thinking cost (lines: logistic fits; ◆ break-even)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    return plotting.png_bytes(fig)


def write_outputs(out: Path, doc: dict[str, Any]) -> list[Path]:
    """Write the CSV, the JSON and the plot into ``out`` (all or none); their paths."""
    files = {
        FILES["csv"]: rows_csv(doc).encode(),
        FILES["json"]: json.dumps(doc, indent=2).encode(),
        FILES["plot"]: curve_png(doc),
    }
    # Together: a failure (a full disk) leaves the old set whole or none, never results
    # without their figures.
    return write_together({out / name: data for name, data in files.items()})
