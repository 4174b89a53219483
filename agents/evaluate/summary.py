"""``speed evaluate``'s numbers: a played plan's results, per pairing or table.

The plan is a :class:`~agents.evaluate.plan.Plan`.

Real-time: per rule set and opponent, games, wins, losses, draws, truncations,
the win rate (a draw half) with its Wilson interval, the match win rate
(``us``/``pagat``) and the illegal actions; the latency sweep's points and its
break-even latency against ``chain`` (:mod:`agents.reaction_sweep.summary`); under a protocol
that charges thinking, the same pairings played free (``free``) and the costs (``thinking``,
:mod:`agents.evaluate.thinking`). Another
game's results are its card's (:mod:`agents.evaluate.vintage`: per table). The ratings
are :func:`agents.evaluate.make_card.rate`'s. Importable from :mod:`agents.evaluate.make_card`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.evaluate import protocol
from agents.evaluate.plan import Plan
from agents.evaluate.thinking import FREE_GROUP
from agents.tournament import realtime


def _pairing_row(settings: realtime.Settings, chunks: list[Any]) -> dict[str, Any]:
    from agents.stats import wilson_interval

    chunks = sorted(chunks, key=lambda c: c.chunk.start)  # workers finish in any order
    games = sum(c.games for c in chunks)
    wins = sum(c.wins_a for c in chunks)
    losses = sum(c.wins_b for c in chunks)
    draws = sum(c.draws for c in chunks)
    score = wins + draws / 2
    lo, hi = wilson_interval(score, games)
    illegal = sum(c.illegal_a for c in chunks)
    row: dict[str, Any] = {
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "truncations": sum(c.truncated for c in chunks),
        "win_rate": score / games if games else 0.0,
        "win_rate_ci": [lo, hi],
        "illegal_actions": illegal,
        "illegal_per_game": illegal / games if games else 0.0,
    }
    if settings.match:
        matches, left = realtime.pairing_matches(settings, chunks).get(0, ([], 0))
        won = sum(1 for w, _ in matches if w > 0)
        mlo, mhi = wilson_interval(won, len(matches))
        row["match"] = {
            "matches": len(matches),
            "match_wins": won,
            "match_win_rate": won / len(matches) if matches else None,
            "match_win_rate_ci": [mlo, mhi],
            "games_left_over": left,
        }
    return row


def _settings_of(plan: Plan, group: str) -> Any:
    return next(job[1] for job in plan.jobs if job[0] == group)


def summarise_realtime(plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
    """The real-time card's results: per rule set and opponent, and the latency fit.

    The ratings are :func:`rate`'s.
    """
    from agents.reaction_sweep.summary import summarise
    from agents.reaction_sweep.work import PointResult

    proto = protocol.protocol("realtime", plan.version)
    samples = proto["rating"]["bootstrap"]
    out = _rule_sets(plan, by_group, proto)
    latency: dict[str, Any] = {}
    if "latency" in plan.skipped:
        latency = {"skipped": plan.skipped["latency"]}
    else:
        groups = [g for g in plan.groups if plan.groups[g]["kind"] == "latency"]
        sweep = plan.groups[groups[0]]["sweep"]
        points = []
        for g in groups:
            lat, opp = sweep.points()[plan.groups[g]["point"]]
            # In chunk order, as a tournament's results are: the bootstrap draws depend on it.
            outcomes = np.array(
                [o for c in sorted(by_group[g], key=lambda c: c.chunk.start) for o in c.outcomes],
                np.int8,
            )
            points.append(PointResult(lat, opp, outcomes))
        doc = summarise(sweep, points, bootstrap=samples)
        fit = doc.get("fit") or {}
        latency = {
            "opponent": f"{sweep.opponent}@{sweep.opponent_latencies[0]}",
            "rule_set": proto["latency"]["rule_set"],
            "points": [
                {
                    k: row[k]
                    for k in (
                        "latency_ms",
                        "opponent_latency_ms",
                        "games",
                        "win_rate",
                        "ci_low",
                        "ci_high",
                    )
                }
                for row in doc["points"]
            ],
            "break_even_ms": fit.get("break_even_ms"),
            "break_even_ci": finite_interval(fit.get("break_even_ci")),
            "break_even_latency_ms": fit.get("break_even_latency_ms"),
            "fit_p_value": fit.get("fit_p_value"),
            "meaning": "how many ms slower than chain (both jittered, at the median) the agent "
            "can react and still win half its games; negative: it must be faster",
        }
    results: dict[str, Any] = {"rule_sets": out, "latency": latency}
    if plan.thinking is not None:  # thinking charged: the same pairings free, and the costs
        results["free"] = {"rule_sets": _rule_sets(plan, by_group, proto, FREE_GROUP)}
        results["thinking"] = plan.thinking
    return results


def _rule_sets(
    plan: Plan, by_group: dict[str, list[Any]], proto: dict[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """Per rule set and opponent, the pairings' rows of the groups named ``prefix + rs/opp``."""
    out: dict[str, Any] = {}
    for rs in proto["rule_sets"]:
        if rs in plan.skipped:
            out[rs] = {"skipped": plan.skipped[rs]}
            continue
        opponents: dict[str, Any] = {}
        for opp in proto["opponents"]:
            group = f"{rs}/{opp}"
            if group in plan.skipped:
                opponents[opp] = {"skipped": plan.skipped[group]}
                continue
            group = prefix + group
            opponents[opp] = _pairing_row(_settings_of(plan, group), by_group[group])
        out[rs] = {"opponents": opponents}  # the rating: rate()
    return out


def finite_interval(ci: Any) -> list[float] | None:
    """``ci`` when both its ends are finite numbers, else ``None`` (JSON ``null``).

    A weak agent's quick card can leave the break-even bootstrap without a bound (NaN); a card
    is strict JSON (``speed leaderboard`` refuses NaN), so an undefined interval is written as
    "none" rather than as a number that is not one."""
    if ci is None or len(ci) != 2 or not all(math.isfinite(float(v)) for v in ci):
        return None
    return [float(v) for v in ci]
