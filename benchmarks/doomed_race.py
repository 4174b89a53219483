"""Is racing a card that must bounce worse than waiting?

A "doomed race": the opponent's card is flying to a pile and lands within
``--within`` ms (under the 150 ms floor of the ``human`` profile, so it
surely lands first), and every play I have goes onto that pile. ``chain``
races anyway (a play always beats waiting for it). This script plays
``chain`` against ``chain``, stops each game at its first such state of seat
0, and continues it ``--continuations`` times both ways, racing and waiting,
everything after that first tick played by ``chain``. Both ways of one
continuation share the random streams (the same latencies, ties and
rebuilds: common random numbers), so their difference is measured, not
drowned in the noise of whole games.

Run: python benchmarks/doomed_race.py --games 3000 --continuations 16
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import agents
from speed_env import engine
from speed_env.game import Games
from speed_env.observation import observation_layout
from speed_env.rules import make_rules


def find_states(rules_name: str, games: int, within_ms: float, seed: int) -> list[tuple]:
    """Seat 0's first doomed-race state per game: (state record, latencies, both chosen actions)."""
    rules = make_rules(rules_name)
    lay, nr = observation_layout(rules), rules.n_ranks
    at = lay["opp_flight"].start
    g = Games(games, rules)
    g.deal_seeded(np.arange(games), np.arange(games) + seed)
    bots = [agents.make("chain", rules, seed=seed + p) for p in range(2)]
    taken = np.zeros(games, bool)
    found = []
    while not (g.state["phase"] == engine.OVER).all():
        obs, mask = g.observe()
        actions = np.stack([bots[p].act(obs[p], mask[p]) for p in range(2)])
        pile = obs[0][:, at + nr : at + nr + 2]
        lands_in = obs[0][:, at + nr + 2] * 1000
        plays = mask[0][:, 1 : 1 + 2 * 13].reshape(games, 13, 2)
        flying = pile.argmax(axis=1)
        elsewhere = plays[np.arange(games), :, 1 - flying].any(axis=1)
        doomed = (pile.sum(axis=1) > 0) & (lands_in < within_ms) & plays.any(axis=(1, 2)) & ~elsewhere
        doomed &= ~taken & (g.state["phase"] != engine.OVER)
        for i in np.flatnonzero(doomed):
            found.append((g.state[i].copy(), g.lat[i].copy(), int(actions[0, i]), int(actions[1, i])))
        taken |= doomed
        g.step(actions)
    return found


def continue_both_ways(rules_name: str, states: list[tuple], k: int, seed: int) -> np.ndarray:
    """Seat 0's score (1 win, ½ draw, 0 loss), shape (states, k, 2): racing [..., 0], waiting [..., 1]."""
    rules = make_rules(rules_name)
    n = len(states) * k * 2
    g = Games(n, rules)
    first = np.zeros((2, n), np.int64)
    for s, (record, lat, race, opp) in enumerate(states):
        for c in range(k):
            for way in range(2):
                j = (s * k + c) * 2 + way
                g.state[j] = record
                g.lat[j] = lat
                g.state["seed"][j] = (int(record["seed"]) * 1_000 + c + seed) % 2**63  # continuation c's streams
                first[0, j] = race if way == 0 else 0
                first[1, j] = opp
    bots = [agents.make("chain", rules, seed=seed + 10 + p) for p in range(2)]
    obs = np.zeros((2, n, g.obs_dim), np.float32)
    mask = np.zeros((2, n, g.n_actions), np.int8)
    live = np.arange(n)
    actions = first
    while True:
        g.step(actions)
        live = live[g.state["phase"][live] != engine.OVER]
        if live.size == 0:
            break
        g.observe_games(live, obs, mask)
        actions = np.zeros((2, n), np.int64)
        for p in range(2):
            actions[p, live] = bots[p].act(obs[p, live], mask[p, live])
    w = g.state["winner"].astype(np.int64)
    score = np.where(w == 0, 1.0, np.where(w == 1, 0.0, 0.5))
    return score.reshape(len(states), k, 2)


def main() -> None:
    """Print racing's and waiting's scores and their paired difference with a 95% interval."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default="us")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--continuations", type=int, default=16)
    parser.add_argument("--within", type=float, default=150.0, help="ms: the opponent's card lands sooner than this")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args()
    states = find_states(args.rules, args.games, args.within, args.seed)
    if not states:
        print("no doomed-race state found; play more --games")
        return
    score = continue_both_ways(args.rules, states, args.continuations, args.seed)
    diff = (score[:, :, 0] - score[:, :, 1]).mean(axis=1)  # per state: states are independent
    half = 1.959963984540054 * diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else float("nan")
    print(f"{args.rules}: {len(states)} states x {args.continuations} continuations each way")
    print(f"race {100 * score[:, :, 0].mean():.2f}%  wait {100 * score[:, :, 1].mean():.2f}%  "
          f"race - wait {100 * diff.mean():+.2f} points [{100 * (diff.mean() - half):+.2f}, {100 * (diff.mean() + half):+.2f}]")


if __name__ == "__main__":
    main()
