"""Learned policies on disk, for both games: the kit's model format, written and read back checked.

The numpy MLP that plays a model is :mod:`agents.model_io.mlp`; the bytes of
its weights file (safetensors) and the atomic commit of the two files,
:mod:`agents.model_io.tensor_file`; the agents built from model files (``ppo:PATH``,
``trained``), :mod:`agents.model_io.learned`; the signature a
model must match, :mod:`agents.model_io.rules_signature`; reading SB3 ``.zip`` files,
:mod:`agents.model_io.sb3_import` (:func:`convert_sb3_zip` here writes one in the
kit's format).

A model is two files side by side:

- ``NAME.safetensors``: the network's tensors (float32), in the standard
  `safetensors <https://github.com/huggingface/safetensors>`_ layout (an
  8-byte header length, a JSON header, raw little-endian data). Readable by
  any safetensors library; read here by a small strict parser, so playing a
  model needs numpy only (no torch, no pickle).
- ``NAME.json``: the manifest. What the network was trained for and what it
  expects, checked on every load:

  ====================  ==============================================================
  key                   meaning
  ====================  ==============================================================
  ``format``            ``"speed-rl-policy"``; ``format_version`` 1
  ``weights``           the weights file's name (in the manifest's folder)
  ``weights_sha256``    SHA-256 of the weights file
  ``rules``             the rules preset and every option trained under (the first
                        rules, when it was trained under several)
  ``trained_rules``     every rules it was trained under (optional: absent, ``rules``)
  ``observation``       ``obs_dim``, ``n_actions`` and the observation ``layout``
                        (name, start, stop of each named slice) it was trained on
  ``reaction``          reaction profiles of the learner and the opponent in training
  ``tick_ms``           the tick the model was trained at
  ``net``               ``kind`` ``"mlp"`` (or ``"rankwise"``: :mod:`agents.model_io.rankwise`,
                        which adds ``features``), ``hidden`` sizes, ``activation``
                        (``tanh`` / ``relu``), and each tensor's shape
  ``env_id``            the env id of the game it was trained on (``speed_env/speed_v1``,
                        ``speed_env/speed_party_v0`` at three or four seats,
                        ``speed_env/vintage_speed_v0``); from kit 1.0.0 on
  ``kit_version``       the kit's version that wrote it; from kit 1.0.0 on
  ``versions``          library versions that wrote it
  ``training``          free-form notes of the run (timesteps, opponent, seed …)
  ====================  ==============================================================

Tensors: ``pi.K.weight`` / ``pi.K.bias`` (hidden layer ``K`` of the policy),
``logits.weight`` / ``logits.bias``, and optionally the value head
``vf.K.*`` / ``value.*`` (used to resume training, not to play). A
``rankwise`` model has ``act.K.*``, ``score.*`` and ``wait.*`` instead of
``pi.K.*`` and ``logits.*`` (:mod:`agents.model_io.rankwise`).

Saving checks the tensors first (shapes, finite values) and writes nothing
when they fail; the two files are then replaced so that ``NAME.json`` always
names whole weights matching its checksum, so a model already at that path
survives a refused or interrupted save (:func:`write_model`).

Loading refuses, with a message naming the file, anything that does not fit:
a manifest field of the wrong type (named), a changed, truncated or corrupted
weights file (SHA-256, checked before the weights are parsed), a header entry
that is not a known dtype, a shape of whole numbers and two byte offsets
(named), offsets that run past the data, a missing or misshapen tensor, or an
observation/action signature other than the rules asked for.

A manifest without ``env_id`` and ``kit_version`` (written before kit 1.0.0, as
the bundled models' are) loads as before; a loaded policy's ``made_with``
(:class:`agents.model_io.version.ModelVersion`) says which env and kit version
its file records, ``pre-1.0`` for those. A model made on another env version
loads wherever the observation layout check below passes.

A model plays only the rules it was trained under (``trained_rules``; the
presets and the option flags of the observation's ``rules`` field): loading
it for other rules, or feeding it an observation whose ``rules`` field names
other rules, is refused naming both, never silently misread. A model saved
before a field was appended to the observation (the bundled one predates
``rules``) keeps its layout in the manifest and is fed the first ``obs_dim``
floats, which hold that layout unchanged; fields are matched by name.

A model of another game is the same two files, with its ``game`` named in the manifest, its
own options in ``rules`` and its own signature in ``observation``; its game's room writes and
plays it (:mod:`agents.model_io.vintage`).

A stable-baselines3 ``.zip`` loads only when the caller says it is trusted
(``ppo:PATH.zip?trust``): unpickling can run code.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.model_io.manifest import (
    FORMAT,
    FORMAT_VERSION,
    check_net_tensors,
    read_manifest,
)
from agents.model_io.mlp import MLPPolicy
from agents.model_io.rankwise import KIND as RANKWISE
from agents.model_io.rankwise import RankwisePolicy
from agents.model_io.rankwise_gather import n_features
from agents.model_io.rules_signature import check_signature, signature, signature_key
from agents.model_io.tensor_file import (
    ModelFormatError,
    commit,
    parse_safetensors,
    read_safetensors_bytes,
    safetensors_bytes,
)
from agents.runtime.files import json_bytes
from speed_env.registration import made_with
from speed_env.rules import Rules

BUNDLED = Path(__file__).parent.parent / "models" / "trained.json"  # agents/models


# ----------------------------------------------------------------- manifest
def library_versions() -> dict[str, str]:
    """Versions of the libraries that matter for a saved model (those importable now)."""
    import platform
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("speed-rl", "numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium"):
        # The [train] libraries are optional: a play-only install records what it has.
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[dist] = metadata.version(dist)
    return out


def tensor_shapes(tensors: Mapping[str, np.ndarray]) -> dict[str, list[int]]:
    """Name → shape of each tensor (for the manifest)."""
    return {k: list(np.shape(v)) for k, v in sorted(tensors.items())}


def model_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """The weights and manifest paths of a model named by its stem, ``.json``, ``.safetensors``."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix in (".json", ".safetensors") else p
    return stem.with_name(stem.name + ".safetensors"), stem.with_name(stem.name + ".json")


