"""``speed train``: the game as a subcommand, each with its recipe's own flags.

::

    speed train realtime [flags of train/ppo.py]          (python -m train.ppo, the same flags)
    speed train vintage  [flags of train/vintage_ppo.py]  (python -m train.vintage_ppo)

Each subcommand's flags are made from its recipe's settings dataclass
(:func:`train.common.settings.add_run_flags`), so every flag given reaches the run as
given and every flag not given takes that recipe's default.

The older spellings keep working: ``speed train [--game realtime] FLAGS`` is
``speed train realtime FLAGS``, ``speed train --game vintage FLAGS`` is
``speed train vintage FLAGS``. A flag the chosen recipe does not have is
refused, naming it (``--rules`` with ``--game vintage``), and so is an
ambiguous mix (``--game`` after a subcommand; ``--players`` other than 2 for
real-time Speed): nothing is ever silently dropped or replaced.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from agents.runtime.flags import FlagParser, from_args
from train.common.settings import add_run_flags

__all__ = ["GAMES", "build_parser", "parse", "run"]

# game -> (recipe module, settings class name)
GAMES = {"realtime": ("train.ppo", "Config"), "vintage": ("train.vintage_ppo", "VintageConfig")}
_HELP = {
    "realtime": "real-time Speed (train/ppo.py): the learner against bots, a mix or a self-play "
    "pool on the batched engine; play the model with ppo:OUT/model.json",
    "vintage": "Vintage Speed (train/vintage_ppo.py): the learner at an N-player table; play the "
    "model with vintage-ppo:OUT/model.json",
}


def _recipe(game: str) -> tuple[Any, type]:
    import importlib

    module_name, cls_name = GAMES[game]
    module = importlib.import_module(module_name)
    return module, getattr(module, cls_name)


def build_parser(prog: str = "speed train") -> argparse.ArgumentParser:
    """``speed train`` with one subcommand a game, each holding its recipe's flags."""
    # FlagParser: a flag counts only spelled in full (--timestep is refused by name, not read
    # as --timesteps) and a refusal is one line, here and in each game's subparser.
    parser = FlagParser(
        prog=prog,
        description="Train with sb3-contrib's MaskablePPO. One timestep is one decision of the "
        "learner. Writes OUT/config.json, OUT/state.json, OUT/logs, OUT/eval.csv, OUT/curves.png, "
        "OUT/checkpoints, OUT/model.json + model.safetensors and OUT/summary.json, and holds "
        "OUT/run.lock while it runs (a second run on the same --out is refused, naming it). "
        "--timesteps and --eval-every are rounded up to whole rollouts (said, and recorded in "
        "summary.json); --resume without --timesteps goes on to the run's own budget. The older "
        "spellings `speed train FLAGS` (real-time) and `speed train --game vintage FLAGS` "
        "work too. `speed train bc` (cloning recorded play) and `speed train league` (a "
        "population trained against its own meta-strategy) have flags of their own (--help).",
    )
    games = parser.add_subparsers(dest="game", required=True, metavar="{realtime,vintage}")
    for game in GAMES:
        module, cls = _recipe(game)
        sub = games.add_parser(
            game,
            help=_HELP[game],
            description=(module.__doc__ or "").split("\n\n")[0],
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        add_run_flags(sub, cls)
    return parser


def _pop(argv: list[str], flag: str) -> tuple[str | None, list[str]]:
    """The value of ``flag`` (``--flag V`` or ``--flag=V``; the last one given) and the
    arguments without it."""
    value: str | None = None
    rest: list[str] = []
    i = 0
    while i < len(argv):
        name, eq, given = argv[i].partition("=")
        if name != flag:
            rest.append(argv[i])
            i += 1
            continue
        # A trailing flag with no value reads as "" and is refused by name below.
        value = given if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        i += 1 if eq else 2
    return value, rest


def _legacy(argv: list[str]) -> list[str]:
    """The older spellings as a subcommand: ``[--game G] FLAGS`` is ``G FLAGS``."""
    game, rest = _pop(argv, "--game")
    if game is None:
        game = "realtime"
    if game not in GAMES:
        raise ValueError(f"--game must be realtime or vintage, got {game!r}")
    if game == "realtime":  # --players had a meaning only for --game vintage: 2 is accepted
        players, rest = _pop(rest, "--players")
        if players not in (None, "2"):
            raise ValueError(
                f"--players {players}: real-time Speed has two players; use speed train vintage"
            )
    return [game, *rest]


def parse(argv: Sequence[str], prog: str = "speed train") -> tuple[str, Any]:
    """The game and its recipe's settings from ``speed train``'s arguments (either spelling).

    A flag the game's recipe does not have raises ``ValueError`` naming it; ``--help`` and
    malformed values are argparse's (usage and exit)."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        build_parser(prog).parse_args(argv)  # prints the help (or the usage error) and exits
    if argv[0] in GAMES:
        if any(a == "--game" or a.startswith("--game=") for a in argv[1:]):
            raise ValueError(f"--game: the game is the subcommand (speed train {argv[0]} ...)")
    else:
        argv = _legacy(argv)
    game = argv[0]
    parser = build_parser(prog)
    # Known args only: an unknown flag is then named with its recipe, not with
    # argparse's usage line.
    args, unknown = parser.parse_known_args(argv)
    flags = [a.partition("=")[0] for a in unknown if a.startswith("-")]
    if flags or unknown:
        named = ", ".join(dict.fromkeys(flags)) or " ".join(unknown)
        recipe = GAMES[game][0].replace(".", "/") + ".py"
        raise ValueError(
            f"{named}: not a setting of the {game} recipe ({recipe}; speed train {game} --help "
            "lists its settings)"
        )
    return game, from_args(_recipe(game)[1], args)


def run(argv: Sequence[str], prog: str = "speed train") -> int:
    """``speed train``: parse (:func:`parse`), train, 0 when complete and 130 when interrupted.

    Bad settings raise ``ValueError`` (the CLI prints one line and exits 2)."""
    game, cfg = parse(argv, prog)
    module, _ = _recipe(game)
    train: Callable[[Any], dict[str, Any]] = module.train
    summary = train(cfg)
    return 0 if summary["complete"] else 130
