"""Which ideas of the ``chain`` bot move its win rate against ``greedy``?

Plays ``chain`` with each score term switched off in turn against ``greedy``
on paired deals, for each preset, and prints win rates with Wilson 95%
intervals. Run: python -m speed_lab.chain_ablation --games 8000 --workers 2

``--opponent chain --variants "chain:deny=1;chain:run=0.1"`` asks the other
question: do other weights beat ``chain`` itself?
"""

from __future__ import annotations

from speed_env.rules import make_rules
from speed_lab.variant_matches import match_parser, print_rows

VARIANTS = ["chain", "chain:run=0", "chain:run=1", "chain:flying=0", "chain:deny=0"]


def main() -> None:
    """Print one row per (preset, variant)."""
    parser = match_parser(__doc__, variants=";".join(VARIANTS), opponent="greedy", seed=7)
    parser.add_argument("--presets", default="japanese,us")
    args = parser.parse_args()
    print_rows("preset", 10, [(p, make_rules(p)) for p in args.presets.split(",")], args)


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
