"""Paired vintage gauntlets: each agent against 3 copies of an opponent on the same deals.

Every agent plays the same gauntlet (``speed tournament --game vintage
--gauntlet``: the same deals, seats and seeds), so two agents' games differ
only where their choices differ. The script prints each agent's
finished-ahead rate with the tournament's clustered 95% interval and, for
every agent after the first, the paired difference from the first (per game
the share of the other seats finished ahead of; clustered by deal). Paired,
a difference of half a point is seen in 2,000 games; unpaired it is not.

Run: python benchmarks/vintage_paired.py --games 2000 vintage-search@32 vintage-search@128
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.stats import clustered_mean
from agents.tournament import vintage


def ahead_shares(
    spec: str, opponent: str, games: int, players: int, seed: int, workers: int = 1
) -> np.ndarray:
    """Per game of ``spec``'s gauntlet, in (deal, rotation) order: the share of the other
    seats it finished ahead of (fewer penalty points; ties and truncation count half)."""
    settings = vintage.VintageSettings(
        agents=(spec, opponent), players=players, games=games, seed=seed, gauntlet=spec
    )
    results, _ = vintage.run(settings, workers=workers)
    keyed = []
    for r in results:
        for deal, rotation, seats, points, winner in zip(
            r.deal, r.rotation, r.seating, r.penalty, r.winner, strict=True
        ):
            me = seats.index(0)
            others = [p for s, p in enumerate(points) if s != me]
            mine = points[me]
            wins = [1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others]
            keyed.append(((deal, rotation), 0.5 if winner == -2 else float(np.mean(wins))))
    keyed.sort()
    return np.array([share for _, share in keyed])


def main() -> None:
    """Print each agent's rate and its paired difference from the first agent."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("agents", nargs="+", help="vintage agent specs; the first is the base")
    parser.add_argument("--opponent", default="vintage-tactician")
    parser.add_argument("--games", type=int, default=2000, help="games per gauntlet")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes (same results)")
    args = parser.parse_args()
    base: np.ndarray | None = None
    deals = None
    for spec in args.agents:
        t0 = time.perf_counter()
        shares = ahead_shares(
            spec, args.opponent, args.games, args.players, args.seed, args.workers
        )
        deals = np.arange(len(shares)) // args.players  # the rotations of a deal are a cluster
        mean, low, high = clustered_mean(shares, deals)
        line = f"{spec}: ahead {100 * mean:.2f}% [{100 * low:.2f}, {100 * high:.2f}]"
        if base is None:
            base = shares
        else:
            diff = shares - base
            mean, low, high = clustered_mean(diff, deals)
            line += (
                f"; minus {args.agents[0]}: {100 * mean:+.2f} [{100 * low:+.2f}, "
                f"{100 * high:+.2f}] points, {int((diff != 0).sum())} games differ"
            )
        print(f"{line} ({time.perf_counter() - t0:.0f} s wall)", flush=True)


if __name__ == "__main__":
    main()
