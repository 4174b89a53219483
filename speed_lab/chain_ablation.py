"""Which ideas of the ``chain`` bot move its win rate against ``greedy``?

Plays ``chain`` with each score term switched off in turn against ``greedy``
on paired deals, for each preset, and prints win rates with Wilson 95%
intervals. Run: python -m speed_lab.chain_ablation --games 8000 --workers 2

``--opponent chain --variants "chain:deny=1;chain:run=0.1"`` asks the other
question: do other weights beat ``chain`` itself?
"""

from __future__ import annotations

import argparse

from agents import tournament
from speed_env.rules import make_rules

VARIANTS = ["chain", "chain:run=0", "chain:run=1", "chain:flying=0", "chain:deny=0"]


def main() -> None:
    """Print one row per (preset, variant)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--presets", default="japanese,us")
    parser.add_argument(
        "--variants", default=";".join(VARIANTS), help="chain specs separated by ';'"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--opponent", default="greedy", help="agent spec every variant plays")
    args = parser.parse_args()
    print(f"{'preset':<10}{'variant':<28}{'games':>7}{'win rate':>10}  95% CI")
    for preset in args.presets.split(","):
        for variant in args.variants.split(";"):
            settings = tournament.Settings(
                agents=(variant, args.opponent),
                games=args.games,
                rules=make_rules(preset),
                seed=args.seed,
            )
            results, _ = tournament.run(settings, workers=args.workers)
            m = tournament.summarise(settings, results, bootstrap=20)["matches"][0]
            lo, hi = m["win_rate_a_ci"]
            print(
                f"{preset:<10}{variant:<28}{m['games']:>7}{100 * m['win_rate_a']:>9.1f}%  "
                f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
