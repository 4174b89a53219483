"""``speed demo``: bots play one game, the table printed as text whenever a card moves.

Two seats by default; ``--option players=3`` (or ``4``) seats that many bots at a table of
Party Speed (docs/rules.md), drawn by :mod:`speed_env.render.party_text`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from speed_cli import specs, think
from speed_cli.common import ENV_SEED, RuleFlags, UsageError, add_command_flags, count, reactions


@dataclass(kw_only=True)
class DemoSettings(think.ThinkFlags, RuleFlags):
    """``speed demo``'s settings: one flag a field."""

    reaction: str | None = field(default=None, metadata={"type": reactions(4)})
    """ms or profile name, or one a seat separated by commas"""
    agents: str | None = None
    """agent specs, one a seat, comma-separated (default: greedy, then random at every other
    seat)"""
    seed: int = field(default=0, metadata={"type": ENV_SEED})
    """seed of the game (and of the bots, seat i's seed + i)"""
    max_frames: int = field(default=12, metadata={"type": count(0)})
    """tables to print before the result"""


def register(sub: Any) -> None:
    """Add ``speed demo`` to the subcommands ``sub``."""
    demo = sub.add_parser("demo", help="bots play one game, shown as text")
    add_command_flags(demo, DemoSettings)
    demo.set_defaults(func=run)


def seat_specs(text: str | None, players: int) -> list[str]:
    """The agent spec of every seat: ``--agents`` (exactly one a seat), or by default
    ``greedy`` then ``random`` at every other seat."""
    if text is None:
        return ["greedy"] + ["random"] * (players - 1)
    names = specs.agent_specs(text)
    if len(names) != players:
        count = "two" if players == 2 else str(players)
        raise UsageError(
            f"--agents takes {count} agent specs separated by commas (one a seat, "
            f"players={players}), got {text!r}"
        )
    return names


def run(args: argparse.Namespace) -> int:
    """Bots play one game; the table is printed whenever a card moves."""
    import agents
    import speed_env
    from speed_env.rules import make_rules

    options = specs.rule_overrides(args.option)
    players = make_rules(args.rules, **options).players
    names = seat_specs(args.agents, players)
    env = speed_env.parallel_env(
        args.rules,
        tick_ms=args.tick_ms,
        reaction=specs.env_reaction(args.reaction),
        **options,
    )
    draw = _drawing(players, env)
    bots = [agents.make(spec, env.rules, seed=args.seed + i) for i, spec in enumerate(names)]
    plan = think.plan(args, tuple(names), env.rules, None)
    charged = think.charge_seats(env.games, bots, names, plan)
    obs, _ = env.reset(seed=args.seed)
    last_key = None
    shown = 0
    while env.agents:
        snap = env.snapshot()
        key = json.dumps([snap["centre"], [p["hand"] for p in snap["players"]], snap["phase"]])
        if key != last_key and shown < args.max_frames:
            print(draw(), end="\n\n")
            last_key = key
            shown += 1
        actions = {
            agent: think.timed_act(
                bots[p],
                obs[agent],
                env.games,
                p,
                charged,
                plan is not None and not plan.repeatable,
            )
            for p, agent in enumerate(env.agents)
        }
        obs, *_ = env.step(actions)
    print(draw())
    print("\n" + verdict(env.snapshot(), names))
    return 0


def _drawing(players: int, env: Any) -> Callable[[], str]:
    """How the table is drawn: the two-seat text table, or the n-seat one of the full table."""
    if players == 2:
        from speed_env.render.text import render_ansi

        return lambda: render_ansi(env.snapshot())
    from speed_env.render.party_text import render_party_text

    return lambda: render_party_text(env.table())


def verdict(snap: dict[str, Any], names: list[str]) -> str:
    """The result line of a finished game's snapshot, ``names`` the seats' agent specs."""
    seats = {p["name"]: spec for p, spec in zip(snap["players"], names, strict=True)}
    winner = snap["winner"]
    if winner in seats:
        result = f"{winner} ({seats[winner]}) wins"
    else:
        result = "draw" if winner == "draw" else "no winner (truncated)"
    played = "-".join(str(p["played"]) for p in snap["players"])
    bounced = "-".join(str(p["bounced"]) for p in snap["players"])
    return (
        f"result: {result} after {snap['clock_ms'] / 1000:.1f} s; "
        f"played {played}, bounced {bounced}, flips {snap['flips']}"
    )
