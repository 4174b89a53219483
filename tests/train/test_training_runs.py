"""Training never loses the model, and a run folder has one writer: the default path of
``speed train`` (progress bar on, a budget that is not a whole number of rollouts), the numbers
used said and recorded, a run that fails or is interrupted (a real SIGINT) still leaving a model
that loads and a run that resumes to its own budget, a second writer refused, and the logs kept
across a resume."""

from __future__ import annotations

import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from helpers_run import ROOT

import agents
from speed_cli import main as cli
from train.common.budget import describe, plan
from train.common.progress import Progress
from train.common.run_folder import RunFolder
from train.common.run_logs import STEP_COLUMN, logger

# Small runs: rollouts of 16 x 32 = 512 decisions, evaluations of 2 games against greedy.
SMALL = ["--n-envs", "16", "--n-steps", "32", "--batch-size", "256", "--n-epochs", "1"]
SMALL += ["--net-arch", "32", "--eval-games", "2", "--eval-opponents", "greedy"]
SMALL += ["--options", "max_game_ms=30000"]
VINTAGE = ["--players", "3", "--n-envs", "4", "--n-steps", "64", "--batch-size", "128"]
VINTAGE += ["--net-arch", "32", "--eval-games", "3", "--eval-opponents", "vintage-greedy"]


def speed() -> list[str]:
    """The ``speed`` command as a user runs it (the installed script where there is one)."""
    script = Path(sys.executable).parent / "speed"
    return [str(script)] if script.exists() else [sys.executable, "-m", "speed_cli"]


def run_speed(*argv: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*speed(), *argv], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout
    )


# PYTHONFAULTHANDLER: a run that dies of a signal (a crash in native code) prints where, in
# Python, each of its threads was.
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    "PYTHONFAULTHANDLER": "1",
}


def progress_steps(path: Path) -> list[int]:
    with path.open(newline="") as f:
        return [int(float(r[STEP_COLUMN])) for r in csv.DictReader(f)]


# ---------------------------------------------------------------------- pure parts
def test_the_progress_bar_survives_a_count_past_its_total(capsys):
    """tqdm gives the bar's format total=None once the count passes it: ``{total:,}`` raised
    a TypeError at the very end of every run whose budget was not whole rollouts."""
    bar = Progress(1000, enabled=True)
    bar.update(1024)
    bar.close(1024)
    assert "] 1,024/1,000 " in capsys.readouterr().err  # drawn, not raised


def test_a_minutes_budget_bar_counts_steps_against_the_minutes_not_a_total(capsys):
    """``--minutes 0.2``: the timesteps are only the cap, so the bar has no total (no share of
    2,015,232 it will not reach, no time left of it) and shows the time spent of the 12 s."""
    bar = Progress(2_015_232, enabled=True, minutes=0.2)
    assert bar.bar.total is None
    bar.update(32_768)
    bar.close(32_768)
    err = capsys.readouterr().err
    assert "train 32,768 steps " in err and " of 00:12" in err
    assert "2,015,232" not in err and "eta" not in err


def test_the_budget_is_whole_rollouts_said_in_one_line():
    """The issue's numbers: 200,000 trains 212,992 and 100,000 evaluates every 114,688."""
    budget = plan(200_000, 100_000, n_steps=64, n_envs=256)
    assert (budget.timesteps_used, budget.eval_every_used) == (212_992, 114_688)
    line = describe(budget)
    assert line is not None and "\n" not in line
    assert "16,384" in line and "--timesteps 200,000 -> 212,992" in line
    assert "--eval-every 100,000 -> 114,688" in line
    assert budget.record()["timesteps"] == {"requested": 200_000, "used": 212_992}
    assert describe(plan(1024, 512, n_steps=32, n_envs=16)) is None  # as asked: nothing said
    # a resumed run goes on from its checkpoint in whole rollouts; one past its budget stops
    assert plan(2048, 512, 32, 16, start=700).timesteps_used == 700 + 1536
    assert plan(1000, 512, 32, 16, start=2048).timesteps_used == 2048
    assert describe(plan(1000, 512, 32, 16, start=2048)) is None


