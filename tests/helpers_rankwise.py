"""The torch rank-relative actor loaded with a model file's tensors, for the parity tests."""

from __future__ import annotations

from typing import Any

import numpy as np


def torch_actor(obs_dim: int, hidden: list[int], tensors: dict[str, np.ndarray]) -> Any:
    """A :class:`train.policy.rankwise_policy.RankwiseActor` holding ``tensors`` (ReLU)."""
    import torch

    from train.policy.rankwise_policy import RankwiseActor

    actor = RankwiseActor(obs_dim, hidden, torch.nn.ReLU)
    with torch.no_grad():
        for k in range(len(hidden)):
            actor.act[k].weight.copy_(torch.as_tensor(tensors[f"act.{k}.weight"]))
            actor.act[k].bias.copy_(torch.as_tensor(tensors[f"act.{k}.bias"]))
        for head in ("score", "wait"):
            getattr(actor, head).weight.copy_(torch.as_tensor(tensors[f"{head}.weight"]))
            getattr(actor, head).bias.copy_(torch.as_tensor(tensors[f"{head}.bias"]))
    return actor
