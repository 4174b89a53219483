"""Where does an agent leave ``chain``'s choice, and how often is its departure a wait?

    python -m speed_lab.search_departures --agent search --rules japanese \
        --option jokers=true --option stack_layout=true --option multi_play=true \
        --option play_out=true [--games 128 --ticks 60 --seed 11]

Seat 0 plays ``--agent`` against ``chain`` in a :class:`~speed_env.BatchEnv`
for the first ``--ticks`` ticks of ``--games`` games. At each of seat 0's
choices (two or more legal actions) it records whether the agent's action is
the one ``chain`` (with the same observation) would take, and of the
departures, how many are waits where ``chain`` plays. docs/research/japanese-options.md
quotes it: the departures that ``search:wait=0`` leaves out.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import agents
from speed_env import BatchEnv
from speed_env.rules import make_rules, parse_overrides


@dataclass(frozen=True)
class Departures:
    """Counts over seat 0's choices."""

    choices: int
    departures: int
    waits: int
    """Departures where the agent waits and ``chain`` plays."""


def measure(agent: str, rules: str, options: dict, games: int, ticks: int, seed: int) -> Departures:
    """Play ``agent`` (seat 0) against ``chain`` and count its departures from ``chain``."""
    table = make_rules(rules, **options)
    env = BatchEnv(games, table)
    me, ref, opp = (
        agents.make(s, table, seed=seed + k) for k, s in enumerate((agent, "chain", "chain"))
    )
    obs, mask = env.reset(seed=seed)
    choices = departures = waits = 0
    for _ in range(ticks):
        mine = np.asarray(me.act(obs[0], mask[0]), np.int64)
        rows = np.flatnonzero((mask[0] > 0).sum(axis=1) >= 2)
        if rows.size:
            chain_pick = np.asarray(ref.act(obs[0][rows], mask[0][rows]), np.int64)
            differ = mine[rows] != chain_pick
            choices += rows.size
            departures += int(differ.sum())
            waits += int((differ & (mine[rows] == 0) & (chain_pick != 0)).sum())
        actions = np.stack([mine, np.asarray(opp.act(obs[1], mask[1]), np.int64)])
        obs, mask, *_ = env.step(actions)
    return Departures(choices, departures, waits)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: print the counts."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="search", help="the agent spec in seat 0")
    ap.add_argument("--rules", default="japanese")
    ap.add_argument("--option", action="append", default=[], help="KEY=VALUE rule override")
    ap.add_argument("--games", type=int, default=128)
    ap.add_argument("--ticks", type=int, default=60)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    options = parse_overrides(args.option)
    d = measure(args.agent, args.rules, options, args.games, args.ticks, args.seed)
    share = d.departures / max(d.choices, 1)
    print(
        f"{args.agent}: {d.choices} choices, {d.departures} departures from chain "
        f"({100 * share:.1f}%), {d.waits} of them waits where chain plays"
    )
    return 0


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