def test_resume_takes_the_runs_own_budget_unless_timesteps_is_given(tmp_path):
    """``--resume`` without ``--timesteps`` once took the parser's 2,000,000."""
    from train.ppo import Config
    from train.vintage_ppo import VintageConfig

    out = tmp_path / "run"
    out.mkdir()
    saved = {"rules": "japanese", "timesteps": 40_000, "n_envs": 16}
    state = {"recipe": "train.ppo", "checkpoint": "c.json", "timesteps": 8192, "config": saved}
    (out / "state.json").write_text(json.dumps(state))
    folder = RunFolder(out)
    cfg = folder.settings(Config(out=str(out), resume=True), resume=True)
    assert cfg.timesteps == 40_000 and cfg.rules == "japanese" and cfg.n_envs == 16
    assert folder.budget_source == "the run's own budget (give --timesteps to change it)"
    cfg = folder.settings(Config(out=str(out), resume=True, timesteps=80_000), resume=True)
    assert cfg.timesteps == 80_000
    assert folder.budget_source == "--timesteps as given (the run's own budget was 40,000)"
    # the budget it trained to is the one it used: its request in whole rollouts (once named
    # the request, 1,000, for a run that had trained to 4,096)
    state["budget"] = {"timesteps": {"requested": 1_000, "used": 4_096}}
    (out / "state.json").write_text(json.dumps(state))
    folder.settings(Config(out=str(out), resume=True, timesteps=9_000), resume=True)
    assert folder.budget_source == "--timesteps as given (the run's own budget was 4,096)"
    # a new run without --timesteps takes its recipe's default
    new = RunFolder(tmp_path / "new")
    assert new.settings(Config(), resume=False).timesteps == 2_000_000
    assert new.default_budget and new.budget_source == "the default budget (2,000,000)"
    assert not folder.default_budget  # a resumed run is never given the recipe's default
    assert RunFolder(tmp_path / "v").settings(VintageConfig(), resume=False).timesteps == 300_000


