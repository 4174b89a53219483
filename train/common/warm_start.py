"""A warm start's model, checked against the network it is to start before any work.

A run that loads a kit model's weights into a fresh network (``init_from``) fails deep in the
loading when the two differ (``lacks tensor 'act.0.weight'``), after its folder is made;
:func:`check_warm_start` reads the model's manifest first and names what differs;
:func:`check_start_model` adds the rules it plays (seat count, preset, options).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
