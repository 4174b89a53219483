"""``speed train-rllib``: multi-agent PPO with RLlib (train/rllib_ppo.py, the [ray] extra)."""

from __future__ import annotations

import argparse
from typing import Any

from speed_cli.common import add_settings_command, need_ray


def register(sub: Any) -> None:
    """Add ``speed train-rllib`` to the subcommands ``sub``, one flag per setting."""
    from train.rllib_ppo import Config

    add_settings_command(
        sub,
        "train-rllib",
        Config,
        run,
        summary="multi-agent PPO with RLlib: masking, self-play, checkpoints, the kit model",
        description="Multi-agent PPO with RLlib on speed_v1 (train/rllib_ppo.py; the [ray] "
        "extra): one module 'main' trained against itself, a frozen snapshot of itself and kit "
        "bots, illegal actions masked. Writes OUT/progress.csv, OUT/checkpoints/iter_N (RLlib), "
        "OUT/model.json + model.safetensors (play it with ppo:OUT/model.json) and "
        "OUT/summary.json.",
    )


def run(args: argparse.Namespace) -> int:
    """Multi-agent PPO with RLlib (train/rllib_ppo.py): progress, checkpoints, the kit model."""
    need_ray("speed train-rllib")
    from agents.runtime.flags import from_args
    from train import rllib_ppo

    cfg = from_args(rllib_ppo.Config, args)
    rllib_ppo.check(cfg)  # bad settings fail here, before Ray starts
    summary = rllib_ppo.train(cfg)
    print(
        f"{summary['iterations']} iterations in {summary['wall_s']} s; model {summary['model']} "
        f"(play it with ppo:{summary['model']}); checkpoint {summary['checkpoint']}"
    )
    return 0 if summary["complete"] else 130
