"""Cost per game of the engine's two kernels inside ``BatchEnv.step``.

``step_all`` (the rules: commits, landings, flips) and ``observe_all`` (two
fresh observation vectors and masks per game), timed apart at n = 256 and
4096 with every player waiting. Run: python benchmarks/engine_kernels.py
"""

from __future__ import annotations

import time

import numpy as np

import speed_env
from speed_env import engine
from speed_env.observation import observe_all


def main() -> None:
    """Print ns per game of each kernel."""
    for n in (256, 4096):
        env = speed_env.BatchEnv(n)
        env.reset(seed=0)
        g = env.games
        actions = np.zeros((2, n), np.int64)
        rewards = np.zeros((2, n), np.float32)
        obs = np.empty((2, n, g.obs_dim), np.float32)
        mask = np.empty((2, n, g.n_actions), np.int8)
        engine.step_all(g.state, g.cfg, g.lat, actions, rewards)
        observe_all(g.state, g.cfg, obs, mask)
        reps = 200
        t = time.perf_counter()
        for _ in range(reps):
            engine.step_all(g.state, g.cfg, g.lat, actions, rewards)
        step_ns = (time.perf_counter() - t) / reps / n * 1e9
        t = time.perf_counter()
        for _ in range(reps):
            observe_all(g.state, g.cfg, obs, mask)
        obs_ns = (time.perf_counter() - t) / reps / n * 1e9
        print(f"n={n:>5}: step_all {step_ns:6.0f} ns/game   observe_all {obs_ns:6.0f} ns/game")


if __name__ == "__main__":
    main()
