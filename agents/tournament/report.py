"""Tournament outputs: the terminal leaderboard and the files in ``--out``.

Files are written together with :func:`agents.runtime.files.write_together` (each staged
under a temporary name in the output folder, then all renamed into place), so an
interrupted or failed write (a full disk) never leaves a half-written file over a good
one, nor results without their figures.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from agents.runtime import plotting
from agents.runtime.files import write_together

# Per-agent columns after "win %": shown when the agents carry the key (one game reports
# cards played and bounces, another mean penalties).
_AGENT_COLUMNS: list[tuple[str, str, Callable[[dict[str, Any]], str]]] = [
    ("mean_cards_played", "cards played / game", lambda a: f"{a['mean_cards_played']:.1f}"),
    ("bounce_rate", "bounce rate", lambda a: f"{a['bounce_rate']:.3f}"),
    (
        "mean_penalty",
        "mean penalty [95% CI]",
        lambda a: (
            f"{a['mean_penalty']:.2f} "
            f"[{a['mean_penalty_ci'][0]:.2f}, {a['mean_penalty_ci'][1]:.2f}]"
        ),
    ),
    (
        "win_share",
        "win share [95% CI]",
        lambda a: (
            f"{100 * a['win_share']:.1f}% "
            f"[{100 * a['win_share_ci'][0]:.1f}%, {100 * a['win_share_ci'][1]:.1f}%]"
        ),
    ),
    (
        "match_wins",
        "matches won",
        lambda a: (
            f"{a['match_wins']}/{a['matches']} ({100 * a['match_wins'] / a['matches']:.1f}%)"
            if a["matches"]
            else "0/0"
        ),
    ),
]

# Pairwise match columns (``speed tournament --match``), shown when the pairings carry them.
_MATCH_HEADER = " matches | a's match wins | a's match win rate | 95% CI | games / match |"


def _match_cells(m: dict[str, Any]) -> str:
    lo, hi = m["match_win_rate_a_ci"]
    return (
        f" {m['matches']} | {m['match_wins_a']} | {100 * m['match_win_rate_a']:.1f}% "
        f"| [{100 * lo:.1f}%, {100 * hi:.1f}%] | {m['mean_games_per_match']:.2f} |"
    )


class PairWords(NamedTuple):
    """How a game's pairwise results read: the table's header and the heatmap's title."""

    header: str
    title: str


PAIR_WORDS = PairWords(
    "| a | b | games | a wins | b wins | draws | a's win rate | 95% CI |",
    "win rate of row vs column (paired deals)",
)
"""Two seats, paired deals: games won, lost and drawn (a game's own words: its module's)."""


def with_status(
    summary: dict[str, Any], chunks_done: int, chunks_total: int, resume: str
) -> dict[str, Any]:
    """``summary`` with the run's status at its top, and only agents that played ranked.

    An interrupted run's files must not read like a finished one's: ``status`` says how many
    chunks finished and how to resume (``resume``, the command), and an agent with no finished
    game is moved from the ranking (``agents``) to ``unranked`` (a rating with no games is the
    prior, 1500, not a measurement).
    """
    complete = chunks_done == chunks_total
    status: dict[str, Any] = {
        "complete": complete,
        "chunks_done": chunks_done,
        "chunks_total": chunks_total,
    }
    if not complete:
        status["note"] = (
            f"INCOMPLETE: {chunks_done} of {chunks_total} chunks finished; the results cover "
            f"those only. Resume with: {resume}"
        )
    out = {"status": status, **summary}  # first in the file: a reader sees it before numbers
    out["agents"] = [a for a in summary["agents"] if a["games"] > 0]
    unranked = [a["name"] for a in summary["agents"] if a["games"] == 0]
    if unranked:
        out["unranked"] = unranked
    return out


def with_alpharank(summary: dict[str, Any]) -> dict[str, Any]:
    """``summary`` with ``alpharank``: OpenSpiel's α-Rank over its ranked agents.

    It is computed from the same pairings as the ratings, or says why it is not; see
    :func:`agents.alpharank.from_summary`.
    """
    from agents.alpharank import from_summary

    return {**summary, "alpharank": from_summary(summary)}


def incomplete_note(summary: dict[str, Any]) -> str | None:
    """The status note of an incomplete run's summary (:func:`with_status`), else None."""
    status = summary.get("status") or {}
    return None if status.get("complete", True) else str(status.get("note", "INCOMPLETE"))


