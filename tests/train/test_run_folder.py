"""A training run's folder (train/common/run_folder.py) as both recipes and ``speed exploit`` use
it: a folder whose run left nothing to resume is started afresh (the old run moved aside whole),
one holding a checkpoint or a finished run is refused saying what to do, a finished run resumed
with nothing more to train is left untouched, an edited ``config.json`` is refused by name on
``--resume``, and an agent that is code is never imported on the word of a record alone.

The folders are made by hand as a killed, interrupted or finished run leaves them, and the
recipe's own steps are a stand-in: what is checked is the folder's judgement, before any work.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import ClassVar

import pytest

pytest.importorskip("sb3_contrib")

from speed_cli import main as cli
from train.common.run import run_recipe
from train.common.run_folder import recipe_name
from train.common.settings import RunSettings
from train.exploit_settings import ExploitSettings
from train.ppo import Config


@dataclasses.dataclass
class Recipe(RunSettings):
    """A recipe's settings, as the run folder reads them."""

    DEFAULT_TIMESTEPS: ClassVar[int] = 512
    opponent: str = "greedy"


def holding(out: Path, *, config: dict | None = None, **state) -> Path:
    """``out`` as a run of :class:`Recipe` left it: config.json, state.json (``state``) and logs."""
    config = config if config is not None else dataclasses.asdict(Recipe(out=str(out)))
    out.mkdir()
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    whole = {"recipe": recipe_name(Recipe()), "config": config, "timesteps": 0, **state}
    (out / "state.json").write_text(json.dumps(whole, indent=2) + "\n")
    (out / "logs").mkdir()
    (out / "logs" / "progress.csv").write_text("time/total_timesteps\n")
    return out


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and its modification time."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class Body:
    """The recipe's own steps (3 to 6), counted: what ran, with which settings."""

    def __init__(self) -> None:
        self.calls: list[Recipe] = []

    def __call__(self, cfg, folder, seed):
        self.calls.append(cfg)
        return {"complete": True, "timesteps": cfg.timesteps}


def run(cfg: Recipe, body: Body) -> dict:
    return run_recipe(cfg, lambda c: None, body)


# ---------------------------------------------------------------------- a new run into the folder
@pytest.mark.parametrize(
    "left",
    [
        {},  # killed (SIGKILL, the machine lost) during its first rollout: no word of why
        {"stopped": "interrupted (Ctrl-C) while cloning chain: fitting (1 epochs)", "done": False},
        {"stopped": "saving the model failed: could not write x: No space left", "done": False},
    ],
    ids=["killed", "ctrl-c-while-cloning", "full-disk-at-its-first-checkpoint"],
)
def test_a_run_that_left_no_checkpoint_is_moved_aside_and_the_new_run_starts(
    left, tmp_path, capsys
):
    out = holding(tmp_path / "run", **left)
    before = snapshot(out)
    body = Body()
    assert run(Recipe(out=str(out), timesteps=512), body)["complete"]
    assert len(body.calls) == 1
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("run.replaced-")]
    assert len(moved) == 1 and snapshot(moved[0]) == before  # whole, nothing deleted
    why = left.get("stopped", "stopped before its first")
    assert capsys.readouterr().err.strip() == (
        f"{out}: moved a training run with no checkpoint ({why}; nothing to resume) to "
        f"{moved[0]}; starting afresh"
    )
    # The folder holds the new run's settings only.
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]
    assert json.loads((out / "config.json").read_text())["timesteps"] == 512


@pytest.mark.parametrize(
    ("state", "said"),
    [
        (
            {"checkpoint": "checkpoints/step_000000512.json", "timesteps": 512, "done": False},
            "already holds a training run; pass --resume to continue it or choose another --out",
        ),
        (
            {"checkpoint": "checkpoints/step_000000512.json", "timesteps": 512, "done": True},
            "already holds a training run; pass --resume --timesteps N (above 512, where it "
            "finished) to train it further, or choose another --out",
        ),
    ],
    ids=["unfinished", "finished"],
)
def test_a_run_with_a_checkpoint_is_refused_saying_what_to_do(state, said, tmp_path):
    out = holding(tmp_path / "run", **state)
    before = snapshot(out)
    body = Body()
    with pytest.raises(ValueError) as refused:
        run(Recipe(out=str(out), timesteps=1024), body)
    assert str(refused.value) == f"{out} {said}"
    assert body.calls == [] and snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # nothing moved aside


# ---------------------------------------------------------------------- --resume
def finished(tmp_path: Path) -> Path:
    """A run finished at 512 timesteps: its state done, its summary complete."""
    out = holding(tmp_path / "run", checkpoint="checkpoints/c.json", timesteps=512, done=True)
    summary = {"complete": True, "stopped": None, "timesteps": 512, "model": "model.json"}
    (out / "summary.json").write_text(json.dumps(summary) + "\n")
    return out


