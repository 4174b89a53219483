"""TorchRL's ``PettingZooWrapper``: shared-policy PPO on ``speed_v1`` with masked actions.

The parallel env is built with ``obs_format="box"``: TorchRL takes the flat
observation as ``("player", "observation")`` and reads each agent's
``infos[agent]["action_mask"]`` into ``("player", "action_mask")``. Both seats
form one group ``"player"`` and share one policy (self-play); the policy's
``MaskedCategorical`` gives masked actions probability 0. Every collected
action is checked against the mask the env sent with that observation: none
may be illegal.

    python examples/torchrl_ppo.py --frames 4000

The last line printed is ``RESULT {json}`` (the test suite reads it).
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import speed_env

GROUP = "player"  # TorchRL groups agents by name prefix: player_0 and player_1


def make_env(seed: int) -> PettingZooWrapper:
    """One Speed game as a TorchRL env (both seats in group ``player``)."""
    env = PettingZooWrapper(
        env=speed_env.parallel_env("us", obs_format="box"),
        categorical_actions=True,
        return_state=False,
        done_on_any=True,
    )
    env.set_seed(seed)
    return env


def mlp(n_in: int, n_out: int) -> nn.Module:
    """A small MLP applied to every agent's row."""
    return nn.Sequential(
        nn.Linear(n_in, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, n_out)
    )


def main(argv: list[str] | None = None) -> dict:
    """Collect ``--frames`` ticks in batches, one PPO update per batch; return what was measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=4000, help="ticks collected in all")
    parser.add_argument("--frames-per-batch", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=2, help="PPO passes over each batch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)

    env = make_env(args.seed)
    obs_key, mask_key = (GROUP, "observation"), (GROUP, "action_mask")
    obs_dim = env.observation_spec[obs_key].shape[-1]
    n_actions = env.full_action_spec[env.action_key].space.n

    actor = ProbabilisticActor(
        module=TensorDictModule(
            mlp(obs_dim, n_actions), in_keys=[obs_key], out_keys=[(GROUP, "logits")]
        ),
        spec=env.full_action_spec[env.action_key],
        in_keys={"logits": (GROUP, "logits"), "mask": mask_key},
        out_keys=[env.action_key],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "sample_log_prob"),
    )
    critic = TensorDictModule(mlp(obs_dim, 1), in_keys=[obs_key], out_keys=[(GROUP, "state_value")])
    loss = ClipPPOLoss(actor_network=actor, critic_network=critic, normalize_advantage=False)
    loss.set_keys(
        reward=env.reward_key,
        action=env.action_key,
        sample_log_prob=(GROUP, "sample_log_prob"),
        value=(GROUP, "state_value"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)

    collector = Collector(
        env,
        actor,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.frames,
        auto_register_policy_transforms=False,  # the policy is feed-forward: no transforms needed
    )
    frames = illegal = chosen = games_ended = 0
    for batch in collector:
        # Every action must be one the env's mask allowed for that very observation.
        legal = batch[mask_key].gather(-1, batch[env.action_key].unsqueeze(-1))
        illegal += int((~legal).sum())
        chosen += legal.numel()
        games_ended += int(batch[("next", "done")].sum())
        frames += batch.numel()
        with torch.no_grad():
            loss.value_estimator(
                batch,
                params=loss.critic_network_params,
                target_params=loss.target_critic_network_params,
            )
        flat = batch.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(flat.numel()).split(250):
                terms = loss(flat[idx])
                total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
                optim.zero_grad()
                total.backward()
                optim.step()
        collector.update_policy_weights_()
    collector.shutdown()

    result = {
        "example": "torchrl_ppo",
        "frames": frames,
        "actions_chosen": chosen,
        "illegal_chosen": illegal,
        "games_ended": games_ended,
        "final_loss": float(total.detach()),
        "versions": {p: version(p) for p in ("torchrl", "tensordict", "torch", "pettingzoo")},
    }
    print(
        f"collected {frames} ticks ({chosen} actions, {illegal} illegal, "
        f"{games_ended} games finished)"
    )
    print("RESULT " + json.dumps(result))
    assert illegal == 0, f"{illegal} illegal actions chosen with masks on"
    assert torch.isfinite(total), "the PPO loss diverged"
    return result


if __name__ == "__main__":
    main()
