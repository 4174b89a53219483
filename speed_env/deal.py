"""Deals: the seeded deal of each preset, and explicit deals given by a user.

The public deal format (docs/envs/speed.md, "Explicit deals") lists every pile top first::

    {"hands": [["9D", "10S", …], […]],
     "draw_piles": [[…], […]],
     "side_piles": [[…], […]],
     "centre": ["8C", "JH"]}          # or a whole pile per entry: [["8C", "7D"], …]

``japanese`` uses ``hands`` for the face-up layouts and ``draw_piles`` for
the stocks, has no side piles, and omits ``centre`` to take the opening flip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env import rng
from speed_env.cards import (
    BLACK_JOKER,
    DECK_CARDS,
    RED_JOKER,
    CardError,
    card_id,
    card_str,
    colour_deck,
    deck,
    parse_card,
)
from speed_env.rules import Rules
from speed_env.shown import shown


class DealError(ValueError):
    """An explicit deal is malformed or is not a partition of the variant's deck."""


@dataclass(frozen=True)
class Deal:
    """A validated deal as card ids; every pile is listed top first."""

    hands: tuple[tuple[int, ...], ...]
    """Each seat's hand/layout by slot, ``-1`` for an empty slot (short hands)."""
    draw_piles: tuple[tuple[int, ...], ...]
    side_piles: tuple[tuple[int, ...], ...]
    centre: tuple[tuple[int, ...], ...] | None
    """Each centre pile top first, or ``None`` to take the ``japanese`` opening flip."""

    def to_dict(self) -> dict[str, Any]:
        """The deal in the public (string) format."""

        def names(pile: tuple[int, ...]) -> list[str]:
            return [card_str(c) for c in pile if c >= 0]

        out: dict[str, Any] = {
            "hands": [names(h) for h in self.hands],
            "draw_piles": [names(p) for p in self.draw_piles],
            "side_piles": [names(p) for p in self.side_piles],
        }
        if self.centre is not None:
            out["centre"] = [names(p) for p in self.centre]
        return out


def deal_from_seed(rules: Rules, seed: int) -> Deal:
    """The deal of the game seeded ``seed`` under ``rules`` (see docs/rules.md)."""
    s = rng.seed_to_u64(seed)
    hs = rules.hand_size
    if rules.is_japanese:
        seats = []
        for p in range(rules.players):
            cards = japanese_cards(rules, p)
            stream, counter0 = japanese_stream(p)
            order = rng.shuffle_order(s, stream, counter0, len(cards))
            seats.append([int(c) for c in cards[order]])
        return Deal(
            hands=tuple(tuple(cards[:hs]) for cards in seats),
            draw_piles=tuple(tuple(cards[hs:]) for cards in seats),
            side_piles=((),) * rules.players,
            centre=None,
        )
    # us/pagat jokers are wild cards shuffled into the deck (two decks for 3 or 4 players)
    cards = deck(rules.jokers, rules.decks)
    d = [int(c) for c in cards[rng.shuffle_order(s, rng.DEAL, 0, len(cards))]]
    n, ds, ss, under = rules.players, rules.draw_size, rules.side_size, rules.under_centre
    # Cut order: hands, draw piles, side piles, the cards under the centre, centre starts.
    cuts = np.cumsum([0] + [hs] * n + [ds] * n + [ss] * n + [under] + [1] * n)
    part = [tuple(d[cuts[i] : cuts[i + 1]]) for i in range(len(cuts) - 1)]
    below = part[3 * n]
    return Deal(
        hands=tuple(part[:n]),
        draw_piles=tuple(part[n : 2 * n]),
        side_piles=tuple(part[2 * n : 3 * n]),
        centre=tuple(part[3 * n + 1 + k] + below[k : k + 1] for k in range(n)),
    )


JAPANESE_SUITS = (1, 0, 2, 3)
"""``japanese`` with three or four players: seat ``p``'s suit (hearts, spades, diamonds, clubs;
three players leave the clubs out), of both decks (docs/rules.md, "Party Speed")."""
JAPANESE_JOKERS = (RED_JOKER, BLACK_JOKER, DECK_CARDS + RED_JOKER, DECK_CARDS + BLACK_JOKER)
"""``japanese`` with three or four players and ``jokers``: the joker seat ``p`` shuffles into
its stock (the rest of the two decks' jokers stay out)."""


def japanese_cards(rules: Rules, p: int) -> np.ndarray:
    """Seat ``p``'s cards in a ``japanese`` deal, in canonical (ascending id) order: one colour
    with two players, one suit of both decks with three or four; its joker with ``jokers``."""
    if rules.players == 2:
        return colour_deck(p == 0, rules.jokers)
    suit = JAPANESE_SUITS[p]
    cards = [d * DECK_CARDS + card_id(r, suit) for d in range(2) for r in range(13)]
    if rules.jokers:
        cards.append(JAPANESE_JOKERS[p])
    return np.array(sorted(cards), dtype=np.int16)


