"""What a league writes in its folder: ``league.json``, ``league.csv`` and ``league.png``.

``league.json`` (its members and final meta-strategy are :mod:`agents.league.record`'s) also
holds the settings and, per round, the table, the meta-strategy and the new member's gain.
``league.csv`` has a row per round (round 0 is the starting population): the member added,
its gain over the meta-strategy before it, the meta-strategy's value, and each member's
weight. ``league.png`` draws the gain and the weights over the rounds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.league.record import LEAGUE_FILE
from agents.runtime.files import csv_text

CSV_FILE = "league.csv"
PNG_FILE = "league.png"
BEST_FILE = "best.json"
"""The best single member's model (with ``best.safetensors``)."""


def league_csv(league: dict[str, Any]) -> str:
    """One row per round: the member added, its gain, the value, each member's weight."""
    names = [m["name"] for m in league["members"]]
    rows = []
    for r in league["rounds"]:
        weights = [f"{w:.6f}" for w in r["meta"]["weights"]]
        gain = "" if r["gain"] is None else f"{r['gain']:.6f}"
        weights += [""] * (len(names) - len(weights))
        rows.append([r["round"], r["new_member"], gain, f"{r['meta']['value']:.6f}", *weights])
    return csv_text(["round", "new_member", "gain", "value", *(f"weight:{n}" for n in names)], rows)


def league_png(league: dict[str, Any]) -> bytes:
    """The new members' gain over the rounds, and the meta-strategy's weights (stacked)."""
    import numpy as np

    from agents.runtime.plotting import figure, png_bytes

    rounds = league["rounds"]
    names = [m["name"] for m in league["members"]]
    fig, (gain_ax, weight_ax) = figure(11, 4, ncols=2)
    learned = [r for r in rounds if r["gain"] is not None]
    gain_ax.axhline(0, color="grey", lw=0.8)
    gain_ax.plot(
        [r["round"] for r in learned], [100 * r["gain"] for r in learned], "o-", color="C3"
    )
    gain_ax.set_xlabel("round")
    gain_ax.set_ylabel("gain: points over 50% v. the meta-strategy")
    gain_ax.set_title("PSRO's exploitability estimate")
    weights = np.zeros((len(rounds), len(names)))
    for k, r in enumerate(rounds):
        w = r["meta"]["weights"]
        weights[k, : len(w)] = w
    xs = [r["round"] for r in rounds]
    weight_ax.stackplot(xs, weights.T, labels=names)
    weight_ax.set_xlabel("round")
    weight_ax.set_ylabel("weight in the meta-strategy")
    weight_ax.set_ylim(0, 1)
    weight_ax.set_title(f"meta-strategy ({league['settings']['method']})")
    weight_ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    for ax in (gain_ax, weight_ax):
        ax.set_xticks(xs)
    fig.suptitle(f"speed train league on {league['settings']['rules']}")
    return png_bytes(fig)


def write_all(folder: Path, league: dict[str, Any]) -> list[Path]:
    """Write the three files together, all or none, the JSON renamed last; their paths.

    :func:`agents.runtime.files.write_together` stages every one before any is renamed: a
    failure (a full disk, Ctrl-C) leaves the old three whole, never a table of one round
    beside the figure or the record of another.
    """
    from agents.runtime.files import json_bytes, write_together

    return write_together(
        {
            folder / CSV_FILE: league_csv(league).encode(),
            folder / PNG_FILE: league_png(league),
            folder / LEAGUE_FILE: json_bytes(league),
        }
    )
