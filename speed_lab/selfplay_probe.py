"""What a learned policy does at its decisions: does it wait, and which card does it pick?

    python -m speed_lab.selfplay_probe MODEL.json --rules japanese [--steps 200 --envs 128]
    python -m speed_lab.selfplay_probe MODEL.json --rules us --bot chain

The policy plays the learner's seat of :class:`~train.vec_env.env.SpeedVecEnv`
against ``greedy`` (its argmax, as in tournaments). At every decision it
records:

- how often it waits although a card can be played;
- where two or more plays are legal: how often its pick is ``chain``'s, and
  how often ``greedy``'s uniformly random pick is (the agreement of a policy
  that knows nothing about which card to play);
- its policy restricted to the legal plays there: the mean entropy (against
  the uniform policy's) and the mean probability of its top play.

``--bot SPEC`` instead plays that bot in the learner's seat and prints its
win rate against ``greedy``: a check that the env does not handicap the seat
(``chain`` should score there what it scores in tournaments).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np


def _among_plays(logits: np.ndarray, plays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Entropy and top probability of the softmax of ``logits`` restricted to ``plays`` (rows)."""
    z = np.where(plays > 0, logits.astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    logp = np.log(np.where(p > 0, p, 1.0))
    return -(p * logp).sum(axis=1), p.max(axis=1)


def probe(
    model: str, rules: str, steps: int = 200, envs: int = 128, seed: int = 7
) -> dict[str, Any]:
    """The decision statistics of module docstring for the kit model ``model`` on ``rules``."""
    import agents
    from train.vec_env.env import SpeedVecEnv

    env = SpeedVecEnv(envs, rules, opponent="greedy", seed=seed)
    policy: Any = agents.make(f"ppo:{model}", rules, seed=seed)
    chain = agents.make("chain", rules, seed=seed + 1)
    greedy = agents.make("greedy", rules, seed=seed + 2)
    obs: Any = env.reset()
    n = waits = states = agree = greedy_agree = 0
    ent: list[float] = []
    top: list[float] = []
    uniform: list[float] = []
    for _ in range(steps):
        mask = env.action_masks()
        act = np.asarray(policy.act(obs, mask)).reshape(-1)
        plays = mask.copy()
        plays[:, 0] = 0
        choice = mask.sum(axis=1) >= 2
        n += int(choice.sum())
        waits += int((choice & (act == 0) & (plays.sum(axis=1) > 0)).sum())
        multi = plays.sum(axis=1) >= 2
        if multi.any():
            picks = np.asarray(chain.act(obs, mask)).reshape(-1)
            rand = np.asarray(greedy.act(obs, mask)).reshape(-1)
            states += int(multi.sum())
            agree += int(((act == picks) & multi).sum())
            greedy_agree += int(((rand == picks) & multi).sum())
            e, t = _among_plays(np.asarray(policy.logits(obs))[multi], plays[multi])
            ent += e.tolist()
            top += t.tolist()
            uniform += np.log(plays[multi].sum(axis=1)).tolist()
        obs, *_ = env.step(act)
    return {
        "model": model,
        "rules": rules,
        "decisions": n,
        "wait_with_play": round(waits / max(n, 1), 4),
        "states_with_2_plays": states,
        "agrees_with_chain": round(agree / max(states, 1), 4),
        "greedy_agrees_with_chain": round(greedy_agree / max(states, 1), 4),
        "entropy_among_plays": round(float(np.mean(ent)), 4) if ent else None,
        "uniform_entropy": round(float(np.mean(uniform)), 4) if uniform else None,
        "top_play_probability": round(float(np.mean(top)), 4) if top else None,
    }


def bot_as_learner(spec: str, rules: str, games: int = 3000, seed: int = 11) -> dict[str, Any]:
    """Win rate of the bot ``spec`` playing the learner's seat of the training env vs ``greedy``."""
    import agents
    from train.vec_env.env import SpeedVecEnv

    env = SpeedVecEnv(256, rules, opponent="greedy", seed=seed)
    bot = agents.make(spec, rules, seed=seed + 1)
    obs: Any = env.reset()
    wins = losses = draws = 0
    while wins + losses + draws < games:
        act = np.asarray(bot.act(obs, env.action_masks())).reshape(-1)
        obs, rewards, dones, _ = env.step(act)
        wins += int((rewards > 0).sum())
        losses += int((rewards < 0).sum())
        draws += int((dones & (rewards == 0)).sum())
    played = wins + losses + draws
    return {
        "bot": spec,
        "rules": rules,
        "games": played,
        "win_rate": round((wins + draws / 2) / played, 4),
    }


def main(argv: list[str] | None = None) -> None:
    """Command line (module docstring)."""
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?", help="a kit model (.json); not needed with --bot")
    ap.add_argument("--rules", default="japanese")
    ap.add_argument("--steps", type=int, default=200, help="env steps (each a decision per env)")
    ap.add_argument("--envs", type=int, default=128)
    ap.add_argument("--bot", help="play this bot in the learner's seat instead (win rate)")
    ap.add_argument("--games", type=int, default=3000, help="with --bot: games to play")
    args = ap.parse_args(argv)
    if args.bot:
        out = bot_as_learner(args.bot, args.rules, args.games)
    elif args.model:
        out = probe(args.model, args.rules, args.steps, args.envs)
    else:
        ap.error("give a MODEL or --bot SPEC")
    print(json.dumps(out))


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