@pytest.mark.parametrize("timesteps", [None, 512, 256])
def test_resuming_a_finished_run_with_nothing_more_to_train_touches_nothing(
    timesteps, tmp_path, capsys
):
    out = finished(tmp_path)
    before = snapshot(out)
    body = Body()
    held = run(Recipe(out=str(out), timesteps=timesteps, resume=True), body)
    assert held == json.loads((out / "summary.json").read_text())
    assert body.calls == [] and snapshot(out) == before
    assert capsys.readouterr().out.strip() == (
        f"{out} holds a finished run (512 timesteps): nothing to resume, nothing written "
        "(--timesteps N above 512 trains it further)"
    )


def test_resuming_a_finished_run_with_more_timesteps_trains_on(tmp_path):
    out = finished(tmp_path)
    body = Body()
    run(Recipe(out=str(out), timesteps=1024, resume=True), body)
    assert [c.timesteps for c in body.calls] == [1024]


def test_resuming_a_run_its_minutes_ended_short_of_its_budget_trains_on(tmp_path):
    """``--minutes`` ended it at 512 of its 2,048: ``--resume`` gives the minutes afresh."""
    config = dataclasses.asdict(Recipe(out=str(tmp_path / "run"), timesteps=2048))
    budget = {"timesteps": {"requested": 2048, "used": 2048}}
    out = holding(
        tmp_path / "run",
        config=config,
        checkpoint="c.json",
        timesteps=512,
        done=True,
        budget=budget,
    )
    summary = {"complete": True, "ended_by": "minutes", "timesteps": 512, "model": "model.json"}
    (out / "summary.json").write_text(json.dumps(summary) + "\n")
    body = Body()
    run(Recipe(out=str(out), timesteps=None, resume=True), body)
    assert [c.timesteps for c in body.calls] == [2048]


def test_a_resume_refuses_a_config_json_edited_to_differ_from_the_record(tmp_path):
    out = holding(tmp_path / "run", checkpoint="checkpoints/c.json", timesteps=512)
    edited = {**json.loads((out / "config.json").read_text()), "opponent": "chain"}
    (out / "config.json").write_text(json.dumps(edited))
    before = snapshot(out)
    body = Body()
    with pytest.raises(ValueError) as refused:
        run(Recipe(out=str(out), resume=True), body)
    assert str(refused.value) == (
        f"--resume: {out / 'config.json'} says opponent is 'chain', but the run's record "
        f"{out / 'state.json'} says 'greedy', and --resume goes on with the record: put "
        "config.json back, or start a new run with the settings you want in another --out"
    )
    assert body.calls == [] and snapshot(out) == before
    # The settings a command line gives on --resume may differ: the last command's; so may a
    # field in one file only (a kit since added or dropped it).
    put_back = {**edited, "opponent": "greedy", "timesteps": 9, "added_since": 1}
    (out / "config.json").write_text(json.dumps(put_back))
    run(Recipe(out=str(out), resume=True), body)
    assert [c.opponent for c in body.calls] == ["greedy"]


# ---------------------------------------------------------------------- records are data
EVIL = """\
from pathlib import Path

Path(__file__).with_name("IMPORTED").write_text("the record's agent was imported")
"""


@pytest.mark.parametrize(
    ("command", "settings", "key"),
    [
        (["train", "realtime"], Config, "opponent"),
        (["train", "realtime"], Config, "eval_opponents"),
        (["exploit"], ExploitSettings, "target"),
    ],
)
def test_resume_never_imports_an_agent_only_the_record_names(
    command, settings, key, tmp_path, capsys
):
    """Both records tampered alike (so they agree) to name a ``py:`` agent: ``--resume`` refuses
    in one line naming the file, the setting and how to give it, and imports nothing."""
    (tmp_path / "evil.py").write_text(EVIL)
    spec = f"py:{tmp_path / 'evil.py'}:Bot"
    out = tmp_path / "run"
    config = {**dataclasses.asdict(settings(out=str(out))), key: spec}
    holding(out, config=config, checkpoint="checkpoints/c.json", timesteps=512)
    state = json.loads((out / "state.json").read_text())
    (out / "state.json").write_text(json.dumps({**state, "recipe": recipe_name(settings())}))
    before = snapshot(out)
    assert cli([*command, "--resume", "--out", str(out), "--no-progress"]) == 2
    flag = "--" + key.replace("_", "-")
    assert capsys.readouterr().err.strip().splitlines() == [
        f"speed {command[0]}: error: --resume: {out / 'state.json'} names {spec} ({key}), code "
        f"the run would import; a record is never run as code on its own word: to resume, give "
        f"{flag} {spec} on the command line"
    ]
    assert not (tmp_path / "IMPORTED").exists()
    assert snapshot(out) == before
