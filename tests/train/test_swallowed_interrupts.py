"""A Ctrl-C that Python swallows in the middle of a training run still stops it.

Python cannot raise an interrupt that lands in a callback C code calls, such as the one numba's
compiler calls when it caches a kernel it compiles on first use (in a fresh tree, a kernel the
run first needs mid-way: an evaluation bot's, a rules preset's): it hands it to
``sys.unraisablehook`` and goes on, and numba may then fail with ``RuntimeError: no compiled
object yet``. ``speed``'s entry point (:func:`agents.runtime.entry.run_main`) notes such an
interrupt; the training loop now acts on it as on a Ctrl-C:

- with no error after it, the loop raises it at its next step (it went unheard: the run trained
  on to its end and exited 0);
- with numba's error after it, the run ends as interrupted, not failed (``summary.json`` said
  ``"failed: RuntimeError: no compiled object yet"`` and skipped the last evaluation, while the
  command said ``interrupted``).

The tests swallow a real ``KeyboardInterrupt`` the way numba's callback does: raised in a
``ctypes`` callback, which Python can only report as unraisable.
"""

from __future__ import annotations

import ctypes
import json

import pytest

pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")

from speed_cli import main as cli
from train.vec_env.env import SpeedVecEnv

TINY = [
    *("--timesteps", "1536", "--n-envs", "16", "--n-steps", "32", "--batch-size", "256"),
    *("--n-epochs", "1", "--net-arch", "16", "--eval-games", "2", "--eval-opponents", "greedy"),
    "--no-progress",
]
"""Three rollouts and one evaluation, at the end."""


def _ctrl_c() -> None:
    raise KeyboardInterrupt


def swallow_a_ctrl_c() -> None:
    """A Ctrl-C landing in a callback from C: Python reports it as unraisable and goes on."""
    ctypes.CFUNCTYPE(None)(_ctrl_c)()


@pytest.mark.slow
@pytest.mark.parametrize("then_numba_fails", [False, True], ids=["unheard", "numba-error-after"])
def test_a_ctrl_c_swallowed_mid_run_stops_it_as_interrupted(
    then_numba_fails, tmp_path, monkeypatch, capsys
):
    step_wait = SpeedVecEnv.step_wait
    calls: list[int] = []

    def swallowed_at_the_fifth_step(self):
        calls.append(1)
        if len(calls) == 5:  # in the first rollout
            swallow_a_ctrl_c()
            if then_numba_fails:
                raise RuntimeError("no compiled object yet")
        return step_wait(self)

    monkeypatch.setattr(SpeedVecEnv, "step_wait", swallowed_at_the_fifth_step)
    out = tmp_path / "run"
    assert cli(["train", "realtime", *TINY, "--out", str(out)]) == 130
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped"] == "interrupted (Ctrl-C)" and summary["complete"] is False
    assert summary["timesteps"] < 512  # stopped in its first rollout, not trained on
    assert summary["final_evaluation"] == "done"  # as after any Ctrl-C: the model evaluated
    printed = capsys.readouterr()
    assert "interrupted: saving what was trained" in printed.out
    assert "failed" not in printed.out + printed.err and "Traceback" not in printed.err
