"""Readable views of one game of a :class:`~speed_env.engine.State`, and explicit deals.

``snapshot`` is the public, JSON-ready view (docs/envs/speed.md, ``snapshot()``) that
replays, the web table and tests read; ``full_table`` adds every hidden pile in order, for the
differential tests against the reference referee (format in docs/rules.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from speed_env import engine
from speed_env.cards import card_str
from speed_env.deal import Deal
from speed_env.engine import K_FLIP, K_MULTI, K_NONE, K_STACK, Config
from speed_env.rng import seed_to_u64
from speed_env.rules import Rules

AGENTS = ("player_0", "player_1")
_PHASES = ("play", "stuck", "over")
_KINDS = {engine.K_PLAY: "play", K_STACK: "stack", K_MULTI: "multi", K_FLIP: "flip_choice"}


def _tok(card: int) -> str | None:
    return None if card < 0 else card_str(int(card))


def _top_first(pile: np.ndarray, n: int) -> list[str]:
    return [card_str(int(c)) for c in pile[:n][::-1]]


def _winner(g: Any, names: tuple[str, ...] | None, players_n: int = 2) -> Any:
    w = int(g["winner"])
    if w < 0:
        return None
    if w == players_n:  # the draw code (engine.draw_code): engine.DRAW with two players
        return "draw"
    return names[w] if names else w


def match_points(s: np.ndarray, rules: Rules) -> np.ndarray | None:
    """Each game's match points, int64 ``(seats, B)`` seat-major; ``None`` for ``japanese``.

    docs/rules.md "Match points" (``us``/``pagat``): the winner of a finished game
    scores one point per card every other seat has not got rid of (hand, a card in
    flight, draw pile); the others score 0, and so does every seat of a running,
    drawn or truncated game.
    """
    if rules.is_japanese:
        return None
    h = rules.hand_size
    n = s["hand"].shape[1]  # seats
    left = (
        (s["hand"][:, :, :h] >= 0).sum(axis=2)
        + s["fl_n"]
        + s["draw_n"]
        + s["stk_n"][:, :, :h].sum(axis=2)
    ).astype(np.int64)  # (B, seats)
    w = s["winner"].astype(np.int64)
    won = (s["phase"] == engine.OVER) & (w >= 0) & (w < n)  # n is the draw code
    others = left.sum(axis=1)[None, :] - left.T  # (seats, B): the cards of every other seat
    return np.where(won[None, :] & (w[None, :] == np.arange(n)[:, None]), others, 0)


def seat_names(players_n: int) -> tuple[str, ...]:
    """The agent names of ``players_n`` seats in seat order: ``player_0`` … ``player_{n-1}``."""
    return AGENTS if players_n == 2 else tuple(f"player_{p}" for p in range(players_n))


def snapshot(s: np.ndarray, b: int, rules: Rules) -> dict[str, Any]:
    """The public JSON-ready table of game ``b`` (docs/envs/speed.md, ``snapshot()``).

    Any seat count: ``players`` in seat order (``player_0`` …), one ``centre`` pile per seat,
    player *k*'s ``side_pile`` the one beside centre pile *k*; two seats as always.
    """
    g = s[b]
    n = s["hand"].shape[1]  # seats: the record's own seat dimension
    names = seat_names(n)
    players = []
    for p in range(n):
        flight = None
        kind = int(g["fl_kind"][p])
        if kind != K_NONE:
            cards = [card_str(int(c)) for c in g["fl_cards"][p, : g["fl_n"][p]]]
            flight = {
                "card": cards[0],
                "pile": None if kind == K_STACK else int(g["fl_pile"][p]),
                "lands_ms": int(g["fl_land"][p]),
                "cards": cards,
                "kind": _KINDS[kind],
            }
        players.append(
            {
                "name": names[p],
                "hand": [_tok(c) for c in g["hand"][p, : rules.hand_size]],
                "draw_pile": int(g["draw_n"][p]),
                "side_pile": int(g["side_n"][p]),
                "in_flight": flight,
                "played": int(g["played"][p]),
                "bounced": int(g["bounced"][p]),
            }
        )
    idle = rules.idle_flip_ms
    out = {
        "preset": rules.preset,
        "clock_ms": int(g["clock"]),
        "phase": _PHASES[int(g["phase"])],
        "flip_ms": None if g["flip_at"] < 0 else int(g["flip_at"]),
        # When the idle period runs (or ran) out: the countdown starts then, or at the
        # landing of a card still in flight, unless a card is placed first. None when
        # idle flips are off or the phase is not play (docs/rules.md "Idle").
        "idle_ms": int(g["placed_at"]) + idle if idle and g["phase"] == engine.PLAY else None,
        "centre": [
            {
                "top": _tok(g["centre"][k, g["centre_n"][k] - 1]) if g["centre_n"][k] else None,
                "size": int(g["centre_n"][k]),
            }
            for k in range(n)
        ],
        "players": players,
        "winner": _winner(g, names, n),
        "truncated": bool(g["truncated"]),
        "flips": int(g["flips"]),
        "reshuffles": int(g["reshuffles"]),
    }
    points = match_points(s[b : b + 1], rules)
    if points is not None and g["phase"] == engine.OVER:
        out["points"] = {names[p]: int(points[p, 0]) for p in range(n)}
    return out


def full_table(s: np.ndarray, b: int, hand_size: int, players_n: int = 2) -> dict[str, Any]:
    """Everything about game ``b`` of ``players_n`` seats, hidden piles in order (docs/rules.md
    "The full table"); a draw's ``winner`` is ``"draw"`` whatever the seat count."""
    g = s[b]
    players = []
    for p in range(players_n):
        kind = int(g["fl_kind"][p])
        flight = None
        if kind != K_NONE:
            n = int(g["fl_n"][p])
            flight = {
                "kind": _KINDS[kind],
                "cards": [card_str(int(c)) for c in g["fl_cards"][p, :n]],
                "slots": [int(i) for i in g["fl_slots"][p, :n]],
                "pile": int(g["fl_pile"][p]),
                "lands_ms": int(g["fl_land"][p]),
            }
        players.append(
            {
                "hand": [_tok(c) for c in g["hand"][p, :hand_size]],
                "stacked": [
                    _top_first(g["stk"][p, i], int(g["stk_n"][p, i])) for i in range(hand_size)
                ],
                "draw_pile": _top_first(g["draw"][p], int(g["draw_n"][p])),
                "in_flight": flight,
                "played": int(g["played"][p]),
                "bounced": int(g["bounced"][p]),
                "illegal": int(g["illegal"][p]),
                "commits": int(g["commits"][p]),
            }
        )
    return {
        "clock_ms": int(g["clock"]),
        "phase": _PHASES[int(g["phase"])],
        "flip_ms": None if g["flip_at"] < 0 else int(g["flip_at"]),
        "placed_ms": int(g["placed_at"]),
        "centre": [_top_first(g["centre"][k], int(g["centre_n"][k])) for k in range(players_n)],
        "top_owner": [
            None if g["top_owner"][k] < 0 else int(g["top_owner"][k]) for k in range(players_n)
        ],
        "side_piles": [_top_first(g["side"][k], int(g["side_n"][k])) for k in range(players_n)],
        "players": players,
        "winner": _winner(g, None, players_n),
        "truncated": bool(g["truncated"]),
        "flips": int(g["flips"]),
        "reshuffles": int(g["reshuffles"]),
        "ties": int(g["ties"]),
        "rebuilds": [int(x) for x in g["rebuilds"][:players_n]],
        "idle_rebuilds": [int(x) for x in g["idle_rebuilds"][:players_n]],
    }


def deal_explicit(s: np.ndarray, cfg: Config, b: int, deal: Deal, seed: int) -> None:
    """Lay a validated explicit ``deal`` on game ``b`` and start it (opening flip if no centre)."""
    engine.clear_one(s, b, seed_to_u64(seed))

    def put(field: str, p: int, pile: tuple[int, ...]) -> None:
        s[field][b, p, : len(pile)] = pile[::-1]  # piles are stored bottom first
        s[field + "_n"][b, p] = len(pile)

    for p in range(len(deal.hands)):
        s["hand"][b, p, : len(deal.hands[p])] = deal.hands[p]
        put("draw", p, deal.draw_piles[p])
        put("side", p, deal.side_piles[p])
        if deal.centre is not None:
            put("centre", p, deal.centre[p])
    engine.start_one(s, cfg, b, deal.centre is None)
