"""``speed train-expert``: expert iteration (train/vintage_expert.py), for the one game it is
built for; its texts are train/vintage/expert_command.py's."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from speed_cli.common import UsageError, add_command_flags, add_settings_command, need_ray


@dataclass(kw_only=True)
class ExpertGame:
    """``--game``: the one game expert iteration is built for, beside ExpertConfig's flags."""

    game: str = ""
    """the game (its one choice and help are train/vintage/expert_command.py's)"""

    @staticmethod
    def flag_extra() -> dict[str, dict[str, Any]]:
        """The one choice, its default and help, from the recipe's command texts."""
        from train.vintage import expert_command

        return {
            "game": {
                "choices": (expert_command.GAME,),
                "default": expert_command.GAME,
                "help": expert_command.GAME_HELP,
                "metavar": None,
            }
        }


def register(sub: Any) -> None:
    """Add ``speed train-expert`` to the subcommands ``sub``, one flag per setting."""
    import train.vintage.expert_command
    import train.vintage_expert

    p = add_settings_command(
        sub,
        "train-expert",
        train.vintage_expert.ExpertConfig,
        run,
        summary=train.vintage.expert_command.SUMMARY,
        description=train.vintage.expert_command.DESCRIPTION,
    )
    add_command_flags(p, ExpertGame)


def run(args: argparse.Namespace) -> int:
    """Run expert iteration; print where the model is and how to play it."""
    import train.vintage_expert
    from agents.runtime.flags import from_args

    cfg = from_args(train.vintage_expert.ExpertConfig, args)
    if cfg.backend == "local" and cfg.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if cfg.backend == "ray":
        need_ray("--backend ray")
    summary = train.vintage_expert.train(cfg)
    print(
        f"{len(summary['rounds'])} rounds in {summary['wall_s']} s; model {summary.get('model')} "
        f"(play it with {summary.get('play_with')})"
    )
    if summary.get("next"):
        print(f"next, pit it against the bots: {summary['next']}")
    return 0 if summary["complete"] else 130
