"""Does ``chain``'s planning of the ``japanese`` options beat the ``chain`` that ignored them?

Plays each variant against ``chain:plan=0`` (the first ``chain``: stack and
multi-play moves scored 0, jokers played as plain cards, play-out flip
choices scored as plays) on paired ``japanese`` deals, under each option alone
and all four together, and prints win rates with Wilson 95% intervals (a draw
counts half). Run: python -m speed_lab.chain_options --games 8000 --workers 2
"""

from __future__ import annotations

import argparse

from agents import tournament
from speed_env.rules import make_rules

ALL = "jokers+stack_layout+multi_play+play_out"
OPTIONS = f"{ALL};jokers;stack_layout;multi_play;play_out"


def main() -> None:
    """Print one row per (options, variant)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--options",
        default=OPTIONS,
        help="japanese option sets separated by ';', flags in a set joined by '+'",
    )
    parser.add_argument("--variants", default="chain", help="chain specs separated by ';'")
    parser.add_argument("--opponent", default="chain:plan=0", help="agent spec every variant plays")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    print(f"{'options':<42}{'variant':<28}{'games':>7}{'win rate':>10}  95% CI")
    for option_set in args.options.split(";"):
        rules = make_rules("japanese", **dict.fromkeys(option_set.split("+"), True))
        for variant in args.variants.split(";"):
            settings = tournament.Settings(
                agents=(variant, args.opponent), games=args.games, rules=rules, seed=args.seed
            )
            results, _ = tournament.run(settings, workers=args.workers)
            m = tournament.summarise(settings, results, bootstrap=20)["matches"][0]
            lo, hi = m["win_rate_a_ci"]
            print(
                f"{option_set:<42}{variant:<28}{m['games']:>7}{100 * m['win_rate_a']:>9.1f}%  "
                f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
