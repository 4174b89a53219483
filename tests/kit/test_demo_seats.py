"""``speed demo`` at every seat count: three or four bots at a Party Speed table, two as before."""

from __future__ import annotations

import hashlib

import pytest

from speed_cli import main

# sha256 of `speed demo --max-frames 3 --seed 4`'s output on a69512b (before the n-seat demo).
TWO_SEAT_OUTPUT = "ebdcbf5d86e6bcc89a99fd9dd592edf26494170f18ad3bde784426b680407ff5"


def test_the_two_seat_demo_prints_what_it_always_did(capsys):
    assert main(["demo", "--max-frames", "3", "--seed", "4"]) == 0
    assert hashlib.sha256(capsys.readouterr().out.encode()).hexdigest() == TWO_SEAT_OUTPUT


@pytest.mark.parametrize("players", [3, 4])
def test_a_demo_of_three_or_four_plays_to_the_end(capsys, players):
    assert main(["demo", "--option", f"players={players}", "--max-frames", "1"]) == 0
    blocks = capsys.readouterr().out.strip().split("\n\n")
    first, final, result = blocks  # one table (--max-frames 1), the final table, the result
    for table in (first, final):  # every seat drawn, one centre pile a seat ("k: TOP (size)")
        assert [f"player_{p}  hand" in table for p in range(players)] == [True] * players
        assert f"player_{players}" not in table
        assert table.splitlines()[1].count(" (") == players
    assert "phase over" in final and "phase play" in first
    assert result.startswith("result: player_")
    played = result.split("played ")[1].split(",")[0]
    assert len(played.split("-")) == players


def test_a_demo_needs_one_spec_a_seat(capsys):
    assert main(["demo", "--option", "players=3", "--agents", "greedy,random"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "speed demo: error: --agents takes 3 agent specs separated by commas (one a seat, "
        "players=3), got 'greedy,random'\n"
    )
