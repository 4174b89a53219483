"""``speed play`` and ``speed watch``: the browser table (speed_table) on 127.0.0.1, one to three
bots against you with your reaction time measured, or two to four bots live with speed
controls (three or four seats: a table of Party Speed, docs/rules.md)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from speed_cli import specs, think
from speed_cli.common import (
    ENV_SEED,
    RuleFlags,
    UsageError,
    add_command_flags,
    count,
    reactions,
)


@dataclass(kw_only=True)
class TableSettings(think.ThinkFlags, RuleFlags):
    """What ``speed play`` and ``speed watch`` share: the rules, the server, the replays."""

    # The table plays one decision at a time, in real time: each can be timed as it is made.
    think: str = "measured"
    """charge each bot's thinking as latency on its plays: measured (default: each decision's
    own time is added before its card flies; not repeatable), calibrated (its median act at
    batch one, timed before the server starts), declared (@think=MS or think_ms), off (only
    what a bot declares itself)"""

    tick_ms: int = field(default=50, metadata={"type": count(1, 1000)})
    """ms of game time per tick, 1-1000 (default 50)"""
    port: int = field(default=0, metadata={"type": count(0, 65535)})
    """port on 127.0.0.1, 0-65535 (default 0: a free one)"""
    no_browser: bool = False
    """print the URL, do not open a browser"""
    seed: int | None = field(default=None, metadata={"type": ENV_SEED})
    """game i of a page visit is seeded SEED + i"""
    replays_dir: str = "replays"
    """folder for JSON Lines replays ('' for none); a game is saved only if it had a play (yours;
    either bot's when watching)"""
    replays_keep: int = field(default=200, metadata={"type": count(1, 1_000_000), "metavar": "N"})
    """keep at most N replay files in the folder, deleting the oldest (default 200)"""
    replays_max_mb: int = field(default=64, metadata={"type": count(1, 1_000_000), "metavar": "MB"})
    """keep at most MB megabytes of replay files, deleting the oldest; the newest file counts
    too: a visit's file is split before a game would pass MB, and a game whose replay alone
    passes MB is not saved (the page says so) (default 64)"""
    max_games: int | None = field(
        default=None, metadata={"type": count(1, 100_000), "metavar": "N"}
    )
    """most games (open pages) the server runs at once; a page past them is told the table is
    full (default 16: at that many, one game keeps at least 80% of an idle server's pace on 2
    cores; docs/table.md)"""
    deal: str | None = field(default=None, metadata={"metavar": "FILE.json"})
    """an explicit deal for every game"""
    countdown_ms: int = field(default=2000, metadata={"type": count(0, 60_000)})
    """get-ready time before each game, 0-60000"""


@dataclass(kw_only=True)
class PlaySettings(TableSettings):
    """``speed play``: you against a bot, optionally recorded."""

    opponent: str = "chain"
    """agent spec of the bot (e.g. trained, chain@pro); two or three separated by commas seat
    you at a table of three or four (Party Speed: two decks, a centre pile a seat)"""
    reaction: str = field(default="human", metadata={"type": reactions(1)})
    """the bot's reaction profile: ms or a profile name (with several bots, of each bot without
    its own @PROFILE: --opponent greedy@pro,random)"""
    record: str | None = field(default=None, metadata={"metavar": "DIR"})
    """opt in to recording each finished game as a play record in DIR (speed data export/profile
    read them; the page shows that it records); off by default"""
    name: str | None = None
    """a name to put in your play records (default none: records are anonymous)"""
    # A record replays exactly in Speed-v1, which a per-decision charge cannot: recording
    # charges a constant by default. None until run_play chooses, from --record.
    think: str | None = None  # type: ignore[assignment]
    """charge the bot's thinking as latency on its plays: measured (default: each decision's
    own time is added before its card flies; not repeatable), calibrated (default with
    --record: its median act at batch one, timed before the server starts), declared
    (@think=MS or think_ms), off (only what a bot declares itself)"""


@dataclass(kw_only=True)
class WatchSettings(TableSettings):
    """``speed watch``: two to four bots, live."""

    # Watching bots starts sooner: the same flag, a shorter default.
    countdown_ms: int = field(default=1000, metadata={"type": count(0, 60_000)})
    agents: str = "chain,greedy"
    """two agent specs, comma-separated; three or four seat a table of Party Speed (two decks,
    a centre pile a seat)"""
    reaction: str = field(default="human", metadata={"type": reactions(4)})
    """profile of bots without @: one, or one a seat"""


def register(sub: Any) -> None:
    """Add ``speed play`` and ``speed watch`` to the subcommands ``sub``, each with one flag per
    field of its settings (:class:`PlaySettings`, :class:`WatchSettings`)."""
    play = sub.add_parser(
        "play",
        help="play a bot in the browser and measure your reaction time",
        description="Starts a local server (127.0.0.1 only) with the table as a page. Your card "
        "lands 1 ms after your play arrives (your own reaction already happened in real time); "
        "the bot's after its reaction profile and its thinking (--think). Needs the [web] extra.",
    )
    add_command_flags(play, PlaySettings)
    play.set_defaults(func=run_play)

    watch = sub.add_parser(
        "watch", help="watch two to four bots play live in the browser (0.5x, 1x, 2x, pause)"
    )
    add_command_flags(watch, WatchSettings)
    watch.set_defaults(func=run_watch)


def run_play(args: argparse.Namespace) -> int:
    """Play a bot in the browser, with your reaction time measured on every play."""
    from agents.runtime.flags import from_args

    settings = from_args(PlaySettings, args)
    if settings.think is None:
        settings.think = "measured" if settings.record is None else "calibrated"
    elif settings.think == "measured" and settings.record is not None:
        raise UsageError(
            "--think measured charges each decision its own time, which a play record cannot "
            "replay: record with --think calibrated (the default with --record) or off"
        )
    bots = specs.agent_specs(settings.opponent)
    if not 1 <= len(bots) <= 3:
        raise UsageError(
            f"--opponent takes one to three agent specs separated by commas, got "
            f"{settings.opponent!r}"
        )
    if len(bots) > 1 and settings.record is not None:
        raise UsageError("--record keeps two-seat games (a play record's); play one --opponent")
    return _serve_table(_table_config(settings, "play", ["you", *bots]), settings)


def run_watch(args: argparse.Namespace) -> int:
    """Two to four bots play live in the browser, with speed controls."""
    from agents.runtime.flags import from_args

    settings = from_args(WatchSettings, args)
    bots = specs.agent_specs(settings.agents)
    if not 2 <= len(bots) <= 4:
        raise UsageError(
            f"--agents takes two to four agent specs separated by commas (one a seat), got "
            f"{settings.agents!r}"
        )
    return _serve_table(_table_config(settings, "watch", bots), settings)


def _table_config(settings: PlaySettings | WatchSettings, mode: str, seats: Sequence[str]) -> Any:
    """The ``TableConfig`` of ``speed play`` / ``speed watch`` from the command line, checked."""
    from pathlib import Path

    from speed_env.reaction import make_profile
    from speed_table.replays import ReplayLimits
    from speed_table.session import TableConfig

    # --reaction's type checked each profile, and that play gives one and watch one to four
    by_seat = [r.strip() for r in settings.reaction.split(",")]
    profiles = [make_profile(r) for r in by_seat]
    seats = list(seats)
    if mode == "watch" and len(profiles) > 1:
        if len(profiles) != len(seats):
            raise UsageError(
                f"--reaction gives {len(profiles)} profiles for {len(seats)} seats: give one "
                "for every bot, or one a seat"
            )
        # One a seat gives each seat its own profile, unless the spec carries one (chain@pro).
        seats = [specs.with_reaction(s, r) for s, r in zip(seats, by_seat, strict=True)]
    rules = specs.make_rules(settings)
    if mode == "watch" and rules.players not in (2, len(seats)):
        raise UsageError(
            f"--option players={rules.players} disagrees with --agents, which seats "
            f"{len(seats)}: the agents' count sets the table"
        )
    if len(seats) > 2:  # Party Speed: the table seats you and every bot
        from speed_env.rules import make_rules

        rules = make_rules(rules, players=len(seats))
    # An unknown agent, or one that cannot play this many seats, fails here, before the server
    # starts.
    specs.check_specs(seats, rules if len(seats) > 2 else None, build=len(seats) > 2, skip="you")
    deal = _read_deal(settings.deal) if settings.deal else None
    bots = tuple(seats[1:] if mode == "play" else seats)
    plan = think.plan(argparse.Namespace(**vars(settings), workers=1), bots, rules, None)
    replays = None
    if settings.replays_dir:
        replays = Path(settings.replays_dir)
        if replays.exists() and not replays.is_dir():
            raise UsageError(f"--replays-dir {str(replays)!r} is a file, not a folder")
    # Only a person's games are recorded: speed play's.
    record = None
    if isinstance(settings, PlaySettings) and settings.record is not None:
        record = Path(settings.record)
    name = settings.name if isinstance(settings, PlaySettings) else None
    if record is not None:
        if record.exists() and not record.is_dir():
            raise UsageError(f"--record {str(record)!r} is a file, not a folder")
    elif name is not None:
        raise UsageError("--name goes into play records: give --record DIR too")
    return TableConfig(
        mode=mode,
        agents=tuple(seats),
        rules=rules,
        tick_ms=settings.tick_ms,
        reaction=profiles[0],
        seed=settings.seed,
        deal=deal,
        countdown_ms=settings.countdown_ms,
        replays_dir=replays,
        replay_limits=ReplayLimits(
            keep=settings.replays_keep, max_bytes=settings.replays_max_mb * 2**20
        ),
        record_dir=record,
        record_name=name,
        think=plan,
    )


def _say_think(cfg: Any) -> None:
    """Print how the bots' thinking is charged, and that measured play is not repeatable."""
    plan = cfg.think
    if plan is None:
        print("thinking (off): only what a bot declares itself is charged", file=sys.stderr)
    elif not plan.repeatable:
        print(
            "thinking (measured): each decision's own time is added before its card flies "
            "(not repeatable)",
            file=sys.stderr,
        )
    else:
        charged = ", ".join(f"{spec} {ms:g} ms" for spec, ms in plan.costs) or "none"
        print(f"thinking ({plan.mode}): {charged} a play", file=sys.stderr)


def _read_deal(path: str) -> dict[str, Any]:
    """The explicit deal of ``--deal``: a JSON object (hands, draw_piles, …), checked later."""
    from speed_env.user_file import read_json

    deal = read_json(path, "deal file", UsageError)
    if not isinstance(deal, dict):
        raise UsageError(f"deal file {path!r} must hold a JSON object (hands, draw_piles, …)")
    return deal


def _serve_table(cfg: Any, settings: TableSettings) -> int:
    """Serve the table ``cfg`` on 127.0.0.1 (``settings``: the port, the browser, the games)."""
    try:
        from speed_table import app
    except ImportError as exc:  # pragma: no cover - the [web] extra is missing
        raise UsageError(
            f"speed {cfg.mode} needs the [web] extra (pip install 'speed-rl[web]'): {exc}"
        ) from None
    print("loading the bots and the engine…", file=sys.stderr, flush=True)
    _say_think(cfg)
    app.warm_up(cfg)  # a missing model or a bad deal fails here, before the server starts
    try:
        sock = app.listen("127.0.0.1", settings.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{settings.port}: {exc.strerror}") from None

    def announce(url: str) -> None:
        print(f"Speed table at {url}  (Ctrl-C to stop)", flush=True)
        if cfg.record_dir is not None:
            print(
                f"recording finished games in {cfg.record_dir} (stop the server to stop recording)",
                flush=True,
            )

    # uvicorn shuts down on Ctrl-C, then passes the signal on: the normal way out.
    with contextlib.suppress(KeyboardInterrupt):
        app.serve(
            cfg,
            sock=sock,
            open_browser=not settings.no_browser,
            announce=announce,
            max_games=app.DEFAULT_MAX_GAMES if settings.max_games is None else settings.max_games,
        )
    print("server stopped", file=sys.stderr)
    return 0
