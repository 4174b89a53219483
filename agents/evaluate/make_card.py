"""``speed evaluate``: play an agent through the fixed protocol and make its report card.

The protocol is data (:mod:`agents.evaluate.protocol`); the games are the
tournaments' own (:mod:`agents.tournament.realtime` for real-time Speed, paired deals;
each other game's from its card, :mod:`agents.evaluate.vintage`), cut into
chunks and run by :func:`agents.runtime.jobs.run_jobs`, so a card is the same for any
number of workers and on either backend. The latency curve is a reaction
sweep (:mod:`agents.reaction_sweep.work`) played in the same pool of jobs. The plan
and its playing are :mod:`agents.evaluate.plan`, the results per pairing or table
:mod:`agents.evaluate.summary`; this module makes the card, rates it and times the
agent, and every public name of the three is importable from here.

Real-time card, per rule set the agent can play (those it refuses are listed
with its reason) and per opponent that can play it: games, wins, losses,
draws, truncations, win rate (a draw half) with its Wilson interval, match
win rate (``us``/``pagat``) and the illegal actions the agent chose; per rule
set the anchored rating (:mod:`agents.evaluate.rating`); the break-even
latency against ``chain``; the decision cost (CPU µs a decision at batch 1
and 256, a timing field).

Another game's card holds what its own card module says
(:class:`agents.evaluate.protocol.CardGame`; :mod:`agents.evaluate.vintage`: per table).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluate import protocol

# The plan and the numbers are modules of their own; their names are this module's API too.
from agents.evaluate.plan import (
    Plan,
)
from agents.specs.guarded import calling, checked_act

CARDS = Path(__file__).parent.parent / "cards"  # agents/cards
"""The shipped anchors, the bundled agents' cards and their leaderboards."""


def anchors_file(game: str) -> Path:
    """The reference pool's results under each protocol for ``game``.

    Made by ``python -m agents.evaluate.make_anchors --game GAME``.
    """
    return CARDS / f"anchors_{game}.json"


# ------------------------------------------------------------------ the numbers
def load_anchors(game: str) -> dict[str, Any]:
    """The shipped reference-pool results of ``game`` (``{}`` when the file is missing)."""
    path = anchors_file(game)
    if not path.is_file():
        return {}
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _pool(anchors: dict[str, Any], version: int, game: str, key: str) -> dict[str, Any] | None:
    return anchors.get(str(version), {}).get(game, {}).get(key)


def rating_fields(
    anchors: dict[str, Any],
    version: int,
    game: str,
    key: str,
    rows: list[tuple[str, int, int, int]],
    samples: int,
    seed: int,
) -> dict[str, Any]:
    """The anchored rating of ``rows`` (opponent, wins, draws, games) against the pool
    ``key`` of ``anchors``, with its interval, or a note saying why there is none."""
    from agents.evaluate.rating import anchor_ratings, anchored_rating

    pool = _pool(anchors, version, game, key)
    if pool is None:
        return {"rating": None, "note": f"no anchors for protocol {version} {game} {key}"}
    fixed = anchor_ratings(pool)
    fit = anchored_rating(fixed, rows, samples=samples, seed=seed)
    if fit is None:
        return {"rating": None, "note": "no games against an anchored agent"}
    return {
        # 2 decimals: card_check compares a re-rating within 0.01 (its RATING_KEYS).
        "rating": round(fit.rating, 2),
        "rating_ci": [round(fit.low, 2), round(fit.high, 2)],
        "against": list(fit.opponents),
        "anchors": {k: round(v, 2) for k, v in fixed.items()},
    }


