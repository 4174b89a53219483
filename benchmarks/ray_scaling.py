"""How a chunked job scales on Ray: 1 vs 2 workers, per-chunk and merge costs, N-node estimates.

The job is a tournament (``--job tournament``) or one round of vintage
expert iteration's search targets (``--job targets``,
:mod:`train.vintage.expert_targets`). It plays the job on a local Ray cluster
of 1 and of 2 CPUs, alternating (1, 2, 1, 2 …, ``--repeats`` each, every run
on a cluster started for it, as ``speed tournament --backend ray --workers N``
does), checks that every run gives the same games (or targets), and prints
each run's wall time, the speed-up of the medians and its efficiency
(speed-up / workers). Each chunk also reports the
CPU time it used in its worker (``time.process_time``), which a machine
shared with other work inflates far less than wall time. The merge
(``realtime.summarise``: combining the chunks, ratings, bootstrap; for
targets, concatenating the chunks and writing the file) runs in the driver
and is timed on its own.

Estimate for N nodes of C CPUs: the chunks are independent, so the wall time
is ``ceil(chunks / (N * C)) * chunk_cpu + merge`` (start-up aside), and a
job with at least ``N * C`` chunks runs at ``N * C * games_per_chunk /
chunk_cpu`` games/s.
Run: .venv-ray/bin/python benchmarks/ray_scaling.py --games 20000 --agents random,greedy
     .venv-ray/bin/python benchmarks/ray_scaling.py --job targets --games 200
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def timed_chunk(job: tuple[Any, Any, int]) -> tuple[Any, float]:
    """A tournament chunk and the CPU seconds its worker spent on it."""
    from agents.tournament import realtime

    t0 = time.process_time()
    result = realtime.run_chunk(*job)
    return result, time.process_time() - t0


def timed_target_chunk(chunk: Any) -> tuple[Any, float]:
    """A chunk of search targets and the CPU seconds its worker spent on it."""
    from train.vintage import expert_targets

    t0 = time.process_time()
    result = expert_targets.run_chunk(chunk)
    return result, time.process_time() - t0


def tournament_job(args: argparse.Namespace) -> tuple[Callable, list, int, Callable, Callable]:
    """The tournament: (chunk function, jobs, games, what a run must reproduce, the merge)."""
    from agents.tournament import realtime
    from speed_env.rules import make_rules

    settings = realtime.Settings(
        agents=tuple(args.agents.split(",")),
        games=args.games,
        rules=make_rules("us"),
        seed=args.seed,
    )
    jobs = [(settings, c, 0) for c in realtime.plan(settings)]
    games = 2 * settings.deals * len(settings.pairings())
    return (
        timed_chunk,
        jobs,
        games,
        lambda results: [r.outcomes for r in results],
        lambda results: realtime.summarise(settings, results),
    )


def targets_job(args: argparse.Namespace) -> tuple[Callable, list, int, Callable, Callable]:
    """One round of vintage search targets, as :func:`tournament_job` describes."""
    from train.vintage import expert_targets

    settings = expert_targets.TargetSettings(games=args.games, worlds=args.worlds, seed=args.seed)

    def merge(results: list) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            expert_targets.write_targets(
                os.path.join(tmp, "t.safetensors"), expert_targets.Targets.concat(results), settings
            )

    return (
        timed_target_chunk,
        expert_targets.plan(settings),
        args.games,
        lambda results: [np.asarray(r.values).tobytes() for r in results],
        merge,
    )


def main() -> None:
    """Print the measured and estimated scaling."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--job", choices=("tournament", "targets"), default="tournament")
    parser.add_argument(
        "--games", type=int, default=20000, help="games per pairing (targets: games in the round)"
    )
    parser.add_argument("--agents", default="random,greedy", help="tournament agents")
    parser.add_argument("--worlds", type=int, default=32, help="targets: worlds per decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--repeats", type=int, default=2, help="runs of each cluster size, alternating"
    )
    parser.add_argument("--nodes", default="8,64", help="cluster sizes to estimate")
    parser.add_argument("--cpus-per-node", type=int, default=2)
    args = parser.parse_args()
    from agents.runtime.jobs import Backend, run_jobs
    from agents.runtime.ray_jobs import cluster

    job = tournament_job if args.job == "tournament" else targets_job
    chunk_fn, jobs, games, reproduced, merge_fn = job(args)
    walls: dict[int, list[float]] = {1: [], 2: []}
    cpu: list[float] = []
    reference = None
    print(f"games {games}, chunks {len(jobs)}, load average at start {os.getloadavg()[0]:.1f}")
    for _ in range(args.repeats):
        for workers in (1, 2):
            with cluster(None, workers=workers):
                t0 = time.perf_counter()
                out, complete = run_jobs(chunk_fn, jobs, workers, backend=Backend("ray"))
                walls[workers].append(time.perf_counter() - t0)
            assert complete
            results = [r for r, _ in out]  # type: ignore[misc]
            cpu += [c for _, c in out]  # type: ignore[misc]
            outcomes = reproduced(results)
            assert reference is None or outcomes == reference, "every run must give the same games"
            reference = outcomes
            print(
                f"  {workers} worker(s): {walls[workers][-1]:6.1f} s wall "
                f"(load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    t0 = time.perf_counter()
    merge_fn(results)
    merge = time.perf_counter() - t0
    w1, w2 = statistics.median(walls[1]), statistics.median(walls[2])
    chunk_cpu = statistics.median(cpu)
    print(
        f"median wall: 1 worker {w1:.1f} s, 2 workers {w2:.1f} s; speed-up {w1 / w2:.2f}, "
        f"efficiency {w1 / w2 / 2:.2f}"
    )
    print(
        f"chunk: {chunk_cpu:.2f} CPU s (median of {len(cpu)}); {len(jobs)} chunks = "
        f"{len(jobs) * chunk_cpu:.1f} CPU s; merge {merge:.2f} s in the driver"
    )
    per_chunk = games / len(jobs)
    print(f"{'nodes':>6}{'CPUs':>6}{'this job s':>12}{'games/s':>10}{'full cluster games/s':>22}")
    for nodes in [int(n) for n in args.nodes.split(",")]:
        cpus = nodes * args.cpus_per_node
        wall = math.ceil(len(jobs) / cpus) * chunk_cpu + merge
        full = cpus * per_chunk / chunk_cpu
        print(f"{nodes:>6}{cpus:>6}{wall:>12.1f}{games / wall:>10,.0f}{full:>22,.0f}")


if __name__ == "__main__":
    main()
