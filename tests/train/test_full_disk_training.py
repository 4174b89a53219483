"""``speed train realtime`` meeting a full disk at its checkpoint: one line, nothing claimed.

The disk is simulated (:func:`tests.helpers_full_disk.fill_disk_at`): a real full disk needs
root to mount one.
"""

from __future__ import annotations

import json

import pytest

from speed_cli import NO_SPACE, main
from tests.helpers_full_disk import fill_disk_at

pytest.importorskip("sb3_contrib", reason="speed train needs the [train] extra")

TRAIN = ["train", "realtime", "--timesteps", "2048", "--n-envs", "64", "--eval-games", "4"]


def test_a_full_disk_at_the_optimizer_leaves_no_half_checkpoint_and_no_done_run(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    fill_disk_at(monkeypatch, "step_000004096.optim.pt")
    assert main([*TRAIN, "--out", str(out)]) == NO_SPACE
    optim = out / "checkpoints" / "step_000004096.optim.pt"
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .startswith(f"speed train: error: No space left on device writing {optim}; ")
    )
    # The weights without their optimizer are no checkpoint: none is left to be taken for one.
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == []
    state = json.loads((out / "state.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    assert "checkpoint" not in state and state["done"] is False
    assert summary["complete"] is False and "saving the model failed" in summary["stopped"]
    # Nothing to resume, and the refusal says why rather than "stopped before its first".
    assert main([*TRAIN, "--resume", "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"speed train: error: --resume: {out} holds no checkpoint yet (saving the model failed: "
        f"could not write {optim}: No space left on device): nothing to resume; run it again "
        "without --resume to start afresh (its files are moved aside)"
    )
