"""A Ctrl-C while ``speed train realtime --init-bc`` clones its teacher ends as one during PPO:
exit 130, no traceback, a ``summary.json`` that says where it stopped and what exists (no model
while the clone is recorded or fitted; the clone once it is), and a ``--resume`` that refuses in
one line saying why, or trains on from the saved clone."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("sb3_contrib")

from helpers_run import ROOT

import agents
from speed_cli import main as cli
from train import bc
from train.common import run

TINY = [
    *("--timesteps", "512", "--n-envs", "16", "--n-steps", "32", "--batch-size", "256"),
    *("--n-epochs", "1", "--net-arch", "16", "--eval-games", "2", "--eval-opponents", "greedy"),
    *("--init-bc", "chain", "--bc-decisions", "512", "--bc-epochs", "1", "--no-progress"),
]
"""One rollout after cloning 512 of chain's decisions for one epoch."""


def summary(out) -> dict:
    return json.loads((out / "summary.json").read_text())


def interrupt_fitting(self_policy, *args, **kwargs):
    raise KeyboardInterrupt  # as Ctrl-C lands in the fit's first batch


@pytest.mark.parametrize("players", [2, 4])
def test_ctrl_c_while_fitting_the_clone_writes_a_summary_and_no_model(
    players, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(bc, "_fit", interrupt_fitting)
    out = tmp_path / "run"
    argv = ["train", "realtime", "--players", str(players), *TINY, "--out", str(out)]
    assert cli(argv) == 130  # as a Ctrl-C during PPO
    said = summary(out)
    assert said["stopped"] == "interrupted (Ctrl-C) while cloning chain: fitting (1 epochs)"
    assert said["complete"] is False and said["model"] is None and said["timesteps"] == 0
    assert not (out / "model.json").exists() and not (out / "run.lock").exists()
    assert "while cloning chain: fitting (1 epochs): no model" in capsys.readouterr().out
    # --resume: one line saying why there is nothing to go on from, and what to do.
    assert cli(["train", "realtime", "--resume", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"speed train: error: --resume: {out} holds no checkpoint yet (interrupted (Ctrl-C) "
        "while cloning chain: fitting (1 epochs)): nothing to resume; run it again without "
        "--resume to start afresh (its files are moved aside)"
    ]


def test_the_same_command_after_a_ctrl_c_while_cloning_starts_afresh(tmp_path, monkeypatch, capsys):
    """Nothing of the stopped run can be resumed: running the command again moves it aside
    whole (nothing deleted, the place said) and trains in the folder from the start."""
    monkeypatch.setattr(bc, "_fit", interrupt_fitting)
    out = tmp_path / "run"
    argv = ["train", "realtime", *TINY, "--out", str(out)]
    assert cli(argv) == 130
    stopped = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    monkeypatch.undo()
    capsys.readouterr()
    assert cli(argv) == 0
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("run.replaced-")]
    assert len(moved) == 1
    assert {p.name: p.read_bytes() for p in moved[0].iterdir() if p.is_file()} == stopped
    assert capsys.readouterr().err.startswith(
        f"{out}: moved a training run with no checkpoint (interrupted (Ctrl-C) while cloning "
        f"chain: fitting (1 epochs); nothing to resume) to {moved[0]}; starting afresh\n"
    )
    assert summary(out)["complete"] and (out / "model.json").exists()


def sigterm_while_fitting(self_policy, *args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)  # a real SIGTERM: speed's handler raises it here
    time.sleep(5)  # not reached: the handler raises before the sleep ends


def test_a_sigterm_while_fitting_the_clone_is_named_in_the_summary(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bc, "_fit", sigterm_while_fitting)
    out = tmp_path / "run"
    assert cli(["train", "realtime", *TINY, "--out", str(out)]) == 143  # as a SIGTERM during PPO
    said = summary(out)
    assert said["stopped"] == "interrupted (SIGTERM) while cloning chain: fitting (1 epochs)"
    assert said["model"] is None and not (out / "model.json").exists()
    assert "interrupted (SIGTERM) while cloning chain: fitting (1 epochs): no model" in (
        capsys.readouterr().out
    )


def test_ctrl_c_after_the_clone_is_fitted_saves_it_and_resume_trains_on(
    tmp_path, monkeypatch, capsys
):
    evaluate = run.Run.evaluate

    def interrupted_at_zero(self, steps, checkpoint=None):
        if steps == 0:  # the warm start's first evaluation
            raise KeyboardInterrupt
        return evaluate(self, steps, checkpoint)

    monkeypatch.setattr(run.Run, "evaluate", interrupted_at_zero)
    out = tmp_path / "run"
    assert cli(["train", "realtime", *TINY, "--out", str(out)]) == 130
    said = summary(out)
    assert said["stopped"] == "interrupted (Ctrl-C) after cloning chain, before training"
    assert said["model"] == str(out / "model.json") and said["bc"]["teacher"] == "chain"
    assert agents.make(f"ppo:{out / 'model.json'}", "us") is not None
    capsys.readouterr()
    assert cli(["train", "realtime", "--resume", "--out", str(out)]) == 0
    assert "resuming" in capsys.readouterr().out
    assert summary(out)["complete"] and summary(out)["timesteps"] == 512


@pytest.mark.slow
def test_a_real_ctrl_c_while_recording_the_clone_ends_without_a_traceback(tmp_path):
    """``speed train realtime --init-bc chain`` as a user runs it (the bars on), SIGINT once
    the recording's bar has counted decisions."""
    out = tmp_path / "run"
    argv = [*TINY[: TINY.index("--init-bc")], "--init-bc", "chain", "--bc-decisions", "2000000"]
    with subprocess.Popen(  # the context closes its pipes
        [sys.executable, "-m", "speed_cli", "train", "realtime", *argv, "--out", str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as in a terminal, even where this test runs in the background (SIGINT ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as proc:
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.extend(iter(lambda: proc.stderr.read(64), "")))
        reader.start()
        counted = re.compile(r"bc record \[[^\]]*\] [1-9]")
        deadline = time.monotonic() + 120
        try:
            while not counted.search("".join(err)):  # its kernels compiled, a step taken
                assert proc.poll() is None and time.monotonic() < deadline, "".join(err)[-2000:]
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            stdout = proc.stdout.read()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            reader.join()
    assert proc.returncode == 130, "".join(err)[-2000:]
    assert "Traceback" not in "".join(err)
    assert "interrupted while cloning chain: recording 2,000,000 decisions: no model" in stdout
    said = summary(out)
    assert (
        said["stopped"] == "interrupted (Ctrl-C) while cloning chain: recording 2,000,000 decisions"
    )
    assert said["model"] is None and not (out / "run.lock").exists()
