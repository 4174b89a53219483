"""``speed replay``: play back a game recorded by ``speed tournament --save-replays`` (or the
browser table) in the terminal."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from typing import Any

from speed_cli.common import UsageError, add_command_flags, count, real


@dataclass(kw_only=True)
class ReplaySettings:
    """``speed replay``'s settings: one argument a field."""

    file: str
    """a replay file (JSON Lines: speed tournament --save-replays, or the browser table's)"""
    game: int = field(default=0, metadata={"type": count(0)})
    """which game of the file to play back, by its number (from 0)"""
    delay: float = field(default=0.0, metadata={"type": real(0, 3600)})
    """seconds between frames, 0-3600"""


def register(sub: Any) -> None:
    """Add ``speed replay`` to the subcommands ``sub``."""
    rep = sub.add_parser("replay", help="play back a recorded game in the terminal")
    add_command_flags(rep, ReplaySettings)
    rep.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play back a recorded game in the terminal."""
    from speed_env.render.party_text import render_party_snapshot
    from speed_env.render.text import render_ansi

    frames = read_frames(args.file, args.game)
    players = len(frames[0]["snapshot"].get("players") or ())
    # Three or four seats (Party Speed, speed watch or speed play at a bigger table): the
    # n-seat text; the two-seat text refuses any other count, naming it.
    draw = render_party_snapshot if players in (3, 4) else render_ansi
    seats = frames[0].get("seats") or [f"player_{p}" for p in range(max(players, 2))]
    named = ", ".join(f"player_{p} = {spec}" for p, spec in enumerate(seats))
    print(f"game {args.game}: {named}; {len(frames)} frames")
    last = None
    for frame in frames:
        text = draw(frame["snapshot"])
        body = text.split("\n", 1)[1] if "\n" in text else text
        if body != last:
            print(text, end="\n\n")
            last = body
            if args.delay:
                time.sleep(args.delay)
    return 0


MAX_REPLAY_BYTES = 1 << 30
"""The largest replay file read (1 GiB): a long tournament's replays, read whole."""


def read_frames(path: str, game: int) -> list[dict[str, Any]]:
    """The frames of game number ``game`` in the JSON Lines replay file ``path`` (checked)."""
    from speed_env.user_file import read_text

    lines = read_text(path, "replay file", UsageError, limit=MAX_REPLAY_BYTES).splitlines()
    frames = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{path}:{n} is not a JSON line of a replay") from None
        if not isinstance(frame, dict) or "snapshot" not in frame:
            raise UsageError(
                f"{path}:{n} has no 'snapshot': not a replay written by speed tournament"
            )
        if frame.get("game", 0) == game:
            frames.append(frame)
    if not frames:
        raise UsageError(f"{path} holds no frames of game {game}")
    return frames
