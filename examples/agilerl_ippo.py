"""AgileRL's IPPO on ``speed_v1``, the action mask passed in ``infos``.

AgileRL refuses a mask inside the observation ("AgileRL requires action masks
to be defined in the information dictionary"), so the env is built with
``obs_format="box"``: the flat float32 vector is the observation and each
agent's int8 mask is ``infos[agent]["action_mask"]``, which ``get_action``
reads. AgileRL groups ``player_0`` and ``player_1`` (same prefix) onto one
shared actor and critic: self-play. The loop is AgileRL's own on-policy
recipe (collect ``learn_step`` steps, then ``learn``), written out; every
action chosen is checked against the mask the env sent with it.

AgileRL 2.58 pins ``pettingzoo<1.27``: run this in the venv ``make
setup-agilerl`` builds (``.venv-agilerl``, PettingZoo 1.26.1):

    .venv-agilerl/bin/python examples/agilerl_ippo.py --steps 4096

The last line printed is ``RESULT {json}`` (the test suite reads it).
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version
from typing import Any

import numpy as np
import torch
from agilerl.algorithms import IPPO
from agilerl.vector.dummy_vec_env import PzDummyVecEnv

import speed_env


def main(argv: list[str] | None = None) -> dict:
    """Train IPPO for ``--steps`` env steps; return what was measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4096, help="env steps (ticks) in all")
    parser.add_argument("--learn-step", type=int, default=512, help="steps collected per update")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)

    env = PzDummyVecEnv(speed_env.parallel_env("us", obs_format="box"))
    agent_ids = list(env.possible_agents)
    agent = IPPO(
        observation_spaces=[env.single_observation_space(a) for a in agent_ids],
        action_spaces=[env.single_action_space(a) for a in agent_ids],
        agent_ids=agent_ids,
        net_config={
            "latent_dim": 64,
            "encoder_config": {"hidden_size": [64]},
            "head_config": {"hidden_size": [64]},
        },
        learn_step=args.learn_step,
        batch_size=128,
        lr=3e-4,
    )

    obs, info = env.reset(seed=args.seed)
    steps = illegal = chosen = games_ended = 0
    while steps < args.steps:
        rollout: dict[str, dict[str, list[Any]]] = {
            field: {a: [] for a in agent_ids}
            for field in ("states", "actions", "log_probs", "rewards", "dones", "values")
        }
        done = {a: np.zeros(1) for a in agent_ids}
        for _ in range(args.learn_step):
            action, log_prob, _, value = agent.get_action(obs=obs, infos=masks_as_lists(info))
            # The mask the env sent with this observation must allow the action chosen.
            for a in agent_ids:
                mask = np.asarray(info[a]["action_mask"]).reshape(-1)
                illegal += int(mask[int(np.asarray(action[a]).reshape(-1)[0])] == 0)
                chosen += 1
            next_obs, reward, termination, truncation, info = env.step(action)
            steps += 1
            for a in agent_ids:
                for field, x in (
                    ("states", obs[a]),
                    ("actions", action[a]),
                    ("log_probs", log_prob[a]),
                    ("rewards", reward[a]),
                    ("dones", done[a]),
                    ("values", value[a]),
                ):
                    rollout[field][a].append(x)
            done = {
                a: np.logical_or(termination[a], truncation[a]).astype(float) for a in agent_ids
            }
            if all(d.all() for d in done.values()):
                games_ended += 1  # the vector env has reset the game: next_obs is the new deal
            obs = next_obs
        agent.learn(
            (
                rollout["states"],
                rollout["actions"],
                rollout["log_probs"],
                rollout["rewards"],
                rollout["dones"],
                rollout["values"],
                next_obs,
                done,
            )
        )

    result = {
        "example": "agilerl_ippo",
        "env_steps": steps,
        "actions_chosen": chosen,
        "illegal_chosen": illegal,
        "games_ended": games_ended,
        "versions": {
            p: version(p) for p in ("agilerl", "pettingzoo", "tensordict", "torch", "gymnasium")
        },
    }
    print(
        f"trained {steps} env steps ({chosen} actions, {illegal} illegal, "
        f"{games_ended} games finished)"
    )
    print("RESULT " + json.dumps(result))
    assert illegal == 0, f"{illegal} illegal actions chosen with masks on"
    return result


def masks_as_lists(infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The infos with each ``action_mask`` as a list of ints.

    AgileRL 2.58's ``IPPO.extract_action_masks`` tests ``None in masks``, which a
    list of NumPy arrays cannot answer ("truth value of an array ... is
    ambiguous"); plain lists pass, and it stacks them into the same tensor.
    """
    return {
        a: {**i, "action_mask": np.asarray(i["action_mask"]).astype(int).tolist()}
        if "action_mask" in i
        else i
        for a, i in infos.items()
    }


if __name__ == "__main__":
    main()
