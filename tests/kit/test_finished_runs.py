"""A finished result is never replaced: every command that writes a run folder, walked as a user.

For each: a finished run survives a second run into its folder with other settings (refused in
one line, every file unchanged), the same settings say so and touch nothing, and
``--overwrite`` moves the old run aside whole, to the place it prints. ``speed data generate``
also holds its folder's lock and never writes a game twice.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import speed_cli

COMMANDS = {
    "tournament": ("tournament --agents greedy,chain --games 2", "--games 4"),
    "vintage tournament": ("tournament --game vintage --players 2 --games 2", "--seed 1"),
    "evaluate": ("evaluate greedy --protocol 1 --games 2 --workers 1", "--seed 1"),
    "experiment reaction": (
        "experiment reaction --agent greedy --latencies 150,250 --games 2 --bootstrap 0 "
        "--workers 1",
        "--games 4",
    ),
    "experiment think": (
        "experiment think --worlds 1 --network none --games 2 --bootstrap 0 --workers 1",
        "--games 4",
    ),
    "data generate": ("data generate --games 2", "--games 3"),
    "train bc": ("train bc --seat bot --epochs 1", "--epochs 2"),
}
"""Per command: a quick run's arguments, and a change of setting that makes it another run."""


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its bytes (as text of their hash) and its mtime."""
    import hashlib

    return {
        str(p.relative_to(folder)): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def bot_records(tmp_path_factory) -> Path:
    """Four recorded bot games, the data ``speed train bc`` clones."""
    folder = tmp_path_factory.mktemp("records")
    assert speed_cli.main(["data", "generate", "--games", "4", "--out", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_finished_run_is_never_replaced(command, tmp_path, capsys, request):
    argv, other = (text.split() for text in COMMANDS[command])
    if command == "train bc":
        if importlib.util.find_spec("sb3_contrib") is None:
            pytest.skip("the [train] extra is not installed")
        argv = [*argv, "--data", str(request.getfixturevalue("bot_records"))]
    out = tmp_path / "out"
    assert speed_cli.main([*argv, "--out", str(out)]) == 0
    before, folder_mtime = snapshot(out), out.stat().st_mtime_ns
    capsys.readouterr()

    # Other settings: refused in one line naming what is there and how to go on.
    assert speed_cli.main([*argv, *other, "--out", str(out)]) == 2
    refusal = capsys.readouterr().err.strip().splitlines()[-1]
    assert "of other settings" in refusal and "(finished " in refusal
    assert f"{other[0]} (" in refusal  # the setting that differs, with both values
    assert "choose another --out" in refusal and "--overwrite" in refusal
    assert snapshot(out) == before

    # The same settings: said, exit 0, nothing touched (not the folder itself either).
    assert speed_cli.main([*argv, "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert f"{out} already holds this speed " in said.out and "nothing to do" in said.out
    assert snapshot(out) == before and out.stat().st_mtime_ns == folder_mtime

    # --overwrite: the old run moved aside whole, to the place printed; the new one in --out.
    assert speed_cli.main([*argv, *other, "--out", str(out), "--overwrite"]) == 0
    moved = re.search(r"^--overwrite: moved .* to (\S+)$", capsys.readouterr().err, re.M)
    assert moved is not None
    assert snapshot(Path(moved[1])) == before
    identity = json.loads((out / "run.json").read_text())
    assert identity["finished"] is not None and identity["settings"][other[0]] == int(other[1])


def records(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.speedrec.json"))]


def test_data_generate_twice_into_one_folder_writes_each_game_once(tmp_path, capsys):
    out = tmp_path / "games"
    argv = ["data", "generate", "--games", "3", "--out", str(out)]
    assert speed_cli.main(argv) == 0
    assert speed_cli.main(argv) == 0
    assert "already holds this speed data generate run" in capsys.readouterr().out
    assert sorted(r["seed"] for r in records(out)) == [0, 1, 2]


def test_data_generate_at_once_into_one_folder_refuses_the_second(tmp_path, capsys):
    """Two runs at the same time: the second is refused by the folder's lock, naming the
    first, and the folder holds exactly the first run's games."""
    out, games = tmp_path / "games", 150
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    first = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", "data", "generate", "--games", str(games),
         "--out", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("*.speedrec.json")) and time.monotonic() < deadline:
            time.sleep(0.05)  # the first run is writing its games
        code = speed_cli.main(["data", "generate", "--games", str(games), "--out", str(out)])
        stdout, stderr = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, stderr
    assert code == 2
    assert f"{out} is in use by pid {first.pid}" in capsys.readouterr().err
    assert sorted(r["seed"] for r in records(out)) == list(range(games))
