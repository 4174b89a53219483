"""``speed play`` and ``speed watch``: the browser table (speed_table) on 127.0.0.1, a bot
against you with your reaction time measured, or two bots live with speed controls."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import Any

from speed_cli import specs
from speed_cli.common import ENV_SEED, UsageError, add_reaction_flag, add_rule_flags, count


def register(sub: Any) -> None:
    """Add ``speed play`` and ``speed watch`` to the subcommands ``sub``."""
    play = _table_command(
        sub,
        "play",
        help="play a bot in the browser and measure your reaction time",
        description="Starts a local server (127.0.0.1 only) with the table as a page. Your card "
        "lands 1 ms after your play arrives (your own reaction already happened in real time); "
        "the bot's after its reaction profile. Needs the [web] extra.",
    )
    play.add_argument(
        "--opponent", default="chain", help="agent spec of the bot (e.g. trained, chain@pro)"
    )
    add_reaction_flag(play, 1, "human", "the bot's reaction profile: ms or a profile name")
    play.add_argument(
        "--record",
        default=None,
        metavar="DIR",
        help="opt in to recording each finished game as a play record in DIR (speed data "
        "export/profile read them; the page shows that it records); off by default",
    )
    play.add_argument(
        "--name",
        default=None,
        help="a name to put in your play records (default none: records are anonymous)",
    )
    play.set_defaults(func=run_play)

    watch = _table_command(
        sub, "watch", help="watch two bots play live in the browser (0.5x, 1x, 2x, pause)"
    )
    watch.add_argument("--agents", default="chain,greedy", help="two agent specs, comma-separated")
    add_reaction_flag(watch, 2, "human", "profile of bots without @: one, or two by seat")
    watch.set_defaults(func=run_watch, countdown_ms=1000)


def _table_command(sub: Any, name: str, **about: str) -> argparse.ArgumentParser:
    """Add ``speed play`` or ``speed watch`` (``name``, with ``about``: its help and description)
    to the subcommands ``sub``, with the flags the two share."""
    p: argparse.ArgumentParser = sub.add_parser(name, **about)
    add_rule_flags(p, tick_help="ms of game time per tick, 1-1000 (default 50)", tick_max=1000)
    p.add_argument(
        "--port",
        type=count(0, 65535),
        default=0,
        help="port on 127.0.0.1, 0-65535 (default 0: a free one)",
    )
    p.add_argument("--no-browser", action="store_true", help="print the URL, do not open a browser")
    p.add_argument(
        "--seed", type=ENV_SEED, default=None, help="game i of a page visit is seeded SEED + i"
    )
    p.add_argument(
        "--replays-dir",
        default="replays",
        help="folder for JSON Lines replays ('' for none); a game is saved only if it had a "
        "play (yours; either bot's when watching)",
    )
    p.add_argument(
        "--replays-keep",
        type=count(1, 1_000_000),
        default=200,
        metavar="N",
        help="keep at most N replay files in the folder, deleting the oldest (default 200)",
    )
    p.add_argument(
        "--replays-max-mb",
        type=count(1, 1_000_000),
        default=64,
        metavar="MB",
        help="keep at most MB megabytes of replay files, deleting the oldest; the newest file "
        "counts too: a visit's file is split before a game would pass MB, and a game whose "
        "replay alone passes MB is not saved (the page says so) (default 64)",
    )
    p.add_argument(
        "--max-games",
        type=count(1, 100_000),
        default=None,
        metavar="N",
        help="most games (open pages) the server runs at once; a page past them is told the "
        "table is full (default 16: at that many, one game keeps at least 80%% of an idle "
        "server's pace on 2 cores; docs/table.md)",
    )
    p.add_argument(
        "--deal", default=None, metavar="FILE.json", help="an explicit deal for every game"
    )
    p.add_argument(
        "--countdown-ms",
        type=count(0, 60_000),
        default=2000,
        help="get-ready time before each game, 0-60000",
    )
    return p


def run_play(args: argparse.Namespace) -> int:
    """Play a bot in the browser, with your reaction time measured on every play."""
    return _serve_table(_table_config(args, "play", ["you", args.opponent]), args)


def run_watch(args: argparse.Namespace) -> int:
    """Two bots play live in the browser, with speed controls."""
    return _serve_table(
        _table_config(args, "watch", specs.agent_specs(args.agents, pair=True)), args
    )


def _table_config(args: argparse.Namespace, mode: str, seats: Sequence[str]) -> Any:
    """The ``TableConfig`` of ``speed play`` / ``speed watch`` from the command line, checked."""
    from pathlib import Path

    from speed_env.reaction import make_profile
    from speed_table.replays import ReplayLimits
    from speed_table.session import TableConfig

    # --reaction's type checked each profile, and that play gives one and watch one or two
    reactions = [r.strip() for r in (args.reaction or "human").split(",")]
    profiles = [make_profile(r) for r in reactions]
    seats = list(seats)
    if mode == "watch" and len(profiles) == 2:
        # A pair gives each seat its own profile, unless the spec carries one (chain@pro).
        seats = [specs.with_reaction(s, r) for s, r in zip(seats, reactions, strict=True)]
    specs.check_specs(seats, skip="you")  # an unknown agent fails here, before the server starts
    deal = _read_deal(args.deal) if args.deal else None
    replays = None
    if args.replays_dir:
        replays = Path(args.replays_dir)
        if replays.exists() and not replays.is_dir():
            raise UsageError(f"--replays-dir {str(replays)!r} is a file, not a folder")
    record = getattr(args, "record", None)
    if record is not None:
        record = Path(record)
        if record.exists() and not record.is_dir():
            raise UsageError(f"--record {str(record)!r} is a file, not a folder")
    elif getattr(args, "name", None) is not None:
        raise UsageError("--name goes into play records: give --record DIR too")
    return TableConfig(
        mode=mode,
        agents=(seats[0], seats[1]),
        rules=specs.make_rules(args),
        tick_ms=args.tick_ms,
        reaction=profiles[0],
        seed=args.seed,
        deal=deal,
        countdown_ms=args.countdown_ms,
        replays_dir=replays,
        replay_limits=ReplayLimits(keep=args.replays_keep, max_bytes=args.replays_max_mb * 2**20),
        record_dir=record,
        record_name=getattr(args, "name", None),
    )


def _read_deal(path: str) -> dict[str, Any]:
    """The explicit deal of ``--deal``: a JSON object (hands, draw_piles, …), checked later."""
    from speed_env.user_file import read_json

    deal = read_json(path, "deal file", UsageError)
    if not isinstance(deal, dict):
        raise UsageError(f"deal file {path!r} must hold a JSON object (hands, draw_piles, …)")
    return deal


def _serve_table(cfg: Any, args: argparse.Namespace) -> int:
    try:
        from speed_table import app
    except ImportError as exc:  # pragma: no cover - the [web] extra is missing
        raise UsageError(
            f"speed {cfg.mode} needs the [web] extra (pip install 'speed-rl[web]'): {exc}"
        ) from None
    print("loading the bots and the engine…", file=sys.stderr, flush=True)
    app.warm_up(cfg)  # a missing model or a bad deal fails here, before the server starts
    try:
        sock = app.listen("127.0.0.1", args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None

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
            open_browser=not args.no_browser,
            announce=announce,
            max_games=app.DEFAULT_MAX_GAMES if args.max_games is None else args.max_games,
        )
    print("server stopped", file=sys.stderr)
    return 0
