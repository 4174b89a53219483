"""How fast does the training env run, next to what PPO's updates cost?

Steps :class:`train.vec_env.env.SpeedVecEnv` (the env ``speed train`` uses: one
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

With ``--split`` it also prints, per opponent, where the env's step spent
its CPU a decision: the compiled skip loop (``train.vec_env.skip_loop.play_forced``:
ticks, observations, a ``chain`` opponent), the restarts of the games that
ended (``SpeedVecEnv._finish``: infos, draws, deals) and the rest of the step
(Python and numpy around them); each part is timed on the thread's CPU clock.

Run: python benchmarks/vec_env.py --n-envs 256 --opponents greedy,chain --steps 200
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import train.vec_env.skip_loop
from train.vec_env.env import SpeedVecEnv


@contextmanager
def timed_parts() -> Iterator[dict[str, float]]:
    """Thread CPU seconds spent in the skip loop's kernel and in the restarts while inside."""
    spent = {"skip_loop": 0.0, "restarts": 0.0}
    kernel, finish = train.vec_env.skip_loop.play_forced, SpeedVecEnv._finish

    def timed(part: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            c0 = time.thread_time()
            try:
                return call(*args)
            finally:
                spent[part] += time.thread_time() - c0

        return run

    # tick_forced calls play_forced by its module name, so the module attribute is swapped.
    train.vec_env.skip_loop.play_forced = timed("skip_loop", kernel)  # type: ignore[assignment]
    SpeedVecEnv._finish = timed("restarts", finish)  # type: ignore[method-assign]
    try:
        yield spent
    finally:
        train.vec_env.skip_loop.play_forced, SpeedVecEnv._finish = kernel, finish  # type: ignore[method-assign]


def measure(
    opponent: str, n_envs: int, rules: str, steps: int, seed: int, parts: dict[str, float]
) -> dict[str, float]:
    """Timesteps/s of ``steps`` vec-env steps after a short warm-up, and where the time went
    (``parts``: :func:`timed_parts`' running totals, or an empty dict)."""
    env = SpeedVecEnv(n_envs, rules, opponent=opponent, seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()

    def random_legal() -> np.ndarray:
        return (rng.random(env.learner_mask.shape) * env.action_masks()).argmax(axis=1)

    for _ in range(20):  # warm-up: compiled kernels, first deals
        env.step(random_legal())
    before, counted, parted = dict(env.timing), dict(env.throughput()), dict(parts)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        env.step(random_legal())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    spent = {k: env.timing[k] - before[k] for k in before}
    done = {k: v - counted.get(k, 0) for k, v in env.throughput().items()}
    ticks = max(done["ticks"], 1)
    decisions = steps * n_envs
    split = {f"{k}_us": 1e6 * (parts[k] - parted[k]) / decisions for k in parts}
    if parts:  # an env that does not record its step's CPU time leaves the rest unknown
        step_us = 1e6 * spent.get("step_wait_cpu_s", float("nan")) / decisions
        split["rest_us"] = step_us - sum(split.values())
    return {
        **split,
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
    parser.add_argument("--split", action="store_true", help="time the step's parts (above)")
    args = parser.parse_args()
    print(
        f"{'opponent':<10}{'timesteps/s':>13}{'cpu us/step':>13}{'engine s':>10}"
        f"{'opponent s':>12}{'passes':>8}{'ticks/dec':>10}{'quiet':>7}{'env ns/tick':>12}"
        f"{'wall s':>9}"
    )
    rows = []
    with timed_parts() if args.split else _no_parts() as parts:
        for opponent in args.opponents.split(","):
            r = measure(opponent, args.n_envs, args.rules, args.steps, args.seed, parts)
            rows.append((opponent, r))
            _print_row(opponent, r)
    if args.split:
        print("env CPU us a decision: skip loop / restarts / rest of the step")
        for opponent, r in rows:
            print(
                f"{opponent:<10}{r['skip_loop_us']:>8.2f}{r['restarts_us']:>8.2f}"
                f"{r['rest_us']:>8.2f}"
            )


@contextmanager
def _no_parts() -> Iterator[dict[str, float]]:
    yield {}


def _print_row(opponent: str, r: dict[str, float]) -> None:
    print(
        f"{opponent:<10}{r['timesteps_per_s']:>13,.0f}{r['cpu_us_per_timestep']:>13.2f}"
        f"{r['engine_s']:>10.2f}{r['opponent_s']:>12.2f}{r['passes_per_step']:>8.1f}"
        f"{r['ticks_per_decision']:>10.2f}{r['quiet_share']:>7.0%}"
        f"{r['env_cpu_ns_per_tick']:>12.0f}{r['wall_s']:>9.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
