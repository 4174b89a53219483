"""``speed train``: MaskablePPO (train/ppo.py; ``--game vintage``: train/vintage_ppo.py) with
logs, gauntlet evaluations, checkpoints, curves and the model; one flag per setting."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from typing import Any

from speed_cli import specs
from speed_cli.common import UsageError, config_from_args, field_flag


def register(sub: Any) -> None:
    """Add ``speed train`` to the subcommands ``sub``."""
    tr = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (logs, gauntlet evaluations, checkpoints, curves, model)",
        description="Train with sb3-contrib's MaskablePPO (train/ppo.py). One timestep is one "
        "decision of the learner. Writes OUT/logs (TensorBoard, CSV), OUT/eval.csv, "
        "OUT/curves.png, OUT/checkpoints, OUT/model.json + model.safetensors (play it with "
        "ppo:OUT/model.json).",
    )
    with contextlib.suppress(ImportError):  # without the [train] extra, `speed train` says so
        _config_flags(tr)
    tr.add_argument(
        "--game",
        choices=("realtime", "vintage"),
        default="realtime",
        help="vintage: train/vintage_ppo.py (MaskablePPO at an N-player table; its own defaults "
        "for any flag not given; writes OUT/model.json, play it with vintage-ppo:OUT/model.json)",
    )
    tr.add_argument(
        "--players", type=int, default=None, help="vintage: players at the table, 2-10 (default 4)"
    )
    tr.set_defaults(func=run)


def _config_flags(p: argparse.ArgumentParser) -> None:
    """One flag per field of ``train.ppo.Config``, its docstring as the help."""
    from train.ppo import Config, field_help
    from train.ppo_common import PPOHyperparams

    helps = field_help(Config)
    ppo_names = {f.name for f in dataclasses.fields(PPOHyperparams)}
    ppo_group = p.add_argument_group("PPO settings (train/ppo_common.py)")
    fields = dataclasses.fields(Config)
    # The recipe's own settings first, then PPO's (the dataclass lists its base's fields first).
    for f in [f for f in fields if f.name not in ppo_names] + [
        f for f in fields if f.name in ppo_names
    ]:
        field_flag(ppo_group if f.name in ppo_names else p, f, helps.get(f.name, ""))


def run(args: argparse.Namespace) -> int:
    """Train a MaskablePPO agent (train/ppo.py): logs, evaluations, checkpoints, curves, the
    model."""
    try:
        from train import ppo
    except ImportError as exc:  # pragma: no cover - the [train] extra is missing
        raise UsageError(
            f"speed train needs the [train] extra (pip install 'speed-rl[train]'): {exc}"
        ) from None
    if args.game == "vintage":  # train/vintage_ppo.py; the flags given override its own defaults
        from train import vintage_ppo

        changed = {
            f.name: getattr(args, f.name)
            for f in dataclasses.fields(ppo.Config)
            if getattr(args, f.name) != f.default
        }
        summary = vintage_ppo.train(vintage_ppo.config_from_flags(changed, players=args.players))
        return 0 if summary["complete"] else 130
    if args.players not in (None, 2):
        raise UsageError(
            f"--players {args.players}: real-time Speed has two players; use --game vintage"
        )
    cfg = config_from_args(ppo.Config, args)
    # An unknown opponent, gauntlet bot or cloned bot fails here, before any work.
    specs.check_specs(specs.split_list(cfg.opponent), skip="self")
    specs.check_specs(specs.split_list(cfg.eval_opponents))
    if cfg.init_bc:
        specs.check_specs([cfg.init_bc])
    summary = ppo.train(cfg)
    return 0 if summary["complete"] else 130
