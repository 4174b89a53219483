"""A run's self-play snapshots: frozen copies of the learner saved in its folder's pool.

The two-seat and n-seat recipes (:mod:`train.ppo`, :mod:`train.party_ppo`) both seat them
against the learner: :func:`take_snapshot` saves one and lists it in the run's state;
:func:`saved_snapshots` loads those a resumed run listed, so its opponents are the ones it had.
Each recipe seats them in its own pool.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["saved_snapshots", "take_snapshot"]


def take_snapshot(
    run: Any,
    save: Callable[[Path, int], Path],
    state: dict[str, Any],
    steps: int,
    sample: bool,
    seed: int,
) -> tuple[str, Any]:
    """Save the learner of ``run`` (a :class:`train.common.run.Run`) at ``steps`` as
    ``pool/self_STEPS`` with ``save(path, steps)``, list it in ``state``; its name and its
    frozen policy (``sample`` and ``seed + steps`` as
    :func:`train.policy.checkpoint.snapshot_policy` takes them)."""
    from train.policy.checkpoint import snapshot_policy

    path = save(run.out / "pool" / f"self_{steps:09d}", steps)
    policy = snapshot_policy(run.model, sample=sample, seed=seed + steps)
    name = f"self@{steps}"
    state.setdefault("snapshots", []).append({"name": name, "path": str(path.relative_to(run.out))})
    state["last_snapshot"] = steps
    return name, policy


def saved_snapshots(
    out: Path, state: dict[str, Any], sample: bool, seed: int
) -> list[tuple[str, Any]]:
    """The snapshots ``state`` lists, loaded from the run folder ``out`` as frozen policies
    (a resumed run's), in the order they were taken, each with its name."""
    from agents.model_io.kit_model import as_policy, read_model

    loaded = []
    for snap in state.get("snapshots", []):
        tensors, manifest, where = read_model(out / snap["path"])
        loaded.append((snap["name"], as_policy(tensors, manifest, where, sample=sample, seed=seed)))
    return loaded
