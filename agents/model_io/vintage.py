"""Vintage Speed's model files: its signature, writing a model, playing one (``vintage-ppo:``).

The same two files as every kit model (:mod:`agents.model_io.kit_model`), with
``game: "vintage"``, the vintage options in ``rules`` and the vintage signature in
``observation``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.model_io.kit_model import as_policy, library_versions, read_model, write_model
from agents.model_io.learned import spec_flags
from agents.model_io.mlp import MLPPolicy
from agents.model_io.tensor_file import ModelFormatError
from speed_env.registration import made_with

if TYPE_CHECKING:
    from speed_env.vintage import VintageRules


def vintage_signature(rules: VintageRules | None = None) -> dict[str, Any]:
    """The observation/action signature a vintage model must match.

    Any table size fits: the layout is padded.
    """
    from speed_env.vintage import Actions, ObservationLayout, make_vintage_rules

    # The padded layout is the same for every table, so any rules build the signature.
    rules = rules or make_vintage_rules(4, 1)
    layout = ObservationLayout(rules.pack)
    return {
        "game": "vintage",
        "obs_dim": layout.size,
        "n_actions": Actions(rules.pack).n,
        "layout": [[name, s.start, s.stop] for name, s in layout.slices.items()],
        "pack": rules.pack.name,
    }


def save_vintage_model(
    path: str | os.PathLike[str],
    tensors: Mapping[str, np.ndarray],
    *,
    rules: VintageRules,
    hidden: list[int],
    activation: str,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write a vintage model; returns the manifest's path.

    The same two files as :func:`agents.model_io.kit_model.save_model`, so
    :func:`agents.model_io.kit_model.read_model` checks them, with:

    - ``rules``: the vintage options;
    - ``observation``: the vintage signature.
    """
    manifest = {
        "game": "vintage",
        **made_with("vintage"),
        "rules": {
            "game": "vintage",
            "num_players": rules.num_players,
            "may_draw_when_able": rules.may_draw_when_able,
            "rebuild_pack": rules.rebuild_pack,
            "max_turns": rules.max_turns,
            "pack": rules.pack.name,
        },
        "observation": vintage_signature(rules),
        "net": {"kind": "mlp", "hidden": [int(h) for h in hidden], "activation": activation},
        "versions": library_versions(),
        "training": training or {},
    }
    return write_model(path, tensors, manifest)


def load_vintage_policy(
    path: str | os.PathLike[str], *, seed: int | None = None, sample: bool = False
) -> MLPPolicy:
    """A saved vintage model as a batch Policy, numpy only.

    Refused, naming the field, when it does not fit Vintage Speed with the default pack.
    """
    tensors, manifest, where = read_model(path)
    have, want = manifest["observation"], vintage_signature()
    for key in ("obs_dim", "n_actions", "layout"):
        if have.get(key) != want[key]:
            raise ModelFormatError(
                f"{where} does not fit Vintage Speed with the default pack ({key}: the model has "
                f"{have.get(key)!r}, the game {want[key]!r}); a real-time model plays as ppo:PATH"
            )
    return as_policy(tensors, manifest, where, seed=seed, sample=sample)


def vintage_policy_from_spec_arg(arg: str, seed: int | None = None) -> MLPPolicy:
    """The ``vintage-ppo:PATH[?sample]`` agent: a saved vintage model as a batch Policy."""
    path, flags = spec_flags(arg, "vintage-ppo", ("sample",))
    if not path:
        raise ModelFormatError("vintage-ppo needs a model path: vintage-ppo:PATH.json")
    return load_vintage_policy(path, seed=seed, sample="sample" in flags)
