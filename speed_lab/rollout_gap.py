"""How much could one step of rollout search add to ``chain``?

Stops ``chain``-vs-``chain`` games at random decision states of seat 0 (two
or more legal actions), continues each state ``--continuations`` times per
legal action (``chain`` for both seats after that tick, the same random
streams for every action: ``forks.py``) and asks whether some action beats
``chain``'s own choice. To keep the noise of picking the best of several
estimates out of the answer, the continuations are cross-fitted: the best
action is picked on one half and scored on the other (and the other way
round). The result, in points of win rate per decision, is what a policy
that improves on ``chain`` by one step of search could gain at each of its
decisions; ``--continuations`` limits how much of it the search can see.

Run: python -m speed_lab.rollout_gap --games 1500 --continuations 16
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from speed_env.rules import make_rules
from speed_lab.forks import continue_forks, find_forks


def main() -> None:
    """Print the cross-fitted gain of the rollout-best action over ``chain``'s, with a 95% interval."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="us")
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--continuations", type=int, default=16, help="per action (even)")
    parser.add_argument(
        "--stop-chance",
        type=float,
        default=0.04,
        help="chance per decision tick to stop a game there",
    )
    parser.add_argument("--seed", type=int, default=200)
    args = parser.parse_args()
    rules = make_rules(args.rules)
    rng = np.random.default_rng(args.seed)

    def decision(obs: np.ndarray, mask: np.ndarray, tick: int) -> np.ndarray:
        return (mask[0].sum(axis=1) >= 2) & (rng.random(mask.shape[1]) < args.stop_chance)

    forks = find_forks(rules, args.games, decision, args.seed)
    k = args.continuations - args.continuations % 2
    rows = [(f, int(a), c) for f in forks for a in np.flatnonzero(f.mask) for c in range(k)]
    score = continue_forks(
        rules, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], args.seed
    )
    gains, changed, oracle = [], 0, []
    at = 0
    for f in forks:
        legal = np.flatnonzero(f.mask)
        q = score[at : at + legal.size * k].reshape(legal.size, k)
        at += legal.size * k
        mine = int(np.flatnonzero(legal == f.actions[0])[0])
        halves = (q[:, : k // 2].mean(axis=1), q[:, k // 2 :].mean(axis=1))
        gain = 0.0
        for pick_half, score_half in ((0, 1), (1, 0)):
            est = halves[pick_half].copy()
            est[mine] += 1e-9  # on a tie keep chain's choice
            best = int(est.argmax())
            changed += best != mine
            gain += (halves[score_half][best] - halves[score_half][mine]) / 2
        gains.append(gain)
        full = q.mean(axis=1)
        oracle.append(full.max() - full[mine])
    g = np.array(gains)
    half = 1.959963984540054 * g.std(ddof=1) / math.sqrt(g.size)
    print(
        f"{args.rules}: {len(forks)} decision states, {len(rows):,} continuations ({k} per action)"
    )
    print(
        f"rollout-best differs from chain's choice in {100 * changed / (2 * len(forks)):.1f}% of picks"
    )
    print(
        f"gain per decision, cross-fitted: {100 * g.mean():+.3f} points [{100 * (g.mean() - half):+.3f}, "
        f"{100 * (g.mean() + half):+.3f}]; best-of-estimates (biased up): {100 * np.mean(oracle):+.3f}"
    )


if __name__ == "__main__":
    main()
