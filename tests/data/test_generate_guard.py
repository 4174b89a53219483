"""``speed data generate`` calls both agents through the agent guard, as a tournament does: a
bot that raises, exits or answers floats or bools is one line naming its spec, the call and the
game, and nothing of its games is recorded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import speed_cli

HOSTILE = """
import os
import numpy as np

class Raising:
    def act(self, obs, mask):
        raise RuntimeError("boom")

class Exiting:
    def act(self, obs, mask):
        os._exit(7)

class Floats:
    def act(self, obs, mask):
        return np.zeros(len(obs), np.float64)

class Bools:
    def act(self, obs, mask):
        return np.zeros(len(obs), bool)
"""

SAYS = {
    "Raising": "RuntimeError: boom",
    "Exiting": "called os._exit(7)",
    "Floats": "act returned dtype float64 (of ndarray): actions are integers",
    "Bools": "act returned dtype bool (of ndarray): actions are integers",
}


def _argv(bot: str, seat: int, out: Path) -> list[str]:
    pair = [f"py:{out.parent}/bots.py:{bot}", "greedy"]
    agents = ",".join(pair if seat == 0 else pair[::-1])
    return ["data", "generate", "--agents", agents, "--games", "2", "--out", str(out)]


def _expected(bot: str, seat: int, out: Path) -> str:
    spec = f"py:{out.parent}/bots.py:{bot}"
    pair = f"{spec} vs greedy" if seat == 0 else f"greedy vs {spec}"
    return (
        f"speed data: error: agent {spec} failed in act ({pair}, seat {seat}, game 0, seed 0): "
        f"{SAYS[bot]}"
    )


@pytest.fixture
def out(tmp_path: Path) -> Path:
    (tmp_path / "bots.py").write_text(HOSTILE, encoding="utf-8")
    return tmp_path / "records"


@pytest.mark.parametrize("seat", [0, 1], ids=["recorded", "opponent"])
@pytest.mark.parametrize("bot", ["Raising", "Floats", "Bools"])
def test_a_failing_bot_is_one_line_naming_it_and_nothing_is_recorded(bot, seat, out, capsys):
    assert speed_cli.main(_argv(bot, seat, out)) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("speed")]
    assert lines == [_expected(bot, seat, out)], err
    assert "Traceback" not in err and "_Watched" not in err
    assert not out.exists() or not list(out.glob("*.speedrec.json"))  # no record written


@pytest.mark.parametrize("seat", [0, 1], ids=["recorded", "opponent"])
def test_a_bot_calling_os_exit_is_named_not_a_silent_exit(seat, out):
    # In a child process: on a kit without the guard, os._exit ends whatever process calls it.
    run = subprocess.run(
        [sys.executable, "-m", "speed_cli", *_argv("Exiting", seat, out)],
        capture_output=True,
        text=True,
        env={**os.environ, "TQDM_DISABLE": "1"},
        timeout=300,
    )
    assert run.returncode == 1, (run.returncode, run.stderr)
    assert run.stderr.strip().splitlines()[-1] == _expected("Exiting", seat, out)
    assert "Traceback" not in run.stderr
    assert not out.exists() or not list(out.glob("*.speedrec.json"))  # no record written
