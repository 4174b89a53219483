"""What parts of a training run cost, each beside the way it was done before.

1. **The rollout's policy step**: MaskablePPO's ``policy(obs, action_masks=...)`` on
   ``n_envs`` observations of the training env (what the stock ``collect_rollouts`` calls once
   a step), with sb3-contrib's masked categorical (two torch distributions built a
   batch) and with :class:`train.policy.masked_policy.OnceMaskedCategorical` (the same
   numbers, computed once), also under ``torch.inference_mode`` instead of ``no_grad``;
   and the lean collector's step (:mod:`train.policy.rollout`: the networks' forward, the masked
   log-softmax and the inverse-CDF draw).
2. **Where the policy step's time goes**: the torch calls that cost the most in it, alone
   on tensors of its sizes (a batch of ``n_envs`` rows).
3. **A whole rollout step outside the env**: ``collect_rollouts`` of the stock loop
   (``--rollout sb3``) and of the lean one (``--rollout lean``) on the training env
   (``japanese,us`` against ``chain``, the 64x64 network), ``--rollouts`` rollouts of 64 steps
   each, alternating; CPU microseconds a step, the env's ``step_wait`` taken out (the part
   ``speed train`` reports, in wall seconds, as ``policy_forward_and_sb3``), the median of
   ``--reps``.
4. **The lean step's profile**: the same lean rollouts with each part of the step timed where
   it runs (the forward, the draw, the masks, the env's action check, the callback, the
   finished games' records and bootstrap, the returns at a rollout's end); the rest is the
   loop's own lines (the buffer writes, tensor views).
5. **The evaluation's learned agent**: ``ppo:`` (:class:`agents.model_io.mlp.MLPPolicy`)
   acting on the batches of a tournament (``games`` games against ``greedy``, every
   tick), with the network run on every row (as before) and on the rows with a
   choice only (``MLPPolicy.act``).

All are CPU microseconds (the process's time, one torch thread, so a loaded machine
inflates them less than the wall clock); 1, 2 and 5 the best of ``--reps`` rounds. Timing
each part of 4 adds a clock read or two a part.

Run: python benchmarks/train_parts.py --n-envs 256 --games 400 --reps 5 --rollouts 6
(it prints 1 to 5, one line each.)
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

    from train.policy.masked_policy import OnceMaskedCategorical
    from train.policy.rollout import MlpForward, draw

    torch.set_num_threads(1)
    Distribution.set_default_validate_args(False)  # as a training run does (train/common/run.py)
    model, env = training_model(n_envs, "sb3")
    policy = model.policy
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
    uniforms = torch.rand(n_envs, 1)
    forward = MlpForward.of(policy, n_envs)
    assert forward is not None, "the training setting's MLP takes the fast forward"

    def lean_step() -> None:
        with torch.inference_mode():
            logits, _ = forward(obs)
            logits = torch.where(torch.from_numpy(masks).bool(), logits, -1e8)
            chosen = draw(logits, uniforms)
            torch.log_softmax(logits, dim=-1).gather(1, chosen)

    out["lean"] = best_cpu_us(lean_step, 100, reps)
    return out


def training_model(n_envs: int, rollout: str) -> tuple[Any, Any]:
    """The issue's training setting (``japanese,us`` against ``chain``, 64x64): model and env."""
    from train.common.settings import make_model
    from train.ppo import Config, parse_rules_options
    from train.vec_env.env import SpeedVecEnv

    cfg = Config(
        rules="japanese,us", opponent="chain", n_envs=n_envs, net_arch="64,64", rollout=rollout
    )
    env = SpeedVecEnv(n_envs, parse_rules_options(cfg), opponent="chain", seed=0)
    cfg.batch_size = min(cfg.batch_size, n_envs * cfg.n_steps)
    return make_model(cfg, env), env


def ready(model: Any) -> Any:
    """The model set up to collect rollouts (as ``learn`` does); the callback to pass."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Nothing(BaseCallback):
        def _on_step(self) -> bool:
            return True

    _, callback = model._setup_learn(10**9, Nothing())
    return callback


def outside_env_us(model: Any, env: Any, callback: Any, rollouts: int) -> float:
    """CPU microseconds a step of ``rollouts`` rollouts, the env's ``step_wait`` taken out."""
    in_env = [0.0]
    step_wait = env.step_wait

    def timed_wait() -> Any:
        c0 = time.process_time()
        try:
            return step_wait()
        finally:
            in_env[0] += time.process_time() - c0

    env.step_wait = timed_wait
    c0 = time.process_time()
    try:
        for _ in range(rollouts):
            model.collect_rollouts(env, callback, model.rollout_buffer, model.n_steps)
    finally:
        del env.step_wait  # the class's method again
    return (time.process_time() - c0 - in_env[0]) / (rollouts * model.n_steps) * 1e6


