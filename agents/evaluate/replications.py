"""Cards of one agent among a leaderboard's: its replications, not different agents.

Two cards of one agent (the same spec and the same SHA-256 of every file it loads) that are not
the same card (another ``--seed``, other ``--games``, another kit) measure one agent twice.
:func:`mark_replications` marks their rows so a leaderboard does not rank them as two agents.
"""

from __future__ import annotations

import json
from typing import Any


def mark_replications(
    rows: list[dict[str, Any]], cards: list[tuple[str, dict[str, Any]]]
) -> list[str]:
    """Mark the rows that are cards of one agent (spec and files' SHA-256) as its replications:
    ``replication: [i, n]`` on each. The notes naming them, one per agent."""
    groups: dict[str, list[int]] = {}
    for i, (_, c) in enumerate(cards):
        m = c["manifest"]
        groups.setdefault(json.dumps([m["agent"], m["agent_files"]]), []).append(i)
    notes = []
    for members in groups.values():
        if len(members) < 2:
            continue
        for k, i in enumerate(members, 1):
            rows[i]["replication"] = [k, len(members)]
        runs = "; ".join(
            f"{cards[i][0]} (seed {cards[i][1]['manifest']['seeds']['deals']}, "
            f"{cards[i][1]['manifest']['games']} games)"
            for i in members
        )
        notes.append(
            f"{len(members)} cards of one agent, {rows[members[0]]['agent']} (same spec and "
            f"files), are replications of it, not different agents: {runs}"
        )
    return notes


def replication_label(row: dict[str, Any]) -> str:
    """`` (replication 1 of 2)`` for a row that is one of an agent's cards, else nothing."""
    rep = row.get("replication")
    return "" if rep is None else f" (replication {rep[0]} of {rep[1]})"
