"""A Ctrl-C that lands while the training env's kernel is called is raised after the call.

Numba unboxes the ``np.random.Generator`` that the skip loop's kernel takes (``chain``'s
tie-break generator) by running Python code, and a ``KeyboardInterrupt`` raised there killed
the process with a segmentation fault: ``speed train`` died so after a Ctrl-C, with nothing
printed, in 4 of about 60 tries of ``tests/train/test_training_runs.py``'s Ctrl-C test
(faulthandler: inside ``skip_loop.tick_forced``'s call of ``play_forced``), and a loop calling
a compiled function that takes a generator crashed in 5 of 5 ten-second runs of a SIGINT
every 0.3 ms. The call now runs with the signal deferred to its end
(``agents.runtime.interrupts.sigint_deferred``). The tests stand a Python function in for the
kernel that takes the signal where the unboxing would.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")

from agents.runtime.interrupts import sigint_deferred
from train.vec_env import skip_loop
from train.vec_env.env import SpeedVecEnv


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """Python's own SIGINT handler (a test runner's worker may have set another)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _python_call() -> None:
    """A Python frame: where a pending signal's handler runs (and raises)."""


def test_a_ctrl_c_while_the_kernel_is_called_is_raised_once_it_returns(default_sigint, monkeypatch):
    kernel = skip_loop.play_forced
    returned: list[bool] = []

    def interrupted(*args):  # SIGINT arrives, then Python code runs, as in numba's unboxing
        os.kill(os.getpid(), signal.SIGINT)
        _python_call()
        out = kernel(*args)
        returned.append(True)
        return out

    env = SpeedVecEnv(8, "us", opponent="chain", seed=0)
    env.reset()
    monkeypatch.setattr(skip_loop, "play_forced", interrupted)
    with pytest.raises(KeyboardInterrupt):
        for _ in range(100):
            env.step(np.zeros(8, np.int64))
    assert returned == [True]  # the kernel ran to its end; the interrupt came after it


def test_a_handler_the_program_set_itself_is_left_alone(default_sigint):
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    with sigint_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        _python_call()
        assert caught == [signal.SIGINT]  # handled at once, by the program's handler


def test_no_interrupt_means_no_raise(default_sigint):
    with sigint_deferred():
        _python_call()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
