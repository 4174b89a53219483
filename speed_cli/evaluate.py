"""``speed evaluate``: any agent's report card under the fixed protocol
(agents/evaluate/make_card.py); ``speed leaderboard``: cards of one protocol version merged into a
ranked table."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from speed_cli.common import (
    DEAL_SEED,
    ActTimeoutFlag,
    BackendFlags,
    GameFlag,
    OverwriteFlag,
    PlayersFlag,
    UsageError,
    add_command_flags,
    backend,
    count,
    real,
)


@dataclass(kw_only=True)
class EvaluateSettings(BackendFlags, OverwriteFlag, ActTimeoutFlag, PlayersFlag, GameFlag):
    """``speed evaluate``'s settings: one argument a field."""

    spec: str = field(metadata={"metavar": "SPEC"})
    """the agent (py:my_bot.py:Bot, chain, ppo:PATH …)"""
    games: int | None = field(default=None, metadata={"type": count(2)})
    """games per pairing or table (default: the protocol's 200; more gives tighter intervals;
    fewer makes a quick card, marked so)"""
    seed: int | None = field(default=None, metadata={"type": DEAL_SEED})
    """seed of the deals (default: the protocol's; another makes a replication)"""
    protocol: int | None = field(default=None, metadata={"type": count(1)})
    """the evaluation protocol's version (default: the game's newest, real-time Speed's 2, which
    charges every agent's thinking as latency: docs/thinking-time.md; 1 plays it free)"""
    think_file: str | None = field(default=None, metadata={"metavar": "FILE"})
    """with --protocol 2: charge the agent the cost recorded in FILE (a think.json or a card's
    calibration) instead of timing it, so the card repeats byte for byte"""
    out: str = "card"
    """output folder (default: card)"""
    human: str | None = field(default=None, metadata={"metavar": "DIR_OR_MINARI_ID"})
    """add human-likeness to the card: agreement with a person's recorded plays and the distance
    between the reaction times (a speed play --record folder or a Minari dataset id, as speed
    train bc --data)"""
    human_seat: Literal["human", "bot", "any"] = "human"
    """whose records of a --human folder to compare with (default human)"""
    exploit_minutes: float | None = field(
        default=None, metadata={"type": real(above=0.0, below=1e6), "metavar": "M"}
    )
    """add the exploiter's line to the card: a best response to SPEC trained for M minutes
    (speed exploit's recipe, in OUT/exploit) and its score against SPEC over 1,000 paired games;
    costs M minutes plus those games (the [train] extra; real-time cards only; default: off)"""
    # two processes by default, as the reaction experiment: the card is the same for any number,
    # and the search opponent (70% of its CPU time) keeps both cores busy
    workers: int = field(default=2, metadata={"type": count(1)})

    @staticmethod
    def flag_extra() -> dict[str, dict[str, Any]]:
        """``--game``'s help: each registered game's card in a few words; ``--players``'s: the
        card's tables are its protocol's."""
        return {
            "game": {"help": _game_help()},
            "players": {
                "help": "2 (the real-time card's protocol); a table of 3 or 4 is a tournament: "
                "speed tournament --players N"
            },
        }


@dataclass(kw_only=True)
class LeaderboardSettings:
    """``speed leaderboard``'s settings: one argument a field."""

    cards: list[str] = field(metadata={"metavar": "CARD"})
    """report.json files, their folders, or a folder of card folders"""
    out: str = "leaderboard"
    """output folder (default: leaderboard)"""


def register(sub: Any) -> None:
    """Add ``speed evaluate`` and ``speed leaderboard`` to the subcommands ``sub``."""
    ev = sub.add_parser(
        "evaluate",
        help="an agent's report card under the fixed evaluation protocol",
        description="Play SPEC through the fixed, versioned evaluation protocol (opponents, "
        "rule sets, paired deals, reaction: docs/evaluate.md) and write report.json, report.md "
        "and report.png. SPEC is any agent spec, your own included: py:my_bot.py:Bot or "
        "package.module:NAME.",
    )
    add_command_flags(ev, EvaluateSettings)
    ev.set_defaults(func=run)

    lb = sub.add_parser(
        "leaderboard",
        help="merge report cards into a ranked table with intervals",
        description="Rank report cards (report.json files, folders holding one, or folders of "
        "such folders) of one protocol version and game; writes leaderboard.md and "
        "leaderboard.png.",
    )
    add_command_flags(lb, LeaderboardSettings)
    lb.set_defaults(func=run_leaderboard)


