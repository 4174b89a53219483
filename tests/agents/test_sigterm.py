"""A SIGTERM stops a run as Ctrl-C does (``agents.runtime.interrupts.sigterm_stops``, which the
``speed`` command runs every command under): raised as ``Terminated``, a ``KeyboardInterrupt``,
held back where a Ctrl-C is (``sigint_deferred``), also when SIGINT is ignored (a run started
with ``nohup ... &``), left to the parent by pool workers, and ending ``speed`` with exit
status 143 after what Ctrl-C saves is saved."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator

import pytest

import speed_cli
from agents.runtime import interrupts
from agents.runtime.interrupts import Terminated, sigint_deferred, sigterm_stops
from agents.runtime.jobs import run_jobs
from agents.tournament import realtime

ARGV = ["tournament", "--agents", "random,greedy", "--games", "8", "--seed", "4"]


@pytest.fixture
def sigint_as(request) -> Iterator[None]:
    """SIGINT's handler for the test: Python's own, or ignored as under ``nohup ... &``."""
    previous = signal.signal(signal.SIGINT, request.param)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _python_call() -> None:
    """A Python frame: where a pending signal's handler runs (and raises)."""


def _term_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    _python_call()


BOTH = pytest.mark.parametrize(
    "sigint_as",
    [signal.default_int_handler, signal.SIG_IGN],
    indirect=True,
    ids=["ctrl-c", "nohup"],
)


@BOTH
def test_a_sigterm_is_raised_as_terminated_a_keyboard_interrupt(sigint_as):
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated) as raised, sigterm_stops() as term:
        _term_self()
    assert isinstance(raised.value, KeyboardInterrupt) and term.received == 1
    assert interrupts.interrupted_by(raised.value) == "SIGTERM"
    assert interrupts.said_interrupted(raised.value) == "interrupted (SIGTERM)"
    assert interrupts.said_interrupted(KeyboardInterrupt()) == "interrupted"  # Ctrl-C's words
    assert signal.getsignal(signal.SIGTERM) is before  # put back


@BOTH
def test_a_sigterm_in_a_deferred_block_is_raised_when_it_ends(sigint_as):
    ran_to_the_end: list[bool] = []
    with pytest.raises(Terminated), sigterm_stops() as term:
        with sigint_deferred():
            _term_self()
            ran_to_the_end.append(True)
        ran_to_the_end.append(False)  # never: raised as the block ends
    assert ran_to_the_end == [True] and term.received == 1


def test_a_sigterm_the_program_handles_itself_is_left_alone():
    caught: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: caught.append(signum))
    try:
        with sigint_deferred():
            _term_self()
            assert caught == [signal.SIGTERM]  # handled at once, by the program's handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_pool_worker_leaves_a_sigterm_to_the_parent():
    """A SIGTERM sent to every process of a run (``timeout``, SLURM, systemd) does not kill a
    worker mid-job, which would end the run as a crash; the parent stops them as on Ctrl-C."""
    results, complete = run_jobs(signal.raise_signal, [signal.SIGTERM] * 2, workers=2)
    assert results == [None, None] and complete


def _term_after(monkeypatch, k: int) -> None:
    """Send this process a SIGTERM once ``k`` chunks of the next tournament have finished."""
    from agents.runtime import progress

    @contextlib.contextmanager
    def chunk_progress(label):
        def update(done, total):
            if done == k:
                _term_self()

        yield update

    monkeypatch.setattr(progress, "chunk_progress", chunk_progress)


@BOTH
def test_speed_stopped_by_sigterm_keeps_what_ctrl_c_keeps_exits_143_and_resumes(
    sigint_as, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(realtime, "CHUNK_DEALS", 2)
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert speed_cli.main([*ARGV, "--out", str(whole)]) == 0
    before = signal.getsignal(signal.SIGTERM)
    with monkeypatch.context() as patched:
        _term_after(patched, 1)
        assert speed_cli.main([*ARGV, "--out", str(part)]) == 143
    assert signal.getsignal(signal.SIGTERM) is before  # the command's handler is put back
    assert "interrupted: results cover the chunks that finished" in capsys.readouterr().err
    status = json.loads((part / "results.json").read_text())["status"]
    assert status["complete"] is False
    assert speed_cli.main([*ARGV, "--out", str(part), "--resume"]) == 0

    def results(out):
        doc = json.loads((out / "results.json").read_text())
        doc["settings"].pop("wall_s")
        return doc

    assert results(part) == results(whole)  # as if never stopped


def test_python_m_train_recipe_stopped_by_sigterm_exits_143():
    """``python -m train.ppo`` (``recipe_main``) runs under ``sigterm_stops`` too."""
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    from train.common.settings import recipe_main
    from train.ppo import Config

    def train(cfg):  # stopped as a run is: it saves, and says it did not finish
        try:
            _term_self()
        except Terminated:
            return {"complete": False}
        return {"complete": True}

    assert recipe_main(Config, train, [], prog="python -m train.ppo", description="") == 143
