"""A report card as files a person reads (``report.md``, ``report.png``), and the leaderboard.

Pure functions from the ``report.json`` document (:func:`agents.evaluate.make_card.card`)
to text and PNG bytes; :func:`write_card` computes every file first and then
writes each atomically, so an interrupted run leaves no half-written file.
:func:`leaderboard` merges cards of one protocol version into a ranked table.

The card's Markdown is a list of sections (:data:`REALTIME_SECTIONS`; each game's card,
:meth:`agents.evaluate.protocol.CardGame.sections`), each a function of the card: a new
measure (α-Rank, say) adds a section function there and its numbers under ``results``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.alpharank import unseparated_note
from agents.evaluate import exploiter

# CardError: cards that cannot be read, checked or merged (the message names the file).
from agents.evaluate.card_check import CardError
from agents.evaluate.protocol import card_game
from agents.evaluate.replications import mark_replications, replication_label
from agents.evaluate.report_text import (
    SKIP_REASON_CHARS,
    ci_text,
    duration_text,
    md_code,
    md_text,
    num_text,
    pct_text,
    plain_label,
)
from agents.evaluate.thinking import (
    break_even_text,
    calibration_file,
    repeat_text,
    thinking_section,
)
from agents.runtime.files import json_bytes, write_together
from agents.runtime.interrupts import sigint_deferred


# ------------------------------------------------------------------ report.md
def section(title: str, *lines: str) -> list[str]:
    return ["", f"## {title}", "", *lines]


def header_section(card: dict[str, Any]) -> list[str]:
    m = card["manifest"]
    game = card_game(card["game"])
    quick = "" if m["full_protocol"] else " (fewer than the protocol's: a quick card)"
    lines = [
        f"# Report card: {md_code(card['agent'])}",
        "",
        f"{game.title}, evaluation protocol "
        f"{card['protocol']}; {m['games']} games per {game.unit}{quick}; deals seeded "
        f"{m['seeds']['deals']}; kit {m['kit_version']}; manifest `{m['hash'][:16]}`.",
    ]
    if "results_hash" in card:
        lines += [
            "",
            f"Results hash `{card['results_hash']}`: the card less its timing; {repeat_text(card)}",
        ]
    if m["agent_files"]:
        lines += ["", "Files the agent loads:"]
        lines += [
            f"- {md_code(name)} sha256 `{digest[:16]}…`"
            for name, digest in m["agent_files"].items()
        ]
    return lines


def _ratings(card: dict[str, Any]) -> list[str]:
    lines = section("Anchored rating")
    lines += ["Elo scale, anchored on the reference pool's own results (docs/evaluate.md).", ""]
    if "thinking" in card["results"]:  # a protocol that charges thinking (without it: below)
        lines[-2] += " With every agent's thinking charged (without it: the next section)."
    lines += ["| rule set | rating | 95% interval | against |", "|---|---:|---|---|"]
    for rs, row in card["results"]["rule_sets"].items():
        if "skipped" in row:
            lines.append(f"| {rs} | – | skipped | {_skip(row['skipped'])} |")
        elif row.get("rating") is None:
            lines.append(f"| {rs} | – | | {md_text(row.get('note', ''))} |")
        else:
            lines.append(
                f"| {rs} | {row['rating']:.0f} | {ci_text(row['rating_ci'], False)} | "
                f"{', '.join(row['against'])} |"
            )
    return lines


def _realtime_table(card: dict[str, Any]) -> list[str]:
    lines = section("Results per rule set and opponent")
    lines += [
        "Win rate counts a draw as half; intervals are 95% (Wilson). Illegal: actions the agent "
        "chose that were not legal (played as a wait).",
        "",
        "| rule set | opponent | games | win rate | draws | truncated | match win rate | illegal |",
        "|---|---|---:|---|---:|---:|---|---:|",
    ]
    for rs, row in card["results"]["rule_sets"].items():
        if "skipped" in row:
            continue
        for opp, r in row["opponents"].items():
            if "skipped" in r:
                lines.append(f"| {rs} | {opp} | – | skipped: {_skip(r['skipped'])} | | | | |")
                continue
            match = r.get("match")
            mtext = (
                f"{pct_text(match['match_win_rate'])}{ci_text(match['match_win_rate_ci'])} "
                f"({match['matches']})"
                if match and match["matches"]
                else "–"
            )
            lines.append(
                f"| {rs} | {opp} | {r['games']} | "
                f"{pct_text(r['win_rate'])}{ci_text(r['win_rate_ci'])} | "
                f"{r['draws']} | {r['truncations']} | {mtext} | {r['illegal_actions']} |"
            )
    return lines


def _latency(card: dict[str, Any]) -> list[str]:
    lat = card["results"]["latency"]
    be, ci = num_text(lat.get("break_even_ms")), ci_text(lat.get("break_even_ci"), False)
    text = (
        f"Skipped: {md_text(lat['skipped'])}"
        if "skipped" in lat
        else f"**{be} ms**{ci}: {lat['meaning']} (`{lat['rule_set']}`, opponent "
        f"`{lat['opponent']}`; the agent's reaction swept).{break_even_text(card)}"
    )
    return section("Break-even latency against chain", text)


def _cost(card: dict[str, Any]) -> list[str]:
    cost = card["timing"].get("decision_cost") or {}
    cells = ", ".join(
        f"batch {k.split('_')[1]}: {duration_text(v)}"
        for k, v in cost.items()
        if k.startswith("batch_")
    )
    return section("Decision cost", f"CPU time per decision: {cells}.") if cost else []


def _skip(reason: str) -> str:
    """A skip reason in a table cell: escaped, cut at a word boundary."""
    return md_text(reason, SKIP_REASON_CHARS)


def alpharank_section(card: dict[str, Any]) -> list[str]:
    ranks = card["results"].get("alpharank")
    if not ranks:
        return []
    lines = section("α-Rank beside the rating")
    lines += [
        "OpenSpiel's α-Rank over the agent and the reference agents it played, from the same "
        "counts as the rating (the pool's own results and the agent's row): the agent's share "
        "of the stationary distribution, and the agent holding the most.",
        "",
        "| rule set | agent's mass | most mass | cycle the ratings hide |",
        "|---|---:|---|---|",
    ]
    notes = []
    for key, e in ranks.items():
        if not e.get("computed"):
            lines.append(f"| {key} | – | not shown: {_skip(e.get('reason', ''))} | |")
            continue
        mass = e["stationary"]
        top = max(mass, key=lambda a: mass[a])
        cycle = " > ".join(map(md_code, [*e["cycle"], e["cycle"][0]])) if e.get("cycle") else "none"
        lines.append(
            f"| {key} | {mass[e['agent']]:.3f} | {md_code(top)} ({mass[top]:.3f}) | {cycle} |"
        )
        note = unseparated_note(e.get("unseparated"))
        if note:  # it names agents: escaped as prose
            notes += ["", f"`{key}`: {md_text(note)}"]
    return lines + notes


def timing_section(card: dict[str, Any]) -> list[str]:
    wall = card["timing"].get("wall_s")
    return [] if wall is None else ["", f"Made in {wall:.0f} s (wall clock)."]


def _human(card: dict[str, Any]) -> list[str]:
    h = card.get("human_likeness")
    if h is None:
        return []
    r, na = h["reaction"], "—"
    pct = {
        k: na if h[k] is None else f"{100 * h[k]:.1f}%" for k in ("agreement", "chance_agreement")
    }
    ms = {k: na if r[k] is None else f"{r[k]:g} ms" for k in ("person_median_ms", "wasserstein_ms")}
    return [
        "", "## Human-likeness", "",
        f"Against {md_code(h['data'])} ({md_code(h['rules'])} rules).", "",
        "| measure | value |", "|---|---|",
        f"| agreement with the person's plays | {pct['agreement']} of {h['n_decisions']} "
        f"{h['decisions']} |",
        f"| chance agreement (a random legal play) | {pct['chance_agreement']} |",
        f"| reaction time, median: person / agent | {ms['person_median_ms']} ({r['n_person']} "
        f"plays) / {r['agent_median_ms']:g} ms ({md_code(r['agent_profile'])}) |",
        f"| reaction-time distance (Wasserstein-1) | {ms['wasserstein_ms']} |",
    ]  # fmt: skip


Section = Callable[[dict[str, Any]], list[str]]
REALTIME_SECTIONS: list[Section] = [
    header_section, _ratings, thinking_section, alpharank_section, _realtime_table, _latency,
    _cost, _human, exploiter.section, timing_section,
]  # fmt: skip
"""The real-time card's Markdown, section by section."""


