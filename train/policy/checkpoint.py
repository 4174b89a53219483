"""Moving a MaskablePPO policy to and from the kit's model format, and resumable checkpoints.

A checkpoint is a kit model (``.json`` + ``.safetensors``, value head
included, so ``ppo:PATH`` plays it and evaluation uses it as it is) plus the
optimizer's state (``torch.save`` of tensors only, read back with
``weights_only=True``: nothing is unpickled beyond tensors and plain
containers). Resuming never loads an SB3 ``.zip``.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.model_io.kit_model import read_model, save_model
from agents.model_io.mlp import MLPPolicy
from agents.model_io.sb3_import import sb3_policy_tensors
from agents.model_io.tensor_file import ModelFormatError
from agents.runtime.files import write_atomic
from speed_env.user_file import NotRegularFileError, read_regular


def is_rankwise(model: Any) -> bool:
    """Does this MaskablePPO model have the rank-relative actor (``--policy rankwise``)?"""
    from train.policy.rankwise_policy import RankwisePolicy

    return isinstance(model.policy, RankwisePolicy)


def policy_tensors(model: Any) -> tuple[dict[str, np.ndarray], list[int], str]:
    """The kit tensors (actor and critic), hidden sizes and activation of a MaskablePPO model."""
    if is_rankwise(model):
        from train.policy.rankwise_policy import rankwise_tensors

        return rankwise_tensors(model.policy)
    return sb3_policy_tensors(model.policy)


def _mlp_parameters(policy: Any) -> dict[str, torch.Tensor]:
    """Kit tensor name -> parameter of an SB3 ``MlpPolicy``."""
    ext = policy.mlp_extractor
    targets: dict[str, torch.Tensor] = {}
    for prefix, seq in (("pi", ext.policy_net), ("vf", ext.value_net)):
        linears = [m for m in seq if isinstance(m, torch.nn.Linear)]
        for k, lin in enumerate(linears):
            targets[f"{prefix}.{k}.weight"] = lin.weight
            targets[f"{prefix}.{k}.bias"] = lin.bias
    targets["logits.weight"] = policy.action_net.weight
    targets["logits.bias"] = policy.action_net.bias
    targets["value.weight"] = policy.value_net.weight
    targets["value.bias"] = policy.value_net.bias
    return targets


def load_tensors_into(
    model: Any, tensors: dict[str, np.ndarray], where: str, *, need_value: bool = False
) -> None:
    """Copy kit tensors into a MaskablePPO model's policy of the same architecture.

    The value head is copied when present; an actor-only file leaves the critic as it is
    unless ``need_value``.
    """
    if is_rankwise(model):
        from train.policy.rankwise_policy import parameters_by_name

        targets = parameters_by_name(model.policy)
    else:
        targets = _mlp_parameters(model.policy)
    # All or nothing: a value head with a tensor missing is left out whole, never
    # half copied.
    has_value = all(k in tensors for k in targets if k.startswith(("vf.", "value.")))
    if need_value and not has_value:
        raise ValueError(f"{where} has no value head (vf.*, value.*) to resume from")
    # copy_ into a parameter that requires grad is refused while autograd records.
    with torch.no_grad():
        for name, param in targets.items():
            if name.startswith(("vf.", "value.")) and not has_value:
                continue
            if name not in tensors:
                raise ValueError(f"{where} lacks tensor {name!r} for this network")
            src = torch.as_tensor(np.asarray(tensors[name], np.float32))
            if tuple(src.shape) != tuple(param.shape):
                raise ValueError(
                    f"{where}: tensor {name!r} has shape {tuple(src.shape)} but the network wants "
                    f"{tuple(param.shape)} (another net_arch?)"
                )
            param.copy_(src)


def snapshot_policy(model: Any, *, sample: bool, seed: int) -> MLPPolicy:
    """A frozen numpy copy of the model's actor (for self-play pools and evaluation)."""
    tensors, _, activation = policy_tensors(model)
    if is_rankwise(model):
        from agents.model_io.rankwise import RankwisePolicy

        dim = int(model.observation_space.shape[0])
        return RankwisePolicy(tensors, activation, obs_dim=dim, sample=sample, seed=seed)
    return MLPPolicy(tensors, activation, sample=sample, seed=seed)


def export_model(model: Any, path: str | Path, **manifest: Any) -> Path:
    """Write the model in the kit's format (actor and critic); returns the manifest path.

    ``manifest``: what :func:`agents.model_io.kit_model.save_model` records beside the weights
    (``rules``, ``reaction``, ``tick_ms``, ``training``)."""
    tensors, hidden, activation = policy_tensors(model)
    kind = "rankwise" if is_rankwise(model) else "mlp"
    return save_model(path, tensors, hidden=hidden, activation=activation, kind=kind, **manifest)


def optimizer_path(manifest: Path) -> Path:
    """``STEM.optim.pt`` beside a checkpoint's ``STEM.json``."""
    return manifest.with_name(manifest.with_suffix("").name + ".optim.pt")


def save_optimizer(model: Any, manifest: Path) -> Path:
    """Save the optimizer's state beside the checkpoint ``manifest`` (atomically); its path."""
    # Into bytes first, so the file is written atomically, never half a torch.save.
    buf = io.BytesIO()
    torch.save(model.policy.optimizer.state_dict(), buf)
    return write_atomic(optimizer_path(manifest), buf.getvalue())


@contextlib.contextmanager
def whole_or_absent(stem: Path) -> Iterator[None]:
    """Checkpoint ``stem``'s files made in the block are removed when the block fails.

    A checkpoint is whole or absent: a full disk at the optimizer leaves no weights that a
    reader could take for one. Files there before the block (one at these steps) are kept.
    """
    manifest = stem.with_name(stem.name + ".json")
    files = (manifest, stem.with_name(stem.name + ".safetensors"), optimizer_path(manifest))
    made = [f for f in files if not f.exists()]
    try:
        yield
    except BaseException:
        for f in made:
            f.unlink(missing_ok=True)
        raise


def load_checkpoint(model: Any, manifest: str | Path) -> None:
    """Restore the policy, actor and critic, and the optimizer of a checkpoint.

    The checkpoint is the kit model and :func:`save_optimizer`'s file.
    """
    tensors, _, path = read_model(manifest)
    load_tensors_into(model, tensors, str(path), need_value=True)
    optim = optimizer_path(path)
    # A model saved without its optimizer still loads; Adam then starts afresh.
    if optim.exists():
        model.policy.optimizer.load_state_dict(read_optimizer(optim))


def read_optimizer(path: Path) -> dict[str, Any]:
    """The optimizer state saved by :func:`save_optimizer`, read only from a regular file.

    A named pipe or a device there is refused by name, not read or waited on.
    """
    try:
        blob = read_regular(path, "optimizer state")
    except NotRegularFileError as exc:
        raise ModelFormatError(str(exc.strerror)) from None
    except OSError as exc:
        raise ModelFormatError(f"cannot read optimizer state {path}: {exc.strerror}") from None
    # weights_only: a file found in a run folder must not run code when unpickled.
    state: dict[str, Any] = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    return state
