"""A training run's throughput: timesteps a second and where the loop's time went.

:func:`throughput` splits the PPO loop's wall time between the engine, the opponents, the
policy's forward passes and SB3, PPO's updates, evaluation and behaviour cloning, for
``summary.json`` (docs/research/training-throughput.md).
"""

from __future__ import annotations

from typing import Any


def throughput(
    run: Any, env: Any, base: tuple[dict[str, float], dict[str, int]], steps: int, wall: float
) -> dict[str, Any]:
    """Timesteps/s and how the loop's time splits between env, opponents, policy and updates."""
    # Only what happened inside the PPO loop (behaviour cloning steps the same env before it).
    env_t = {k: v - base[0].get(k, 0.0) for k, v in env.timing.items()}
    counters = {k: v - base[1].get(k, 0) for k, v in env.counters.items()}
    env_s = env_t["step_wait_s"]
    t = run.timing
    split = {
        "env_engine": env_s - env_t["opponent_s"],
        "env_opponents": env_t["opponent_s"],
        "policy_forward_and_sb3": t["rollout_s"] - env_s,
        "ppo_update": t["update_s"],
        "evaluation": t["eval_s"],  # the ones inside the loop; the final one comes after it
        "behaviour_cloning": t["bc_s"],
    }
    # The kit's own share of the loop (docs/research/training-throughput.md): everything but
    # PPO's update and the cloning.
    kit = sum(split[k] for k in ("env_engine", "env_opponents", "policy_forward_and_sb3"))
    return {
        "timesteps": steps,
        "wall_s": round(wall, 3),
        "timesteps_per_s": round(steps / max(wall, 1e-9), 1),
        "ticks_per_s": round(counters["ticks"] / max(wall, 1e-9), 1),
        "split_s": {k: round(v, 3) for k, v in split.items()},
        "kit_share": round((kit + split["evaluation"]) / max(wall, 1e-9), 3),
        "kit_share_without_evaluation": round(kit / max(wall, 1e-9), 3),
        "env": {**counters, **{k: round(v, 2) for k, v in env_t.items()}},
    }
