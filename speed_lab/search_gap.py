"""Per-decision gain over ``chain`` of fair search and of perfect-information search.

Stops ``chain``-vs-``chain`` games at random decision states of seat 0 (two
or more legal actions; :mod:`speed_lab.forks`). At each state three actions are chosen:

- ``chain``'s own;
- the **fair** search's: the ``search`` agent's machinery
  (``agents/search/``) on worlds sampled from seat 0's observation alone
  (``speed_env.worlds.sample_worlds``);
- the **perfect-information** search's: the same machinery on copies of the
  true state (it knows every hidden card; only the future's random draws are
  fresh). This variant exists here only, never as an agent.

Each chosen action is then scored on the true state by ``--score``
continuations (``chain`` for both seats to the end, the same random streams
for every action: common random numbers). The searches pick on their own
random streams, never on the scoring ones, so picking the best of noisy
estimates does not inflate the gain. The result, in points of win rate per
decision with a 95% interval over states, is what playing that search's
action once, then ``chain``, adds to ``chain``.

Run: python -m speed_lab.search_gap --rules us --games 1500 --worlds 16 --depth 0 --score 16
"""

from __future__ import annotations

import time

import numpy as np

from agents.search import SearchSettings, best_actions
from speed_env.rules import make_rules
from speed_env.worlds import sample_worlds
from speed_lab import forks


def main() -> None:
    """Print fair and perfect-information search's gain per decision over ``chain``."""
    parser = forks.study_parser(__doc__, games=1500, seed=300)
    parser.add_argument(
        "--worlds", type=int, default=16, help="worlds (continuations) per action for the searches"
    )
    parser.add_argument(
        "--depth", type=int, default=0, help="ticks per search continuation; 0 to the end"
    )
    parser.add_argument(
        "--z",
        type=float,
        default=0.0,
        help="search leaves chain's choice only z standard errors ahead",
    )
    parser.add_argument(
        "--score", type=int, default=16, help="scoring continuations per chosen action"
    )
    forks.add_stop_chance(parser)
    args = parser.parse_args()
    rules = make_rules(args.rules)
    rng = np.random.default_rng(args.seed)
    started = time.time()
    states = forks.find_forks(
        rules, args.games, forks.random_decisions(rng, args.stop_chance), args.seed
    )
    settings = SearchSettings(worlds=args.worlds, depth=args.depth, z=args.z)
    obs = np.stack([f.obs for f in states])
    masks = np.stack([f.mask for f in states])
    mine = np.array([f.actions[0] for f in states], np.int64)
    seats = np.zeros(len(states), np.int64)
    w = args.worlds
    fair = best_actions(
        rules, sample_worlds(rules, obs, w, rng), w, seats, masks, mine, settings, args.seed + 1
    )
    truth = np.repeat(np.stack([f.record for f in states]), w)
    truth["seed"] = rng.integers(0, 2**63, size=truth.size, dtype=np.int64).astype(np.uint64)
    perfect = best_actions(rules, truth, w, seats, masks, mine, settings, args.seed + 2)

    # Score every distinct chosen action of every state on the same held-out continuations.
    k = args.score
    rows = [
        (j, int(a), c)
        for j in range(len(states))
        for a in sorted({mine[j], fair[j], perfect[j]})
        for c in range(k)
    ]
    score = forks.continue_forks(
        rules,
        [states[r[0]] for r in rows],
        [r[1] for r in rows],
        [r[2] for r in rows],
        args.seed + 3,
    )
    mean: dict[tuple[int, int], float] = {}
    for at in range(0, len(rows), k):
        j, a, _ = rows[at]
        mean[(j, a)] = float(score[at : at + k].mean())

    def gain(chosen: np.ndarray) -> np.ndarray:
        return np.array(
            [mean[(j, int(chosen[j]))] - mean[(j, int(mine[j]))] for j in range(len(states))]
        )

    gain_fair, gain_perfect = gain(fair), gain(perfect)
    print(
        f"{args.rules}: {len(states)} decision states of seat 0, search {w} worlds per action, "
        f"depth {args.depth or 'to the end'}, z {args.z:g}, scored on {k} continuations per "
        f"action ({len(rows):,} in all)"
    )
    for name, chosen, gains in (
        ("fair search:   ", fair, gain_fair),
        ("perfect search:", perfect, gain_perfect),
    ):
        print(
            f"{name} differs from chain in {100 * np.mean(chosen != mine):.1f}% of states; "
            f"gain per decision {forks.points_interval(gains)}"
        )
    print(f"perfect - fair: {forks.points_interval(gain_perfect - gain_fair)}")
    print(f"run time {time.time() - started:.0f} s")


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
