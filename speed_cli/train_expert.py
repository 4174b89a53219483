"""``speed train-expert --game vintage``: expert iteration (train/vintage_expert.py)."""

from __future__ import annotations

import argparse
from typing import Any

from speed_cli.common import UsageError, add_settings_command, need_ray


def register(sub: Any) -> None:
    """Add ``speed train-expert`` to the subcommands ``sub``, one flag per setting."""
    from train.vintage_expert import ExpertConfig

    p = add_settings_command(
        sub,
        "train-expert",
        ExpertConfig,
        run,
        summary="expert iteration: vintage-search targets distilled into a network, in rounds",
        description="Expert iteration for Vintage Speed (train/vintage_expert.py): each round "
        "plays games of search targets (chunked jobs: --workers, --backend local|ray, the same "
        "OUT/round_R/targets.safetensors for one --seed), fits the network to them and measures "
        "it against --eval-opponents. Writes OUT/model.json + model.safetensors (the best round; "
        "play it with vintage-ppo:OUT/model.json) and OUT/summary.json.",
    )
    p.add_argument(
        "--game",
        choices=("vintage",),
        default="vintage",
        help="the game (expert iteration is built for Vintage Speed only)",
    )


def run(args: argparse.Namespace) -> int:
    """Run expert iteration; print where the model is and how to play it."""
    from train import vintage_expert
    from train.common.settings import from_args

    cfg = from_args(vintage_expert.ExpertConfig, args)
    if cfg.backend == "local" and cfg.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if cfg.backend == "ray":
        need_ray("--backend ray")
    summary = vintage_expert.train(cfg)
    print(
        f"{len(summary['rounds'])} rounds in {summary['wall_s']} s; model {summary.get('model')} "
        f"(play it with {summary.get('play_with')})"
    )
    if summary.get("next"):
        print(f"next, pit it against the bots: {summary['next']}")
    return 0 if summary["complete"] else 130
