"""A league's three files (train/league/files.py) land together or not at all: a full disk while
one of them is written leaves the round before whole, never a table of one round beside the figure
or the record of another.

The disk is simulated (:func:`tests.helpers_full_disk.fill_disk_at`): a real full disk needs root
to mount one.
"""

from __future__ import annotations

import errno
import json

import pytest

from tests.helpers_full_disk import fill_disk_at
from train.league import files

pytest.importorskip("matplotlib")


def league(rounds: int) -> dict:
    """A league of ``rounds`` rounds after round 0: one member added per round."""
    names = [f"m{k}" for k in range(rounds + 1)]
    return {
        "settings": {"method": "nash", "rules": "us"},
        "members": [{"name": n} for n in names],
        "rounds": [
            {
                "round": k,
                "new_member": None if k == 0 else names[k],
                "gain": None if k == 0 else 0.1 * k,
                "meta": {"value": 0.0, "weights": [1 / (k + 1)] * (k + 1)},
            }
            for k in range(rounds + 1)
        ],
    }


def contents(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_three_files_are_written_and_read_back(tmp_path):
    written = files.write_all(tmp_path, league(1))
    assert [p.name for p in written] == [files.CSV_FILE, files.PNG_FILE, "league.json"]
    assert json.loads((tmp_path / "league.json").read_text()) == league(1)
    assert (tmp_path / files.CSV_FILE).read_text() == files.league_csv(league(1))
    assert (tmp_path / files.PNG_FILE).read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("full_at", [files.PNG_FILE, "league.json"])
def test_a_full_disk_at_any_file_leaves_the_round_before_whole(full_at, tmp_path, monkeypatch):
    files.write_all(tmp_path, league(1))
    before = contents(tmp_path)
    fill_disk_at(monkeypatch, full_at)
    with pytest.raises(OSError) as failed:
        files.write_all(tmp_path, league(2))
    assert failed.value.errno == errno.ENOSPC and full_at in str(failed.value)
    # Not one of the three replaced (the CSV comes first: it was the one left new before),
    # and no temporary left behind.
    assert contents(tmp_path) == before
