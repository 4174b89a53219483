"""What a vintage-search decision costs with each rollout setting: CPU ms and rollouts per second.

Collects the decisions with a choice of seat 0 in tactician games (the same for
every spec), then times each search spec over them (process CPU time, one
thread): milliseconds per decision and rollouts per second (worlds times legal
actions, each a game played from the searched action to its end or its leaf).

Run: python benchmarks/vintage_rollout_speed.py --decisions 100 vintage-search@32 \
    vintage-search:rollout=network@32 vintage-search:own=network@32
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.vintage import registry
from agents.vintage.bots import VintageTactician
from agents.vintage.search import VintageSearch
from speed_env.vintage import raw_env


def choice_decisions(n: int, players: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    """The first ``n`` decisions with two or more legal actions of seat 0 in tactician games."""
    bot = VintageTactician()
    out: list[tuple[np.ndarray, np.ndarray]] = []
    seed = 0
    while len(out) < n:
        env = raw_env(num_players=players, games=1)
        env.reset(seed=seed)
        while not env.game.over:
            view = env.observe(env.agent_selection)
            obs, mask = view["observation"], view["action_mask"]
            if env.game.current == 0 and mask.sum() >= 2 and len(out) < n:
                out.append((obs, mask))
            env.step(int(bot.act(obs[None], mask[None])[0]))
        seed += 1
    return out


def main() -> None:
    """Print, per spec, CPU ms per decision and rollouts per CPU second."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("specs", nargs="+", help="vintage-search specs")
    parser.add_argument("--decisions", type=int, default=100)
    args = parser.parse_args()
    states = choice_decisions(args.decisions)
    for spec in args.specs:
        search = registry.make(spec, seed=0)
        if not isinstance(search, VintageSearch):
            parser.error(f"{spec} is no vintage-search spec")
        worlds = search.settings.worlds
        t0 = time.process_time()
        for obs, mask in states:
            search.act(obs[None], mask[None])
        cpu = time.process_time() - t0
        rollouts = worlds * sum(int(m.sum()) for _, m in states)
        print(
            f"{spec}: {1000 * cpu / len(states):.1f} ms per decision, "
            f"{rollouts / cpu:,.0f} rollouts per CPU s ({len(states)} decisions)",
            flush=True,
        )


if __name__ == "__main__":
    main()
