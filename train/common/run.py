"""The mechanics of a training run, the same for both recipes.

A recipe (``train/ppo.py``, ``train/vintage_ppo.py``) builds its env and its model and says
three things about its game: how a model is saved (``save``), how a saved model is scored
against the evaluation bots (``score``, rows of ``eval.csv``) and how those rows read
(``report``). :class:`Run` does the rest:

- the run folder (:class:`~train.common.run_folder.RunFolder`: settings, state, summary),
  SB3's logs, the progress bar (:mod:`train.common.progress`);
- every ``eval_every`` timesteps a checkpoint, whole or absent (the model in the kit's format
  plus the optimizer, :mod:`train.policy.checkpoint`), and an evaluation of it, appended to
  ``eval.csv`` and drawn in ``curves.png`` (:mod:`train.common.curves`);
- resuming a run from its last checkpoint (``--resume``, :meth:`Run.resume`);
- the budget in whole rollouts (:mod:`train.common.budget`: said when it is not the one asked,
  recorded as requested vs used), and the wall-clock one (``minutes``: no rollout starts past
  it, :class:`OutOfTime`);
- the loop (``model.learn`` with :class:`TrainCallback`; Ctrl-C, SIGTERM or an exception
  stops it and the run still finishes, and so does a Ctrl-C that Python swallowed in a
  callback from C, :mod:`agents.runtime.entry`) and the finish, the model first: a checkpoint and
  ``model.json``, ``summary.json``, and only then a last evaluation and the curves (so nothing
  that draws or reports can lose the model). ``summary.json`` says whether the run reached its
  budget and, when not, why (before the loop: :func:`~train.common.warm_start.stop_warm_start`).

:func:`run_recipe` is the frame around a recipe's own steps: its steps 1 and 2 (the settings
and the seeding), the same in both, and the folder's lock held until the run ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import torch
from stable_baselines3.common.callbacks import BaseCallback

from agents.runtime.entry import raise_swallowed, swallowed_interrupt
from agents.runtime.interrupts import interrupted_by, said_interrupted
from train.common import global_rng
from train.common.budget import Budget, budget_line, describe, plan
from train.common.curves import Panel, append_eval, last_rows, plot_curves
from train.common.progress import Progress
from train.common.run_folder import RunFolder
from train.common.settings import RunSettings

Rows = list[dict[str, Any]]
S = TypeVar("S", bound=RunSettings)


def run_recipe(
    cfg: S,
    check: Callable[[S], None],
    body: Callable[[S, RunFolder, int], dict[str, Any]],
    held: Callable[[RunFolder], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """A recipe's run: steps 1 and 2 here, the same in both recipes; its summary.

    1. Settings: ``cfg.out``'s lock is taken and held until the run ends; the settings the
       run uses, with ``--resume`` the saved ones (:meth:`RunFolder.settings`), are checked
       by ``check`` and written to the folder. A finished run resumed with no more timesteps
       (:attr:`RunFolder.finished`) is left untouched: ``held(folder)`` is returned, the
       recipe's record of it (by default :meth:`RunFolder.say_finished`), or where that gives
       None (the record was never written) the run is finished again.
    2. Seeding: torch is seeded with ``cfg.seed``, which fixes the network's first weights,
       and limited to ``torch_threads`` threads.

    Then ``body(cfg, folder, seed)``, the recipe's steps 3 to 6. ``seed`` seeds the deals;
    after a resume it is shifted so that the run plays fresh ones (:meth:`RunFolder.seed`).
    """
    with RunFolder(cfg.out) as folder:
        cfg = folder.settings(cfg, resume=cfg.resume)
        kept = (held or RunFolder.say_finished)(folder) if folder.finished else None
        if kept is not None:
            return kept
        # Checked after the saved settings are merged in, so a resumed run's are checked too.
        check(cfg)
        folder.start(cfg, resume=cfg.resume)
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        return body(cfg, folder, folder.seed(cfg.seed))


@dataclass
class Report:
    """How an evaluation reads: a printed line, the bar's note and the scalars logged."""

    line: str
    note: str
    scalars: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Curves:
    """What ``eval.csv`` holds and ``curves.png`` draws for a recipe."""

    fields: Sequence[str]
    panels: Sequence[Panel]
    title: str
    split: str | None = None


class OutOfTime(Exception):
    """Raised at the start of a rollout once the run's ``minutes`` are spent (ends the loop)."""


