"""Microseconds per ``parallel_env.step`` (a batch of one), both seats always waiting.

Waiting keeps the policy out of the loop (no mask reading, no sampling), so
this times the env's own per-step cost: action checks, the compiled
step-and-observe pass, and the five dicts PettingZoo asks for. The median of
``--rounds`` rounds of ``--steps`` steps; a finished game is reset at once.

Run: python benchmarks/parallel_step.py --steps 30000 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import speed_env


def main() -> None:
    """Print the median microseconds per step."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=30000, help="steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rules", default="us")
    args = parser.parse_args()
    env = speed_env.parallel_env(args.rules)
    env.reset(seed=0)
    wait = dict.fromkeys(env.possible_agents, 0)

    def round_us(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            env.step(wait)
            if not env.agents:
                env.reset()
        return (time.perf_counter() - start) / steps * 1e6

    round_us(min(args.steps, 2000))  # warm-up (the first calls resolve the kernels)
    times = [round_us(args.steps) for _ in range(args.rounds)]
    print(f"parallel_env.step: {statistics.median(times):.2f} us (median of {args.rounds})")


if __name__ == "__main__":
    main()
