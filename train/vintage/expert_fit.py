"""What expert iteration fits and how it is judged: the held-out games, the columns of a fit,
and the network's agreement with the search (:mod:`train.vintage_expert`'s steps 2 and 3)."""

from __future__ import annotations

from typing import Any

import numpy as np

from train.vintage.expert_targets import Targets, distribution


def held_out(games: np.ndarray, share: float, seed: int) -> np.ndarray:
    """Flags of the rows whose game is in a seeded ``share`` of the games."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    held = rng.choice(ids, size=max(1, round(len(ids) * share)), replace=False)
    return np.isin(games, held)


def fit_data(
    targets: Targets, scale: np.ndarray, target: str, temperature: float
) -> dict[str, np.ndarray]:
    """The columns train/bc.py's fit reads.

    Scaled observations, mask, ``target`` (``choice`` or ``soft`` at ``temperature``), reward.
    """
    dist = distribution(targets, target, temperature)
    return {
        "obs": targets.obs * scale[None, :],
        "mask": targets.mask,
        # The actions the target weighs: one for choice, every legal one for soft.
        "best": (dist > 0).astype(np.int8),
        "target": dist,
        "ret": targets.ret,
    }


def agreement(policy: Any, targets: Targets, rows: np.ndarray, scale: np.ndarray) -> dict[str, Any]:
    """How often the network's top action agrees with the search.

    - share of ``rows`` where it is the search's choice, or its prior's;
    - share of the rows where the search left its prior that the network follows it.
    """
    import torch

    from train.bc import _forward

    if not len(rows):
        return {"held_out_decisions": 0}
    with torch.no_grad():
        obs = torch.as_tensor(targets.obs[rows] * scale[None, :])
        log_p, _ = _forward(policy, obs, targets.mask[rows])
    top = log_p.argmax(dim=1).numpy()
    choice, prior = targets.choice[rows], targets.prior[rows]
    left = choice != prior  # where the search overrode its prior: what distillation must add
    return {
        "held_out_decisions": len(rows),
        "agrees_with_search": round(float((top == choice).mean()), 4),
        "agrees_with_prior": round(float((top == prior).mean()), 4),
        "held_out_search_left_prior": int(left.sum()),
        "agrees_where_search_left_prior": round(float((top == choice)[left].mean()), 4)
        if left.any()
        else None,
    }
