"""A scripted person (:mod:`speed_data.person`) at the table's game logic (fake clock): plays a
new chance a drawn reaction time after it became legal, as the page would send it."""

from __future__ import annotations

from typing import Any

import numpy as np

from speed_data.person import Attention, Person, plays_of
from speed_env.cards import JOKER_RANK, parse_card, rank_of
from speed_env.reaction import ReactionProfile
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


def scripted(rt: tuple[float, float, float]) -> Person:
    """The scripted person of ex-Gaussian ``rt`` (mu, sigma, tau; ms, at least 20), with the
    browser test's and the clone study's habit (a clone can learn it)."""
    return Person(ReactionProfile(*rt, floor=20.0))


def play_game(
    session: Any, t: float, rng: np.random.Generator, rt: tuple[float, float, float]
) -> tuple[float, dict[str, Any], list[float]]:
    """Start and play one game; returns (time, the result message, the reaction times measured).

    The person (:class:`speed_data.person.Person`, :func:`scripted`) reacts to each *new*
    chance: a play that became legal at this tick, taken the current draw of reaction time
    later, so the table measures exactly that draw. A draw whose chance went away first (the
    pile changed) is kept for the next chance rather than redrawn, so the times played are the
    draws in order, unselected by their values. Chances that were already open when the person
    became free are left alone.
    """
    session.handle(protocol.Start(), t)
    attention = Attention(scripted(rt), rng)
    sent: list[float] = []
    for _ in range(20_000):
        t = session.next_tick_at
        msgs = session.tick(t)
        if msgs and msgs[-1]["type"] == "result":
            return t, msgs[-1], sent
        if session.state != "running":
            continue
        since = session.legal.since
        legal = plays_of(session.obs["player_0"]["action_mask"])
        free = session.pending is None
        # The table's clock is in seconds, the person's in ms.
        attention.look(legal, [a for a in since if since[a] == t] if free else [], t * 1000)
        due = attention.due(session.next_tick_at * 1000)
        if due is None:
            continue
        where = slot_of(session.env.snapshot(), due[0])
        try:
            ack = None if where is None else session.handle(protocol.Play(*where), due[1] / 1000)
        except ProtocolError:
            ack = None  # the card is still in flight: the draw waits for the next chance
        if ack is None:
            attention.missed()
        else:
            sent.append(ack[0]["latency_ms"])
            attention.played()
    raise AssertionError("the game never ended")
