"""Sizes a training run may ask for: hidden layers, stored decisions and memory.

Each limit is checked from the flags, before torch or numpy allocate anything, and the
refusal names the flag: a width of 10**9 or a rollout of millions of decisions would otherwise
fail deep inside an allocator (or take the machine's memory) after the run had started.
"""

from __future__ import annotations

import argparse
from typing import Any

from train.common.numbers import count_list

__all__ = [
    "DECISION_BYTES",
    "MAX_DECISIONS",
    "MAX_LAYERS",
    "MAX_LAYER_WIDTH",
    "check_sizes",
    "hidden",
    "layer_sizes",
    "net_arch_flag",
]

MAX_LAYER_WIDTH = 4096
"""The widest hidden layer ``--net-arch`` takes. The kit's recipes use 64 to 256; a layer of
4,096 already holds 16.8 million weights to the next (about 270 MB with Adam's moments), and a
width of 10**9 would ask torch for terabytes before a single step."""

MAX_LAYERS = 8
"""The most hidden layers ``--net-arch`` lists (the recipes use two)."""


def layer_sizes(text: str) -> list[int]:
    """``"256,256"`` as hidden layer sizes: 1 to :data:`MAX_LAYERS` whole numbers, each 1 to
    :data:`MAX_LAYER_WIDTH`, separated by commas; ``argparse.ArgumentTypeError`` (a
    ``ValueError``) saying what is wrong otherwise, so it serves as a flag's ``type=``."""
    sizes = count_list(1, MAX_LAYER_WIDTH)(text)
    if len(sizes) > MAX_LAYERS:
        raise argparse.ArgumentTypeError(
            f"must list at most {MAX_LAYERS} layer sizes, got {len(sizes)} in {text!r}"
        )
    return sizes


def net_arch_flag(text: str) -> str:
    """``type=`` of ``--net-arch``: the text as given, once :func:`layer_sizes` takes it."""
    layer_sizes(text)
    return text


net_arch_flag.__name__ = "layer_sizes"  # argparse names the type in its messages


def hidden(cfg: Any) -> list[int]:
    """``cfg.net_arch`` (comma-separated; any recipe's settings) as a list of layer sizes, the
    same check as the flag's (a saved config may not have come through the flag)."""
    try:
        return layer_sizes(str(cfg.net_arch))
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"net_arch {exc}") from None


MAX_DECISIONS = 2**22
"""The most decisions a run stores at once: a rollout (``n_steps * n_envs``; the recipes' is
16,384) or the teacher decisions ``init_bc`` records (``bc_decisions``; 300,000 by default)."""

DECISION_BYTES = 2 * (4 * (208 + 48) + 32)
"""Memory one stored decision takes, about: its observation and mask as float32 (at most 205
and 48 entries in the kit's games) and seven float32 columns (action, reward, value, ...),
twice, since SB3 flattens a rollout into a copy to train on."""


def check_sizes(cfg: Any) -> None:
    """Refuse a run too large to hold, naming its flags, before anything is allocated.

    ``cfg`` is any recipe's settings (:class:`train.common.settings.RunSettings`): a
    rollout (``--n-steps * --n-envs``) or ``--bc-decisions`` above :data:`MAX_DECISIONS`
    (ValueError), or its games, rollout and cloning record together above the memory
    available (MemoryError; each game counted as a real-time batch game,
    :func:`speed_env.batch_size.bytes_per_game`, a table of speed_env/vintage/ alike)."""
    from speed_env import engine
    from speed_env.batch_size import bytes_per_game, memory_bound

    rollout = cfg.n_steps * cfg.n_envs
    bc = cfg.bc_decisions if cfg.init_bc else 0
    for what, n in (("--n-steps * --n-envs", rollout), ("--bc-decisions", bc)):
        if n > MAX_DECISIONS:
            raise ValueError(
                f"{what} = {n:,} decisions is more than a run stores at once (at most "
                f"MAX_DECISIONS = {MAX_DECISIONS:,}; {n:,} would take about "
                f"{n * DECISION_BYTES / 1e9:.1f} GB); lower {what.replace(' * ', ' or ')}"
            )
    per_game = bytes_per_game(engine.state_dtype().itemsize, 208, 48)
    need = cfg.n_envs * per_game + (rollout + bc) * DECISION_BYTES
    bound = memory_bound()
    if bound is not None and need > bound[0]:
        cloning = f" and --bc-decisions {bc:,}" if bc else ""
        raise MemoryError(
            f"--n-envs {cfg.n_envs:,} with --n-steps {cfg.n_steps:,} (a rollout of {rollout:,} "
            f"decisions){cloning} would take about {need / 1e9:.1f} GB, more than the "
            f"{bound[0] / 1e9:.1f} GB of memory available under {bound[1]}"
        )
