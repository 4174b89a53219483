"""A warm start's model, checked against the network it is to start before any work.

A run that loads a kit model's weights into a fresh network (``init_from``) fails deep in the
loading when the two differ (``lacks tensor 'act.0.weight'``), after its folder is made;
:func:`check_warm_start` reads the model's manifest first and names what differs;
:func:`check_start_model` adds the rules it plays (seat count, preset, options).
:class:`CloningInterrupted` is a Ctrl-C that landed while a warm start was being cloned.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from train.common.run import Run

__all__ = ["check_start_model", "check_warm_start"]


def check_warm_start(path: str, actor: str, layers: Sequence[int], field: str) -> None:
    """Refuse ``path`` unless it is a kit model of an ``actor`` network of ``layers``.

    ``actor`` is ``mlp`` or ``rankwise`` and ``layers`` the hidden sizes, as a manifest's
    ``net`` records them; ``field`` names the setting in the message.
    """
    from agents.model_io.kit_model import read_model

    if not Path(path).is_file():
        raise ValueError(f"{field}: no such model file {path}")
    try:
        _, manifest, _ = read_model(path)
    except ValueError as exc:  # not a kit model, or a damaged one: its own message says which
        raise ValueError(f"{field}: {exc}") from None
    net = manifest.get("net") or {}
    have = (net.get("kind"), list(net.get("hidden") or []))
    if have != (actor, list(layers)):
        raise ValueError(
            f"{field}: {path} is a {have[0]} network of layers {have[1]}; this run's is a "
            f"{actor} network of layers {list(layers)} (net_arch, and the actor its rules allow)"
        )


def check_start_model(path: str, rules: Any, actor: str, layers: Sequence[int], field: str) -> None:
    """Refuse ``path`` unless it plays ``rules`` (the seat count first, then the preset and
    options) and is a kit model of an ``actor`` network of ``layers`` (:func:`check_warm_start`).
    """
    from agents.model_io.kit_model import read_model
    from agents.model_io.rules_signature import check_signature

    check_warm_start(path, actor, layers, field)  # the file, readable, of this network
    _, manifest, where = read_model(path)
    try:
        check_signature(manifest, rules, str(where))
    except ValueError as exc:  # its own message names the seats or rules that differ
        raise ValueError(f"{field}: {exc}") from None


class CloningInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) while cloning: the network is half fitted; ``stage`` says where.

    Raised by :func:`train.bc.clone`, read by :func:`stop_warm_start`.
    """

    def __init__(self, teacher: str, stage: str) -> None:
        super().__init__(f"while cloning {teacher}: {stage}")
        self.teacher, self.stage = teacher, stage


def stop_warm_start(run: Run, exc: KeyboardInterrupt, **extra: Any) -> dict[str, Any]:
    """Ctrl-C (or SIGTERM) before ``run``'s loop, as it started warm: ``summary.json`` says where.

    - while cloning (:class:`CloningInterrupted`): no model, the network being half fitted;
      ``state.json`` keeps no checkpoint, so ``--resume`` refuses the folder saying why;
    - after the warm start (its first evaluation, say): the warm start is the model, saved
      at 0 timesteps with its checkpoint, and ``--resume`` trains on from it.
    """
    from agents.runtime.interrupts import interrupted_by, said_interrupted

    cloning = isinstance(exc, CloningInterrupted)
    init_bc = getattr(run.cfg, "init_bc", None)
    warm = f"cloning {init_bc}" if init_bc else "the warm start"
    where = str(exc) if cloning else f"after {warm}, before training"
    summary: dict[str, Any] = {
        "model": None,
        "curves": None,
        "complete": False,
        "stopped": f"interrupted ({interrupted_by(exc)}) {where}",
        "ended_by": None,
        "timesteps": 0,
        "budget": run.budget.record(),
        **extra,
        "final_evaluation": "skipped (interrupted before training)",
    }
    if cloning:
        run.state["stopped"] = summary["stopped"]  # what --resume's refusal says
    run.bar.close(0)
    try:
        if not cloning:
            run.checkpoint(0)
            summary["model"] = str(run.save(run.out / "model", 0))
    finally:  # also after a second Ctrl-C while saving: the summary says what exists
        run.summarise(summary)
    saved = "no model" if cloning else f"the warm start saved as {summary['model']}"
    said = said_interrupted(exc)
    run.bar.print(f"{said} {where}: {saved}; wrote {run.out / 'summary.json'}")
    return summary
