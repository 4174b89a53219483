"""The two-seat batch doors are frozen: a fingerprint of seeded games through ``BatchEnv`` and
``gymnasium.make_vec``.

``tests/env/test_two_seat_fingerprint.py`` freezes ``parallel_env``; this
file does the same for the batch doors that Party Speed's seat axis passes
through: ``BatchEnv`` (dict and box formats, ``copy=False``,
``autoreset=False``, two threads), ``Speed-v1``'s native vector env and the
self-play rows env (same-step autoreset, so final observations and infos are
in). Every array a caller receives is hashed, infos included (each key, its
dtype, shape and bytes; object arrays by ``repr``). The expected digests were
computed on the tree before the n-seat batch doors (commit a69512b, ``git
archive a69512b``) by this very file. Run ``python
tests/env/test_two_seat_batch_fingerprint.py`` to print the digests of the
tree it imports.
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium
import numpy as np
import pytest

import speed_env

STEPS = 300  # ticks per run: several games end and restart in each
P_WAIT = 0.4  # each seat waits this often; else a uniformly random legal action

# name: (preset, options, BatchEnv keywords)
BATCH_RUNS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "us": ("us", {}, {}),
    "us-box-nocopy-noreset": ("us", {}, {"obs_format": "box", "copy": False, "autoreset": False}),
    "pagat-lock-idle-threads": (
        "pagat",
        {"reserve_rule": "lock", "idle_flip_ms": 120},
        {"threads": 2},
    ),
    "japanese-all": (
        "japanese",
        {"jokers": True, "play_out": True, "stack_layout": True, "multi_play": True},
        {},
    ),
}

# Computed on a69512b (the tree before the n-seat batch doors) by this file.
EXPECTED: dict[str, str] = {
    "batch:us": "185f88b329094dc2edfd217ea0de9440f5f7d1114a8fbebc6c5fb17428a825bc",
    "batch:us-box-nocopy-noreset": (
        "b24736d0b005d28653e5993a78bb5e47f74791808db852a30e955624916af343"
    ),
    "batch:pagat-lock-idle-threads": (
        "3c9bece9ad4576f2caa8818351dbdc1bd1941db0bd896fa9cbe7cea7ec1b0bd2"
    ),
    "batch:japanese-all": "aa2fc16cb58f00402906c2af179164e4bd71f71cb2e470b8322f88ac079201a8",
    "vector:speed-v1": "faecc50c3e3593a0ea0ce8f9088dc881f784f9615d0b5fbb17a59df44d2fbc27",
    "vector:speed-v1-dict-pagat": (
        "dcd755f76a94abc86d50247c0f388f390d7810a06e01da88090d24db8f07a002"
    ),
    "vector:selfplay-same-step": "6f256a5230ee66575f8794dc2c17d75eeba7b0794e9eb7fc2ccac11746de8b3e",
}


def _hash_value(h: Any, value: Any) -> None:
    """Feed one returned value (array, dict of arrays, scalar) into ``h``."""
    if isinstance(value, dict):
        for key in sorted(value):
            h.update(f"<{key}>".encode())
            _hash_value(h, value[key])
        return
    if isinstance(value, list | tuple):
        h.update(f"[{len(value)}]".encode())
        for item in value:
            _hash_value(h, item)
        return
    arr = np.asarray(value)
    h.update(f"{arr.dtype}{arr.shape}".encode())
    if arr.dtype == object:
        h.update(repr(arr.tolist()).encode())
    else:
        h.update(np.ascontiguousarray(arr).tobytes())


def _pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (..., n_actions), waiting often."""
    keys = np.where(mask > 0, rng.random(mask.shape), -1.0)
    actions = keys.argmax(axis=-1).astype(np.int64)
    actions[rng.random(actions.shape) < P_WAIT] = 0
    return actions


def batch_digest(preset: str, options: dict[str, Any], keywords: dict[str, Any]) -> str:
    """sha256 of everything ``BatchEnv`` returns over seeded random play."""
    h = hashlib.sha256()
    env = speed_env.BatchEnv(6, preset, tick_ms=100, **keywords, **options)
    rng = np.random.default_rng(5)
    out = env.reset(seed=123)
    _hash_value(h, {"reset": list(out)})
    for _ in range(STEPS):
        mask = out[1]["action_mask"] if env.obs_format == "box" else out[1]
        out = env.step(_pick(mask, rng))
        _hash_value(h, {"step": list(out)})
        if env.obs_format == "box":
            out = (out[0], out[-1])  # (obs, infos): the mask is in infos
    return h.hexdigest()


def vector_digest(env_id: str, num_envs: int, **kwargs: Any) -> str:
    """sha256 of everything a native vector env returns over seeded random play."""
    h = hashlib.sha256()
    env = gymnasium.make_vec(env_id, num_envs=num_envs, **kwargs)
    rng = np.random.default_rng(6)
    obs, infos = env.reset(seed=77)
    _hash_value(h, {"obs": obs, "infos": infos})
    for _ in range(STEPS):
        obs, rewards, terms, truncs, infos = env.step(_pick(env.action_masks(), rng))
        _hash_value(h, {"obs": obs, "r": rewards, "te": terms, "tr": truncs, "infos": infos})
    env.close()
    return h.hexdigest()


VECTOR_RUNS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "speed-v1": ("speed_env/Speed-v1", 4, {"seat": "random", "tick_ms": 100}),
    "speed-v1-dict-pagat": ("speed_env/Speed-v1", 3, {"rules": "pagat", "obs_format": "dict"}),
    "selfplay-same-step": (
        "speed_env/SpeedSelfPlay-v1",
        6,
        {"tick_ms": 100, "autoreset_mode": "same_step"},
    ),
}


def digests() -> dict[str, str]:
    """Every run's digest, by name."""
    out = {f"batch:{k}": batch_digest(*v) for k, v in BATCH_RUNS.items()}
    for name, (env_id, n, kwargs) in VECTOR_RUNS.items():
        out[f"vector:{name}"] = vector_digest(env_id, n, **kwargs)
    return out


@pytest.mark.parametrize("name", [f"batch:{k}" for k in BATCH_RUNS])
def test_two_seat_batch_env_is_unchanged(name):
    preset, options, keywords = BATCH_RUNS[name.split(":", 1)[1]]
    assert batch_digest(preset, options, keywords) == EXPECTED[name]


@pytest.mark.parametrize("name", [f"vector:{k}" for k in VECTOR_RUNS])
def test_two_seat_vector_envs_are_unchanged(name):
    env_id, n, kwargs = VECTOR_RUNS[name.split(":", 1)[1]]
    assert vector_digest(env_id, n, **kwargs) == EXPECTED[name]


if __name__ == "__main__":
    for key, value in digests().items():
        print(f'    "{key}": "{value}",')
