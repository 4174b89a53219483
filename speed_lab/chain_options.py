"""Does ``chain``'s planning of the ``japanese`` options beat the ``chain`` that ignored them?

Plays each variant against ``chain:plan=0`` (the first ``chain``: stack and
multi-play moves scored 0, jokers played as plain cards, play-out flip
choices scored as plays) on paired ``japanese`` deals, under each option alone
and all four together, and prints win rates with Wilson 95% intervals (a draw
counts half). Run: python -m speed_lab.chain_options --games 8000 --workers 2
"""

from __future__ import annotations

from speed_env.rules import make_rules
from speed_lab.variant_matches import match_parser, print_rows

ALL = "jokers+stack_layout+multi_play+play_out"
OPTIONS = f"{ALL};jokers;stack_layout;multi_play;play_out"


def main() -> None:
    """Print one row per (options, variant)."""
    parser = match_parser(__doc__, variants="chain", opponent="chain:plan=0", seed=11)
    parser.add_argument(
        "--options",
        default=OPTIONS,
        help="japanese option sets separated by ';', flags in a set joined by '+'",
    )
    args = parser.parse_args()
    cases = [
        (option_set, make_rules("japanese", **dict.fromkeys(option_set.split("+"), True)))
        for option_set in args.options.split(";")
    ]
    print_rows("options", 42, cases, args)


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
