"""speed_lab.paired_tables: two n-seat gauntlets on the same deals, compared deal by deal.

Its shares must be the tournament's own (results.json), its difference theirs, and folders that
did not play the same deals are refused by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speed_cli import main as cli
from speed_lab.paired_tables import TablesError, compare


def table(out: Path, agent: str, seed: int = 3, games: int = 12) -> Path:
    """A finished 4-seat gauntlet of ``agent`` against three ``greedy`` (``games / 4`` deals)."""
    argv = ["tournament", "--players", "4", "--rules", "us", "--agents", f"{agent},greedy"]
    argv += ["--gauntlet", agent, "--games", str(games), "--seed", str(seed), "--out", str(out)]
    assert cli(argv) == 0
    return out


def share(folder: Path, agent: str) -> float:
    """The tournament's own win share of ``agent``, in percent, from its results.json."""
    results = json.loads((folder / "results.json").read_text())
    rows = [r for r in results["agents"] if r["name"] == agent]
    return 100 * rows[0]["win_share"]


def test_shares_and_difference_are_the_tournaments_own(tmp_path: Path) -> None:
    chain = table(tmp_path / "chain", "chain")
    rand = table(tmp_path / "random", "random")
    line = compare(chain, rand)
    a, b = share(chain, "chain"), share(rand, "random")
    assert line.startswith(f"chain {a:.1f}% minus random {b:.1f}%: {a - b:+.1f} points [")
    assert line.endswith("(95%, 3 deals)")


def test_folders_that_did_not_play_the_same_deals_are_refused(tmp_path: Path) -> None:
    chain = table(tmp_path / "chain", "chain")
    other = table(tmp_path / "other", "random", seed=4)
    with pytest.raises(TablesError, match="differ in --seed"):
        compare(chain, other)
    with pytest.raises(TablesError, match="not a tournament's chunk log"):
        compare(chain, tmp_path / "nowhere")


def test_a_tampered_chunk_line_is_refused_naming_the_file(tmp_path: Path) -> None:
    chain = table(tmp_path / "chain", "chain")
    rand = table(tmp_path / "random", "random")
    log = rand / "chunks.jsonl"
    lines = log.read_text().splitlines()
    chunk = json.loads(lines[1])
    chunk["winner"] = chunk["winner"][:-1]  # one game's winner missing
    log.write_text("\n".join([lines[0], json.dumps(chunk), *lines[2:]]) + "\n")
    with pytest.raises(TablesError, match=f"{log}: a chunk line is not a tournament's"):
        compare(chain, rand)


def test_one_deal_gives_no_interval_and_says_why(tmp_path: Path) -> None:
    line = compare(
        table(tmp_path / "a", "chain", games=4), table(tmp_path / "b", "random", games=4)
    )
    assert line.endswith("(one deal: no interval; give --games of at least twice the seats)")
    assert "nan" not in line


def test_a_chunk_log_that_is_a_pipe_is_refused_unread(tmp_path: Path) -> None:
    """Reading a named pipe would wait for a writer forever: refused by name instead."""
    import os

    chain = table(tmp_path / "chain", "chain")
    (tmp_path / "pipe").mkdir()
    os.mkfifo(tmp_path / "pipe" / "chunks.jsonl")
    with pytest.raises(TablesError, match="named pipe"):
        compare(chain, tmp_path / "pipe")
