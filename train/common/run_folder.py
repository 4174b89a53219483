"""The run folder: what a training run leaves in ``--out``, and resuming from it.

::

    OUT/config.json      the settings of the run (every field of the recipe's dataclass)
    OUT/state.json       what resuming needs: timesteps, last checkpoint, snapshots, ...
    OUT/summary.json     the result, written when the run ends (also after Ctrl-C)
    OUT/eval.csv         one row per evaluation line-up (train/common/curves.py), and curves.png
    OUT/logs/            SB3's CSV (and TensorBoard) logs
    OUT/checkpoints/     step_NNNNNNNNN.json/.safetensors/.optim.pt (train/policy/checkpoint.py)
    OUT/model.json       the final model (+ model.safetensors)
    OUT/run.lock         while a run writes the folder: its pid, host and command

Every JSON file is written atomically (:mod:`agents.runtime.files`). A folder has one
writer: a run holds its lock (:mod:`agents.runtime.run_lock`) from before it reads the
folder until it ends, and a second run on the same folder is refused at once,
naming the first. A new run into a folder that holds one:

- a run that stopped before its first checkpoint, not done and with no model (killed, or
  Ctrl-C while cloning): nothing of it can be resumed, so its files are moved aside to a
  sibling ``OUT.replaced-STAMP`` (nothing is deleted; one line says where) and the new run
  starts afresh;
- an unfinished run with a checkpoint, or a finished one: refused, the line saying what to do
  (``--resume`` to continue it, ``--resume --timesteps N`` to train a finished one further, or
  another ``--out``).

A resumed run (``--resume``, both recipes) takes its saved settings, the ``config`` that
``state.json`` records, except ``progress``, ``out`` and ``timesteps`` when given (without it the
run goes on to its own saved budget, and says which), and only a run of the same recipe is
resumed. ``config.json`` is that record's copy for reading: where it was edited to say other
than ``state.json``, ``--resume`` refuses, naming the file and the key, rather than train on
settings the file does not show (:func:`saved_settings`). A finished run resumed with no more
timesteps trains nothing and is left as it is (:attr:`RunFolder.finished`).

Use it as a context manager: ``with RunFolder(out) as folder:`` takes the lock
where the folder exists (so a refusal changes nothing in it), :meth:`RunFolder.start`
creates the folder and takes the lock where it did not, and leaving the block
lets go.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, TypeVar

from agents.runtime.files import check_writable, write_json
from agents.runtime.run_identity import move_aside
from agents.runtime.run_lock import LOCK_NAME, FolderLock

C = TypeVar("C")

# Settings a resumed run takes from its command line, not from the saved run.
RESUME_OVERRIDES = ("timesteps", "resume", "progress", "out")
# Settings naming agents, which a py: or MODULE:NAME spec makes code the run imports.
AGENT_SETTINGS = ("target", "opponent", "eval_opponents", "init_bc")


class RunFolder:
    """``OUT`` of one training run: its settings, its state and its summary."""

    def __init__(self, out: str | Path, command: str | None = None) -> None:
        self.path = Path(out)
        self.state: dict[str, Any] = {}
        self.lock = FolderLock(self.path, command)
        self.budget_source = ""
        """Where the run's ``timesteps`` came from, in words (set by :meth:`settings`)."""
        self.default_budget = False
        """Whether a new run took its recipe's default ``timesteps`` (none was given)."""
        self.stale: str | None = None
        """Why the run held here stopped before its first checkpoint, where a new run is to
        move it aside (set by :meth:`settings`, done by :meth:`start`)."""
        self.finished: dict[str, Any] | None = None
        """A finished run's ``summary.json``, where ``--resume`` asks for no more timesteps:
        there is nothing to train and nothing is written (set by :meth:`settings`). The run's
        record is returned instead (:func:`~train.common.run.run_recipe`'s ``held``, by default
        :meth:`say_finished`), or where the recipe has none yet, the run is finished again."""

    def __enter__(self) -> RunFolder:
        if self.path.is_dir():  # a folder not there yet is locked when start() makes it
            self.lock.acquire(create=False)
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()

    @property
    def state_path(self) -> Path:
        """``OUT/state.json``: what resuming needs."""
        return self.path / "state.json"

    def holds_run(self) -> bool:
        """Whether a run was started here (its state, or a model a recipe left)."""
        return any((self.path / n).exists() for n in ("state.json", "model.json", "summary.json"))

    def settings(self, cfg: C, *, resume: bool) -> C:
        """The settings the run will use.

        - new run: ``cfg``, refused where a run already is, unless it left nothing to resume
          (:attr:`stale`: :meth:`start` moves it aside);
        - ``resume``: the saved ones with :data:`RESUME_OVERRIDES` from ``cfg``, refused where
          the saved run is another recipe's, where ``config.json`` was edited to differ
          (:func:`saved_settings`) or where it names code the command line does not; a
          finished run given no more timesteps is :attr:`finished`.

        A ``timesteps`` of None, not given, is the recipe's ``DEFAULT_TIMESTEPS`` for a new run
        and the saved budget for a resumed one; :attr:`budget_source` says in words which it
        was.
        """
        timesteps = getattr(cfg, "timesteps", 0)
        if not resume:
            self._refuse_a_used_folder()
            if timesteps is None:  # not given: the recipe's default
                default = type(cfg).DEFAULT_TIMESTEPS  # type: ignore[attr-defined]
                self.budget_source = f"the default budget ({default:,})"
                self.default_budget = True
                return dataclasses.replace(cfg, timesteps=default)  # type: ignore[type-var]
            self.budget_source = "--timesteps as given"
            return cfg
        if not self.state_path.exists():
            raise ValueError(f"--resume: {self.path} holds no run to resume (no state.json)")
        state = self.read_state()
        recipe = recipe_name(cfg)
        # A state saved before recipes were recorded is taken as this recipe's.
        if state.get("recipe", recipe) != recipe:
            raise ValueError(
                f"--resume: {self.path} holds a run of {state['recipe']}, not of {recipe}; "
                "choose another --out"
            )
        saved_settings(self.path)  # config.json as state.json records it, or refused
        if "checkpoint" not in state:
            # A run stopped while cloning says so (warm_start.stop_warm_start): nothing to go on.
            why = state.get("stopped") or "stopped before its first"
            raise ValueError(
                f"--resume: {self.path} holds no checkpoint yet ({why}): nothing to resume; "
                "run it again without --resume to start afresh (its files are moved aside)"
            )
        known = {f.name for f in dataclasses.fields(cfg)}  # type: ignore[arg-type]
        self._refuse_recorded_code(state["config"], cfg, known)
        given = {k: getattr(cfg, k) for k in RESUME_OVERRIDES if k in known}
        own = own_budget(state)
        if "timesteps" in given and timesteps is None:  # not given: the run's own budget
            del given["timesteps"]
            self.budget_source = "the run's own budget (give --timesteps to change it)"
        elif "timesteps" in given:
            was = f"{own:,}" if isinstance(own, int) else "not recorded"
            self.budget_source = f"--timesteps as given (the run's own budget was {was})"
        # The budget it would train to: as given, else its own. A run its --minutes ended
        # short of its own budget goes on (its minutes are given afresh); one that reached it
        # has nothing left to train.
        goal = own if timesteps is None else timesteps
        if state.get("done") and (goal is None or goal <= state.get("timesteps", 0)):
            self.finished = self._read_summary()  # None where it was never written: finish it
        # Saved fields this recipe no longer has are dropped; the overrides win.
        merged = {k: v for k, v in state["config"].items() if k in known} | given
        return type(cfg)(**merged)

    def _refuse_recorded_code(self, saved: dict[str, Any], cfg: Any, known: set[str]) -> None:
        """Refuse to resume where the record names an agent that is code (``py:`` or
        ``MODULE:NAME``) and the command line does not name it alike.

        Records are data: a spec in ``state.json`` is never imported, and so run, on the
        record's word alone, only on the user's, given again on the command line.
        """
        from agents.specs.user_files import is_user_spec
        from train.common.settings import specs, weighted

        for key in (k for k in AGENT_SETTINGS if k in known):
            recorded = saved.get(key)
            code = [s for s in specs(recorded) if is_user_spec(weighted(s)[0])]
            if code and getattr(cfg, key) != recorded:
                flag = "--" + key.replace("_", "-")
                raise ValueError(
                    f"--resume: {self.state_path} names {code[0]} ({key}), code the run would "
                    f"import; a record is never run as code on its own word: to resume, give "
                    f"{flag} {recorded} on the command line"
                )

    def _refuse_a_used_folder(self) -> None:
        """Refuse a new run where a run is held, unless that run left nothing to resume (it is
        then marked :attr:`stale`, to be moved aside)."""
        if not self.holds_run():
            return
        try:
            state = self.read_state() if self.state_path.exists() else None
        except ValueError:
            state = None
        if state is not None and state.get("done"):
            steps = int(state.get("timesteps", 0))
            raise ValueError(
                f"{self.path} already holds a training run; pass --resume --timesteps N "
                f"(above {steps:,}, where it finished) to train it further, or choose another "
                "--out"
            )
        if state is not None and "checkpoint" not in state and not self._has_model():
            # Nothing --resume could go on from: a new run moves it aside and starts afresh.
            self.stale = state.get("stopped") or "stopped before its first"
            return
        raise ValueError(
            f"{self.path} already holds a training run; pass --resume to continue it "
            "or choose another --out"
        )

    def _move_stale_aside(self) -> None:
        """Move the files of a run that left nothing to resume to ``OUT.replaced-STAMP``."""
        names = sorted(n for n in os.listdir(self.path) if n != LOCK_NAME)
        what = f"a training run with no checkpoint ({self.stale}; nothing to resume)"
        target = move_aside(self.path, names, what, "a new run")
        print(f"{self.path}: moved {what} to {target}; starting afresh", file=sys.stderr)
        self.stale = None

    def _has_model(self) -> bool:
        return (self.path / "model.json").exists()

    def say_finished(self) -> dict[str, Any]:
        """A finished run's summary, said in one line: ``--resume`` has nothing to train."""
        summary = self.finished or {}
        steps = int(summary.get("timesteps") or 0)
        print(
            f"{self.path} holds a finished run ({steps:,} timesteps): nothing to resume, "
            f"nothing written (--timesteps N above {steps:,} trains it further)"
        )
        return summary

    def _read_summary(self) -> dict[str, Any] | None:
        """``summary.json`` where it is a whole one; None where it is absent or unreadable."""
        try:
            summary = json.loads((self.path / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return summary if isinstance(summary, dict) and "complete" in summary else None

    def seed(self, base: int) -> int:
        """The seed of the run's deals: ``base`` for a new run.

        A resumed run's is shifted by the timesteps done, so that it plays fresh deals rather
        than its first ones again.
        """
        # A large prime stride keeps a resumed run's seed clear of base + i, the seeds its
        # envs started from.
        return base + 1_000_003 * int(self.state.get("timesteps", 0))

    def start(self, cfg: Any, *, resume: bool) -> None:
        """Create the folder, take its lock and write ``config.json``.

        The folder is proved writable. The lock is taken if not yet held, and then a folder
        another run began meanwhile is refused; one whose run left nothing to resume is moved
        aside (:attr:`stale`). With ``resume`` the saved state is read first.
        """
        check_writable(self.path)
        # Not held: the folder did not exist at __enter__. Another run may have begun in
        # it since, so look again once the lock is ours.
        if not self.lock.held:
            self.lock.acquire()
            if not resume:
                self._refuse_a_used_folder()
        if self.stale is not None and not resume:
            self._move_stale_aside()
        if resume:
            self.state = self.read_state()
        self.state["recipe"] = recipe_name(cfg)
        self.state["config"] = dataclasses.asdict(cfg)
        write_json(self.path / "config.json", self.state["config"])

    def read_state(self) -> dict[str, Any]:
        """``state.json`` as saved (naming the file when it cannot be read)."""
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.state_path} cannot be read: {exc}") from None
        if not isinstance(state, dict) or not isinstance(state.get("config"), dict):
            raise ValueError(f"{self.state_path} holds no run's settings (no 'config' object)")
        return state

    def write_state(self) -> None:
        """Save ``state.json`` (atomically)."""
        write_json(self.state_path, self.state)

    def not_saved(self, why: str) -> None:
        """Mark the run not done, its model unsaved; where it has no checkpoint, ``why`` is
        what the refusals of a new run and of ``--resume`` say (nothing to go on from)."""
        self.state["done"] = False
        if "checkpoint" not in self.state:
            self.state["stopped"] = why

    def write_summary(self, summary: dict[str, Any]) -> Path:
        """Save ``summary.json`` (atomically); its path."""
        return write_json(self.path / "summary.json", summary)

    def write_json(self, name: str, value: Any) -> Path:
        """Save another JSON file of the run (``pool.json`` ...) atomically; its path."""
        return write_json(self.path / name, value)


def saved_settings(out: str | Path) -> dict[str, Any] | None:
    """The settings a resumed run in ``out`` goes on with: ``state.json``'s ``config``.

    None where there is no ``state.json``. Refused, naming the file and the key, where
    ``config.json`` (the record's copy for reading) says otherwise, but for the settings a
    command line gives (:data:`RESUME_OVERRIDES`): an edit to it would otherwise be silently
    ignored by ``--resume``.
    """
    folder = RunFolder(out)
    if not folder.state_path.exists():
        return None
    config: dict[str, Any] = folder.read_state()["config"]
    copy = folder.path / "config.json"
    try:
        shown = json.loads(copy.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return config
    except (OSError, ValueError) as exc:
        raise ValueError(f"--resume: {copy} cannot be read: {exc}") from None
    if not isinstance(shown, dict):
        raise ValueError(f"--resume: {copy} holds no settings (not a JSON object)")
    # The overrides are the last command's, given on its command line (the first line of a
    # resumed run says which budget it trains to and how to change it). A key in one file only
    # is a field a kit since added or dropped (config.json is rewritten on each start).
    for key in (k for k in config if k in shown and k not in RESUME_OVERRIDES):
        if shown[key] != config[key]:
            raise ValueError(
                f"--resume: {copy} says {key} is {shown[key]!r}, but the run's record "
                f"{folder.state_path} says {config[key]!r}, and --resume goes on with the "
                "record: put config.json back, or start a new run with the settings you want "
                "in another --out"
            )
    return config


def own_budget(state: dict[str, Any]) -> int | None:
    """The budget a saved run trained to.

    That is the one it used, ``state["budget"]``: its request rounded up to whole rollouts. A
    run saved before it recorded one gives its request.
    """
    used = (state.get("budget") or {}).get("timesteps", {}).get("used")
    if isinstance(used, int):
        return used
    asked = state.get("config", {}).get("timesteps")
    return asked if isinstance(asked, int) else None


def recipe_name(cfg: Any) -> str:
    """The recipe whose settings ``cfg`` are, as ``state.json`` records it.

    It is the module of its class, ``train.ppo``, also when run as ``python -m train.ppo``.
    """
    # Under python -m the module is __main__; its __spec__ still names train.ppo.
    module = sys.modules.get(type(cfg).__module__)
    spec = getattr(module, "__spec__", None)
    return spec.name if spec is not None else type(cfg).__module__
