"""A model's score against agents over paired deals, with its 95% interval: a row per agent.

Both seats of every deal are played (:mod:`agents.tournament.realtime`, a gauntlet of the
model); a game won counts 1, drawn 1/2, and the interval counts a deal's two games as one
cluster (:func:`agents.stats.clustered_mean`). Against a weighted mixture of agents the
``mixture`` row is, per deal, the agents' scores weighted: the same deals for every agent, so
the mixture's interval is paired too. An exploiter's curve (:mod:`train.exploit`) is made of
these rows; a league's payoff table (:mod:`train.league.payoff`) of the games of
:func:`gauntlet`, which both play.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["gauntlet", "paired_interval", "score_rows"]


def paired_interval(values: np.ndarray, deals: np.ndarray) -> tuple[float, float, float]:
    """Mean score and its 95% interval, the games of one deal counted as one cluster.

    :func:`agents.stats.clustered_mean`, held to [0, 1]. Where every deal scored the same
    (a target lost every game) its interval has no width, which no sample proves: the Wilson
    interval of the games is given instead.
    """
    from agents.stats import clustered_mean, wilson_interval

    mean, lo, hi = clustered_mean(values, deals)
    if hi - lo <= 0:
        lo, hi = wilson_interval(float(values.sum()), int(values.size))
    return mean, max(0.0, lo), min(1.0, hi)


def gauntlet(
    spec: str,
    opponents: Sequence[str],
    *,
    rules: Any,
    reaction: Any,
    games: int,
    seed: int,
    tick_ms: int = 50,
    think: Any = None,
    **options: Any,
) -> tuple[list[list[Any]], bool]:
    """``spec`` against each of ``opponents`` on ``games`` paired games, by the tournament harness.

    Per opponent, in their order, its finished chunks (:class:`agents.tournament.realtime.
    ChunkResult`, in deal order); and whether every game was played (Ctrl-C stops them).
    ``think`` charges each agent's thinking (:class:`agents.think.plan.ThinkPlan`; ``None``:
    off), ``spec`` itself charged nothing where a calibration has no cost for it
    (:func:`train.common.think.charging_nothing_to`). ``options`` are
    :func:`agents.tournament.realtime.run`'s: ``workers``, ``backend``, ``progress``.
    """
    from agents.tournament import realtime
    from train.common.think import charging_nothing_to

    settings = realtime.Settings(
        agents=(spec, *opponents),
        games=games,
        rules=rules,
        reaction=reaction,
        tick_ms=tick_ms,
        seed=seed,
        gauntlet=spec,
        think=charging_nothing_to(think, [spec]),
    )
    results, complete = realtime.run(settings, **options)
    lineups = {j: k for k, (_, j) in enumerate(settings.pairings())}
    chunks = [
        [r for r in results if r.chunk.lineup == lineups[j]] for j in range(1, len(opponents) + 1)
    ]
    return chunks, complete


def score_rows(
    spec: str,
    weights: dict[str, float],
    *,
    rules: Any,
    reaction: Any,
    tick_ms: int,
    games: int,
    seed: int,
    workers: int = 1,
    think: Any = None,
) -> list[dict[str, Any]]:
    """``spec`` against each agent of ``weights`` on ``games`` paired games: a row each.

    ``think``: the plan charging the agents' thinking, as in training (:func:`gauntlet`).

    With several agents, a last ``mixture`` row (what ``spec`` wins against the mixture). A
    Ctrl-C during the games is raised again: a score on fewer deals is not kept.
    """
    t0 = time.perf_counter()
    played, complete = gauntlet(
        spec, list(weights), rules=rules, reaction=reaction, games=games, seed=seed,
        tick_ms=tick_ms, workers=workers, think=think,
    )  # fmt: skip
    if not complete:
        raise KeyboardInterrupt
    wall = round(time.perf_counter() - t0, 2)
    per_deal: dict[str, np.ndarray] = {}
    rows = []
    for target, mine in zip(weights, played, strict=True):
        outcomes = np.concatenate([r.outcomes for r in mine])
        # deal order, then the two seatings: each deal's two games side by side
        deals = np.concatenate(
            [np.repeat(r.chunk.start + np.arange(r.chunk.count), 2) for r in mine]
        )
        values = (outcomes + 1) / 2.0  # won 1, drawn 1/2, lost 0
        per_deal[target] = values.reshape(-1, 2).mean(axis=1)
        mean, lo, hi = paired_interval(values, deals)
        rows.append(_row(rules.preset, target, weights[target], outcomes, mean, lo, hi, wall))
    if len(weights) > 1:
        mixed = np.asarray(sum(w * per_deal[t] for t, w in weights.items()))
        mean, lo, hi = paired_interval(mixed, np.arange(len(mixed)))
        row = _row(rules.preset, "mixture", 1.0, np.zeros(0), mean, lo, hi, wall)
        row["games"] = sum(r["games"] for r in rows)
        rows.append(row)
    return rows


def _row(
    rules: str, target: str, weight: float, outcomes: np.ndarray, mean: float, lo: float,
    hi: float, wall: float,
) -> dict[str, Any]:  # fmt: skip
    return {
        "rules": rules,
        "opponent": target,
        "weight": round(weight, 6),
        "games": int(outcomes.size),
        "wins": int((outcomes > 0).sum()),
        "losses": int((outcomes < 0).sum()),
        "draws": int((outcomes == 0).sum()),
        "score": round(mean, 4),
        "ci_low": round(lo, 4),
        "ci_high": round(hi, 4),
        "wall_s": wall,
    }