def save_model(
    path: str | os.PathLike[str],
    tensors: Mapping[str, np.ndarray],
    *,
    rules: Rules | Sequence[Rules],
    hidden: list[int],
    activation: str,
    kind: str = "mlp",
    reaction: Any = None,
    tick_ms: int = 50,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``PATH.safetensors`` and the manifest ``PATH.json``; returns the manifest's path.

    ``rules``: the rules it was trained under (one, or a list when it was trained
    under several; all share one observation/action signature). ``kind``: the
    network, ``"mlp"`` or ``"rankwise"`` (:mod:`agents.model_io.rankwise`).

    ``path`` may end in ``.json``, ``.safetensors`` or neither. Written by
    :func:`write_model`: checked first, and a model already at ``path``
    survives a refused or interrupted save.
    """
    rules_list = [rules] if isinstance(rules, Rules) else list(rules)
    if not rules_list or {signature_key(r) for r in rules_list} != {signature_key(rules_list[0])}:
        raise ModelFormatError(
            "save_model needs one or more rules that share one observation/action signature"
        )
    net: dict[str, Any] = {"kind": kind, "hidden": [int(h) for h in hidden]}
    net["activation"] = activation
    if kind == RANKWISE:
        net["features"] = n_features(signature(rules_list[0])["obs_dim"])
    manifest = {
        **made_with("realtime", players=rules_list[0].players),
        "rules": rules_list[0].to_dict(),
        "trained_rules": [r.to_dict() for r in rules_list],
        "observation": signature(rules_list[0]),
        "reaction": reaction,
        "tick_ms": tick_ms,
        "net": net,
        "versions": library_versions(),
        "training": training or {},
    }
    return write_model(path, tensors, manifest)


def write_model(
    path: str | os.PathLike[str], tensors: Mapping[str, np.ndarray], manifest: Mapping[str, Any]
) -> Path:
    """Check ``tensors`` against ``manifest``, write both files as one step; the manifest's path.

    ``manifest`` holds everything but the format, the weights file's name and
    checksum and the tensor shapes, which are filled in here. Nothing is
    written when the check fails (a misshapen or non-finite tensor), and the
    files are committed so that ``PATH.json`` always names whole weights
    that match its checksum: the earlier model until the new one is complete
    (see :func:`agents.model_io.tensor_file.commit`).
    """
    weights_path, manifest_path = model_paths(path)
    # Cast before hashing and checking: the checksum and the shapes describe the
    # float32 bytes on disk, whatever dtype training handed in.
    tensors32 = {k: np.asarray(v, np.float32) for k, v in tensors.items()}
    blob = safetensors_bytes(tensors32, {"format": FORMAT})
    net = {**manifest["net"], "tensors": tensor_shapes(tensors32)}
    full = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "weights": weights_path.name,
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        # The caller's fields come after ours, so it must not pass format or weights
        # (copy_model strips them); "net" comes last, with the tensor shapes added here.
        **manifest,
        "net": net,
    }
    # Checked before anything is written: a refused save leaves the earlier model whole.
    check_net_tensors(tensors32, full, str(weights_path))
    commit(weights_path, manifest_path, blob, json_bytes(full))
    return manifest_path


def manifest_path_of(path: str | os.PathLike[str]) -> Path:
    """The manifest of a model named by its ``.json``, ``.safetensors``, stem, or folder."""
    p = Path(path)
    if p.suffix == ".safetensors":
        return p.with_suffix(".json")
    if p.suffix == ".json":
        return p
    if p.is_dir():
        return p / "model.json"
    return p.with_name(p.name + ".json")


def copy_model(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    portable_from: str | os.PathLike[str] | None = None,
) -> Path:
    """Copy a kit model to ``dst`` (a stem, ``.json`` or ``.safetensors``), checking it on the way.

    The manifest names its weights file, so copying the two files by hand would
    leave it pointing at the old name; this rewrites it (for example to bundle a
    run's ``model.json`` as ``agents/models/trained.json``). With ``portable_from``
    (a folder), the copy names no path of this machine: every absolute path in its
    ``training`` record (:func:`portable_paths`) is made relative to that folder.
    """
    tensors, manifest, _ = read_model(src)
    rest = {
        k: v
        for k, v in manifest.items()
        if k not in ("format", "format_version", "weights", "weights_sha256")
    }
    if portable_from is not None and "training" in rest:
        rest["training"] = portable_paths(rest["training"], Path(portable_from))
    return write_model(dst, tensors, rest)


def portable_paths(value: Any, base: Path) -> Any:
    """``value`` (JSON data) with each absolute path, bare or in a ``ppo:`` spec, made
    relative to ``base`` where it lies under it, else cut to its file name: a record bundled
    with the kit must not name the folders of the machine that made it."""
    if isinstance(value, Mapping):
        return {k: portable_paths(v, base) for k, v in value.items()}
    if isinstance(value, list):
        return [portable_paths(v, base) for v in value]
    if not isinstance(value, str):
        return value
    return ",".join(_portable_path(item, base) for item in value.split(","))  # spec lists too


def _portable_path(item: str, base: Path) -> str:
    prefix = "ppo:" if item.startswith("ppo:") else ""
    path = Path(item[len(prefix) :])
    if not path.is_absolute():
        return item
    try:
        return prefix + path.relative_to(base.resolve()).as_posix()
    except ValueError:  # outside the folder: only its name means anything elsewhere
        return prefix + path.name


def read_model(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, Any], Path]:
    """Tensors, manifest and manifest path of a kit model, every check but the rules done."""
    manifest_path = manifest_path_of(path)
    manifest = read_manifest(manifest_path)
    weights = manifest_path.parent / manifest["weights"]
    if not weights.exists():
        raise ModelFormatError(
            f"weights file {weights} named by manifest {manifest_path} does not exist"
        )
    blob = read_safetensors_bytes(weights, "weights file")
    # The checksum comes before parsing: a file changed since it was saved is said to be
    # changed, the parse below only narrows down how.
    digest = hashlib.sha256(blob).hexdigest()
    if digest != manifest["weights_sha256"]:
        # Say what is wrong as precisely as the bytes allow.
        try:
            parse_safetensors(blob, str(weights))
            what = "its contents changed"
        except ModelFormatError as exc:
            what = str(exc).removeprefix(f"{weights} ").removeprefix(f"{weights}: ")
        raise ModelFormatError(
            f"weights file {weights} does not match the SHA-256 in {manifest_path.name} "
            f"(expected {manifest['weights_sha256'][:12]}…, got {digest[:12]}…): {what}; "
            "refusing to load it"
        )
    tensors, _ = parse_safetensors(blob, str(weights))
    check_net_tensors(tensors, manifest, str(weights))
    return tensors, manifest, manifest_path


def as_policy(
    tensors: dict[str, np.ndarray],
    manifest: dict[str, Any],
    where: Path,
    *,
    seed: int | None,
    sample: bool,
) -> MLPPolicy:
    """A model read from ``where`` as a Policy (the network its manifest names)."""
    act, source = manifest["net"]["activation"], str(where)
    if manifest["net"].get("kind") == RANKWISE:
        dim = int(manifest["observation"]["obs_dim"])
        return RankwisePolicy(
            tensors, act, obs_dim=dim, sample=sample, seed=seed, manifest=manifest, source=source
        )
    return MLPPolicy(tensors, act, sample=sample, seed=seed, manifest=manifest, source=source)


def load_policy(
    path: str | os.PathLike[str],
    rules: Rules,
    *,
    seed: int | None = None,
    sample: bool = False,
    trust_pickle: bool = False,
) -> MLPPolicy:
    """A saved model as a Policy for ``rules``.

    ``path`` is a kit manifest (``.json`` / ``.safetensors``), or with ``trust_pickle=True`` a
    stable-baselines3 ``.zip``.
    """
    p = Path(path)
    if p.suffix == ".zip":
        from agents.model_io.sb3_import import load_sb3_zip  # the [train] extra: torch, SB3

        return load_sb3_zip(p, rules, seed=seed, sample=sample, trust_pickle=trust_pickle)
    tensors, manifest, manifest_path = read_model(p)
    check_signature(manifest, rules, str(manifest_path))
    return as_policy(tensors, manifest, manifest_path, seed=seed, sample=sample)


def convert_sb3_zip(
    path: str | os.PathLike[str], out: str | os.PathLike[str], rules: Rules
) -> Path:
    """Convert a trusted stable-baselines3 MaskablePPO ``.zip`` to a kit model.

    The ``.zip`` holds an ``MlpPolicy``.
    """
    from sb3_contrib import MaskablePPO

    from agents.model_io.sb3_import import sb3_policy_tensors  # the [train] extra: torch, SB3

    model = MaskablePPO.load(str(path), device="cpu")
    tensors, hidden, activation = sb3_policy_tensors(model.policy)
    return save_model(
        out,
        tensors,
        rules=rules,
        hidden=hidden,
        activation=activation,
        training={"converted_from": str(path)},
    )
