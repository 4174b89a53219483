"""Reading a model's manifest: every field a load reads, checked, a wrong one named.

:func:`read_manifest` is the one way :mod:`agents.model_io.kit_model` reads a manifest:
only a regular file of bounded size, strict JSON (no key twice, no NaN or
infinity: :mod:`speed_env.strict_json`) nested no deeper than a real one could
be, the format and its version, each field's type, the network's kind and
activation, a weights name beside it, and (real-time models) presets and
options this kit has. :func:`check_net_tensors` checks the tensors against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.model_io.mlp import ACTIVATIONS, check_tensors, trained_tags
from agents.model_io.rankwise import KIND as RANKWISE
from agents.model_io.rankwise import check_rankwise_tensors
from agents.model_io.tensor_file import (
    MAX_MANIFEST,
    ModelFormatError,
    check_finite,
    is_count,
    model_file_errors,
)
from speed_env import strict_json
from speed_env.rules import PRESETS
from speed_env.user_file import read_regular

FORMAT, FORMAT_VERSION = "speed-rl-policy", 1
"""The manifest's ``format`` and the ``format_version`` this kit reads and writes."""


def read_manifest(path: Path) -> dict[str, Any]:
    """A model's manifest, every field a load reads checked (a wrong one named)."""
    with model_file_errors(path, "model manifest"):
        data = read_regular(path, "model manifest", MAX_MANIFEST)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFormatError(f"cannot read model manifest {path}: {exc}") from None
    try:
        manifest = strict_json.loads(text)
    except strict_json.StrictJSONError as exc:  # a key twice, NaN, an infinity
        raise ModelFormatError(f"model manifest {path}: {exc}") from None
    except ValueError as exc:  # json.JSONDecodeError, or a number too long to read
        raise ModelFormatError(
            f"model manifest {path} is not valid JSON (truncated or corrupted?): {exc}"
        ) from None
    except RecursionError:
        manifest = _TOO_DEEP  # nested past Python's stack: refused below by its depth
    if manifest is _TOO_DEEP or json_depth(manifest) > MAX_DEPTH:
        raise ModelFormatError(
            f"model manifest {path} is nested more than {MAX_DEPTH} levels deep; "
            "a model manifest is not (corrupted or crafted?)"
        )
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFormatError(f'{path} is not a {FORMAT} manifest (no "format": "{FORMAT}")')
    version = manifest.get("format_version")
    if not is_count(version) or version != FORMAT_VERSION:  # true == 1 in Python, not here
        raise ModelFormatError(
            f"{path} has format_version {version!r}; this kit reads {FORMAT_VERSION}"
        )
    for key in ("weights", "weights_sha256", "observation", "net", "rules"):
        if key not in manifest:
            raise ModelFormatError(f"model manifest {path} lacks the key {key!r}")
    for field, ok, want in _MANIFEST_FIELDS:
        value = _field(manifest, field)
        if not ok(value):
            raise ModelFormatError(
                f"model manifest {path}: {field} must be {want}, got {value!r:.200}"
            )
    net = manifest["net"]
    if net.get("kind") not in NET_KINDS or net.get("activation") not in ACTIVATIONS:
        raise ModelFormatError(
            f"model manifest {path}: net must be one of {', '.join(NET_KINDS)} with activation "
            f"in {ACTIVATIONS}, got {net!r:.300}"
        )
    name = manifest["weights"]
    if Path(name).name != name or name in ("", ".", ".."):
        raise ModelFormatError(
            f"model manifest {path}: weights must be a file name beside it, got {name!r}"
        )
    if manifest.get("game", "speed") == "speed":  # another game's rules are its room's to check
        _check_trained_rules(manifest, path)
    return manifest


MAX_DEPTH = 32
"""How deeply a model manifest's JSON may nest (a real one nests 4 levels)."""

_TOO_DEEP = object()


def json_depth(value: Any) -> int:
    """How deeply ``value``, parsed JSON, nests lists and objects: 0 for a scalar.

    Counted without recursion, so any depth is measured.
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _check_trained_rules(manifest: dict[str, Any], path: Path) -> None:
    """Refuse a real-time manifest whose ``rules`` or ``trained_rules`` name no preset this kit
    has, or options the rules refuse: such a model would otherwise load for any rules."""
    listed = [("rules", manifest["rules"])]
    listed += [
        (f"trained_rules[{i}]", d) for i, d in enumerate(manifest.get("trained_rules") or [])
    ]
    for field, rules in listed:
        if rules.get("preset") not in PRESETS:
            raise ModelFormatError(
                f"model manifest {path}: {field}.preset must be one of {', '.join(PRESETS)}, "
                f"got {rules.get('preset')!r:.100}"
            )
    trained_tags(manifest, str(path))  # builds each rules: a refused option is named


NET_KINDS = ("mlp", RANKWISE)
"""The networks a model file may hold (its manifest's ``net.kind``)."""


def check_net_tensors(
    tensors: Mapping[str, np.ndarray], manifest: dict[str, Any], where: str
) -> None:
    """Refuse tensors that do not make the manifest's network, naming them.

    The network is the manifest's ``net.kind``; any tensor holding NaN or an infinity is
    refused too.
    """
    if manifest["net"].get("kind") == RANKWISE:
        check_rankwise_tensors(tensors, manifest, where)
    else:
        check_tensors(tensors, manifest, where)
    check_finite(tensors, where)  # the value head and any other tensor too, not only the policy


def _is_size(x: Any) -> bool:
    return is_count(x) and x > 0  # a JSON whole number > 0


# Each field a load reads, with its check and what it must be (named in the error).


_MANIFEST_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("weights", lambda v: isinstance(v, str), "a file name (a string)"),
    (
        "weights_sha256",
        lambda v: isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v),
        "a SHA-256 as 64 lowercase hex digits",
    ),
    ("rules", lambda v: isinstance(v, dict), "an object"),
    (
        "trained_rules",
        lambda v: v is None or (isinstance(v, list) and all(isinstance(d, dict) for d in v)),
        "a list of objects",
    ),
    ("env_id", lambda v: v is None or isinstance(v, str), "an env id (a string)"),
    ("kit_version", lambda v: v is None or isinstance(v, str), "a version (a string)"),
    ("observation", lambda v: isinstance(v, dict), "an object"),
    ("observation.obs_dim", _is_size, "a whole number > 0"),
    ("observation.n_actions", _is_size, "a whole number > 0"),
    ("net", lambda v: isinstance(v, dict), "an object"),
    (
        "net.hidden",
        lambda v: isinstance(v, list) and all(_is_size(h) for h in v),
        "a list of whole numbers > 0",
    ),
)


def _field(manifest: dict[str, Any], dotted: str) -> Any:
    """``manifest["a"]["b"]`` for ``"a.b"`` (the parents were checked to be objects first)."""
    value: Any = manifest
    for part in dotted.split("."):
        value = value.get(part)
    return value
