"""What parts of a training run cost, each beside the way it was done before.

1. **The rollout's policy step**: MaskablePPO's ``policy(obs, action_masks=...)`` on
   ``n_envs`` observations of the training env (what ``collect_rollouts`` calls once
   a step), with sb3-contrib's masked categorical (two torch distributions built a
   batch) and with :class:`train.masked_policy.OnceMaskedCategorical` (the same
   numbers, computed once), also under ``torch.inference_mode`` instead of ``no_grad``.
2. **The evaluation's learned agent**: ``ppo:`` (:class:`agents.mlp_policy.MLPPolicy`)
   acting on the batches of a tournament (``games`` games against ``greedy``, every
   tick), with the network run on every row (as before) and on the rows with a
   choice only (``MLPPolicy.act``).
3. **Where the policy step's time goes**: the torch calls that cost the most in it, alone
   on tensors of its sizes (a batch of ``n_envs`` rows).

CPU microseconds per call (the process's time, best of ``--reps`` rounds, so a loaded
machine inflates it less than the wall clock).

Run: python benchmarks/train_parts.py --n-envs 256 --games 400 --reps 5
(it prints 1, 3, 2, one line each.)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def best_cpu_us(call: Callable[[], Any], calls: int, reps: int) -> float:
    """The fastest of ``reps`` rounds of ``calls`` calls, CPU microseconds a call."""
    best = float("inf")
    for _ in range(reps):
        c0 = time.process_time()
        for _ in range(calls):
            call()
        best = min(best, (time.process_time() - c0) / calls)
    return best * 1e6


def policy_step(n_envs: int, reps: int) -> dict[str, float]:
    """The rollout's policy call on ``n_envs`` training observations, per distribution."""
    import torch
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
    from sb3_contrib.common.maskable.utils import get_action_masks
    from torch.distributions import Distribution

    from train.masked_policy import OnceMaskedCategorical
    from train.ppo import Config, parse_rules_options
    from train.settings import make_model
    from train.vec_env import SpeedVecEnv

    torch.set_num_threads(1)
    Distribution.set_default_validate_args(False)  # as a training run does (train/run.py)
    cfg = Config(rules="japanese,us", opponent="chain", n_envs=n_envs, net_arch="64,64")
    env = SpeedVecEnv(n_envs, parse_rules_options(cfg), opponent="chain", seed=0)
    cfg.batch_size = min(cfg.batch_size, n_envs * cfg.n_steps)
    policy = make_model(cfg, env).policy
    obs, masks = torch.as_tensor(env.reset()), get_action_masks(env)
    out = {}
    for name, dist, mode in (
        ("sb3-contrib", MaskableCategoricalDistribution, torch.no_grad),
        ("once-masked", OnceMaskedCategorical, torch.no_grad),
        ("once-masked in inference_mode", OnceMaskedCategorical, torch.inference_mode),
    ):
        policy.action_dist = dist(env.n_actions)

        def step(mode: Any = mode) -> None:
            with mode():
                policy(obs, action_masks=masks)

        out[name] = best_cpu_us(step, 100, reps)
    return out


def torch_calls(n_envs: int, reps: int) -> dict[str, float]:
    """The costliest torch calls of the policy step, alone on ``n_envs`` rows."""
    import torch

    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    logits, obs = torch.randn(n_envs, 27, generator=gen), torch.randn(n_envs, 193, generator=gen)
    layer = torch.nn.Linear(193, 64)
    probs = torch.softmax(logits, dim=-1)
    calls = {
        "multinomial": lambda: torch.multinomial(probs, 1, True),
        "first layer 193x64": lambda: layer(obs),
        "normalise": lambda: logits - logits.logsumexp(dim=-1, keepdim=True),
    }
    with torch.no_grad():
        return {name: best_cpu_us(call, 200, reps) for name, call in calls.items()}


def eval_batches(games: int) -> tuple[Any, list[tuple[np.ndarray, np.ndarray]]]:
    """The bundled model and the batches (obs, mask) it sees in ``games`` games vs greedy."""
    import agents
    import speed_env

    bot, greedy = agents.make("trained", "japanese"), agents.make("greedy", "japanese")
    env = speed_env.BatchEnv(games, "japanese", autoreset=False)
    obs, mask = env.reset(seed=1)
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    while not env.all_finished and len(seen) < 400:
        seen.append((obs[0].copy(), mask[0].copy()))
        actions = np.stack([bot.act(obs[0], mask[0]), greedy.act(obs[1], mask[1])])
        obs, mask, *_ = env.step(actions)
    return bot, seen


def agent_ticks(games: int, reps: int) -> dict[str, float]:
    """The learned agent's act per tournament tick: every row through the network, and
    only the rows with a choice."""
    bot, seen = eval_batches(games)

    def every_row() -> None:
        for obs, mask in seen:
            np.where(mask > 0, bot.logits(obs), -np.inf).argmax(axis=1)

    def choice_rows() -> None:
        for obs, mask in seen:
            bot.act(obs, mask)

    return {
        "every row": best_cpu_us(every_row, 1, reps) / len(seen),
        "choice rows": best_cpu_us(choice_rows, 1, reps) / len(seen),
    }


def main() -> None:
    """Print the three measurements, one line each."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n-envs", type=int, default=256)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    step = policy_step(args.n_envs, args.reps)
    print(
        f"rollout policy step, {args.n_envs} envs: "
        + ", ".join(f"{k} {v:,.0f} us" for k, v in step.items())
    )
    calls = torch_calls(args.n_envs, args.reps)
    print(
        f"its costliest torch calls, {args.n_envs} rows: "
        + ", ".join(f"{k} {v:,.0f} us" for k, v in calls.items())
    )
    ticks = agent_ticks(args.games, args.reps)
    print(
        f"ppo agent per tournament tick, {args.games} games: "
        + ", ".join(f"{k} {v:,.0f} us" for k, v in ticks.items())
    )


if __name__ == "__main__":
    main()
