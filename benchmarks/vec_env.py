"""How fast does the training env run, next to what PPO's updates cost?

Steps :class:`train.vec_env.SpeedVecEnv` (the env ``speed train`` uses: one
timestep is one learner decision, the opponent inside) with uniformly random
legal learner actions, and prints learner timesteps per second, the CPU
time per timestep (the process's, so a loaded machine inflates it less than
the wall clock), the split between the engine and the opponent's policy, and
the Python round trips a step takes (``passes``: calls of the compiled skip
loop, each preceded by one call of the opponent's policy where it has a play),
the game-ticks a decision takes and the share of them the loop jumped over
(ticks where only a game's clock moved), and the CPU nanoseconds a game-tick
(the env's step alone, its thread's CPU time, where the env records it).
``speed train`` prints the same split for a real run and writes it to
``summary.json`` (``throughput``).

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
    before, counted = dict(env.timing), dict(env.throughput())
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        env.step(random_legal())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    spent = {k: env.timing[k] - before[k] for k in before}
    done = {k: v - counted.get(k, 0) for k, v in env.throughput().items()}
    ticks = max(done["ticks"], 1)
    return {
        "timesteps_per_s": steps * n_envs / wall,
        "cpu_us_per_timestep": 1e6 * cpu / (steps * n_envs),
        "engine_s": spent["engine_s"],
        "opponent_s": spent["opponent_s"],
        "passes_per_step": done["passes"] / steps,
        "ticks_per_decision": done["ticks"] / (steps * n_envs),
        "quiet_share": done.get("quiet_ticks", 0) / ticks,
        "env_cpu_ns_per_tick": 1e9 * spent.get("step_wait_cpu_s", float("nan")) / ticks,
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
    print(
        f"{'opponent':<10}{'timesteps/s':>13}{'cpu us/step':>13}{'engine s':>10}"
        f"{'opponent s':>12}{'passes':>8}{'ticks/dec':>10}{'quiet':>7}{'env ns/tick':>12}"
        f"{'wall s':>9}"
    )
    for opponent in args.opponents.split(","):
        r = measure(opponent, args.n_envs, args.rules, args.steps, args.seed)
        print(
            f"{opponent:<10}{r['timesteps_per_s']:>13,.0f}{r['cpu_us_per_timestep']:>13.2f}"
            f"{r['engine_s']:>10.2f}{r['opponent_s']:>12.2f}{r['passes_per_step']:>8.1f}"
            f"{r['ticks_per_decision']:>10.2f}{r['quiet_share']:>7.0%}"
            f"{r['env_cpu_ns_per_tick']:>12.0f}{r['wall_s']:>9.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
