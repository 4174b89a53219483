"""Calibrate the reference bots' thinking and write it as protocol 2's shipped costs.

    python -m agents.evaluate.think_costs
    python -m agents.evaluate.think_costs --out costs.json

Each bot of the protocol's pool is timed as ``--think calibrated`` times any agent (its ``act``
at batch one on the fixed decision states of the ``us`` rules, the median charged) and the
result is written, with the machine's facts, as a calibration file
(``agents/cards/think_realtime.json`` by default; docs/thinking-time.md). Protocol 2 copies these
costs into its data, so writing the shipped file changes protocol 2: make its anchors and cards
again afterwards (``make cards``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.evaluate import protocol


def main(argv: list[str] | None = None) -> int:
    """Calibrate the pool, print each cost, write the file."""
    from agents.evaluate.thinking import POOL_FILE, RULE_SET, ThinkCardError, time_agent
    from agents.runtime.files import write_json
    from agents.think import record
    from speed_env.rules import make_rules

    p = argparse.ArgumentParser(
        prog="python -m agents.evaluate.think_costs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", default=None, help=f"calibration file (default {POOL_FILE})")
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else POOL_FILE
    proto = protocol.REALTIME_1  # the pool is protocol 1's (and 2's) opponents
    cfg = proto["rule_sets"][RULE_SET]
    rules = make_rules(cfg["preset"], **cfg["options"])
    try:
        found = {bot: time_agent(bot, rules) for bot in proto["opponents"]}
    except ThinkCardError as exc:
        print(f"error: {exc}; nothing written", file=sys.stderr)
        return 1
    doc = record.make_record(found, rules)
    write_json(out, doc)
    machine = doc["machine"]
    print(
        f"wrote {_shown(out)}: {len(doc['agents'])} bots on {machine['cpu']} "
        f"({machine['cores']} cores, load {machine['load_1min']}), kit {doc['kit_version']}"
    )
    return 0


def _shown(path: Path) -> str:
    """``path`` relative to the working folder where it lies inside it (as a person typed it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    raise SystemExit(main())
