"""Make the rating anchors: the reference pool's round robin under an evaluation protocol.

    python -m agents.evaluate.make_anchors --game realtime --workers 2
    python -m agents.evaluate.make_anchors --game GAME --workers 2

Real-time Speed: per rule set of the protocol, a round robin of its
opponents (those that can play the rules) on the protocol's paired deals,
games, seed and reaction (:func:`realtime_pool`, :mod:`agents.tournament.realtime`).
Another game: its card's sections and pools
(:meth:`agents.evaluate.protocol.CardGame.anchor_pool`; :mod:`agents.evaluate.vintage`:
every line-up of four reference bots, seats rotated over shared deals). The pairwise
counts (``wins``, ``draws``, ``games``) go to ``agents/cards/anchors_GAME.json`` under the
protocol version, game and section (a rule set, or ``4p``), each written as soon as
it is finished; :mod:`agents.evaluate.rating` fits the anchors from them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluate import protocol
from agents.runtime.files import write_json


def pairwise_counts(wins: np.ndarray, draws: np.ndarray, games: np.ndarray) -> dict[str, Any]:
    """Pairwise counts as the anchors file holds them: plain lists of whole numbers."""
    return {
        "wins": wins.astype(int).tolist(),
        "draws": draws.astype(int).tolist(),
        "games": games.astype(int).tolist(),
    }


def realtime_pool(rs: str, version: int, workers: int, progress: Any = None) -> dict[str, Any]:
    """One rule set's round robin of the protocol's opponents: pairwise counts."""
    from agents.specs.realtime import REALTIME
    from agents.tournament import realtime
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules

    proto = protocol.protocol("realtime", version)
    cfg = proto["rule_sets"][rs]
    rules = make_rules(cfg["preset"], **cfg["options"])
    pool = []
    for opp in proto["opponents"]:
        try:
            REALTIME.make(opp, rules, 0)
        except ValueError:
            continue  # refuses these rules: not an anchor here
        pool.append(opp)
    think = None
    if "think" in proto:  # protocol 2: every bot's thinking charged at its shipped cost
        from agents.think.plan import ThinkPlan

        think = ThinkPlan("calibrated", tuple(proto["think"]["opponents_ms"].items()))
    settings = realtime.Settings(
        agents=tuple(pool),
        games=proto["games"],
        rules=rules,
        reaction=make_profile(proto["reaction"]),
        tick_ms=proto["tick_ms"],
        seed=proto["seed"],
        think=think,
    )
    results, complete = realtime.run(settings, workers=workers, progress=progress)
    if not complete:  # the run stops short only on Ctrl-C: main writes nothing for this key
        raise KeyboardInterrupt
    wins, draws, games = realtime.pair_counts(settings, results)
    return {
        "agents": pool,
        "games_per_pairing": settings.deals * 2,  # each deal twice, seats swapped
        "seed": settings.seed,
        **pairwise_counts(wins, draws, games),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the pool's round robins and write the anchors file."""
    from agents.evaluate.make_card import anchors_file
    from agents.runtime.progress import chunk_progress

    p = argparse.ArgumentParser(
        prog="python -m agents.evaluate.make_anchors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", choices=[g.name for g in protocol.card_games()], required=True)
    p.add_argument("--protocol", type=int, default=protocol.PROTOCOL_VERSION)
    p.add_argument("--rule-sets", default=None, help="realtime: only these (comma-separated)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--out", default=None, help="anchors file (default agents/cards/anchors_GAME.json)"
    )
    args = p.parse_args(argv)
    try:  # a protocol or rule set the kit does not have: one line, nothing written
        proto = protocol.protocol(args.game, args.protocol)
    except protocol.ProtocolError as exc:
        p.error(f"--protocol: {exc}")
    card = protocol.card_game(args.game)
    try:
        keys = card.anchor_keys(proto, args.rule_sets.split(",") if args.rule_sets else None)
    except ValueError as exc:
        p.error(f"--rule-sets: protocol {args.protocol} {exc}")
    out = Path(args.out) if args.out else anchors_file(args.game)
    # Read first: other protocol versions and rule sets in the file are kept as they are.
    doc: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {}
    section = doc.setdefault(str(args.protocol), {}).setdefault(args.game, {})
    for key in keys:
        try:
            with chunk_progress(f"anchors {args.game} {key}") as progress:
                section[key] = card.anchor_pool(key, args.protocol, args.workers, progress)
        except KeyboardInterrupt:
            print(f"interrupted: {key} not written", file=sys.stderr)
            return 130
        write_json(out, doc)
        print(f"wrote {key} to {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
