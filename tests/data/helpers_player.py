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
    """Start and play one game; returns (time, the result message, the reaction times measured).

    The person reacts to each *new* chance: a play that became legal at this tick, taken
    the current draw of reaction time later, so the table measures exactly that draw. A
    draw whose chance went away first (the pile changed) is kept for the next chance rather
    than redrawn, so the times played are the draws in order, unselected by their values.
    Chances that were already open when the person became free are left alone.
    """
    session.handle(protocol.Start(), t)
    plan: tuple[int, float] | None = None
    draw = exgauss(rng, *rt)
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
            plan = None  # the chance went away: the draw waits for the next one
        if plan is None and session.pending is None:
            new = [a for a in sorted(since) if since[a] == t]
            if new:
                a = new[int(rng.integers(len(new)))]
                plan = (a, t + draw / 1000.0)
        if plan is not None and plan[1] < session.next_tick_at:
            where = slot_of(session.env.snapshot(), plan[0])
            if where is not None:
                try:
                    ack = session.handle(protocol.Play(*where), plan[1])
                except ProtocolError:
                    pass  # the card is still in flight: the draw waits for the next chance
                else:
                    sent.append(ack[0]["latency_ms"])
                    draw = exgauss(rng, *rt)
            plan = None
    raise AssertionError("the game never ended")
