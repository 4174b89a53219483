"""``speed tournament``: a round robin (or gauntlet) of one game's agents (``--game``, a
:class:`agents.tournament.game.Game` from :mod:`agents.games.registry`); a leaderboard,
ratings, result files and plots."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from speed_cli import specs, think
from speed_cli.common import (
    DEAL_SEED,
    ActTimeoutFlag,
    BackendFlags,
    GameFlag,
    OverwriteFlag,
    PlayersFlag,
    RuleFlags,
    UsageError,
    add_command_flags,
    backend,
    count,
    finish,
    reactions,
)


@dataclass(kw_only=True)
class TournamentSettings(
    think.ThinkFlags, BackendFlags, RuleFlags, OverwriteFlag, ActTimeoutFlag, PlayersFlag, GameFlag
):
    """``speed tournament``'s settings: one flag a field."""

    reaction: str = field(default="human", metadata={"type": reactions(1)})
    """reaction profile of agents without @: ms or a profile name"""
    agents: str | None = None
    """agent specs, comma-separated"""
    games: int = field(default=2000, metadata={"type": count(2)})
    """games per pairing (half as many deals)"""
    seed: int = field(default=0, metadata={"type": DEAL_SEED})
    """seed of the deals (deal d is seeded (seed << 32) + d)"""
    gauntlet: str | None = field(default=None, metadata={"metavar": "AGENT"})
    """only this agent against each other"""
    out: str = "results"
    """output folder"""
    resume: bool = False
    """continue the interrupted tournament in --out (give the same settings): only the chunks it
    did not finish are played, and the results are an uninterrupted run's"""
    save_replays: int = field(default=0, metadata={"type": count(0), "metavar": "N"})
    """record N games as JSON Lines"""
    match: bool = False
    """us/pagat: also score matches, consecutive games of a pairing (seats alternating, paired
    deals) until a seat has match_target points (--option match_target=N)"""


def register(sub: Any) -> None:
    """Add ``speed tournament`` to the subcommands ``sub``."""
    tour = sub.add_parser(
        "tournament", help="round robin on paired deals: leaderboard, ratings, plots"
    )
    add_command_flags(tour, TournamentSettings)
    tour.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Round robin (or gauntlet) of ``--game``'s agents; leaderboard, files and plots."""
    from agents.errors import AgentSpecError
    from agents.games.registry import GAMES, game_of_spec, load_game
    from agents.runtime import run_identity
    from agents.tournament import run_folder
    from agents.tournament.game import TournamentRequest

    game = load_game(args.game)
    names = game.default_agents if args.agents is None else tuple(specs.agent_specs(args.agents))
    args.agents = ",".join(names)  # the run's identity holds the agents it plays
    thinking, keep_think = think.for_request(args)

    if args.players is not None and args.players not in game.seats:
        seated = [g.name for g in GAMES.values() if args.players in g.seats]
        raise UsageError(
            f"--players {args.players}: {game.title} has {_seats(game.seats)}"
            + (f"; use --game {seated[0]}" if seated else "")
        )
    request = TournamentRequest(
        agents=names,
        games=args.games,
        seed=args.seed,
        seats=args.players,
        gauntlet=args.gauntlet,
        act_timeout=args.act_timeout,
        rules=args.rules,
        options=tuple(sorted(specs.rule_overrides(args.option).items())),
        reaction=args.reaction,
        tick_ms=args.tick_ms,
        match=args.match,
        replays=args.save_replays,
        think=thinking,
    )
    try:
        played = run_folder.play(
            game,
            request,
            args.out,
            resume=args.resume,
            overwrite=args.overwrite,
            workers=args.workers,
            backend=backend(args),
            settings=run_identity.flag_settings(args),
            prepare=keep_think,
            resume_hint=f"the same speed tournament command with --resume --out {Path(args.out)}",
        )
    except AgentSpecError as exc:  # an agent of another game: say which game it plays
        others = [(s, game_of_spec(s)) for s in names or () if not game.knows(s)]
        hint = [f"{s!r} plays {g.title}: give --game {g.name}" for s, g in others if g.knows(s)]
        raise UsageError(f"--agents: {hint[0]}" if hint else str(exc)) from None
    if played is None:
        return 130
    if isinstance(played, run_folder.AlreadyFinished):
        print(played.message)
        return 0
    print(played.tournament.leaderboard(played.summary))
    wall = played.summary["settings"]["wall_s"]
    line = f"{played.games} games in {wall} s; wrote {', '.join(str(p) for p in played.paths)}"
    if played.failure is None:
        return finish(played.complete, line)
    print(line)
    covered = (
        "the results cover the chunks that finished before it"
        if played.failure.halted
        else "its chunks were not played; the results cover every other chunk"
    )
    for f in played.failure.failures:
        print(
            f"speed tournament: error: {f.message}; {covered} (marked INCOMPLETE)", file=sys.stderr
        )
    return 1


def _seats(seats: range) -> str:
    """A range of table sizes in words (``two players``, ``2 to 10 players``)."""
    low, high = seats[0], seats[-1]
    words = {2: "two", 3: "three", 4: "four"}
    return f"{words.get(low, low)} players" if low == high else f"{low} to {high} players"
