"""A Ctrl-C that lands while a training run evaluates a checkpoint stops the run, as one during
the rollouts does.

The evaluation is a tournament, whose harness stops at Ctrl-C and returns the games finished
with ``complete`` false. The recipes' scores once dropped that flag: the run went on to its end
as if nothing had happened (exit 0, ``"complete": true``) and ``eval.csv`` kept a row of the
games played before the Ctrl-C, often none. Seen with ``speed train realtime --eval-every 512
--eval-games 300`` and a SIGINT during its second evaluation: ``1024,us,greedy,0,...`` in
``eval.csv`` and the run trained on to 2,048 timesteps.

Here the Ctrl-C is raised in the evaluation's first game chunk after the first evaluation was
written, where the harness meets a real one.
"""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")

from agents.tournament import party, realtime, vintage
from speed_cli import main as cli

SMALL = [
    *("--timesteps", "1536", "--eval-every", "512", "--n-envs", "16", "--n-steps", "32"),
    *("--batch-size", "256", "--n-epochs", "1", "--net-arch", "16", "--eval-games", "4"),
    "--no-progress",
]
"""Three rollouts, an evaluation after each."""

RECIPES = {
    "realtime": (realtime, ["train", "realtime", "--eval-opponents", "greedy"]),
    "party": (party, ["train", "realtime", "--players", "3", "--eval-opponents", "greedy"]),
    "vintage": (vintage, ["train", "vintage", "--eval-opponents", "vintage-greedy"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("recipe", list(RECIPES))
def test_a_ctrl_c_during_an_evaluation_stops_the_run_and_keeps_no_partial_score(
    recipe, tmp_path, monkeypatch, capsys
):
    tournament, command = RECIPES[recipe]
    out = tmp_path / "run"
    play = tournament.run_chunk
    landed: list[bool] = []

    def ctrl_c_in_the_second_evaluation(*args, **kwargs):
        if (out / "eval.csv").exists() and not landed:  # the first evaluation is written
            landed.append(True)
            raise KeyboardInterrupt
        return play(*args, **kwargs)

    monkeypatch.setattr(tournament, "run_chunk", ctrl_c_in_the_second_evaluation)
    assert cli([*command, *SMALL, "--out", str(out)]) == 130
    assert landed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["stopped"] == "interrupted (Ctrl-C)"
    assert summary["timesteps"] == 1024  # stopped where it was, not trained on to 1,536
    assert "interrupted: saving what was trained" in capsys.readouterr().out
    # Every row of eval.csv a whole evaluation: the one cut short is played again at the
    # finish (on the same deals), never kept as it stood.
    with (out / "eval.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [512, 1024]
    assert len({r["games"] for r in rows}) == 1 and int(rows[0]["games"]) > 0