class Run:
    """One training run: its folder, model, bar, timing and evaluations (module docstring)."""

    model: Any
    bar: Progress
    budget: Budget

    def __init__(
        self,
        cfg: RunSettings,
        folder: RunFolder,
        curves: Curves,
        *,
        save: Callable[[Path, int], Path],
        score: Callable[[Path], Rows],
        report: Callable[[Rows], Report],
        eval_csv: str = "eval.csv",
        curves_png: str = "curves.png",
    ) -> None:
        self.cfg, self.folder, self.curves = cfg, folder, curves
        # The evaluation log and its figure, in the run folder (an exploiter's: exploit.csv).
        self.eval_csv, self.curves_png = eval_csv, curves_png
        self.save, self.score, self.report = save, score, report
        self.timing = {"rollout_s": 0.0, "update_s": 0.0, "eval_s": 0.0, "bc_s": 0.0}
        self.last_eval: Rows = []
        # The wall-clock budget (``minutes``): perf_counter() past which no rollout starts
        # (one always does: from ``start``, the timesteps when the loop began).
        self.deadline: float | None = None
        self.start = 0
        self.out_of_time = False
        # An exception that stopped the loop: the finish saves the model, says why in
        # summary.json and raises it again.
        self.error: BaseException | None = None
        # Hooks of the recipe, called by TrainCallback: on each step (infos, dones) and at the
        # end of each rollout (timesteps, SB3's logger).
        self.on_step: Callable[[Sequence[dict[str, Any]], Any], None] | None = None
        self.on_rollout_end: Callable[[int, Any], None] | None = None

    @property
    def out(self) -> Path:
        """The run folder's path."""
        return self.folder.path

    @property
    def state(self) -> dict[str, Any]:
        """``state.json``'s contents."""
        return self.folder.state

    def attach(self, model: Any, log_formats: Sequence[str] = ("csv",)) -> None:
        """Take ``model``; the progress bar starts.

        - logs: to ``OUT/logs``, continued where a resumed run's checkpoint was
          (:mod:`train.common.run_logs`);
        - budget: in whole rollouts, said when it is not the one asked, kept in ``state.json``.
        """
        from train.common.run_logs import logger

        cfg = self.cfg
        start = int(self.state.get("timesteps", 0))
        resumed = start if "checkpoint" in self.state else None
        model.set_logger(logger(self.out / "logs", log_formats, resumed_at=resumed))
        self.model = model
        self.budget = plan(int(cfg.timesteps or 0), cfg.eval_every, cfg.n_steps, cfg.n_envs, start)
        self.state["budget"] = self.budget.record()
        minutes = getattr(cfg, "minutes", None)
        self.bar = Progress(self.budget.timesteps_used, cfg.progress, start=start, minutes=minutes)
        said = budget_line(self.folder.default_budget, self.folder.budget_source, minutes)
        if said is not None:
            self.bar.print(said)
        line = describe(self.budget)
        if line is not None:
            self.bar.print(line)

    def resume(self, seed: int) -> None:
        """Continue the run in the folder.

        It takes the last checkpoint's policy and optimizer, its timestep and update counts, and
        re-seeds the env with ``seed``: SB3 seeded it with the run's first deals when the model
        was made.
        """
        from train.policy.checkpoint import load_checkpoint

        load_checkpoint(self.model, self.out / self.state["checkpoint"])
        self.model.num_timesteps = int(self.state["timesteps"])
        # SB3 keeps the update count privately; restored so its logs count on.
        self.model._n_updates = int(self.state.get("n_updates", 0))
        self.model.get_env().seed(seed)
        self.bar.print(
            f"resuming {self.out} at {self.model.num_timesteps:,} timesteps, training to "
            f"{self.budget.timesteps_requested:,}: {self.folder.budget_source}"
        )

    # ------------------------------------------------------------------ periodic work
    def checkpoint(self, steps: int) -> Path:
        """The model (``save``) and its optimizer at ``steps``; ``state.json`` points at it."""
        from train.policy.checkpoint import save_optimizer, whole_or_absent

        stem = self.out / "checkpoints" / f"step_{steps:09d}"
        with whole_or_absent(stem):  # weights without their optimizer are no checkpoint
            save_optimizer(self.model, path := self.save(stem, steps))
        self.state.update(
            timesteps=steps,
            n_updates=int(self.model._n_updates),
            checkpoint=str(path.relative_to(self.out)),
        )
        self.folder.write_state()
        return path

    def evaluate(self, steps: int, checkpoint: Path | None = None) -> Rows:
        """Checkpoint, score, append to ``eval.csv``, log, redraw the curves, print.

        The checkpoint is skipped when given the one at ``steps``. The global random
        generators are put back after the scoring (:mod:`train.common.global_rng`): what is
        evaluated never changes what is trained.
        """
        t0 = time.perf_counter()
        path = checkpoint if checkpoint is not None else self.checkpoint(steps)
        with global_rng.kept():
            rows = self.score(path)
        for row in rows:
            row["timesteps"] = steps
        said = self.report(rows)
        for tag, value in said.scalars.items():
            self.model.logger.record(tag, value)
        append_eval(self.out / self.eval_csv, rows, self.curves.fields)
        self.plot()
        self.state["last_eval"] = steps
        self.folder.write_state()
        self.last_eval = rows
        self.timing["eval_s"] += time.perf_counter() - t0
        self.bar.print(f"eval @ {steps:,}: {said.line}")
        self.bar.note(said.note)
        return rows

    def plot(self) -> Path | None:
        """Redraw ``curves.png`` from ``eval.csv`` (or the recipe's own names for them)."""
        c = self.curves
        return plot_curves(
            self.out / self.eval_csv, self.out / self.curves_png, c.title, c.panels, c.split
        )

    # ------------------------------------------------------------------ the loop and the finish
    def learn(self) -> tuple[int, int, float, str | None]:
        """Train up to the budget.

        Returns timesteps at the start, at the end, wall s, and why it stopped early or None.
        Ctrl-C and any exception stop the loop and are kept for the finish, which saves the
        model first; an exception is kept in :attr:`error`.
        """
        from torch.distributions import Distribution

        start = int(self.model.num_timesteps)
        t0 = time.perf_counter()
        self.start = start
        if self.cfg.minutes is not None:
            self.deadline = t0 + 60.0 * self.cfg.minutes
            self.bar.restart_clock()  # its time spent is the budget's, from here
        stopped: str | None = None
        # torch re-checks every distribution SB3 builds (a simplex test over each batch of
        # logits, ~5% of a rollout with a small net); the logits come from the net, so not
        # while learning.
        validate = Distribution._validate_args
        Distribution.set_default_validate_args(False)
        try:
            total = int(self.cfg.timesteps or 0)
            if total > start:
                self.model.learn(
                    total_timesteps=total - start,
                    callback=TrainCallback(self),
                    # A resumed run counts on from its checkpoint's timesteps.
                    reset_num_timesteps=False,
                    progress_bar=False,
                )
        except OutOfTime:
            # Not a stop: the wall-clock budget is a budget, as --timesteps is.
            self.out_of_time = True
            self.bar.print(
                f"the {self.cfg.minutes:g}-minute budget is spent after "
                f"{int(self.model.num_timesteps):,} timesteps "
                f"({(time.perf_counter() - t0) / 60:.1f} min of training): saving it"
            )
        except KeyboardInterrupt as exc:  # Ctrl-C, or a SIGTERM (agents.runtime.interrupts)
            stopped = f"interrupted ({interrupted_by(exc)})"
            self.bar.print(f"{said_interrupted(exc)}: saving what was trained")
        except Exception as exc:  # anything else: save what was trained, then raise it again
            swallowed = swallowed_interrupt() if isinstance(exc, RuntimeError) else None
            if swallowed is not None:  # numba's error after a Ctrl-C it swallowed (entry.py)
                stopped = f"interrupted ({interrupted_by(swallowed)})"
                self.bar.print(f"{said_interrupted(swallowed)}: saving what was trained")
            else:
                self.error = exc
                stopped = f"failed: {type(exc).__name__}: {exc}"
                self.bar.print(f"training {stopped}; saving what was trained")
        finally:
            Distribution.set_default_validate_args(validate)
        steps = int(self.model.num_timesteps)
        self.bar.close(steps)
        return start, steps, time.perf_counter() - t0, stopped

    def finish(self, steps: int, stopped: str | None, **extra: Any) -> dict[str, Any]:
        """The finish, the model first.

        1. a checkpoint and ``model.json`` at ``steps``, then ``summary.json``;
        2. only then a last evaluation, skipped after a failure or a second Ctrl-C;
        3. the curves, and ``summary.json`` again.

        The summary says whether the run reached its budget (``complete``) and, when not, why
        (``stopped``). An exception that stopped the loop is raised again once all of it is
        written.
        """
        complete = stopped is None and (steps >= int(self.cfg.timesteps or 0) or self.out_of_time)
        summary: dict[str, Any] = {
            "model": None,
            "curves": None,
            "complete": complete,
            "stopped": stopped,
            "ended_by": "minutes" if self.out_of_time else "timesteps" if complete else None,
            "timesteps": steps,
            "budget": self.budget.record() if hasattr(self, "budget") else None,
            **extra,
            "final_evaluation": "pending",
        }
        self.state["done"] = complete
        # 1. The model, before anything that draws or reports.
        try:
            # Always a new checkpoint: one taken in the loop at these steps precedes the update
            # of the last rollout, which a later --resume must not lose.
            checkpoint = self.checkpoint(steps)
            summary["model"] = str(self.save(self.out / "model", steps))
        # Even a Ctrl-C here leaves a summary that says the model was not saved.
        except BaseException as exc:
            summary.update(complete=False, stopped=stopped or f"saving the model failed: {exc}")
            self.folder.not_saved(summary["stopped"])  # not done, whatever the steps
            self.summarise(summary)
            raise
        self.summarise(summary)
        # 2. What reports on it.
        try:
            if self.error is not None:
                summary["final_evaluation"] = "skipped (the run failed)"
            elif self.state.get("last_eval") == steps:
                summary["final_evaluation"] = "done (the last one in the loop)"
            else:
                self.evaluate(steps, checkpoint)
                summary["final_evaluation"] = "done"
            curves = self.plot()
            summary["curves"] = str(curves) if curves else None
        except KeyboardInterrupt as exc:
            summary["final_evaluation"] = "skipped (interrupted)"
            self.bar.print(
                f"{said_interrupted(exc)}: final evaluation skipped (the model is saved)"
            )
        except Exception as exc:
            summary["final_evaluation"] = f"failed: {type(exc).__name__}: {exc}"
            self.summarise(summary)
            raise
        self.summarise(summary)
        if self.error is not None:
            raise self.error
        return summary

    def say_done(self, summary: dict[str, Any], reached: str, next_is: str) -> None:
        """A finished real-time run's last lines: the model and its rate, where the loop's time
        went (``summary["throughput"]``), what it reached (``reached``: the recipe's words on its
        last evaluation, left out when empty) and the next command (``next_is``: what it does)."""
        steps, tp = summary["timesteps"], summary["throughput"]
        self.bar.print(
            f"wrote {summary['model']} ({steps:,} timesteps, "
            f"{tp['timesteps_per_s']:,.0f} timesteps/s)"
        )
        split = ", ".join(f"{k} {v:.1f} s" for k, v in tp["split_s"].items() if v)
        self.bar.print(
            f"time: {split}; the kit's share {100 * tp['kit_share']:.0f}% "
            f"({100 * tp['kit_share_without_evaluation']:.0f}% without the evaluations)"
        )
        if reached:
            self.bar.print(f"what it reached at {steps:,} timesteps: {reached}")
        self.bar.print(f"next, {next_is}: {summary['next']}")

    def summarise(self, summary: dict[str, Any]) -> None:
        """Write ``summary.json`` (with the evaluation time, the warm start and the latest
        evaluation rows) and ``state.json``."""
        last = self.last_eval if self.last_eval else last_rows(self.out / self.eval_csv)
        summary.update(eval_s=round(self.timing["eval_s"], 2), bc=self.state.get("bc"))
        summary["last_eval"] = last
        self.folder.write_state()
        self.folder.write_summary(summary)

    def close(self) -> None:
        """Close the progress bar and SB3's log files (CSV, TensorBoard), flushing them."""
        # close runs from a finally, also when attach never did.
        if hasattr(self, "bar"):
            self.bar.bar.close()
        model = getattr(self, "model", None)
        if model is not None:
            model.logger.close()