def test_progress_csv_is_continued_on_resume_without_repeating_rows(tmp_path):
    """SB3 opens progress.csv with ``w+``: a resume lost every earlier row. Rows logged after
    the checkpoint resumed from are trained again, so they are dropped, not repeated."""
    logs = tmp_path / "logs"
    first = logger(logs, ["csv"], resumed_at=None)
    for steps in (512, 1024, 1536):  # the run was interrupted after 1,536, checkpoint at 1,024
        first.record(STEP_COLUMN, steps)
        first.record("train/loss", steps / 1000)
        first.dump(steps)
    first.close()
    again = logger(logs, ["csv"], resumed_at=1024)
    for steps in (1536, 2048):
        again.record(STEP_COLUMN, steps)
        again.record("train/loss", -steps / 1000)
        again.record("train/new_column", 1)  # a column the first run never logged
        again.dump(steps)
    again.close()
    with (logs / "progress.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r[STEP_COLUMN]) for r in rows] == [512, 1024, 1536, 2048]
    assert [float(r["train/loss"]) for r in rows] == [0.512, 1.024, -1.536, -2.048]
    assert [r["train/new_column"] for r in rows] == ["", "", "1", "1"]


# ---------------------------------------------------------------------- whole runs
@pytest.mark.slow
def test_speed_train_vintage_ctrl_c_then_resume_to_its_own_budget(tmp_path):
    """Vintage, as a user runs it (the bar on, a budget that is not whole rollouts): a real
    Ctrl-C midway keeps a model that loads; ``--resume`` alone goes on to the run's own budget
    in whole rollouts, says so, and ends with the next command, which runs."""
    out = tmp_path / "run"
    first = start_speed("train", "vintage", "--timesteps", "3000", *VINTAGE, "--out", str(out))
    wait_for_a_rollout(first, out)
    stdout, stderr = interrupt(first)
    assert first.returncode == 130, (stdout[-2000:], stderr)
    summary = json.loads((out / "summary.json").read_text())
    assert not summary["complete"] and summary["stopped"] == "interrupted (Ctrl-C)"
    stopped_at = summary["timesteps"]
    assert 256 <= stopped_at < 3000
    assert agents.make(f"vintage-ppo:{out / 'model.json'}") is not None

    done = run_speed("train", "vintage", "--resume", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "train [" in done.stderr  # the bar, to a budget in whole rollouts
    assert "training to 3,000: the run's own budget" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    end = summary["budget"]["timesteps"]["used"]
    assert summary["complete"] and summary["timesteps"] == end and 3000 <= end < 3256
    assert summary["budget"]["timesteps"]["requested"] == 3000
    assert f"--timesteps 3,000 -> {end:,}" in done.stdout
    argv = shlex.split(summary["next"])
    assert summary["next"] in done.stdout
    assert argv[:4] == ["speed", "tournament", "--game", "vintage"]
    argv[argv.index("--games") + 1] = "3"
    assert cli(argv[1:]) == 0


@pytest.mark.slow
def test_a_failure_after_an_update_still_saves_the_model(tmp_path, monkeypatch):
    """An exception in the loop: the latest model and a summary that says the run did not
    finish and why, then the exception itself (no final evaluation of a failed run)."""
    from train.common import run

    end = run.TrainCallback._on_rollout_end

    def fail_after_two(self):
        end(self)
        if self.num_timesteps >= 1024:
            raise RuntimeError("boom")

    monkeypatch.setattr(run.TrainCallback, "_on_rollout_end", fail_after_two)
    out = tmp_path / "run"
    argv = ["train", "realtime", "--timesteps", "4096", *SMALL, "--no-progress"]
    with pytest.raises(RuntimeError, match="boom"):
        cli([*argv, "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    assert not summary["complete"] and summary["stopped"] == "failed: RuntimeError: boom"
    assert summary["timesteps"] == 1024 and summary["final_evaluation"].startswith("skipped")
    assert agents.make(f"ppo:{summary['model']}", "us") is not None
    assert not (out / "run.lock").exists()


def start_speed(*argv: str, nohup: bool = False) -> subprocess.Popen[str]:
    """``speed`` started; with ``nohup``, with SIGINT ignored, as ``nohup speed ... &`` starts
    it (a shell without job control starts a background command so)."""
    return subprocess.Popen(
        [*speed(), *argv],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if nohup else None,
    )


def wait_for_a_rollout(proc: subprocess.Popen[str], out: Path) -> None:
    """Until the run in ``out`` has logged its first rollout (a row of progress.csv)."""
    log = out / "logs" / "progress.csv"
    deadline = time.monotonic() + 300
    while not (log.exists() and len(log.read_text().splitlines()) >= 2):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no rollout within 300 s"
        time.sleep(0.05)


def interrupt(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """A real Ctrl-C (SIGINT) to ``proc``; what it printed once it ended."""
    try:
        proc.send_signal(signal.SIGINT)
        return proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
def test_a_second_speed_train_on_the_same_out_is_refused_naming_the_first(tmp_path):
    """Two real ``speed train`` processes on one ``--out``: the second is refused at once with
    one line naming the first (pid, host, command) and changes nothing there; the first goes
    on, and after a real Ctrl-C leaves a model that loads and lets go of the folder."""
    out = tmp_path / "run"
    argv = ["train", "realtime", "--timesteps", "5000000", *SMALL, "--out", str(out)]
    first = start_speed(*argv, "--no-progress")
    try:
        wait_for_a_rollout(first, out)
        config = (out / "config.json").read_bytes()
        t0 = time.monotonic()
        second = run_speed(*argv, "--no-progress", timeout=120)
        assert second.returncode == 2 and time.monotonic() - t0 < 60
        err = second.stderr.strip()
        assert len(err.splitlines()) == 1 and f"in use by pid {first.pid} on " in err
        assert "--timesteps 5000000" in err and f"--out {out}" in err  # the first's command
        assert (out / "config.json").read_bytes() == config  # the folder is not mixed
        assert first.poll() is None  # the first goes on
    finally:
        stdout, stderr = interrupt(first)
    assert first.returncode == 130, (stdout[-2000:], stderr)
    summary = json.loads((out / "summary.json").read_text())
    assert not summary["complete"] and summary["stopped"] == "interrupted (Ctrl-C)"
    assert agents.make(f"ppo:{out / 'model.json'}", "us") is not None
    assert not (out / "run.lock").exists()


@pytest.mark.slow
def test_speed_train_realtime_ctrl_c_then_resume_to_its_own_budget(tmp_path):
    """As a user runs it (the bar on, a budget that is not whole rollouts and shorter than the
    first evaluation interval): a real Ctrl-C midway leaves a model that loads and a summary
    that says it did not finish; ``--resume`` alone goes on to the run's own budget in whole
    rollouts (saying both), keeps ``logs/progress.csv``'s rows (none twice), and ends with the
    next command, which runs."""
    out = tmp_path / "run"
    first = start_speed("train", "realtime", "--timesteps", "4000", *SMALL, "--out", str(out))
    wait_for_a_rollout(first, out)
    stdout, stderr = interrupt(first)
    assert first.returncode == 130, (stdout[-2000:], stderr)
    assert "interrupted: saving what was trained" in stdout
    assert "--timesteps 4,000 -> 4,096" in stdout  # rollouts of 512
    summary = json.loads((out / "summary.json").read_text())
    assert not summary["complete"] and summary["stopped"] == "interrupted (Ctrl-C)"
    stopped_at = summary["timesteps"]
    assert 512 <= stopped_at < 4000
    assert agents.make(f"ppo:{out / 'model.json'}", "us") is not None
    assert not (out / "run.lock").exists()
    before = progress_steps(out / "logs" / "progress.csv")

    done = run_speed("train", "realtime", "--resume", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "train [" in done.stderr  # the bar, to a budget in whole rollouts
    assert "training to 4,000: the run's own budget" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    end = summary["budget"]["timesteps"]["used"]  # whole rollouts on from where it stopped
    assert summary["complete"] and summary["timesteps"] == end and 4000 <= end < 4512
    assert summary["final_evaluation"] == "done"  # the only one: 4,000 < --eval-every
    assert json.loads((out / "config.json").read_text())["timesteps"] == 4000
    steps = progress_steps(out / "logs" / "progress.csv")
    kept = [s for s in before if s <= stopped_at]
    assert kept and steps[: len(kept)] == kept  # the first run's rows are still there
    assert steps == sorted(set(steps)) and steps[-1] == end  # every row once, in order
    # The next command is printed and runs as printed (only its games made few).
    line = next(x for x in done.stdout.splitlines() if x.startswith("next, pit it against"))
    command = line.split(": ", 1)[1]
    assert command == summary["next"] and f"ppo:{out / 'model.json'},greedy" in command
    argv = shlex.split(command)
    argv[argv.index("--games") + 1] = "2"
    assert argv[0] == "speed" and cli(argv[1:]) == 0
    assert (out / "tournament" / "results.json").exists()


def ignores_sigint(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT (its ``SigIgn`` mask in /proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mask = int(next(x for x in status.splitlines() if x.startswith("SigIgn:")).split()[1], 16)
    return bool(mask >> (signal.SIGINT - 1) & 1)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_speed_train_realtime_started_with_nohup_stops_on_sigterm_then_resumes(tmp_path):
    """A run started as ``nohup speed train ... &`` starts it (SIGINT ignored, so Ctrl-C cannot
    reach it), stopped as a batch system or ``kill`` stops it (SIGTERM): it saves what was
    trained and says so as on Ctrl-C, with no traceback, exits 143, and ``--resume`` finishes
    it."""
    out = tmp_path / "run"
    argv = ["train", "realtime", "--timesteps", "2000", *SMALL, "--out", str(out)]
    first = start_speed(*argv, nohup=True)
    try:
        wait_for_a_rollout(first, out)
        assert ignores_sigint(first.pid)
        first.send_signal(signal.SIGTERM)
        stdout, stderr = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 143, (stdout[-2000:], stderr)
    assert "interrupted (SIGTERM): saving what was trained" in stdout
    assert "Traceback" not in stderr and "Traceback" not in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert not summary["complete"] and summary["stopped"] == "interrupted (SIGTERM)"
    assert 512 <= summary["timesteps"] < 2000
    assert agents.make(f"ppo:{out / 'model.json'}", "us") is not None
    assert not (out / "run.lock").exists()

    done = run_speed("train", "realtime", "--resume", "--out", str(out))
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["stopped"] is None and summary["timesteps"] >= 2000