def titled(summary: dict[str, Any], title: str) -> str:
    """A plot's ``title``, marked at its start when the run is incomplete."""
    status = summary.get("status") or {}
    if status.get("complete", True):
        return title
    return f"INCOMPLETE ({status.get('chunks_done')}/{status.get('chunks_total')} chunks): {title}"


def leaderboard(summary: dict[str, Any], words: PairWords = PAIR_WORDS) -> str:
    """The leaderboard as a Markdown table (also what the terminal shows).

    Agents, then pairwise results (headed by ``words``); a summary with ``lineups`` adds a
    table per line-up.
    """
    agents = summary["agents"]
    columns = [c for c in _AGENT_COLUMNS if agents and c[0] in agents[0]]
    note = incomplete_note(summary)
    lines = [f"**{note}**", ""] if note else []
    lines += [
        "| rank | agent | rating | 95% CI | games | win % | "
        + "".join(f"{c[1]} | " for c in columns).rstrip(),
        "|---:|---|---:|---|---:|---:|" + "---:|" * len(columns),
    ]
    for rank, a in enumerate(agents, 1):
        score = (a["wins"] + a.get("draws", 0) / 2) / a["games"] if a["games"] else 0.0
        cells = "".join(f" {c[2](a)} |" for c in columns)
        lines.append(
            f"| {rank} | {a['name']} | {a['rating']:.0f} "
            f"| [{a['rating_ci'][0]:.0f}, {a['rating_ci'][1]:.0f}] "
            f"| {a['games']} | {100 * score:.1f} |{cells}"
        )
    header = words.header
    # Every row has match columns or none (--match is per run): the first row decides.
    with_matches = bool(summary["matches"]) and "matches" in summary["matches"][0]
    rule = "|---|---|---:|---:|---:|---:|---:|---|"
    if with_matches:
        header, rule = header + _MATCH_HEADER, rule + "---:|---:|---:|---|---:|"
    lines += ["", header, rule]
    for m in summary["matches"]:
        lo, hi = m["win_rate_a_ci"]
        lines.append(
            f"| {m['a']} | {m['b']} | {m['games']} | {m['wins_a']} | {m['wins_b']} | {m['draws']} "
            f"| {100 * m['win_rate_a']:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] |"
            + (_match_cells(m) if with_matches else "")
        )
    if summary.get("lineups"):
        # Line-ups of a penalty game report mean penalties; real-time ones (3 or 4 seats) win
        # shares.
        key = "mean_penalty" if "mean_penalty" in summary["lineups"][0]["results"][0] else None
        lines += [
            "",
            "| line-up (seat order) | games | agent | seats | win % | "
            + ("mean penalty [95% CI] |" if key else "win share 95% CI |"),
            "|---|---:|---|---:|---:|---|",
        ]
        for lu in summary["lineups"]:
            for r in lu["results"]:
                win = 100 * r["wins"] / r["games"] if r["games"] else 0.0
                if key:
                    lo, hi = r["mean_penalty_ci"]
                    last = f"{r['mean_penalty']:.2f} [{lo:.2f}, {hi:.2f}]"
                else:
                    lo, hi = r["win_share_ci"]
                    last = f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"
                lines.append(
                    f"| {' '.join(lu['agents'])} | {lu['games']} | {r['name']} | {r['seats']} "
                    f"| {win:.1f} | {last} |"
                )
    if summary.get("unranked"):
        lines += ["", f"Not ranked (no finished games): {', '.join(summary['unranked'])}"]
    if "alpharank" in summary:
        from agents.alpharank import summary_markdown

        lines += summary_markdown(summary["alpharank"])
    return "\n".join(lines) + "\n"


def _csv(summary: dict[str, Any]) -> tuple[io.StringIO, Any]:
    """A CSV file's text so far and its writer: an incomplete run's note first, as a comment
    line (csv readers skip it with ``comment="#"``)."""
    buf = io.StringIO()
    note = incomplete_note(summary)
    if note:
        buf.write(f"# {note}\n")
    return buf, csv.writer(buf)


