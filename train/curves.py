"""The training curve: win rate against each gauntlet bot over timesteps, from ``eval.csv``."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

EVAL_FIELDS = [
    "timesteps",
    "rules",
    "opponent",
    "games",
    "wins",
    "losses",
    "draws",
    "win_rate",
    "ci_low",
    "ci_high",
    "wall_s",
]


def read_eval(path: Path) -> list[dict[str, str]]:
    """Rows of an ``eval.csv`` (empty when the file does not exist yet)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def append_eval(path: Path, rows: list[dict[str, object]]) -> None:
    """Append rows to ``eval.csv``, writing the header first if the file is new."""
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        if new:
            w.writeheader()
        for row in rows:
            w.writerow({k: row[k] for k in EVAL_FIELDS})


def plot_curves(eval_csv: Path, png: Path, title: str = "") -> Path | None:
    """Draw one line per (rules, bot) with its 95% interval as a band; ``None`` without data."""
    rows = read_eval(eval_csv)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[tuple[str, str], list[tuple[float, float, float, float]]] = defaultdict(list)
    for r in rows:
        series[(r["rules"], r["opponent"])].append(
            (float(r["timesteps"]), float(r["win_rate"]), float(r["ci_low"]), float(r["ci_high"]))
        )
    presets = sorted({k[0] for k in series})
    fig, axes = plt.subplots(1, len(presets), figsize=(6.4 * len(presets), 4.2), squeeze=False)
    for ax, preset in zip(axes[0], presets, strict=True):
        for (rules, opp), pts in sorted(series.items()):
            if rules != preset:
                continue
            pts.sort()
            x = [p[0] for p in pts]
            line = ax.plot(x, [100 * p[1] for p in pts], marker="o", ms=3, label=f"vs {opp}")[0]
            ax.fill_between(
                x,
                [100 * p[2] for p in pts],
                [100 * p[3] for p in pts],
                color=line.get_color(),
                alpha=0.15,
            )
        ax.axhline(50, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("timesteps (learner decisions)")
        ax.set_ylabel("win rate % (paired deals, 95% CI)")
        ax.set_title(f"{title} — {preset}" if title else preset)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp = png.with_name("." + png.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(png)
    return png
