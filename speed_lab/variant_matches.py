"""Variants of a bot against one opponent on paired deals: the rows of the ``chain_*`` studies.

Each (case, variant) row is a two-agent tournament (``agents.tournament.realtime``) of
``--games`` games on the same seed, so every variant plays the same deals; the
row gives the variant's win rate (a draw counts half) with its Wilson 95%
interval.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from agents.tournament import realtime
from speed_env.rules import Rules


def match_parser(
    doc: str | None, variants: str, opponent: str, seed: int
) -> argparse.ArgumentParser:
    """The flags both studies take: games, workers, variants, opponent and seed."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variants", default=variants, help="chain specs separated by ';'")
    parser.add_argument("--opponent", default=opponent, help="agent spec every variant plays")
    parser.add_argument("--seed", type=int, default=seed)
    return parser


def print_rows(
    column: str,
    width: int,
    cases: Sequence[tuple[str, Rules]],
    args: argparse.Namespace,
) -> None:
    """Print a header and one row per (case, variant): games, win rate, 95% interval."""
    print(f"{column:<{width}}{'variant':<28}{'games':>7}{'win rate':>10}  95% CI")
    for name, rules in cases:
        for variant in args.variants.split(";"):
            settings = realtime.Settings(
                agents=(variant, args.opponent), games=args.games, rules=rules, seed=args.seed
            )
            results, _ = realtime.run(settings, workers=args.workers)
            m = realtime.summarise(settings, results, bootstrap=20)["matches"][0]
            lo, hi = m["win_rate_a_ci"]
            print(
                f"{name:<{width}}{variant:<28}{m['games']:>7}{100 * m['win_rate_a']:>9.1f}%  "
                f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                flush=True,
            )
