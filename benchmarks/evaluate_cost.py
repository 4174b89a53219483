"""Where a ``speed evaluate`` card's time goes: CPU seconds per opponent and for the latency
sweep, each chunk of the card's plan played in this one process and timed.

The card's chunks are pure functions of the plan, so playing them one by one here costs what
the card's workers spend in all. ``--games`` scales every part of the card (the protocol's is
200; a tenth gives the shares in a tenth of the time). docs/evaluate.md quotes its table.

Run: python benchmarks/evaluate_cost.py py:my_bot.py:Bot --games 20
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from agents.evaluate import plan as eval_plan


def part(group: str) -> str:
    """The part of the card a plan group belongs to: the latency sweep or an opponent."""
    return "latency sweep" if group.startswith("latency") else group.split("/", 1)[1]


def main(argv: list[str] | None = None) -> int:
    """Time every chunk of the card of ``spec`` and print the CPU seconds of each part."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("spec", help="the agent spec to make the card of")
    p.add_argument("--games", type=int, default=20, help="games per pairing (protocol: 200)")
    args = p.parse_args(argv)
    plan = eval_plan.make_plan(args.spec, games=args.games)
    cpu: dict[str, float] = defaultdict(float)
    wall, start = time.perf_counter(), time.process_time()
    for job in plan.jobs:
        t = time.process_time()
        eval_plan.play_job(job)  # one chunk, as a worker plays it
        cpu[part(job.group)] += time.process_time() - t
    total = time.process_time() - start
    print(
        f"{args.spec} --games {args.games}: {len(plan.jobs)} chunks, {total:.1f} CPU s, "
        f"{time.perf_counter() - wall:.1f} wall s"
    )
    for name, seconds in sorted(cpu.items(), key=lambda kv: -kv[1]):
        print(f"  {name:14s} {seconds:7.1f} CPU s {100 * seconds / total:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
