"""The run folder: what a training run leaves in ``--out``, and resuming from it.

::

    OUT/config.json      the settings of the run (every field of the recipe's dataclass)
    OUT/state.json       what resuming needs: timesteps, last checkpoint, snapshots, ...
    OUT/summary.json     the result, written when the run ends (also after Ctrl-C)
    OUT/eval.csv         one row per evaluation line-up (train/curves.py), and curves.png
    OUT/logs/            SB3's CSV (and TensorBoard) logs
    OUT/checkpoints/     step_NNNNNNNNN.json/.safetensors/.optim.pt (train/checkpoint.py)
    OUT/model.json       the final model (+ model.safetensors)

Every JSON file is written atomically (:mod:`agents.files`). A folder that
already holds a run is refused unless the recipe is told to resume it; a
resumed run takes its saved settings, except ``timesteps`` (which may grow),
``progress`` and ``out``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, TypeVar

from agents.files import check_writable, write_json

C = TypeVar("C")

# Settings a resumed run takes from its command line, not from the saved run.
RESUME_OVERRIDES = ("timesteps", "resume", "progress", "out")


class RunFolder:
    """``OUT`` of one training run: its settings, its state and its summary."""

    def __init__(self, out: str | Path) -> None:
        self.path = Path(out)
        self.state: dict[str, Any] = {}

    @property
    def state_path(self) -> Path:
        """``OUT/state.json``: what resuming needs."""
        return self.path / "state.json"

    def holds_run(self) -> bool:
        """Whether a run was started here (its state, or a model a recipe left)."""
        return any((self.path / n).exists() for n in ("state.json", "model.json", "summary.json"))

    def settings(self, cfg: C, *, resume: bool, resumable: bool = True) -> C:
        """The settings the run will use: ``cfg`` for a new run (refused where a run already
        is), or with ``resume`` the saved ones with :data:`RESUME_OVERRIDES` from ``cfg``.
        ``resumable``: whether the recipe can continue a run (the refusal says what to do)."""
        if not resume:
            if self.holds_run() and resumable:
                raise ValueError(
                    f"{self.path} already holds a training run; pass --resume to continue it "
                    "or choose another --out"
                )
            if self.holds_run():
                raise ValueError(
                    f"{self.path} already holds a trained model (or a run); choose another --out"
                )
            return cfg
        if not self.state_path.exists():
            raise ValueError(f"--resume: {self.path} holds no run to resume (no state.json)")
        saved = self.read_state()["config"]
        known = {f.name for f in dataclasses.fields(cfg)}  # type: ignore[arg-type]
        given = {k: getattr(cfg, k) for k in RESUME_OVERRIDES if k in known}
        merged = {k: v for k, v in saved.items() if k in known} | given
        return type(cfg)(**merged)

    def start(self, cfg: Any, *, resume: bool) -> None:
        """Create the folder (proved writable) and write ``config.json``; with ``resume`` read
        the saved state first."""
        check_writable(self.path)
        if resume:
            self.state = self.read_state()
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

    def write_summary(self, summary: dict[str, Any]) -> Path:
        """Save ``summary.json`` (atomically); its path."""
        return write_json(self.path / "summary.json", summary)

    def write_json(self, name: str, value: Any) -> Path:
        """Save another JSON file of the run (``pool.json`` ...) atomically; its path."""
        return write_json(self.path / name, value)