def markdown(card: dict[str, Any]) -> str:
    """``report.md``: the card on one page."""
    sections = card_game(card["game"]).sections()
    return "\n".join(line for section in sections for line in section(card)) + "\n"


# ------------------------------------------------------------------ report.png
def figure_png(card: dict[str, Any]) -> bytes:
    """``report.png``: win rate with 95% intervals per opponent and rule set.
    The rows are the game's card's (:meth:`~agents.evaluate.protocol.CardGame.figure_rows`);
    a card with a latency sweep adds its win rate against chain by latency."""
    from agents.runtime import plotting

    game = card_game(card["game"])
    rows = game.figure_rows(card)
    lat = card["results"].get("latency", {})
    curve = bool(lat.get("points"))
    fig, axes = plotting.figure(
        11 if curve else 6.5, 0.8 + 0.32 * max(len(rows), 6), ncols=2 if curve else 1
    )
    ax = axes[0] if curve else axes
    y = list(range(len(rows)))[::-1]  # the first row at the top, as the table reads
    ax.errorbar(
        [r[1] for r in rows],
        y,
        xerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]],
        fmt="o",
        capsize=3,
    )
    ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [r[0] for r in rows], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(game.figure_label)
    ax.set_title(plain_label(f"{card['agent']} · protocol {card['protocol']}"), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    if curve:
        ax2 = axes[1]
        pts = lat["points"]
        x = [p["latency_ms"] for p in pts]
        wr = [p["win_rate"] for p in pts]
        ax2.errorbar(
            x,
            wr,
            yerr=[
                [w - p["ci_low"] for w, p in zip(wr, pts, strict=True)],
                [p["ci_high"] - w for w, p in zip(wr, pts, strict=True)],
            ],
            fmt="o-",
            capsize=3,
        )
        ax2.axhline(0.5, color="grey", lw=0.8, ls="--")
        opp_ms = pts[0]["opponent_latency_ms"]
        ax2.axvline(
            opp_ms, color="tab:red", lw=0.8, ls=":", label=f"chain's median {opp_ms:.0f} ms"
        )
        if lat.get("break_even_latency_ms") is not None:
            ax2.axvline(
                lat["break_even_latency_ms"],
                color="tab:green",
                lw=1,
                label=f"break-even {lat['break_even_ms']:+.0f} ms",
            )
        ax2.set_xlabel("agent's median reaction (ms)")
        ax2.set_ylabel(f"win rate against {lat['opponent']}")
        ax2.set_ylim(0, 1)
        ax2.legend(fontsize=8)
        ax2.grid(alpha=0.3)
    return plotting.png_bytes(fig)


def write_card(out: Path, card: dict[str, Any]) -> list[Path]:
    """``report.json``, ``report.md`` and ``report.png`` in ``out``, written together, with the
    calibration the card charged (``think.json``) where it charged one.
    Every file is made in memory first, then staged and renamed together by
    :func:`agents.runtime.files.write_together`, Ctrl-C held back until all are in place: a
    card's files never mix two runs; a failed write, say a full disk, keeps the old card whole."""
    files = {
        out / "report.json": json_bytes(card),
        out / "report.md": markdown(card).encode(),
        out / "report.png": figure_png(card),
    }
    made = calibration_file(card)  # the thinking cost it charged: --think-file repeats the card
    if made is not None:
        name, doc = made
        files[out / name] = json_bytes(doc)
    with sigint_deferred():
        return write_together(files)


# ------------------------------------------------------------------ leaderboard
def read_card(path: str | Path) -> dict[str, Any]:
    """A ``report.json``, or the folder holding one, checked through and through.
    :func:`agents.evaluate.card_check.check_card` checks its hashes, its protocol data, its counts,
    its ratings re-rated from them; errors name the file and the field."""
    from agents.evaluate.card_check import check_card, read_json

    p = Path(path)
    if p.is_dir():
        p = p / "report.json"
    return check_card(read_json(p), str(p))


def card_paths(paths: Sequence[str | Path]) -> list[Path]:
    """The cards that ``paths`` name: a ``report.json``, a card's folder, or a folder of them.
    In a folder of cards' folders, say ``agents/cards/realtime``: ``*/report.json`` by name."""
    out: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir() and not (given / "report.json").exists():
            found = sorted(given.glob("*/report.json"))
            if not found:
                raise CardError(f"no card in {given} (no report.json in it or its subfolders)")
            out += found
        else:
            out.append(given)
    return out


def leaderboard(paths: Sequence[str | Path]) -> dict[str, Any]:
    """Merge cards into ranked rows; refuse cards of different protocol versions or games.
    ``paths`` as :func:`card_paths` reads them; every card is checked and its ratings re-rated
    from its counts by :func:`read_card`. A refusal names the files. The same card given twice,
    the same manifest and results (one results hash), is listed once, with a note. Cards of one
    agent (its spec and the SHA-256 of its files) that differ (another seed, other games, another
    kit) are replications of it, not different agents: each such row carries
    ``replication: [i, n]`` and a note names them."""
    from agents.evaluate.protocol import results_hash

    if not paths:
        raise CardError("give at least one card (report.json)")
    cards: list[tuple[str, dict[str, Any]]] = []
    notes: list[str] = []
    seen: dict[str, str] = {}
    for p in map(str, card_paths(paths)):
        c = read_card(p)
        same = results_hash(c)  # computed: a card made before the field has none
        if same in seen:
            notes.append(
                f"{p} is the same card as {seen[same]} (same manifest and results): listed once"
            )
            continue
        seen[same] = p
        cards.append((p, c))
    for key in ("protocol", "game"):
        kinds: dict[Any, list[str]] = {}
        for p, c in cards:
            kinds.setdefault(c[key], []).append(p)
        if len(kinds) > 1:
            parts = "; ".join(f"{key} {k}: {', '.join(v)}" for k, v in kinds.items())
            raise CardError(
                f"cards of different {key}s cannot be ranked together ({parts}): "
                + _why_apart(key, cards)
            )
    game = cards[0][1]["game"]
    rows = []
    for p, c in cards:
        res = c["results"]
        row: dict[str, Any] = {
            "agent": c["agent"],
            "card": p,
            "games": c["manifest"]["games"],
            "manifest": c["manifest"]["hash"][:16],
        }
        row.update(card_game(game).board_row(res))
        rows.append(row)
    notes += mark_replications(rows, cards)
    notes += exploiter.board_entries(rows, cards)  # the column where a card carries the line
    first = next(iter(rows[0]["ratings"]))

    def rank_key(row: dict[str, Any]) -> float:
        r = row["ratings"].get(first, (None, None))[0]
        return -math.inf if r is None else float(r)  # an unrated card ranks last

    rows.sort(key=rank_key, reverse=True)  # stable: equal ratings keep the order given
    board = {"protocol": cards[0][1]["protocol"], "game": game, "rank_by": first, "rows": rows}
    if notes:
        board["notes"] = notes
    return board


def _why_apart(key: str, cards: list[tuple[str, dict[str, Any]]]) -> str:
    """Why cards of different protocol versions (or games) are not ranked together."""
    if key == "game":
        return "a rating is on its own game's scale"
    charge = sorted({c["protocol"] for _, c in cards if "think" in c["manifest"]["protocol_data"]})
    free = sorted({c["protocol"] for _, c in cards} - set(charge))
    why = "each protocol plays its own games and rates them against its own anchors"
    if charge and free:
        why += (
            f"; protocol {', '.join(map(str, charge))} charges every agent's thinking as "
            f"latency, protocol {', '.join(map(str, free))} does not"
        )
    return why


def leaderboard_md(board: dict[str, Any]) -> str:
    """The leaderboard as a Markdown table, ranked by the first rule set's rating."""
    rule_sets = list(board["rows"][0]["ratings"])
    game = card_game(board["game"])
    head = ["#", "agent", *[f"rating {rs}" for rs in rule_sets]]
    exploited = exploiter.on_board(board)
    head += [game.board_column, *([exploiter.KEY] if exploited else []), "games", "manifest"]
    lines = [
        f"# Leaderboard: {game.title[:1].lower()}{game.title[1:]}, protocol "
        f"{board['protocol']} (ranked by the {board['rank_by']} rating, 95% intervals)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" for _ in head) + "|",
    ]
    for i, row in enumerate(board["rows"], 1):
        cells = [str(i), md_code(row["agent"]) + replication_label(row)]
        for rs in rule_sets:
            r, ci = row["ratings"].get(rs, (None, None))
            cells.append("–" if r is None else f"{r:.0f}{ci_text(ci, False)}")
        cells.append(game.board_cell(row))
        if exploited:
            cells.append(exploiter.board_cell(row))
        cells += [str(row["games"]), f"`{row['manifest']}`"]
        lines.append("| " + " | ".join(cells) + " |")
    if board.get("notes"):
        lines += ["", *(f"Note: {md_code(note)}" for note in board["notes"])]
    return "\n".join(lines) + "\n"


def leaderboard_png(board: dict[str, Any]) -> bytes:
    """The ranking rule set's ratings with their intervals, best at the top."""
    from agents.runtime import plotting

    rs = board["rank_by"]
    rows = []
    for row in board["rows"][::-1]:  # interval_rows_png draws the first row at the bottom
        r, ci = row["ratings"].get(rs, (None, None))
        if r is not None:
            rows.append((plain_label(row["agent"] + replication_label(row)), r, *(ci or (r, r))))
    return plotting.interval_rows_png(
        rows, f"anchored rating on {rs} (Elo scale), protocol {board['protocol']}, 95% interval"
    )
