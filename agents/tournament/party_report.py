"""The outputs of a real-time tournament at tables of three or four: the leaderboard in its
words, ``agents.csv`` and ``win_shares.png`` beside the files every tournament writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.runtime import plotting
from agents.tournament import report

PAIR_WORDS = report.PairWords(
    "| a | b | comparisons | a ahead | b ahead | ties | a's win rate | 95% CI |",
    "row finished ahead of column (winner against the others; ties half)",
)
"""How the pairwise results read: the winner ahead of each other seat, the others tied."""


def fair_share_line(summary: dict[str, Any]) -> str:
    """The sentence saying what an even table gives each seat."""
    s = summary["settings"]
    return (
        f"Tables of {s['players']}, every agent in every seat over the same deals: "
        f"the fair win share is {100 * s['fair_share']:.1f}%."
    )


def leaderboard(summary: dict[str, Any]) -> str:
    """The leaderboard (Markdown, what the terminal shows), the fair share said first (after
    an incomplete run's note, which stays the first line)."""
    text = report.leaderboard(summary, PAIR_WORDS)
    note = report.incomplete_note(summary)
    head = f"**{note}**\n\n" if note else ""
    return head + fair_share_line(summary) + "\n\n" + text[len(head) :]


def win_shares_png(summary: dict[str, Any]) -> bytes:
    """Win share per agent with 95% intervals, the fair share in the title."""
    agents = sorted(summary["agents"], key=lambda a: a["win_share"])  # drawn bottom up
    fair = 100 * summary["settings"]["fair_share"]
    return plotting.interval_rows_png(
        [(a["name"], a["win_share"], *a["win_share_ci"]) for a in agents],
        report.titled(summary, f"win share (fair share {fair:.0f}%), 95% interval"),
    )


def agents_csv(summary: dict[str, Any]) -> str:
    """One row per agent: rating, seat-games, wins, win share, with intervals."""
    return report.agents_csv(summary, "win_share", ("win_share", "share_low", "share_high"))


def write_outputs(out: Path, summary: dict[str, Any]) -> list[Path]:
    """Every output file: the two-player tournament's set, plus ``agents.csv`` and
    ``win_shares.png``."""
    return report.write_outputs(
        out,
        summary,
        extra={
            "leaderboard.md": leaderboard(summary).encode(),  # with the fair share said
            "agents.csv": agents_csv(summary).encode(),
            "win_shares.png": win_shares_png(summary),
        },
        words=PAIR_WORDS,
    )