def japanese_stream(p: int) -> tuple[int, int]:
    """The random stream and first counter that shuffle seat ``p``'s ``japanese`` cards:
    ``DEAL_RED`` for seats 0 and 2, ``DEAL_BLACK`` for 1 and 3, seats 2 and 3 from counter 64
    (so the duel's two shuffles are what they always were)."""
    return (rng.DEAL_RED, rng.DEAL_BLACK)[p % 2], 64 * (p // 2)


def game_cards(rules: Rules) -> set[int]:
    """Every card id a game under ``rules`` deals (``rules.deck_size`` of them)."""
    if rules.is_japanese:
        return {int(c) for p in range(rules.players) for c in japanese_cards(rules, p)}
    return {int(c) for c in deck(rules.jokers, rules.decks)}


_COUNT = {2: "two", 3: "three", 4: "four"}


def _pair(data: dict[str, Any], key: str, required: bool, n: int = 2) -> list[list[Any]]:
    """``data[key]``: one list of cards per player/pile (``n`` of them)."""
    if key not in data:
        if required:
            raise DealError(
                f"deal is missing {key!r} ({_COUNT[n]} lists of cards, one per player/pile)"
            )
        return [[] for _ in range(n)]
    value = data[key]
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise DealError(f"deal {key!r} must be a list of {_COUNT[n]} entries, got {shown(value)}")
    return [list(v) if isinstance(v, (list, tuple)) else [v] for v in value]


def _ids(cards: list[Any], where: str) -> tuple[int, ...]:
    out = []
    for token in cards:
        try:
            out.append(parse_card(token))
        except CardError as exc:
            raise DealError(f"{where}: {exc}") from None
    return tuple(out)


def parse_deal(rules: Rules, data: dict[str, Any]) -> Deal:
    """Validate an explicit deal (public format) against ``rules``.

    Refused with :class:`DealError` naming the culprit: a bad card token,
    a card dealt twice or missing, a card not in the variant's deck, a hand
    over its size, side piles in ``japanese``, a missing or empty centre pile, a seat dealt
    no cards at all (no hand and no draw pile: a seat wins when its last card lands, so a
    seat holding none has nothing to play and its game is already decided).
    """
    if not isinstance(data, dict):
        raise DealError(
            f"a deal must be a dict with hands, draw_piles, …, got {type(data).__name__}"
        )
    unknown = set(data) - {"hands", "draw_piles", "side_piles", "centre"}
    if unknown:
        raise DealError(
            f"unknown deal key(s) {sorted(unknown)}; use hands, draw_piles, side_piles, centre"
        )
    n = rules.players
    hands_raw = _pair(data, "hands", True, n)
    draws_raw = _pair(data, "draw_piles", True, n)
    sides_raw = _pair(data, "side_piles", not rules.is_japanese, n)
    hands = tuple(_ids(h, f"hands[{i}]") for i, h in enumerate(hands_raw))
    draws = tuple(_ids(p, f"draw_piles[{i}]") for i, p in enumerate(draws_raw))
    sides = tuple(_ids(p, f"side_piles[{i}]") for i, p in enumerate(sides_raw))
    centre: tuple[tuple[int, ...], ...] | None = None
    if "centre" in data:
        centre = tuple(
            _ids(p, f"centre[{i}]") for i, p in enumerate(_pair(data, "centre", True, n))
        )
        for i, pile in enumerate(centre):
            if not pile:
                raise DealError(f"centre[{i}] is empty: each centre pile needs a top card")
    elif not rules.is_japanese:
        raise DealError(
            "deal is missing 'centre' (the two start cards); only 'japanese' may omit it"
        )
    if centre is None:
        for i, stock in enumerate(draws):
            if not stock:
                raise DealError(
                    f"draw_piles[{i}] is empty: without 'centre' the opening flip needs a card "
                    "in each stock"
                )
    for i, hand in enumerate(hands):
        if len(hand) > rules.hand_size:
            raise DealError(
                f"hands[{i}] has {len(hand)} cards; "
                f"a {rules.preset!r} hand holds at most {rules.hand_size}"
            )
    for i in range(n):
        if not hands[i] and not draws[i]:
            # A seat wins at the landing of its last card (docs/rules.md, "Winning"): a seat
            # holding none has no card to land, so its game would be over before it starts.
            raise DealError(
                f"seat {i} is dealt no cards (hands[{i}] and draw_piles[{i}] are both empty); "
                "each seat needs at least one card in its hand or draw pile"
            )
    if rules.is_japanese and any(sides):
        raise DealError("'japanese' has no side piles: side_piles must be empty")

    every = [c for group in (hands, draws, sides, centre or ()) for pile in group for c in pile]
    full = game_cards(rules)
    seen: set[int] = set()
    for c in every:
        if c not in full:
            raise DealError(
                f"card {card_str(c)} is not in the {rules.preset!r} deck (jokers={rules.jokers}"
                + (f", players={n})" if n != 2 else ")")
            )
        if c in seen:
            raise DealError(f"card {card_str(c)} is dealt more than once")
        seen.add(c)
    missing = sorted(full - seen)
    if missing:
        names = ", ".join(card_str(c) for c in missing[:8])
        more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        raise DealError(
            f"deal is missing {len(missing)} card(s): {names}{more}; "
            "every card must be dealt exactly once"
        )
    padded = tuple(h + (-1,) * (rules.hand_size - len(h)) for h in hands)
    return Deal(hands=padded, draw_piles=draws, side_piles=sides, centre=centre)  # type: ignore[arg-type]