class TrainCallback(BaseCallback):
    """Around each rollout: the bar, the time split, the recipe's hooks and the evaluations."""

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run
        self.rollout_start = 0.0
        self.rollout_end: float | None = None

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        run = self.run
        # The time budget is checked here, before the rollout's first step: the last update
        # was on a whole rollout and the timesteps stay a whole number of them.
        if run.deadline is not None and now >= run.deadline and self.num_timesteps > run.start:
            raise OutOfTime
        if self.rollout_end is not None:
            self.run.timing["update_s"] += now - self.rollout_end
        self.rollout_start = now

    def _on_step(self) -> bool:
        # A Ctrl-C Python swallowed since (in a callback from C: numba caching a kernel it
        # compiled mid-run) is raised here, where the loop stops on it as on any Ctrl-C.
        raise_swallowed()
        if self.run.on_step is not None:
            self.run.on_step(self.locals["infos"], self.locals["dones"])
        self.run.bar.update(self.num_timesteps)
        return True

    def _on_rollout_end(self) -> None:
        run, steps = self.run, self.num_timesteps
        run.timing["rollout_s"] += time.perf_counter() - self.rollout_start
        self.logger.record("time/update_s", run.timing["update_s"])
        if run.on_rollout_end is not None:
            run.on_rollout_end(steps, self.logger)
        if steps >= run.state.get("last_eval", 0) + run.budget.eval_every_used:
            run.evaluate(steps)
        self.rollout_end = time.perf_counter()
