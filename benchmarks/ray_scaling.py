"""How a tournament scales on Ray: 1 vs 2 workers, per-chunk and merge costs, an estimate for N nodes.

Plays one tournament on a local Ray cluster of 1 and then 2 CPUs (each started
for its run, as ``speed tournament --backend ray --workers N`` does), checks
the two give the same results, and prints the wall times, the speed-up and
its efficiency (speed-up / workers). From the 1-worker run it takes the cost
of one chunk; it times the merge (``tournament.summarise``: combining the
chunks, ratings and bootstrap) on its own; and it estimates the wall time on
N nodes of C CPUs each as ``start + ceil(chunks / (N * C)) * chunk + merge``
(the chunks are independent, so only the last round's stragglers and the
merge, which runs in the driver, do not shrink).
Run: .venv-ray/bin/python benchmarks/ray_scaling.py --games 20000 --agents random,greedy
"""

from __future__ import annotations

import argparse
import math
import time


def main() -> None:
    """Print the measured and estimated scaling."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20000, help="games per pairing")
    parser.add_argument("--agents", default="random,greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nodes", default="8,64", help="cluster sizes to estimate")
    parser.add_argument("--cpus-per-node", type=int, default=2)
    args = parser.parse_args()
    from agents import tournament
    from agents.jobs import Backend
    from agents.ray_jobs import cluster
    from speed_env.rules import make_rules

    settings = tournament.Settings(agents=tuple(args.agents.split(",")), games=args.games,
                                   rules=make_rules("us"), seed=args.seed)
    chunks = len(tournament.plan(settings))
    walls, starts, outcomes = {}, {}, {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        with cluster(None, workers=workers):
            started = time.perf_counter()
            results, complete = tournament.run(settings, backend=Backend("ray"))
            done = time.perf_counter()
        assert complete
        starts[workers] = started - t0
        walls[workers] = done - started
        outcomes[workers] = [r.outcomes for r in results]
    assert outcomes[1] == outcomes[2], "1 and 2 workers must give the same games"
    t0 = time.perf_counter()
    tournament.summarise(settings, results)
    merge = time.perf_counter() - t0
    chunk = walls[1] / chunks
    speedup = walls[1] / walls[2]
    games = 2 * settings.deals * len(settings.pairings())
    print(f"games {games}, chunks {chunks}, cluster start {starts[1]:.1f} s (1 CPU) / {starts[2]:.1f} s (2 CPUs)")
    print(f"1 worker  {walls[1]:8.1f} s   ({chunk:.2f} s a chunk)")
    print(f"2 workers {walls[2]:8.1f} s   speed-up {speedup:.2f}, efficiency {speedup / 2:.2f}")
    print(f"merge (summarise) {merge:.2f} s")
    rate1 = games / walls[1]
    print(f"{'nodes':>6}{'CPUs':>6}{'est. wall s':>13}{'games/s':>10}  (start not counted)")
    for nodes in [int(n) for n in args.nodes.split(",")]:
        cpus = nodes * args.cpus_per_node
        wall = math.ceil(chunks / cpus) * chunk + merge
        print(f"{nodes:>6}{cpus:>6}{wall:>13.1f}{games / wall:>10,.0f}   "
              f"(1 worker: {rate1:,.0f} games/s)")


if __name__ == "__main__":
    main()
