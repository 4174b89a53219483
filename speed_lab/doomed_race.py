"""Is racing a card that must bounce worse than waiting?

A "doomed race": the opponent's card is flying to a pile and lands within
``--within`` ms (under the 150 ms floor of the ``human`` profile, so it
surely lands first), and every play I have goes onto that pile. ``chain``
races anyway (a play always beats waiting for it). This script plays
``chain`` against ``chain``, stops each game at its first such state of seat
0, and continues it ``--continuations`` times both ways, racing and waiting,
with ``chain`` playing everything after that tick; both ways of one
continuation share their random streams (:mod:`speed_lab.forks`).

Run: python -m speed_lab.doomed_race --games 3000 --continuations 16
"""

from __future__ import annotations

import numpy as np

from speed_env.observation import observation_layout
from speed_env.rules import make_rules
from speed_lab.forks import continue_forks, find_forks, points_interval, study_parser


def main() -> None:
    """Print racing's and waiting's scores and their paired difference with a 95% interval."""
    parser = study_parser(__doc__, games=3000, seed=100)
    parser.add_argument("--continuations", type=int, default=16)
    parser.add_argument(
        "--within", type=float, default=150.0, help="ms: the opponent's card lands sooner than this"
    )
    args = parser.parse_args()
    rules = make_rules(args.rules)
    at, nr = observation_layout(rules)["opp_flight"].start, rules.n_ranks

    def doomed(obs: np.ndarray, mask: np.ndarray, tick: int) -> np.ndarray:
        pile = obs[0][:, at + nr : at + nr + 2]
        lands_in = obs[0][:, at + nr + 2] * 1000
        plays = mask[0][:, 1 : 1 + 2 * 13].reshape(len(pile), 13, 2)
        elsewhere = plays[np.arange(len(pile)), :, 1 - pile.argmax(axis=1)].any(axis=1)
        return (
            (pile.sum(axis=1) > 0) & (lands_in < args.within) & plays.any(axis=(1, 2)) & ~elsewhere
        )

    forks = find_forks(rules, args.games, doomed, args.seed)
    if not forks:
        print("no doomed-race state found; play more --games")
        return
    k = args.continuations
    rows = [(f, way, c) for f in forks for c in range(k) for way in (0, 1)]
    score = continue_forks(
        rules,
        [f for f, _, _ in rows],
        [f.actions[0] if way == 0 else 0 for f, way, _ in rows],
        [c for _, _, c in rows],
        args.seed,
    ).reshape(len(forks), k, 2)
    diff = (score[:, :, 0] - score[:, :, 1]).mean(axis=1)  # per state: states are independent
    print(f"{args.rules}: {len(forks)} states x {k} continuations each way")
    print(
        f"race {100 * score[:, :, 0].mean():.2f}%  wait {100 * score[:, :, 1].mean():.2f}%  "
        f"race - wait {points_interval(diff)}"
    )


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