# ------------------------------------------------------------------ timing
def decision_cost(spec: str, version: int = protocol.PROTOCOL_VERSION) -> dict[str, Any]:
    """CPU microseconds per decision at each batch size of the protocol (real-time Speed)."""
    from agents.specs.realtime import REALTIME
    from speed_env.batch import BatchEnv
    from speed_env.rules import make_rules

    proto = protocol.protocol("realtime", version)
    cost = proto["decision_cost"]
    cfg = proto["rule_sets"][cost["rule_set"]]
    rules = make_rules(cfg["preset"], **cfg["options"])
    with calling(spec, "building it"):
        policy = REALTIME.make(spec, rules, 0)
    size = max(cost["batches"])  # one set of positions; smaller batches time its first rows
    env = BatchEnv(size, rules)
    obs, mask = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):  # some way into the games: hands and piles vary
        # A random legal action per game (argmax of random weights on the mask); 0 where none is.
        acts = np.stack(
            [
                np.where(mask[p].any(1), (mask[p] * rng.random(mask[p].shape)).argmax(1), 0)
                for p in range(2)
            ]
        )
        obs, mask, *_ = env.step(acts)
    out: dict[str, Any] = {}
    for batch in cost["batches"]:
        o, m = obs[0][:batch], mask[0][:batch]
        where = f"timing decisions, batch {batch}"
        checked_act(policy, o, m, spec=spec, where=where)  # warm-up (compilation, caches)
        # CPU time, not wall time: other processes on the machine do not inflate the cost.
        calls, t0 = 0, time.process_time()
        with calling(spec, "act", where):  # once around the loop: nothing added to each call
            while True:
                policy.act(o, m)
                calls += 1
                spent = time.process_time() - t0
                if spent >= cost["min_seconds"]:
                    break
        out[f"batch_{batch}_us_per_decision"] = round(1e6 * spent / (calls * batch), 3)
    return out


# ------------------------------------------------------------------ the card
def card(
    plan: Plan,
    by_group: dict[str, list[Any]],
    anchors: dict[str, Any] | None = None,
    timing: dict[str, Any] | None = None,
    human_likeness: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``report.json`` document: manifest, results, and, apart, the timing fields.

    With ``human_likeness``, from :func:`train.realtime.human_likeness.measure`, that section
    too.
    """
    summarise = protocol.card_game(plan.game).summarise
    manifest = protocol.manifest(
        plan.game, plan.spec, plan.files, plan.games, plan.seed, plan.version
    )
    doc = {
        "card": "speed-rl evaluation report",
        "protocol": plan.version,
        "game": plan.game,
        "agent": plan.spec,
        "manifest": manifest,
        "skipped": dict(plan.skipped),
        "results": summarise(plan, by_group),
        "timing": timing or {},
    }
    if human_likeness is not None:
        doc["human_likeness"] = human_likeness
    return rate(doc, load_anchors(plan.game) if anchors is None else anchors)


def rate(card: dict[str, Any], anchors: dict[str, Any]) -> dict[str, Any]:
    """The card with its anchored ratings computed afresh from its own results and ``anchors``.

    The result is sealed with its hash, :func:`agents.evaluate.protocol.card_hash`.
    A pure function of the card's counts, the anchors and the card's deal seed (the bootstrap's
    seed), so a card rated when it is made equals one rated later against the same anchors:
    ``speed leaderboard`` re-rates every card this way (:mod:`agents.evaluate.card_check`).
    """
    out = json.loads(json.dumps(card))  # a deep copy
    protocol.card_game(out["game"]).rate(out, anchors)
    return protocol.seal(out)


RATING_FIELDS = ("rating", "rating_ci", "against", "anchors", "note")
"""The fields a rating writes: an old rating's are taken out first (a "note" must not outlive a
rating)."""


def rate_rule_sets(out: dict[str, Any], anchors: dict[str, Any]) -> None:
    """A real-time card's ratings, one per rule set, and its α-Rank, put into ``out``."""
    from agents.evaluate.alpharank import card_alpharank

    version, game = out["protocol"], out["game"]
    proto = protocol.protocol(game, version)
    samples, seed = proto["rating"]["bootstrap"], out["manifest"]["seeds"]["deals"]
    _rate(out["results"]["rule_sets"], anchors, version, game, samples, seed)
    if "think" in proto and "free" in out["results"]:
        # The games with nobody's thinking charged are protocol 1's: rated on its anchors.
        free = out["results"]["free"]["rule_sets"]
        _rate(free, anchors, proto["think"]["free_protocol"], game, samples, seed)
    out["results"]["alpharank"] = card_alpharank(out, anchors)


def _rate(
    rule_sets: dict[str, Any],
    anchors: dict[str, Any],
    version: int,
    game: str,
    samples: int,
    seed: int,
) -> None:
    """Each rule set's rating in ``rule_sets``, against protocol ``version``'s anchors."""
    for rs, row in rule_sets.items():
        if "opponents" not in row:
            continue
        rows = [
            (opp, r["wins"], r["draws"], r["games"])
            for opp, r in row["opponents"].items()
            if "games" in r
        ]
        for k in RATING_FIELDS:
            row.pop(k, None)
        row.update(rating_fields(anchors, version, game, rs, rows, samples, seed))
