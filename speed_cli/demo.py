"""``speed demo``: two bots play one game, the table printed as text whenever a card moves."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from speed_cli import specs, think
from speed_cli.common import ENV_SEED, RuleFlags, add_command_flags, count, reactions


@dataclass(kw_only=True)
class DemoSettings(think.ThinkFlags, RuleFlags):
    """``speed demo``'s settings: one flag a field."""

    reaction: str | None = field(default=None, metadata={"type": reactions(2)})
    """ms or profile name, or two separated by a comma"""
    agents: str = "greedy,random"
    """two agent specs, comma-separated"""
    seed: int = field(default=0, metadata={"type": ENV_SEED})
    """seed of the game (and of the bots, seat i's seed + i)"""
    max_frames: int = field(default=12, metadata={"type": count(0)})
    """tables to print before the result"""


def register(sub: Any) -> None:
    """Add ``speed demo`` to the subcommands ``sub``."""
    demo = sub.add_parser("demo", help="two bots play one game, shown as text")
    add_command_flags(demo, DemoSettings)
    demo.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Two bots play one game; the table is printed whenever a card moves."""
    import agents
    import speed_env
    from speed_env.render.text import render_ansi

    names = specs.agent_specs(args.agents, pair=True)
    env = speed_env.parallel_env(
        args.rules,
        tick_ms=args.tick_ms,
        reaction=specs.env_reaction(args.reaction),
        **specs.rule_overrides(args.option),
    )
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
            print(render_ansi(snap), end="\n\n")
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
    snap = env.snapshot()
    print(render_ansi(snap))
    p0, p1 = snap["players"]
    seats = {"player_0": names[0], "player_1": names[1]}
    winner = snap["winner"]
    if winner in seats:
        verdict = f"{winner} ({seats[winner]}) wins"
    else:
        verdict = "draw" if winner == "draw" else "no winner (truncated)"
    print(
        f"\nresult: {verdict} after {snap['clock_ms'] / 1000:.1f} s; "
        f"played {p0['played']}-{p1['played']}, bounced {p0['bounced']}-{p1['bounced']}, "
        f"flips {snap['flips']}"
    )
    return 0
