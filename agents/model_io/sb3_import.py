"""Stable-baselines3 ``.zip`` models: load one (only when trusted) or read its network's tensors.

A plain SB3 ``.zip`` unpickles Python objects when loaded, which can run
arbitrary code: :func:`load_sb3_zip` refuses it unless the caller says the
file is trusted (``ppo:PATH.zip?trust``); :func:`agents.model_io.kit_model.convert_sb3_zip`
converts one to the kit's format once. Needs the ``[train]`` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.model_io.mlp import MLPPolicy, check_tensors
from agents.model_io.rules_signature import check_signature, signature
from agents.model_io.tensor_file import ModelFormatError
from speed_env.rules import Rules


def load_sb3_zip(
    path: Path, rules: Rules, *, seed: int | None, sample: bool, trust_pickle: bool
) -> MLPPolicy:
    """A trusted SB3 MaskablePPO ``.zip`` as a Policy for ``rules``.

    Refused without ``trust_pickle``.
    """
    if not trust_pickle:
        raise ModelFormatError(
            f"{path} is a stable-baselines3 .zip, which unpickles Python objects (and so can run "
            f"code) when loaded; pass ppo:{path}?trust (or trust_pickle=True) if you trust where "
            "it came from, or convert it once to the kit's format with "
            "agents.model_io.kit_model.convert_sb3_zip"
        )
    if not path.exists():
        raise ModelFormatError(f"model file {path} does not exist")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:  # pragma: no cover - the [train] extra is missing
        raise ModelFormatError(
            f"loading {path} needs sb3-contrib, the [train] extra: `make setup` in a clone, or "
            "torch's CPU build first (pip install torch==2.13.0 --index-url "
            "https://download.pytorch.org/whl/cpu), then pip install 'speed-rl[train]'"
        ) from None
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:  # any failure inside SB3's loader means a file it cannot read
        raise ModelFormatError(
            f"cannot load {path} as a MaskablePPO model: {type(exc).__name__}: {exc}"
        ) from None
    tensors, hidden, activation = sb3_policy_tensors(model.policy)
    sig = signature(rules)
    obs_shape = model.observation_space.shape or (0,)
    manifest = {
        "observation": {
            **sig,
            "obs_dim": int(obs_shape[0]),
            "n_actions": int(getattr(model.action_space, "n", 0)),
        },
        # An SB3 .zip records no rules: "?" is no preset, so trained_tags gives None and
        # the rules check is skipped; the signature check above still applies.
        "rules": {"preset": "?"},
        "net": {"kind": "mlp", "hidden": hidden, "activation": activation},
    }
    check_signature(manifest, rules, str(path))
    check_tensors(tensors, manifest, str(path))
    return MLPPolicy(
        tensors, activation, sample=sample, seed=seed, manifest=manifest, source=str(path)
    )


def sb3_policy_tensors(policy: Any) -> tuple[dict[str, np.ndarray], list[int], str]:
    """An SB3 ``MaskableActorCriticPolicy``'s MLP as kit tensors, hidden sizes and activation.

    Refuses anything but the plain ``MlpPolicy`` shape (Linear/activation
    stacks for the actor and the critic, no shared layers).
    """
    from torch import nn

    extractor = policy.mlp_extractor
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    out: dict[str, np.ndarray] = {}
    hidden: list[int] = []
    activation = None
    for prefix, seq in (("pi", extractor.policy_net), ("vf", extractor.value_net)):
        k = 0
        for mod in seq:
            if isinstance(mod, nn.Linear):
                # Linear layers are numbered apart from activations, so pi.K is the K-th Linear
                # whatever SB3's Sequential index.
                out[f"{prefix}.{k}.weight"] = mod.weight.detach().cpu().numpy().astype(np.float32)
                out[f"{prefix}.{k}.bias"] = mod.bias.detach().cpu().numpy().astype(np.float32)
                if prefix == "pi":
                    hidden.append(int(mod.out_features))
                k += 1
            elif type(mod) in acts:
                if activation not in (None, acts[type(mod)]):
                    raise ModelFormatError("the policy mixes activations; only one is supported")
                activation = acts[type(mod)]
            else:
                raise ModelFormatError(
                    f"unsupported layer {type(mod).__name__} in the policy network"
                )
    if getattr(extractor, "shared_net", None) is not None and len(list(extractor.shared_net)) > 0:
        raise ModelFormatError("policies with shared layers are not supported")
    out["logits.weight"] = policy.action_net.weight.detach().cpu().numpy().astype(np.float32)
    out["logits.bias"] = policy.action_net.bias.detach().cpu().numpy().astype(np.float32)
    out["value.weight"] = policy.value_net.weight.detach().cpu().numpy().astype(np.float32)
    out["value.bias"] = policy.value_net.bias.detach().cpu().numpy().astype(np.float32)
    # No activation layer at all (no hidden layers): SB3's own default names it.
    return out, hidden, activation or "tanh"
