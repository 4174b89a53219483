"""SuperSuit -> stable-baselines3 vector env -> MaskablePPO, masks honoured.

SuperSuit's documented path from a PettingZoo ``ParallelEnv`` to SB3 turns each
agent into one sub-env of a vector env, so one policy plays both seats
(self-play). Two things make it honour the action mask:

1. ``obs_format="box"``: the observation is the flat float32 vector SuperSuit's
   wrappers and SB3's ``MlpPolicy`` expect, and the int8 mask rides in
   ``infos[agent]["action_mask"]``;
2. :class:`train.vec_env.info_masks.InfoMaskVecEnv` serves those masks to
   sb3-contrib's ``MaskablePPO`` (SuperSuit's vector env has no
   ``action_masks``).

Then it plays ``--eval-steps`` ticks with the trained policy, masks passed to
``predict``, and counts the illegal actions it chose (the env's own
``infos[agent]["illegal"]``): that count must be 0.

    python examples/supersuit_sb3_maskable.py --timesteps 4096 --eval-steps 1000

The last line printed is ``RESULT {json}`` (the test suite reads it).
"""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version

import supersuit as ss
import torch
from sb3_contrib import MaskablePPO

import speed_env
from train.vec_env.info_masks import InfoMaskVecEnv


def make_vec_env(n_games: int) -> InfoMaskVecEnv:
    """``n_games`` Speed games, two agents each, as one SB3 vector env with masks."""
    env = speed_env.parallel_env("us", obs_format="box")
    env = ss.pettingzoo_env_to_vec_env_v1(env)
    venv = ss.concat_vec_envs_v1(env, n_games, num_cpus=0, base_class="stable_baselines3")
    return InfoMaskVecEnv(venv)


def main(argv: list[str] | None = None) -> dict:
    """Train for ``--timesteps``, then play ``--eval-steps`` ticks; return what was measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=4096, help="training steps (agent-ticks)")
    parser.add_argument("--eval-steps", type=int, default=1000, help="ticks played after training")
    parser.add_argument("--games", type=int, default=4, help="games stepped side by side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    # A small network on a fast env: torch's default of one thread per core spends more on
    # hand-offs than it gains (measured in speed_env.SpeedGymEnv's docstring, "Training speed").
    torch.set_num_threads(1)

    venv = make_vec_env(args.games)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=256, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)

    # Play on, masks passed to predict; then the same without them, to show the count can see
    # illegal choices (a masked policy's probabilities are trained only on legal actions).
    masked = play(model, venv, args.eval_steps, use_masks=True)
    unmasked = play(model, venv, args.eval_steps, use_masks=False)
    result = {
        "example": "supersuit_sb3_maskable",
        "timesteps": int(model.num_timesteps),
        "actions_chosen": masked["chosen"],
        "illegal_chosen": masked["illegal"],
        "games_ended": masked["games_ended"],
        "illegal_chosen_without_masks": unmasked["illegal"],
        "versions": {
            p: version(p) for p in ("supersuit", "stable-baselines3", "sb3-contrib", "pettingzoo")
        },
    }
    print(
        f"trained {result['timesteps']} steps; with masks {masked['chosen']} actions chosen, "
        f"{masked['illegal']} illegal, {masked['games_ended']} games finished; "
        f"without masks {unmasked['illegal']} of {unmasked['chosen']} illegal"
    )
    print("RESULT " + json.dumps(result))
    assert masked["illegal"] == 0, f"{masked['illegal']} illegal actions chosen with masks on"
    return result


def play(model: MaskablePPO, venv: InfoMaskVecEnv, steps: int, use_masks: bool) -> dict[str, int]:
    """Play ``steps`` ticks of every game; count actions chosen, illegal ones and games finished."""
    obs = venv.reset()
    chosen = illegal = games_ended = 0
    for _ in range(steps):
        masks = venv.action_masks() if use_masks else None
        actions, _ = model.predict(obs, action_masks=masks, deterministic=False)  # type: ignore[arg-type]
        obs, _, dones, infos = venv.step(actions)
        chosen += len(actions)
        illegal += sum(bool(info["illegal"]) for info in infos)  # the env's own count
        games_ended += int(dones.sum()) // 2  # both seats of a game end on the same tick
    return {"chosen": chosen, "illegal": illegal, "games_ended": games_ended}


if __name__ == "__main__":
    main()
