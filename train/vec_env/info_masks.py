"""``InfoMaskVecEnv``: action masks read from ``infos["action_mask"]``, for MaskablePPO.

MaskablePPO asks a vector env for masks through ``has_attr("action_masks")``
and ``env_method("action_masks")``. A vector env built by SuperSuit
(``pettingzoo_env_to_vec_env_v1`` then ``concat_vec_envs_v1(...,
base_class="stable_baselines3")``) answers neither, so MaskablePPO refuses it,
and plain PPO on it ignores the mask. The kit's envs with ``obs_format="box"``
put each agent's int8 mask in its info dict; this wrapper keeps the latest
one of every sub-env (from ``reset`` infos, then from each ``step``'s infos,
which after an episode ends hold the next episode's first mask) and serves
them as ``action_masks``. It works over any SB3 ``VecEnv`` whose infos carry
``"action_mask"``; a missing mask is an error naming the sub-env.

Seeding: SB3 seeds a vector env by ``seed(s)`` before the next ``reset()``
(``MaskablePPO(seed=s)`` does so). SuperSuit's SB3 wrapper forwards ``seed``
to a Gymnasium vector env that has none, so for such an env this wrapper
passes the seed to that vector env's own ``reset(seed=s)`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

MASK_KEY = "action_mask"
METHOD = "action_masks"


class InfoMaskVecEnv(VecEnvWrapper):
    """Wraps ``venv`` so ``env_method("action_masks")`` returns the masks its infos carried."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self._masks: np.ndarray | None = None
        self._next_seed: int | None = None

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset()``: sub-env ``i`` gets ``seed + i``."""
        self._next_seed = seed
        # As SB3's VecEnv.seed: sub-env i gets seed + i.
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> VecEnvObs:
        """Reset every sub-env and keep the masks of their first observations.

        Seeded if ``seed`` was called.
        """
        # A seed serves one reset only, as in SB3's VecEnv.
        seed, self._next_seed = self._next_seed, None
        inner = getattr(self.venv, "venv", None)
        infos: Sequence[dict[str, Any]]
        if seed is not None and isinstance(inner, gymnasium.vector.VectorEnv):
            # SuperSuit's SB3 wrapper: reset the Gymnasium vector env underneath with the seed
            # (SuperSuit's vector envs return their infos as a list of dicts).
            obs, vector_infos = inner.reset(seed=seed)
            infos = self.venv.reset_infos = list(cast(Sequence[dict[str, Any]], vector_infos))
        else:
            if seed is not None:
                self.venv.seed(seed)
            obs = self.venv.reset()
            infos = self.venv.reset_infos
        self._keep(infos)
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        """Step every sub-env and keep the masks that came with the new observations."""
        obs, rewards, dones, infos = self.venv.step_wait()
        self._keep(infos)
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The int8 masks ``(num_envs, n_actions)`` of the observations last returned."""
        if self._masks is None:
            raise RuntimeError("call reset() before asking for action masks")
        # A copy: the caller may keep it past the next step.
        return self._masks.copy()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The wrapped env's ``get_attr``.

        ``render_mode`` is read off the wrapped env when it cannot say: SuperSuit's vector env
        answers ``get_attr`` for nothing, and SB3 asks it for ``render_mode`` when a wrapper is
        built.
        """
        try:
            return self.venv.get_attr(attr_name, indices)
        except AttributeError:
            if attr_name != "render_mode" or not hasattr(self.venv, "render_mode"):
                raise
            return [self.venv.render_mode] * len(list(self._get_indices(indices)))

    def has_attr(self, attr_name: str) -> bool:
        """True for ``action_masks``; otherwise asks the wrapped env."""
        return attr_name == METHOD or self.venv.has_attr(attr_name)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` per sub-env from the kept infos.

        Any other method goes to the wrapped env.
        """
        if method_name != METHOD:
            return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def _keep(self, infos: Sequence[dict[str, Any]]) -> None:
        masks = []
        for i, info in enumerate(infos):
            if MASK_KEY not in info:
                raise KeyError(
                    f"sub-env {i}'s info has no {MASK_KEY!r}; build the env with obs_format='box' "
                    f"(infos hold: {sorted(info)})"
                )
            masks.append(np.asarray(info[MASK_KEY], dtype=np.int8))
        self._masks = np.stack(masks)
