"""Tianshou's ``PettingZooEnv``: a DQN seat against a random masked seat on ``speed_v1``.

Tianshou wraps PettingZoo's AEC API; its ``PettingZooEnv`` reads the mask
from the classic ``{"observation", "action_mask"}`` dict, so this example uses
the default ``obs_format="dict"`` of ``speed_env.env()``. ``player_0`` learns
with DQN (Q-values of masked actions are never chosen), ``player_1`` plays
Tianshou's random masked policy. After ``--epochs`` short epochs it collects
``--eval-steps`` more steps greedily and counts illegal actions from the
env's own ``infos[agent]["illegal"]``: that count must be 0.

    python examples/tianshou_dqn.py --epochs 2 --epoch-steps 1000

The last line printed is ``RESULT {json}`` (the test suite reads it).
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import speed_env


def make_env() -> PettingZooEnv:
    """One Speed game (``us`` rules) behind Tianshou's PettingZoo adapter."""
    return PettingZooEnv(speed_env.env("us"))


def main(argv: list[str] | None = None) -> dict:
    """Train ``player_0`` with DQN, then collect greedily; return what was measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--epoch-steps", type=int, default=1000, help="env steps per epoch")
    parser.add_argument(
        "--eval-steps", type=int, default=1000, help="env steps collected after training"
    )
    parser.add_argument("--envs", type=int, default=4, help="games stepped side by side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    np.random.seed(args.seed)  # noqa: NPY002  (Tianshou's exploration draws from NumPy's global RNG)
    torch.manual_seed(args.seed)

    env = make_env()
    obs_space = env.observation_space["observation"]
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=Net(
                state_shape=obs_space.shape,
                action_shape=int(env.action_space.n),
                hidden_sizes=[128, 128],
            ),
            action_space=env.action_space,
            eps_training=0.1,
            eps_inference=0.0,
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.99,
        n_step_return_horizon=3,
        target_update_freq=200,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)

    train_envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    train_envs.seed(args.seed)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(20_000, args.envs), exploration_noise=True
    )
    train_collector.reset()
    stats = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=None,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=20,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
            show_progress=False,
        )
    )

    # Collect greedily (the learner's epsilon at inference is 0) and read the env's illegal flags.
    eval_envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    eval_envs.seed(args.seed + 1)
    eval_buffer = VectorReplayBuffer(args.eval_steps + 1000, args.envs)
    eval_collector = Collector[CollectStats](
        algorithm, eval_envs, eval_buffer, exploration_noise=False
    )
    eval_collector.reset()
    collected = eval_collector.collect(n_step=args.eval_steps)
    batch, _ = eval_buffer.sample(0)  # the whole buffer
    info: Any = batch.info
    assert "illegal" in info, f"the env's infos should carry 'illegal'; got {list(info.keys())}"
    illegal = int(np.sum(info["illegal"]))
    result = {
        "example": "tianshou_dqn",
        "train_env_steps": int(stats.train_step),
        "eval_env_steps": int(collected.n_collected_steps),
        "eval_episodes": int(collected.n_collected_episodes),
        "illegal_chosen": illegal,
        "versions": {p: version(p) for p in ("tianshou", "torch", "pettingzoo", "gymnasium")},
    }
    print(
        f"trained {result['train_env_steps']} env steps; "
        f"collected {result['eval_env_steps']} more, "
        f"{result['eval_episodes']} games finished, {illegal} illegal actions"
    )
    print("RESULT " + json.dumps(result))
    assert illegal == 0, f"{illegal} illegal actions chosen with masks on"
    return result


if __name__ == "__main__":
    main()