def agents_csv(summary: dict[str, Any], measure: str, columns: tuple[str, str, str]) -> str:
    """One row per agent: rating, games, wins and ``measure`` (a key of each agent beside its
    ``_ci`` interval: a table's ``win_share``, a penalty-scored game's ``mean_penalty``), with their
    intervals; ``columns`` heads the measure's three."""
    buf, w = _csv(summary)
    w.writerow(["agent", "rating", "rating_low", "rating_high", "games", "wins", *columns])
    for a in summary["agents"]:
        low, high = a[f"{measure}_ci"]
        w.writerow(
            [
                a["name"],
                f"{a['rating']:.2f}",
                f"{a['rating_ci'][0]:.2f}",
                f"{a['rating_ci'][1]:.2f}",
                a["games"],
                a["wins"],
                f"{a[measure]:.4f}",
                f"{low:.4f}",
                f"{high:.4f}",
            ]
        )
    return buf.getvalue()


def matches_csv(summary: dict[str, Any]) -> str:
    """One row per pairing."""
    buf, w = _csv(summary)
    with_matches = bool(summary["matches"]) and "matches" in summary["matches"][0]
    match_cols = [
        "matches",
        "match_wins_a",
        "match_wins_b",
        "match_win_rate_a",
        "match_ci_low",
        "match_ci_high",
        "mean_games_per_match",
        "games_left_over",
    ]
    w.writerow(
        ["a", "b", "games", "wins_a", "wins_b", "draws", "win_rate_a", "ci_low", "ci_high"]
        + (match_cols if with_matches else [])
    )
    for m in summary["matches"]:
        row = [
            m["a"],
            m["b"],
            m["games"],
            m["wins_a"],
            m["wins_b"],
            m["draws"],
            f"{m['win_rate_a']:.6f}",
            f"{m['win_rate_a_ci'][0]:.6f}",
            f"{m['win_rate_a_ci'][1]:.6f}",
        ]
        if with_matches:
            row += [
                m["matches"],
                m["match_wins_a"],
                m["match_wins_b"],
                f"{m['match_win_rate_a']:.6f}",
                f"{m['match_win_rate_a_ci'][0]:.6f}",
                f"{m['match_win_rate_a_ci'][1]:.6f}",
                f"{m['mean_games_per_match']:.6f}",
                m["games_left_over"],
            ]
        w.writerow(row)
    return buf.getvalue()


def heatmap_png(summary: dict[str, Any], words: PairWords = PAIR_WORDS) -> bytes:
    """Win rate of the row agent against the column agent, titled by ``words``."""
    import numpy as np

    names = summary["settings"]["agents"]
    idx = {n: i for i, n in enumerate(names)}
    grid = np.full((len(names), len(names)), np.nan)
    for m in summary["matches"]:
        grid[idx[m["a"]], idx[m["b"]]] = m["win_rate_a"]
        grid[idx[m["b"]], idx[m["a"]]] = 1 - m["win_rate_a"]  # a draw is half to each side
    return plotting.heatmap_png(
        grid,
        names,
        names,
        title=titled(summary, words.title),
        size=(1.2 + 1.1 * len(names), 1 + 0.9 * len(names)),
        scale=plotting.Scale(0.3, 0.7, dark_beyond=0.12),  # most pairings land within 30-70%
        cell_text=lambda v: f"{100 * v:.1f}%",
        fontsize=9,
        x_rotation=30,
    )


def ratings_png(summary: dict[str, Any]) -> bytes:
    """Ratings with their bootstrap 95% intervals."""
    return plotting.interval_rows_png(
        # Reversed: the rows are drawn bottom up, and the best agent belongs at the top.
        [(a["name"], a["rating"], *a["rating_ci"]) for a in summary["agents"][::-1]],
        titled(summary, "Bradley–Terry rating (Elo scale), 95% bootstrap interval"),
    )


def write_outputs(
    out: Path,
    summary: dict[str, Any],
    replays: list[str] | None = None,
    extra: dict[str, bytes] | None = None,
    words: PairWords = PAIR_WORDS,
) -> list[Path]:
    """Write every output file of a tournament into ``out``; return their paths.

    ``extra`` adds files (name -> bytes) after the standard ones; ``words`` are the game's.
    """
    files = {
        "results.json": json.dumps(summary, indent=2).encode(),
        "results.csv": matches_csv(summary).encode(),
        "leaderboard.md": leaderboard(summary, words).encode(),
        "winrate_heatmap.png": heatmap_png(summary, words),
        "ratings.png": ratings_png(summary),
    }
    if replays:
        files["replays.jsonl"] = ("\n".join(replays) + "\n").encode()
    files.update(extra or {})
    # Together: a failure (a full disk) leaves the old set whole or none, never results
    # without their figures.
    return write_together({out / name: data for name, data in files.items()})
