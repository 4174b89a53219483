"""RLlib multi-agent PPO with action masking on speed_v1: one training iteration, small batch.

Run (the [ray] extra; RLlib 2.60 pins gymnasium 1.2.2, so `make setup-ray` puts it in .venv-ray):

    .venv-ray/bin/python examples/rllib_ppo_masking.py

What a user of RLlib needs, nothing else:
- the env is the kit's PettingZoo ``parallel_env`` in RLlib's own ``ParallelPettingZooEnv``;
- the observation is the kit's ``{"observation", "action_mask"}`` dict (``int8`` mask);
  ``MaskedMLPModule`` (train/rllib/module.py) masks illegal actions out of the logits;
- both seats map to one shared module, ``main`` (self-play with parameter sharing).
The full recipe (frozen snapshots and bots as opponents, BatchEnv runners, checkpoints,
export to ``ppo:PATH.json``) is ``speed train-rllib``.
"""

from __future__ import annotations

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
from ray.tune.registry import register_env

import speed_env
from train.rllib.module import MaskedMLPModule


def main() -> None:
    """Train one iteration and print what it sampled."""
    # A small network on a fast env: torch's default of one thread per core spends more on
    # hand-offs than it gains (measured in speed_env.SpeedGymEnv's docstring, "Training speed").
    torch.set_num_threads(1)
    register_env("speed_v1", lambda cfg: ParallelPettingZooEnv(speed_env.parallel_env("us")))
    config = (
        PPOConfig()
        .environment("speed_v1")
        .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length="auto")
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, episode, **kw: "main")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "main": RLModuleSpec(
                        module_class=MaskedMLPModule, model_config={"hidden": [64, 64]}
                    )
                }
            )
        )
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
    )
    ray.init(address="local", num_cpus=1, include_dashboard=False, _node_ip_address="127.0.0.1")
    try:
        algo = config.build_algo()
        result = algo.train()
        sampled = result["env_runners"]["num_env_steps_sampled_lifetime"]
        learner = result["learners"]["main"]
        print(
            f"one iteration: {sampled} env steps sampled; "
            f"main's policy loss {learner['policy_loss']:.4f}, "
            f"entropy {learner['entropy']:.3f}"
        )
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
