"""RLlib sampling throughput: one PettingZoo game per env vs batches of games on BatchEnv.

Builds the RLlib PPO recipe (train/rllib_ppo.py) with no remote env runners
and times the driver's env runner sampling (``EnvRunner.sample``, the
module's masked forward pass included, no learning) for each env runner kind
and number of games per runner. Needs the [ray] extra (.venv-ray).
Run: .venv-ray/bin/python benchmarks/rllib_runners.py --games 1,16,64 --steps 4096
"""

from __future__ import annotations

import argparse
import time


def measure(kind: str, games: int, steps: int, opponents: str) -> float:
    """Env steps per second of one env runner of ``kind`` stepping ``games`` games."""
    from train import rllib_ppo

    cfg = rllib_ppo.Config(
        env_runner=kind,
        games_per_runner=games,
        opponents=opponents,
        net_arch="64,64",
        train_batch_size=steps,
        minibatch_size=min(512, steps),
    )
    algo = rllib_ppo.build_config(cfg).build_algo()
    try:
        runner = algo.env_runner
        runner.sample(num_timesteps=max(games, 64))  # warm-up: first forward passes, numba kernels
        t0 = time.perf_counter()
        episodes = runner.sample(num_timesteps=steps)
        wall = time.perf_counter() - t0
        sampled = sum(e.env_steps() for e in episodes)
    finally:
        algo.stop()
    return sampled / wall


def main() -> None:
    """Print env steps per second for each runner kind and batch size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="1,16,64", help="games per env runner, comma-separated")
    parser.add_argument("--steps", type=int, default=4096, help="env steps timed per measurement")
    parser.add_argument("--kinds", default="games,batch")
    parser.add_argument("--opponents", default="self")
    args = parser.parse_args()
    from agents.runtime.ray_jobs import cluster

    with cluster(None, workers=1):
        print(f"{'runner':<8}{'games':>7}{'env steps/s':>14}")
        for games in [int(g) for g in args.games.split(",")]:
            for kind in args.kinds.split(","):
                rate = measure(kind, games, args.steps, args.opponents)
                print(f"{kind:<8}{games:>7}{rate:>14,.0f}", flush=True)


if __name__ == "__main__":
    main()
