"""Two agents at the same n-seat table, deal by deal: the paired difference of their win shares.

Reads two finished ``speed tournament --players N --gauntlet X`` folders that played the same
deals (the same ``--seed``, ``--games``, ``--players``, rules and opponents; only the gauntlet
agent differs) and prints each gauntlet agent's win share and their difference with a 95%
interval, deals as the units: a deal is played once in every seat by each agent, so its
seats' games are one paired sample (docs/training.md, "Tables of three or four").

Run: python -m speed_lab.paired_tables runs/party4/tournament runs/party4/chain
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.stats import mean_interval
from speed_env import user_file

# Header settings that may differ between the two runs: the agents seated, nothing of the deals.
_AGENT_FLAGS = ("--agents", "--gauntlet")


class TablesError(ValueError):
    """A folder that is not a finished n-seat gauntlet, or two that did not play the same deals."""


def read_log(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The chunk log's header settings and its chunk lines (data only; nothing is imported)."""
    path = folder / "chunks.jsonl"
    # The kit's reader of others' files: a pipe or a device is refused, not read until it ends.
    try:
        lines = user_file.read_text(path, "file", TablesError).splitlines()
    except TablesError as exc:
        raise TablesError(f"{path}: not a tournament's chunk log ({exc})") from None
    try:
        header = json.loads(lines[0])
        chunks = [json.loads(line) for line in lines[1:] if line.strip()]
    except (OSError, IndexError, ValueError) as exc:
        raise TablesError(f"{path}: not a tournament's chunk log ({exc})") from None
    settings = header.get("settings") if isinstance(header, dict) else None
    if not isinstance(settings, dict) or not settings.get("--gauntlet"):
        raise TablesError(f"{path}: not a --gauntlet tournament (no gauntlet agent in its header)")
    if not isinstance(settings.get("--players", 2), int):
        raise TablesError(f"{path}: its header's --players is not a seat count")
    if settings.get("--players", 2) < 3:
        raise TablesError(f"{path}: a two-seat tournament; this compares tables of three or four")
    return settings, chunks


def deal_shares(settings: dict[str, Any], chunks: list[dict[str, Any]]) -> dict[int, float]:
    """Per deal, the gauntlet agent's share of the games it won."""
    me = list(settings["--agents"]).index(settings["--gauntlet"])  # its index in the seating
    won: dict[int, list[int]] = {}
    for chunk in chunks:
        for deal, seating, winner in zip(
            chunk["deal"], chunk["seating"], chunk["winner"], strict=True
        ):
            seat = list(seating).index(me)  # where the gauntlet agent sat in this game
            won.setdefault(int(deal), []).append(int(winner == seat))
    return {deal: float(np.mean(games)) for deal, games in won.items()}


def _shares(
    folder: Path, settings: dict[str, Any], chunks: list[dict[str, Any]]
) -> dict[int, float]:
    """:func:`deal_shares`, a malformed record refused naming its file."""
    try:
        return deal_shares(settings, chunks)
    except (KeyError, TypeError, ValueError) as exc:
        raise TablesError(
            f"{folder / 'chunks.jsonl'}: a chunk line is not a tournament's ({exc!r})"
        ) from None


def compare(first: Path, second: Path) -> str:
    """One line: both gauntlet agents' shares and the paired difference, first minus second."""
    (a_set, a_chunks), (b_set, b_chunks) = read_log(first), read_log(second)
    differ = sorted(
        k for k in set(a_set) | set(b_set) if k not in _AGENT_FLAGS and a_set.get(k) != b_set.get(k)
    )
    if differ:
        raise TablesError(
            f"{first} and {second} did not play the same deals: they differ in {', '.join(differ)}"
        )
    a, b = _shares(first, a_set, a_chunks), _shares(second, b_set, b_chunks)
    if sorted(a) != sorted(b):
        raise TablesError(f"{first} and {second} hold different deals (is one unfinished?)")
    deals = sorted(a)
    diff = np.array([a[d] - b[d] for d in deals])
    mean, low, high = mean_interval(diff)
    share_a, share_b = np.mean([a[d] for d in deals]), np.mean([b[d] for d in deals])
    interval = (
        f"[{100 * low:+.1f}, {100 * high:+.1f}] (95%, {len(deals):,} deals)"
        if len(deals) > 1
        else "(one deal: no interval; give --games of at least twice the seats)"
    )
    return (
        f"{a_set['--gauntlet']} {100 * share_a:.1f}% minus {b_set['--gauntlet']} "
        f"{100 * share_b:.1f}%: {100 * mean:+.1f} points {interval}"
    )


def main() -> None:
    """Print the comparison of the two folders given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="a finished n-seat gauntlet tournament folder")
    parser.add_argument("second", type=Path, help="another, on the same deals")
    args = parser.parse_args()
    try:
        print(compare(args.first, args.second))
    except TablesError as exc:
        parser.exit(2, f"paired_tables: error: {exc}\n")


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
