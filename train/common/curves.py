"""The evaluation log of a training run and its curves: ``eval.csv`` and ``curves.png``.

Each evaluation appends one row per line-up (the learner against one bot, and
for real-time Speed one rules preset) to ``OUT/eval.csv``; ``curves.png``
draws the columns a recipe names against timesteps, one line per opponent,
with its 95% interval as a band. The recipes say what to draw with
:class:`Panel`: the real-time one its win rate per rules preset, train/vintage_ppo.py its
mean penalty and its win rate.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.runtime import plotting

__all__ = ["Panel", "append_eval", "last_rows", "plot_curves", "read_eval"]


@dataclass(frozen=True)
class Panel:
    """One plot of ``curves.png``: a column of ``eval.csv`` against timesteps."""

    y: str
    """The column drawn, one line per opponent."""
    ylabel: str
    """The y axis' label."""
    band: tuple[str, str] | None = None
    """Columns of the line's 95% interval, drawn as a band."""
    dashed: str | None = None
    """A second column drawn dashed in the line's colour (e.g. the opponent's own penalty)."""
    percent: bool = False
    """The column is a rate: drawn in % on a 0-100 axis with a line at 50."""
    title: str = ""
    """The plot's title (default: the run's title)."""


def read_eval(path: Path) -> list[dict[str, str]]:
    """Rows of an ``eval.csv`` (empty when the file does not exist yet)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def append_eval(path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> None:
    """Append ``rows`` (their ``fields``, in that order) to ``eval.csv``, header first if new."""
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields))
        if new:
            w.writeheader()
        w.writerows({k: row[k] for k in fields} for row in rows)


def last_rows(path: Path) -> list[dict[str, str]]:
    """The rows of the last evaluation in ``eval.csv``."""
    rows = read_eval(path)
    return [r for r in rows if r["timesteps"] == rows[-1]["timesteps"]] if rows else []


def plot_curves(
    eval_csv: Path, png: Path, title: str, panels: Sequence[Panel], split: str | None = None
) -> Path | None:
    """Draw ``panels`` side by side; ``None`` while ``eval_csv`` holds no row.

    Once per value of the ``split`` column, e.g. ``rules``.
    """
    rows = read_eval(eval_csv)
    if not rows:
        return None
    parts = sorted({r[split] for r in rows}) if split else [""]
    n = len(parts) * len(panels)
    fig, axes = plotting.figure(5.6 * n, 4.0, ncols=n, squeeze=False)
    plots = [(part, panel) for part in parts for panel in panels]
    for ax, (part, panel) in zip(axes[0], plots, strict=True):
        mine = [r for r in rows if not split or r[split] == part]
        _draw(ax, mine, panel)
        heading = panel.title or title
        ax.set_title(f"{heading} — {part}" if part else heading)
    fig.tight_layout()
    return plotting.save_png(fig, png, dpi=110)


def _draw(ax: Any, rows: list[dict[str, str]], panel: Panel) -> None:
    scale = 100.0 if panel.percent else 1.0

    def column(mine: list[dict[str, str]], name: str) -> list[float]:
        return [scale * float(r[name]) for r in mine]

    # Opponents in the order first seen, so each keeps its colour between redraws.
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        mine = sorted((r for r in rows if r["opponent"] == opp), key=lambda r: int(r["timesteps"]))
        t = [int(r["timesteps"]) for r in mine]
        line = ax.plot(t, column(mine, panel.y), "o-", ms=3, label=f"vs {opp}")[0]
        if panel.band:
            lo, hi = (column(mine, c) for c in panel.band)
            ax.fill_between(t, lo, hi, color=line.get_color(), alpha=0.15)
        if panel.dashed:
            ax.plot(
                t, column(mine, panel.dashed), "--", color=line.get_color(), label=f"{opp}'s own"
            )
    if panel.percent:
        ax.axhline(50, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 100)
    ax.set(xlabel="timesteps (learner decisions)", ylabel=panel.ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
