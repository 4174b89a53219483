"""The learned agents built from model files: ``ppo:PATH``, ``trained`` (another game's
are its room's, :mod:`agents.model_io.vintage`).

Reading and checking the files is :mod:`agents.model_io.kit_model`'s; this parses the
specs' arguments (``?sample``, ``?trust``) and picks the bundled model that
was trained on the rules asked for.
"""

from __future__ import annotations

from pathlib import Path

from agents.model_io import kit_model
from agents.model_io.kit_model import load_policy
from agents.model_io.manifest import read_manifest
from agents.model_io.mlp import MLPPolicy
from agents.model_io.rules_signature import check_signature
from agents.model_io.tensor_file import ModelFormatError
from speed_env.observation import rules_tag, tag_label
from speed_env.rules import Rules


def spec_flags(arg: str, spec: str, known: tuple[str, ...]) -> tuple[str, set[str]]:
    """``PATH`` and the options after ``?`` (joined by ``&`` or ``?``) of a spec's argument."""
    path, _, query = arg.partition("?")
    flags = {f for f in query.replace("&", "?").split("?") if f}
    if flags - set(known):
        raise ModelFormatError(
            f"unknown option(s) {', '.join(sorted(flags - set(known)))} in {spec}:{arg}; "
            f"known: {', '.join(known)}"
        )
    return path, flags


def policy_from_spec_arg(arg: str, rules: Rules, seed: int | None) -> MLPPolicy:
    """Build the ``ppo:PATH[?trust][?sample]`` agent.

    Options come after ``?``, joined by ``&`` or ``?``.
    """
    path, flags = spec_flags(arg, "ppo", ("trust", "sample"))
    if not path:
        raise ModelFormatError(
            "ppo needs a model path: ppo:PATH.json (or ppo:PATH.zip?trust for an SB3 file)"
        )
    return load_policy(
        path, rules, seed=seed, sample="sample" in flags, trust_pickle="trust" in flags
    )


def bundled_models() -> list[Path]:
    """The manifests of every bundled model.

    ``kit_model.BUNDLED``, the default, comes first, then the other ``*.json`` manifests beside
    it, by name.
    """
    default = kit_model.BUNDLED  # read at call time: a test bundles its own
    others = sorted(p for p in default.parent.glob("*.json") if p != default)
    return ([default] if default.exists() else []) + others


def bundled_policy(rules: Rules, seed: int | None, arg: str = "") -> MLPPolicy:
    """The bundled learned agent that was trained on ``rules``.

    It is the first of :func:`bundled_models` that can play them. When none fits, or none is
    bundled, a clear error names each bundled model and what it was trained on.
    """
    models, bundled = bundled_models(), kit_model.BUNDLED
    if not models:
        raise ModelFormatError(
            f"the bundled model {bundled} is missing: this copy of the kit ships without a "
            f"trained agent. Train one (speed train --out runs/NAME), bundle it with "
            f"agents.model_io.copy_model('runs/NAME/model.json', '{bundled.with_suffix('')}'), "
            f"or play a saved file with ppo:PATH"
        )
    refusals = []
    for path in models:
        try:
            check_signature(read_manifest(path), rules, path.name)
        except ModelFormatError as exc:
            # Only the first clause: the advice after ";" would repeat for every model.
            refusals.append(str(exc).split(";")[0])
            continue
        # The first that fits wins: the default model, then the others by name.
        return load_policy(path, rules, seed=seed, sample=arg == "sample")
    raise ModelFormatError(
        f"no bundled model (in {bundled.parent}) plays {tag_label(rules_tag(rules))}: "
        + "; ".join(refusals)
        + "; train one for these rules and bundle it with agents.model_io.copy_model"
    )
