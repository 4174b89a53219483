"""How much could one step of rollout search add to ``chain``?

Stops ``chain``-vs-``chain`` games at random decision states of seat 0 (two
or more legal actions), continues each state ``--continuations`` times per
legal action (``chain`` for both seats after that tick, the same random
streams for every action: :mod:`speed_lab.forks`) and asks whether some action beats
``chain``'s own choice. To keep the noise of picking the best of several
estimates out of the answer, the continuations are cross-fitted: the best
action is picked on one half and scored on the other (and the other way
round). The result, in points of win rate per decision, is what a policy
that improves on ``chain`` by one step of search could gain at each of its
decisions; ``--continuations`` limits how much of it the search can see.

Run: python -m speed_lab.rollout_gap --games 1500 --continuations 16
"""

from __future__ import annotations

import numpy as np

from speed_env.rules import make_rules
from speed_lab import forks


def main() -> None:
    """Print the cross-fitted gain of the rollout-best action over ``chain``'s, and its interval."""
    parser = forks.study_parser(__doc__, games=1500, seed=200)
    parser.add_argument("--continuations", type=int, default=16, help="per action (even)")
    forks.add_stop_chance(parser)
    args = parser.parse_args()
    rules = make_rules(args.rules)
    rng = np.random.default_rng(args.seed)
    states = forks.find_forks(
        rules, args.games, forks.random_decisions(rng, args.stop_chance), args.seed
    )
    k = args.continuations - args.continuations % 2
    rows = [(f, int(a), c) for f in states for a in np.flatnonzero(f.mask) for c in range(k)]
    score = forks.continue_forks(
        rules, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], args.seed
    )
    gains, changed, oracle = [], 0, []
    at = 0
    for f in states:
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
    print(
        f"{args.rules}: {len(states)} decision states, {len(rows):,} continuations ({k} per action)"
    )
    print(
        f"rollout-best differs from chain's choice in {100 * changed / (2 * len(states)):.1f}% "
        "of picks"
    )
    print(
        f"gain per decision, cross-fitted: {forks.points_interval(np.array(gains), 3)}; "
        f"best-of-estimates (biased up): {100 * np.mean(oracle):+.3f}"
    )


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
