"""Can a network reproduce the tactician? Clone it on its choice decisions, measure agreement.

Plays ``--games`` games of 4 tacticians and keeps every decision with two or more
legal actions (the only ones a policy decides), labelled with the tactician's
choice. A fresh vintage network (``--net-arch``, the expert-iteration recipe's
actor-critic) is fitted to them (train/bc.py's fit, ``--epochs`` passes), then
measured on the held-out 10% of the games of a search-target file
(``OUT/round_R/targets.safetensors``: the learner's decisions in the recipe's
games): the share where its top action is the tactician's (the targets'
prior) and where it is the search's choice. With ``--out`` the network is
saved as ``OUT/model.json`` (``vintage-ppo:OUT/model.json``) to play.

Run: python benchmarks/vintage_clone_fidelity.py runs/ve_many/round_0/targets.safetensors
--games 27000 --net-arch 512,512 --epochs 20 --out runs/clone512
"""

from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

import numpy as np


def tactician_decisions(games: int, seed: int):  # -> Targets
    """Choice decisions of ``games`` 4-tactician games, labelled with the tactician's action."""
    from agents.vintage.bots import VintageTactician
    from speed_env.vintage import raw_env
    from speed_env.vintage.engine import TRUNCATED, penalties
    from train.vintage.expert_targets import Targets

    bot = VintageTactician()
    obs, mask, choice, ret, game_ids = [], [], [], [], []
    for g in range(games):
        env = raw_env(num_players=4, games=1)
        env.reset(seed=seed * 10_000_000 + g)
        seats = []
        while not env.game.over:
            seat = env.game.current
            view = env.observe(env.agent_selection)
            o, m = view["observation"], view["action_mask"]
            a = bot.choose(o, m)
            if m.sum() > 1:
                seats.append(seat)
                obs.append(o)
                mask.append(m)
                choice.append(a)
                game_ids.append(g)
            env.step(int(a))
        points, winner = penalties(env.game), env.game.winner
        truncated = env.game.status == TRUNCATED
        ret += [0.0 if truncated else 1.0 if winner == s else -points[s] / 100 for s in seats]
    masks = np.array(mask, np.int8)
    return Targets(
        obs=np.array(obs, np.float32),
        mask=masks,
        values=np.where(masks > 0, 0.0, np.nan).astype(np.float32),
        choice=np.array(choice, np.int64),
        prior=np.array(choice, np.int64),
        ret=np.array(ret, np.float32),
        game=np.array(game_ids, np.int64),
    )


def main() -> None:
    """Print the clone's held-out agreement with the tactician and with the search."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("targets", help="a vintage search-target file to measure agreement on")
    parser.add_argument("--games", type=int, default=27000, help="tactician games to clone")
    parser.add_argument("--net-arch", default="512,512")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=2, help="seed of the tactician games")
    parser.add_argument("--out", default="", help="save the network as OUT/model.json")
    args = parser.parse_args()

    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from speed_env.vintage import make_vintage_rules
    from train import bc
    from train.common.settings import make_model
    from train.vintage.expert_fit import agreement, held_out
    from train.vintage.expert_targets import read_targets
    from train.vintage_expert import ExpertConfig, fit_data, ppo_config
    from train.vintage_ppo import export, observation_scale, table_env

    torch.set_num_threads(1)
    torch.manual_seed(0)
    t0 = time.process_time()
    cfg = ExpertConfig(net_arch=args.net_arch, init_bc=None)
    rules = make_vintage_rules(4, 1)
    scale = observation_scale(rules)
    env = DummyVecEnv(
        [partial(table_env, 4, ["vintage-tactician"], 0, i, scale, "random") for i in range(4)]
    )
    model = make_model(ppo_config(cfg), env)
    searched, _ = read_targets(args.targets)
    rows = np.flatnonzero(held_out(searched.game, 0.1, 7919))
    clone = tactician_decisions(args.games, args.seed)
    fit = bc.BCConfig(batch_size=512, learning_rate=args.learning_rate)
    data = fit_data(clone, scale, cfg)
    rng = np.random.default_rng(0)
    bc._fit(model.policy, data, np.arange(len(clone)), args.epochs, fit, rng, None)
    found = agreement(model.policy, searched, rows, scale)
    print(
        f"{len(clone)} tactician decisions, {args.net_arch} network, {args.epochs} passes: "
        f"agrees with the tactician on {100 * found['agrees_with_prior']:.1f}% and with the "
        f"search on {100 * found['agrees_with_search']:.1f}% of {len(rows)} held-out targets "
        f"({time.process_time() - t0:.0f} CPU s)"
    )
    if args.out:
        path = export(model, Path(args.out) / "model", scale, rules, {"benchmark": vars(args)})
        print(f"saved {path}")


if __name__ == "__main__":
    main()
