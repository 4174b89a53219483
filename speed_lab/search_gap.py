"""Per-decision gain over ``chain`` of fair search and of perfect-information search.

Stops ``chain``-vs-``chain`` games at random decision states of seat 0 (two
or more legal actions; ``forks.py``). At each state three actions are chosen:

- ``chain``'s own;
- the **fair** search's: the ``search`` agent's machinery
  (``agents/search.py``) on worlds sampled from seat 0's observation alone
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

import argparse
import math
import time

import numpy as np

from agents.search import SearchSettings, best_actions
from speed_env.rules import make_rules
from speed_env.worlds import sample_worlds
from speed_lab.forks import continue_forks, find_forks


def interval(x: np.ndarray) -> str:
    """Mean and 95% normal interval of per-state gains, in points."""
    half = 1.959963984540054 * x.std(ddof=1) / math.sqrt(x.size)
    return f"{100 * x.mean():+.2f} points [{100 * (x.mean() - half):+.2f}, {100 * (x.mean() + half):+.2f}]"


def main() -> None:
    """Print fair and perfect-information search's gain per decision over ``chain``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="us")
    parser.add_argument("--games", type=int, default=1500)
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
    parser.add_argument(
        "--stop-chance",
        type=float,
        default=0.04,
        help="chance per decision tick to stop a game there",
    )
    parser.add_argument("--seed", type=int, default=300)
    args = parser.parse_args()
    rules = make_rules(args.rules)
    rng = np.random.default_rng(args.seed)
    started = time.time()

    def decision(obs: np.ndarray, mask: np.ndarray, tick: int) -> np.ndarray:
        return (mask[0].sum(axis=1) >= 2) & (rng.random(mask.shape[1]) < args.stop_chance)

    forks = find_forks(rules, args.games, decision, args.seed)
    settings = SearchSettings(worlds=args.worlds, depth=args.depth, z=args.z)
    obs = np.stack([f.obs for f in forks])
    masks = np.stack([f.mask for f in forks])
    mine = np.array([f.actions[0] for f in forks], np.int64)
    seats = np.zeros(len(forks), np.int64)
    w = args.worlds
    fair = best_actions(
        rules, sample_worlds(rules, obs, w, rng), w, seats, masks, mine, settings, args.seed + 1
    )
    truth = np.repeat(np.stack([f.record for f in forks]), w)
    truth["seed"] = rng.integers(0, 2**63, size=truth.size, dtype=np.int64).astype(np.uint64)
    perfect = best_actions(rules, truth, w, seats, masks, mine, settings, args.seed + 2)

    # Score every distinct chosen action of every state on the same held-out continuations.
    k = args.score
    rows = [
        (j, int(a), c)
        for j in range(len(forks))
        for a in sorted({mine[j], fair[j], perfect[j]})
        for c in range(k)
    ]
    score = continue_forks(
        rules,
        [forks[r[0]] for r in rows],
        [r[1] for r in rows],
        [r[2] for r in rows],
        args.seed + 3,
    )
    mean: dict[tuple[int, int], float] = {}
    for at in range(0, len(rows), k):
        j, a, _ = rows[at]
        mean[(j, a)] = float(score[at : at + k].mean())
    gain_fair = np.array(
        [mean[(j, int(fair[j]))] - mean[(j, int(mine[j]))] for j in range(len(forks))]
    )
    gain_perfect = np.array(
        [mean[(j, int(perfect[j]))] - mean[(j, int(mine[j]))] for j in range(len(forks))]
    )
    print(
        f"{args.rules}: {len(forks)} decision states of seat 0, search {w} worlds per action, depth "
        f"{args.depth or 'to the end'}, z {args.z:g}, scored on {k} continuations per action ({len(rows):,} in all)"
    )
    print(
        f"fair search:    differs from chain in {100 * np.mean(fair != mine):.1f}% of states; gain per decision "
        f"{interval(gain_fair)}"
    )
    print(
        f"perfect search: differs from chain in {100 * np.mean(perfect != mine):.1f}% of states; gain per decision "
        f"{interval(gain_perfect)}"
    )
    print(f"perfect - fair: {interval(gain_perfect - gain_fair)}")
    print(f"run time {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
