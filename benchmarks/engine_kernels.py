"""Cost per game of the engine's kernels inside ``BatchEnv.step``, timed apart.

``step_all`` (the rules: commits, landings, flips), ``observe_all`` (both
seats' observations and masks, written whole) and ``step_observe`` (what
``BatchEnv.step`` runs: one pass that steps each game and rewrites only what
the tick changed in the observation buffers), at n = 256 and 4096, with
random legal players drawn ahead (``speed_env.policy.sample_legal``). CPU time
(``time.process_time``), so a busy machine inflates the figures less than
it does wall time. Run: python benchmarks/engine_kernels.py [--sizes 256,4096] [--reps 50]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import speed_env
from speed_env import engine
from speed_env.observation import observe_all
from speed_env.policy import sample_legal
from speed_env.step_observe import run_tick


def measure(n: int, reps: int) -> str:
    """One line: CPU ns per game of each kernel at batch size ``n``."""
    env = speed_env.BatchEnv(n)
    _, mask = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):  # into the middle of games
        _, mask, *_ = env.step(
            sample_legal(mask.reshape(2 * n, -1), rng.random(2 * n)).reshape(2, n)
        )
    g = env.games
    start = g.state.copy()
    actions = [
        sample_legal(mask.reshape(2 * n, -1), rng.random(2 * n)).reshape(2, n) for _ in range(8)
    ]
    rewards = np.zeros((2, n), np.float32)
    obs = np.empty((2, n, g.obs_dim), np.float32)
    masks = np.empty((2, n, g.n_actions), np.int8)
    finished = np.zeros(n, bool)
    kernels = {
        "step_all": lambda i: engine.step_all(g.state, g.cfg, g.lat, actions[i % 8], rewards),
        "observe_all": lambda i: observe_all(g.state, g.cfg, obs, masks),
        "step_observe": lambda i: run_tick(g, actions[i % 8], finished, False),
    }
    cells = []
    for name, kernel in kernels.items():
        g.state[:] = start
        g.observe()  # buffers in step with the state
        kernel(0)
        t = time.process_time()
        for i in range(reps):
            kernel(i)
        cells.append(f"{name} {(time.process_time() - t) / reps / n * 1e9:6.0f}")
    return f"n={n:>5}: " + "   ".join(cells) + "  ns/game (CPU)"


def main() -> None:
    """Print CPU ns per game of each kernel, one line per batch size."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="256,4096")
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    for n in (int(x) for x in args.sizes.split(",")):
        print(measure(n, args.reps), flush=True)


if __name__ == "__main__":
    main()
