"""The two observation formats every env offers: ``"dict"`` and ``"box"``.

``"dict"``
    PettingZoo's classic convention: the observation is
    ``{"observation": float32 vector, "action_mask": int8 vector}``.
``"box"``
    The flat float32 vector alone (a ``Box``), for pipelines that expect one
    array (SuperSuit's wrappers, default networks, vector envs); the mask
    travels beside it in ``infos[agent]["action_mask"]`` (int8), as AgileRL,
    Tianshou and TorchRL read it.

Both carry the same numbers; only the packaging differs. The env modules
call these helpers so the two formats are defined once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

OBS_FORMATS = ("dict", "box")


def check_obs_format(obs_format: object) -> str:
    """``obs_format`` if it is one of :data:`OBS_FORMATS`, else a ``ValueError`` naming them."""
    if not isinstance(obs_format, str) or obs_format not in OBS_FORMATS:
        raise ValueError(f"obs_format must be one of {OBS_FORMATS}, got {obs_format!r}")
    return obs_format


def observation_space(obs_format: str, vector: spaces.Box, n_actions: int) -> spaces.Space:
    """The space of one agent's observation: ``vector`` itself, or the classic dict around it."""
    if obs_format == "box":
        return vector
    return spaces.Dict(
        {"observation": vector, "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)}
    )


def package(obs_format: str, vector: np.ndarray, mask: np.ndarray) -> tuple[Any, dict[str, Any]]:
    """One agent's ``(observation, info entries)`` from its own (unaliased) vector and mask."""
    if obs_format == "box":
        return vector, {"action_mask": mask}
    return {"observation": vector, "action_mask": mask}, {}