def run(args: argparse.Namespace) -> int:
    """Make the card (:func:`agents.evaluate.card_folder.play`) and print it."""
    from agents.evaluate import card_folder
    from agents.evaluate import report as eval_report
    from agents.games.registry import game_of_spec
    from agents.runtime import run_identity
    from agents.tournament.run_folder import AlreadyFinished

    owner = game_of_spec(args.spec)
    if owner.name != args.game and owner.knows(args.spec):  # another game's agent: say which
        raise UsageError(f"{args.spec!r} plays {owner.title}: evaluate it with --game {owner.name}")
    _check_players(args)
    exploiter = None if args.exploit_minutes is None else _exploiter(args)
    request = card_folder.CardRequest(
        args.spec,
        args.game,
        args.games,
        args.seed,
        act_timeout=args.act_timeout,
        version=protocol_version(args),
        think_file=args.think_file,
    )
    settings = run_identity.flag_settings(args, positional=("spec",))
    # The version played, given or not: --protocol 2 and no flag make one card, one identity.
    settings["--protocol"] = request.version
    if exploiter is None:  # a card without the line: run.json as before the flag existed
        del settings["--exploit-minutes"]
    del settings["--players"]  # the protocol's tables: run.json as before the flag existed
    made = card_folder.play(
        request,
        args.out,
        settings=settings,
        human=None if args.human is None else partial(_human_likeness, args),
        exploiter=exploiter,
        overwrite=args.overwrite,
        workers=args.workers,
        backend=backend(args),
    )
    if made is None:
        return 130
    if isinstance(made, AlreadyFinished):
        print(made.message)
        return 0
    if isinstance(made, (card_folder.Unfinished, card_folder.ExploiterUnfinished)):
        print(made.message(), file=sys.stderr)
        return 130
    print(eval_report.markdown(made.card))
    wall = sum(made.card["timing"].get(k, 0.0) for k in ("wall_s", "exploiter_wall_s"))
    print(f"wrote {', '.join(str(p) for p in made.paths)} in {wall:.0f} s")
    return 0


def _check_players(args: argparse.Namespace) -> None:
    """Refuse, in one line, a ``--players`` the card's protocol does not seat."""
    if args.players is None or (args.players == 2 and args.game == "realtime"):
        return
    if args.game != "realtime":
        raise UsageError(
            f"--players {args.players}: the {args.game} card's tables are its protocol's; a "
            f"report at {args.players} players is a tournament table: speed tournament --game "
            f"{args.game} --players {args.players} --agents {args.spec},..."
        )
    table = ",".join([args.spec, *[b for b in ("random", "greedy", "chain") if b != args.spec]])
    raise UsageError(
        f"--players {args.players}: a report card plays the two-player protocol; a report at "
        f"{args.players} players is a tournament table: speed tournament --players "
        f"{args.players} --agents {table}"
    )


def _exploiter(args: argparse.Namespace) -> Any:
    """The card's exploiter (train/exploit_card.py); refused in one line where it cannot run."""
    if args.game != "realtime":
        raise UsageError(
            f"--exploit-minutes trains a real-time exploiter: leave it out with --game {args.game}"
        )
    if importlib.util.find_spec("sb3_contrib") is None:
        raise UsageError(
            "--exploit-minutes needs the [train] extra (torch, sb3-contrib): "
            "pip install 'speed-rl[train]'"
        )
    from train.exploit_card import CardExploiter

    return CardExploiter(minutes=args.exploit_minutes, eval_workers=args.workers)


def protocol_version(args: argparse.Namespace) -> int:
    """``--protocol``, or the game's default version; one the kit lacks is refused in a line."""
    from agents.evaluate import protocol

    version = protocol.default_version(args.game) if args.protocol is None else args.protocol
    try:
        protocol.protocol(args.game, version)
    except protocol.ProtocolError as exc:
        raise UsageError(f"--protocol: {exc}") from None
    return version


def _human_likeness(args: argparse.Namespace, plan: Any) -> dict[str, Any]:
    """The card's ``human_likeness`` section (measured before the games: bad data fails fast)."""
    from agents.evaluate import protocol
    from speed_env.reaction import make_profile
    from train.realtime import human_likeness

    if args.game != "realtime":
        raise UsageError(f"--human compares real-time play: leave it out with --game {args.game}")
    default = make_profile(protocol.protocol("realtime", plan.version)["reaction"])
    try:
        return human_likeness.measure(args.spec, args.human, args.human_seat, default, plan.seed)
    except ValueError as exc:
        raise UsageError(f"--human: {exc}") from None


def run_leaderboard(args: argparse.Namespace) -> int:
    """Merge the cards, print the table, write leaderboard.md and leaderboard.png."""
    from agents.evaluate import report as eval_report
    from agents.evaluate.card_check import CardError
    from agents.runtime.files import check_writable, write_together

    try:
        board = eval_report.leaderboard(args.cards)
    except CardError as exc:
        raise UsageError(str(exc)) from None
    out = check_writable(Path(args.out))
    text = eval_report.leaderboard_md(board)
    png = eval_report.leaderboard_png(board)
    write_together({out / "leaderboard.md": text.encode(), out / "leaderboard.png": png})
    print(text)
    print(f"wrote {out / 'leaderboard.md'}, {out / 'leaderboard.png'}")
    return 0


def _game_help() -> str:
    """``--game``'s help: each registered game's card in a few words."""
    from agents.evaluate.protocol import card_games

    return " or ".join(f"{card.name} ({card.about})" for card in card_games())
