"""How fast does the training env run, next to what PPO's updates cost?

Steps :class:`train.vec_env.SpeedVecEnv` (the env ``speed train`` uses: one
timestep is one learner decision, the opponent inside) with uniformly random
legal learner actions, and prints learner timesteps per second with the
split between the engine and the opponent's policy. ``speed train`` prints the
same split for a real run in ``summary.json`` (``throughput``).

Run: python benchmarks/vec_env.py --n-envs 256 --opponents greedy,chain --steps 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from train.vec_env import SpeedVecEnv


def measure(opponent: str, n_envs: int, rules: str, steps: int, seed: int) -> dict[str, float]:
    """Timesteps/s of ``steps`` vec-env steps after a short warm-up, and where the time went."""
    env = SpeedVecEnv(n_envs, rules, opponent=opponent, seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()

    def random_legal() -> np.ndarray:
        return (rng.random(env.learner_mask.shape) * env.action_masks()).argmax(axis=1)

    for _ in range(20):  # warm-up: compiled kernels, first deals
        env.step(random_legal())
    before = dict(env.timing)
    t0 = time.perf_counter()
    for _ in range(steps):
        env.step(random_legal())
    wall = time.perf_counter() - t0
    spent = {k: env.timing[k] - before[k] for k in before}
    return {
        "timesteps_per_s": steps * n_envs / wall,
        "engine_s": spent["engine_s"],
        "opponent_s": spent["opponent_s"],
        "wall_s": wall,
    }


def main() -> None:
    """Print one row per opponent."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n-envs", type=int, default=256)
    parser.add_argument("--opponents", default="greedy,chain")
    parser.add_argument("--rules", default="japanese,us")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'opponent':<10}{'timesteps/s':>13}{'engine s':>10}{'opponent s':>12}{'wall s':>9}")
    for opponent in args.opponents.split(","):
        r = measure(opponent, args.n_envs, args.rules, args.steps, args.seed)
        print(
            f"{opponent:<10}{r['timesteps_per_s']:>13,.0f}{r['engine_s']:>10.2f}{r['opponent_s']:>12.2f}"
            f"{r['wall_s']:>9.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
