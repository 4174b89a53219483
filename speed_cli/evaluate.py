"""``speed evaluate``: any agent's report card under the fixed protocol
(agents/evaluate/make_card.py); ``speed leaderboard``: cards of one protocol version merged into a
ranked table."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from speed_cli.common import (
    DEAL_SEED,
    UsageError,
    add_act_timeout_flag,
    add_backend_flags,
    add_game_flag,
    add_overwrite_flag,
    backend,
    count,
    run_chunks,
)


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
    ev.add_argument("spec", metavar="SPEC", help="the agent (py:my_bot.py:Bot, chain, ppo:PATH …)")
    add_game_flag(ev, _game_help())
    ev.add_argument(
        "--games",
        type=count(2),
        default=None,
        help="games per pairing or table (default: the protocol's 200; more gives tighter "
        "intervals; fewer makes a quick card, marked so)",
    )
    ev.add_argument(
        "--seed",
        type=DEAL_SEED,
        default=None,
        help="seed of the deals (default: the protocol's; another makes a replication)",
    )
    ev.add_argument(
        "--protocol",
        type=count(1),
        default=None,
        help="the evaluation protocol's version (default 1; 2 charges every agent's thinking "
        "as latency: docs/thinking-time.md)",
    )
    ev.add_argument(
        "--think-file",
        default=None,
        metavar="FILE",
        help="with --protocol 2: charge the agent the cost recorded in FILE (a think.json or "
        "a card's calibration) instead of timing it, so the card repeats byte for byte",
    )
    ev.add_argument("--out", default="card", help="output folder (default: card)")
    add_overwrite_flag(ev)
    ev.add_argument(
        "--human",
        metavar="DIR_OR_MINARI_ID",
        default=None,
        help="add human-likeness to the card: agreement with a person's recorded plays and the "
        "distance between the reaction times (a speed play --record folder or a Minari dataset "
        "id, as speed train bc --data)",
    )
    ev.add_argument(
        "--human-seat",
        choices=("human", "bot", "any"),
        default="human",
        help="whose records of a --human folder to compare with (default human)",
    )
    # two processes by default, as the reaction experiment: the card is the same for any number,
    # and the search opponent (70% of its CPU time) keeps both cores busy
    add_backend_flags(ev, workers=2)
    add_act_timeout_flag(ev)
    ev.set_defaults(func=run)

    lb = sub.add_parser(
        "leaderboard",
        help="merge report cards into a ranked table with intervals",
        description="Rank report cards (report.json files, folders holding one, or folders of "
        "such folders) of one protocol version and game; writes leaderboard.md and "
        "leaderboard.png.",
    )
    lb.add_argument(
        "cards",
        nargs="+",
        metavar="CARD",
        help="report.json files, their folders, or a folder of card folders",
    )
    lb.add_argument("--out", default="leaderboard", help="output folder (default: leaderboard)")
    lb.set_defaults(func=run_leaderboard)


def run(args: argparse.Namespace) -> int:
    """Make the card: plan, play under a progress bar, summarise, write the three files."""
    from agents import evaluate
    from agents.games.registry import game_of_spec
    from agents.runtime import run_identity

    owner = game_of_spec(args.spec)
    if owner.name != args.game and owner.knows(args.spec):  # another game's agent: say which
        raise UsageError(f"{args.spec!r} plays {owner.title}: evaluate it with --game {owner.name}")
    plan = evaluate.make_plan(
        args.spec, game=args.game, games=args.games, seed=args.seed, act_timeout=args.act_timeout,
        version=protocol_version(args), think_file=args.think_file,
    )  # fmt: skip
    human = _human_likeness(args, plan) if args.human is not None else None
    jobs = backend(args)
    identity = run_identity.RunIdentity(
        "speed evaluate",
        run_identity.flag_settings(args, positional=("spec",)),
        # The agent's files, and what --human measured (it changes when the records do).
        {args.spec: plan.files, **({"--human": human} if human is not None else {})}
        # The cost a --think-file records is what the card charges: its bytes are an input.
        | (run_identity.file_digest(args.think_file) if args.think_file is not None else {}),
    )
    # One writer per folder, as tournaments and training: another is refused; a finished card
    # of another agent or other settings is never replaced.
    with run_identity.RunOutput(
        args.out, identity, results=("report.json", "report.md"), overwrite=args.overwrite
    ) as run_folder:
        if run_folder.done is not None:
            print(run_folder.done)
            return 0
        return _evaluate(args, plan, jobs, run_folder, human)


def protocol_version(args: argparse.Namespace) -> int:
    """``--protocol``, or the kit's default version; one the kit lacks is refused in a line."""
    from agents.evaluate import protocol

    version = protocol.PROTOCOL_VERSION if args.protocol is None else args.protocol
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


def _evaluate(
    args: argparse.Namespace, plan: Any, jobs: Any, run_folder: Any, human: dict[str, Any] | None
) -> int:
    """Play ``plan`` into ``run_folder`` (a :class:`agents.runtime.run_identity.RunOutput`, its
    lock held) and write the card."""
    from agents import evaluate
    from agents.evaluate import report as eval_report

    t0 = time.perf_counter()
    done = run_chunks(
        f"evaluate {args.spec}",
        lambda progress: _listed(
            evaluate.run_plan(plan, workers=args.workers, progress=progress, backend=jobs)
        ),
    )
    if done is None:
        return 130
    (by_group,), complete, _ = done
    if not complete:
        print("interrupted: a card needs every game; nothing written", file=sys.stderr)
        return 130
    timing: dict[str, Any] = {}
    if args.game == "realtime" and "us" not in plan.skipped:
        timing["decision_cost"] = evaluate.decision_cost(args.spec, plan.version)
    timing["wall_s"] = round(time.perf_counter() - t0, 2)
    card = evaluate.card(plan, by_group, timing=timing, human_likeness=human)
    paths = eval_report.write_card(run_folder.path, card)
    run_folder.finish(paths)
    print(eval_report.markdown(card))
    print(f"wrote {', '.join(str(p) for p in paths)} in {timing['wall_s']:.0f} s")
    return 0


def _listed(result: tuple[dict[str, list[Any]], bool]) -> tuple[list[Any], bool]:
    """``run_plan``'s results as the one-item list ``run_chunks`` expects."""
    return [result[0]], result[1]


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
