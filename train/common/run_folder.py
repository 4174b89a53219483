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
naming the first. A folder that already holds a run is refused unless the
recipe is told to resume it (``--resume``, both recipes); a resumed run takes
its saved settings, except ``progress``, ``out`` and ``timesteps`` when given
(without it the run goes on to its own saved budget, and says which), and only
a run of the same recipe is resumed.

Use it as a context manager: ``with RunFolder(out) as folder:`` takes the lock
where the folder exists (so a refusal changes nothing in it), :meth:`RunFolder.start`
creates the folder and takes the lock where it did not, and leaving the block
lets go.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, TypeVar

from agents.runtime.files import check_writable, write_json
from agents.runtime.run_lock import FolderLock

C = TypeVar("C")

# Settings a resumed run takes from its command line, not from the saved run.
RESUME_OVERRIDES = ("timesteps", "resume", "progress", "out")


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

        - new run: ``cfg``, refused where a run already is;
        - ``resume``: the saved ones with :data:`RESUME_OVERRIDES` from ``cfg``, refused where
          the saved run is another recipe's.

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
        if "checkpoint" not in state:
            # A run stopped while cloning says so (warm_start.stop_warm_start): nothing to go on.
            why = state.get("stopped") or "stopped before its first"
            raise ValueError(
                f"--resume: {self.path} holds no checkpoint yet ({why}); "
                "start it again with another --out"
            )
        known = {f.name for f in dataclasses.fields(cfg)}  # type: ignore[arg-type]
        given = {k: getattr(cfg, k) for k in RESUME_OVERRIDES if k in known}
        own = own_budget(state)
        if "timesteps" in given and timesteps is None:  # not given: the run's own budget
            del given["timesteps"]
            self.budget_source = "the run's own budget (give --timesteps to change it)"
        elif "timesteps" in given:
            was = f"{own:,}" if isinstance(own, int) else "not recorded"
            self.budget_source = f"--timesteps as given (the run's own budget was {was})"
        # Saved fields this recipe no longer has are dropped; the overrides win.
        merged = {k: v for k, v in state["config"].items() if k in known} | given
        return type(cfg)(**merged)

    def _refuse_a_used_folder(self) -> None:
        if not self.holds_run():
            return
        try:  # a run stopped before its first checkpoint has nothing --resume goes on from
            stopped = self.read_state().get("stopped") if self.state_path.exists() else None
        except ValueError:
            stopped = None
        if stopped:
            raise ValueError(
                f"{self.path} already holds a training run, {stopped} (nothing to resume); "
                "choose another --out"
            )
        raise ValueError(
            f"{self.path} already holds a training run; pass --resume to continue it "
            "or choose another --out"
        )

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
        another run began meanwhile is refused. With ``resume`` the saved state is read first.
        """
        check_writable(self.path)
        # Not held: the folder did not exist at __enter__. Another run may have begun in
        # it since, so look again once the lock is ours.
        if not self.lock.held:
            self.lock.acquire()
            if not resume:
                self._refuse_a_used_folder()
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
