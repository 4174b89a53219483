"""Register the kit's envs with PettingZoo's and Gymnasium's registries on ``import speed_env``.

======================================  ============================================================
call                                    env
======================================  ============================================================
``pettingzoo.make("parallel",           :func:`speed_env.parallel_env` (kwargs passed through:
"speed_env/speed_v0", **kw)``           ``rules``, ``obs_format``, ``max_cycles`` …)
``pettingzoo.make("aec",                :func:`speed_env.env`
"speed_env/speed_v0", **kw)``
``pettingzoo.make("aec",                :func:`speed_env.vintage.env` (``num_players=N`` …)
"speed_env/vintage_speed_v0", **kw)``
``gymnasium.make("speed_env/Speed-v0",  :class:`speed_env.SpeedGymEnv` (one seat; ``opponent``
rules=..., opponent=...)``              any :class:`~speed_env.policy.Policy`)
``gymnasium.make(                       :class:`speed_env.vintage.single.VintageSingleEnv`
"speed_env/VintageSpeed-v0", ...)``     (one seat; ``num_players``, ``opponents``)
======================================  ============================================================

Entry points are ``"module:name"`` strings, so registering imports nothing
beyond the registries themselves, which ``speed_env`` loads anyway (its envs
subclass PettingZoo's and Gymnasium's). PettingZoo releases before 1.27 have
no registry; there only the PettingZoo entries are skipped. Registering
twice (a reload) leaves the entries as they are.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

import gymnasium

PETTINGZOO_ENVS: dict[str, dict[str, str]] = {
    "parallel": {"speed_env/speed_v0": "speed_env.parallel:parallel_env"},
    "aec": {
        "speed_env/speed_v0": "speed_env.parallel:env",
        "speed_env/vintage_speed_v0": "speed_env.vintage.aec:env",
    },
}
"""PettingZoo registry entries: env type -> {id: entry point}."""

GYMNASIUM_ENVS: dict[str, str] = {
    "speed_env/Speed-v0": "speed_env.single:SpeedGymEnv",
    "speed_env/VintageSpeed-v0": "speed_env.vintage.single:VintageSingleEnv",
}
"""Gymnasium registry entries: id -> entry point."""


def register_pettingzoo(pettingzoo: ModuleType) -> bool:
    """Add :data:`PETTINGZOO_ENVS` to ``pettingzoo``'s registry; False (no-op) if it has none."""
    register = getattr(pettingzoo, "register", None)
    registries: dict[str, Any] = {
        "parallel": getattr(pettingzoo, "parallel_registry", None),
        "aec": getattr(pettingzoo, "aec_registry", None),
    }
    if not callable(register) or any(r is None for r in registries.values()):
        return False
    for env_type, envs in PETTINGZOO_ENVS.items():
        for env_id, entry_point in envs.items():
            # PettingZoo stores ids normalised (speed_v0 -> speed-v0) and warns on re-registering.
            if re.sub(r"_v(?=\d+$)", "-v", env_id) not in registries[env_type]:
                register(env_type, env_id, entry_point=entry_point)
    return True


def register_gymnasium() -> None:
    """Add :data:`GYMNASIUM_ENVS` to Gymnasium's registry."""
    for env_id, entry_point in GYMNASIUM_ENVS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry_point)


def register_all() -> None:
    """Register every env with the registries this environment's PettingZoo and Gymnasium have."""
    import pettingzoo

    register_pettingzoo(pettingzoo)
    register_gymnasium()
