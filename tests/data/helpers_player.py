"""A scripted person at the table's game logic (fake clock): plays the first legal card a drawn
reaction time after it became legal, as the page would send it."""

from __future__ import annotations

from typing import Any

import numpy as np

from speed_env.cards import JOKER_RANK, parse_card, rank_of
from speed_table import protocol
from speed_table.protocol import ProtocolError


def slot_of(snapshot: dict[str, Any], action: int) -> tuple[int, int] | None:
    """The (slot, pile) of seat 0's hand that plays ``action`` (leftmost card of that rank)."""
    rank, pile = divmod(action - 1, 2)
    for slot, card in enumerate(snapshot["players"][0]["hand"]):
        if card is None:
            continue
        c = parse_card(card)
        if (JOKER_RANK if c >= 52 else rank_of(c)) == rank:
            return slot, pile
    return None


def exgauss(rng: np.random.Generator, mu: float, sigma: float, tau: float) -> float:
    """One draw of the ex-Gaussian (ms), at least 20."""
    return max(20.0, mu + sigma * rng.standard_normal() + tau * rng.exponential())


def play_game(
    session: Any, t: float, rng: np.random.Generator, rt: tuple[float, float, float]
) -> tuple[float, dict[str, Any], list[float]]:
    """Start and play one game; returns (time, the result message, the reaction times sent)."""
    session.handle(protocol.Start(), t)
    plan: tuple[int, float] | None = None
    sent: list[float] = []
    for _ in range(20_000):
        t = session.next_tick_at
        msgs = session.tick(t)
        if msgs and msgs[-1]["type"] == "result":
            return t, msgs[-1], sent
        if session.state != "running":
            continue
        mask = session.obs["player_0"]["action_mask"]
        since = session.legal.since
        if plan is not None and not mask[plan[0]]:
            plan = None
        if plan is None:
            legal = [a for a in np.flatnonzero(mask[1:]) + 1 if int(a) in since]
            if legal:
                a = int(legal[0])
                plan = (a, since[a] + exgauss(rng, *rt) / 1000.0)
        if plan is not None and plan[1] < session.next_tick_at:
            where = slot_of(session.env.snapshot(), plan[0])
            if where is not None and session.pending is None:
                try:
                    ack = session.handle(protocol.Play(*where), max(plan[1], t))
                    if ack[0]["latency_ms"] is not None:
                        sent.append(ack[0]["latency_ms"])
                except ProtocolError:
                    pass
            plan = None
    raise AssertionError("the game never ended")