def collectors(n_envs: int, rollouts: int, reps: int) -> dict[str, float]:
    """A rollout step outside the env (CPU microseconds), stock loop and lean loop,
    alternating: median of ``reps`` rounds of ``rollouts`` rollouts each."""
    import torch
    from torch.distributions import Distribution

    torch.set_num_threads(1)
    Distribution.set_default_validate_args(False)
    setups = {name: training_model(n_envs, name) for name in ("sb3", "lean")}
    callbacks = {name: ready(model) for name, (model, _) in setups.items()}
    times: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(reps):
        for name, (model, env) in setups.items():
            times[name].append(outside_env_us(model, env, callbacks[name], rollouts))
    return {name: float(np.median(t)) for name, t in times.items()}


def lean_profile(n_envs: int, rollouts: int) -> dict[str, float]:
    """CPU microseconds a step of each part of the lean loop, timed where it runs; ``loop's
    own lines`` is the rest of the time outside the env's ``step_wait``."""
    import torch
    from torch.distributions import Distribution

    import train.policy.rollout

    torch.set_num_threads(1)
    Distribution.set_default_validate_args(False)
    model, env = training_model(n_envs, "lean")
    callback = ready(model)
    model.collect_rollouts(env, callback, model.rollout_buffer, model.n_steps)  # warm
    spent: dict[str, float] = {}

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            c0 = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - c0

        return run

    forward = train.policy.rollout.policy_logits_and_values
    fast_forward = train.policy.rollout.MlpForward.__call__
    buf = model.rollout_buffer
    parts = {
        "forward (actor and critic)": (train.policy.rollout.MlpForward, "__call__", fast_forward),
        "forward (modules)": (train.policy.rollout, "policy_logits_and_values", forward),
        "draw (softmax, cumsum, search)": (model, "draw_actions", model.draw_actions),
        "masks from the env": (env, "action_masks", env.action_masks),
        "env action check (step_async)": (env, "step_async", env.step_async),
        "callback (update_locals, on_step)": (callback, "on_step", callback.on_step),
        "finished games' records": (model, "_update_info_buffer", model._update_info_buffer),
        "time-limit bootstrap": (model, "_bootstrap_truncated", model._bootstrap_truncated),
        "returns and advantages": (
            buf,
            "compute_returns_and_advantage",
            buf.compute_returns_and_advantage,
        ),
    }
    for name, (owner, attr, call) in parts.items():
        setattr(owner, attr, timed(name, call))
    try:
        total = outside_env_us(model, env, callback, rollouts)
    finally:
        train.policy.rollout.policy_logits_and_values = forward
        train.policy.rollout.MlpForward.__call__ = fast_forward  # type: ignore[method-assign]
    steps = rollouts * model.n_steps
    out = {name: spent.get(name, 0.0) / steps * 1e6 for name in parts if name in spent}
    out["loop's own lines"] = total - sum(out.values())
    out["total outside the env"] = total
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
    """Print the five measurements, one line each."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n-envs", type=int, default=256)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rollouts", type=int, default=6, help="rollouts a round in 3 and 4")
    args = ap.parse_args()
    n = args.n_envs

    def line(title: str, figures: dict[str, float]) -> None:
        print(f"{title}: " + ", ".join(f"{k} {v:,.0f} us" for k, v in figures.items()))

    line(f"rollout policy step, {n} envs", policy_step(n, args.reps))
    line(f"its costliest torch calls, {n} rows", torch_calls(n, args.reps))
    line(f"rollout step outside the env, {n} envs", collectors(n, args.rollouts, args.reps))
    line(f"lean rollout step's parts, {n} envs", lean_profile(n, args.rollouts))
    line(f"ppo agent per tournament tick, {args.games} games", agent_ticks(args.games, args.reps))


if __name__ == "__main__":
    main()
