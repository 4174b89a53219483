"""``speed ... | head``: a reader of stdout that stops early ends the command quietly, with the
code a shell gives a program SIGPIPE ends (141), for every command (speed_cli.main's)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import speed_cli


def speed_into_a_closed_pipe(*argv: str) -> subprocess.CompletedProcess[str]:
    """``speed ARGV`` writing into a pipe whose reader is gone before its first line (as
    ``head`` is after the lines it wanted: no race with how much the pipe holds)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "speed_cli", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament")
    argv = ["tournament", "--agents", "random,greedy", "--games", "2", "--save-replays", "1"]
    assert speed_cli.main([*argv, "--out", str(out)]) == 0
    return str(out / "replays.jsonl")


@pytest.mark.slow  # a subprocess (the import of the kit) and a tournament to replay: ~10 s
def test_speed_replay_into_a_reader_gone_ends_quietly_with_141(replay_file):
    done = speed_into_a_closed_pipe("replay", replay_file, "--delay", "0")
    assert (done.returncode, done.stderr) == (141, "")  # no traceback, no error line


def test_a_broken_pipe_that_is_not_stdout_is_still_an_error(monkeypatch):
    """Only stdout's reader going away is quiet: another pipe's (a worker's) is raised."""

    def fails(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(speed_cli.agents, "run", fails)
    with pytest.raises(BrokenPipeError):
        speed_cli.main(["agents"])
