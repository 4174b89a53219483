"""Cards of real-time Speed: integer ids, notation, parsing.

A card is an integer id so that piles can be plain numpy arrays:

==========  =====================================================
id          card
==========  =====================================================
0 … 51      ``suit * 13 + rank``; rank 0 = A … 12 = K; suits S H D C
52          ``RJ`` red joker (player_0's in ``japanese``)
53          ``BJ`` black joker
-1          no card (an empty slot or array padding)
==========  =====================================================

Suits never matter for play, so the engine mostly works on :func:`rank_of`,
where both jokers have rank index 13.

Notation (docs/rules.md): rank then suit, ``A 2 … 9 10 J Q K`` and ``S H D C``;
``T`` is accepted for 10 and ``♠ ♥ ♦ ♣`` for the suits on input; output
always uses ``10`` and the letters.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from speed_env.shown import shown

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER_RANK = 13
RED_JOKER = 52
BLACK_JOKER = 53
NO_CARD = -1
N_CARDS_WITH_JOKERS = 54
DECK_CARDS = 54
"""Ids one deck spans (52 cards and two jokers): a second deck's card ``c`` is ``c - 54``'s
twin, so rank and suit of any id come from ``c % 54``."""

_SUIT_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_RANK_ALIASES = {name: i for i, name in enumerate(RANKS)} | {"T": 9, "1": 0}
RED_SUITS = (1, 2)
BLACK_SUITS = (0, 3)


class CardError(ValueError):
    """A card token, or a collection of cards, is not valid."""


def card_id(rank: int, suit: int) -> int:
    """Id of the card of rank index ``rank`` (0 = A) and suit index ``suit`` (0 = S)."""
    return suit * 13 + rank


def rank_of(card: int) -> int:
    """Rank index of ``card``: 0 = A … 12 = K, 13 for either joker (of either deck)."""
    card %= DECK_CARDS
    return JOKER_RANK if card >= 52 else card % 13


def suit_of(card: int) -> int:
    """Suit index (0 = S, 1 = H, 2 = D, 3 = C) of a non-joker card."""
    if card >= 52:
        raise CardError(f"jokers have no suit (card id {card})")
    return card // 13


def is_red(card: int) -> bool:
    """True for hearts, diamonds and the red joker (of either deck)."""
    if DECK_CARDS <= card < 2 * DECK_CARDS:  # a second deck's twin (three or four players)
        card -= DECK_CARDS
    return card == RED_JOKER or (card < 52 and suit_of(card) in RED_SUITS)


def card_str(card: int) -> str:
    """Canonical token of ``card``, e.g. ``10S``, ``QC``, ``RJ``; a second deck's card (ids 54 …
    107, three and four players) adds a ``'``.

    >>> card_str(9), card_str(parse_card("Q♣")), card_str(54 + 9)
    ('10S', 'QC', "10S'")
    """
    if DECK_CARDS <= card < 2 * DECK_CARDS:
        return card_str(card - DECK_CARDS) + "'"
    if card == RED_JOKER:
        return "RJ"
    if card == BLACK_JOKER:
        return "BJ"
    if not 0 <= card < 52:
        raise CardError(f"not a card id: {card}")
    return RANKS[card % 13] + SUITS[card // 13]


def parse_card(token: str) -> int:
    """Parse one card token (``10S``, ``TS``, ``Q♣``, ``RJ``) into its id.

    Raises :class:`CardError` naming the token when it is not a card.

    >>> parse_card("10S"), parse_card("TS"), parse_card("q♣")
    (9, 9, 50)
    >>> parse_card("11S")
    Traceback (most recent call last):
    ...
    speed_env.cards.CardError: bad card '11S': unknown rank '11' (use A 2 … 9 10 J Q K, or T for 10)
    """
    if not isinstance(token, str):
        raise CardError(f"card must be a string like '10S', got {shown(token)}")
    text = token.strip().upper()
    if len(text) > 2 and text.endswith("'") and not text.endswith("''"):
        return DECK_CARDS + parse_card(text[:-1])  # the second deck's twin (3 or 4 players)
    if text in ("RJ", "BJ"):
        return RED_JOKER if text == "RJ" else BLACK_JOKER
    if len(text) < 2:
        raise CardError(f"bad card {shown(token)}: expected rank then suit, e.g. '10S', 'QC', 'AH'")
    rank_text, suit_text = text[:-1], text[-1]
    if suit_text not in _SUIT_ALIASES:
        raise CardError(
            f"bad card {shown(token)}: unknown suit {shown(suit_text)} (use S, H, D or C)"
        )
    if rank_text not in _RANK_ALIASES or rank_text == "1":
        raise CardError(
            f"bad card {shown(token)}: unknown rank {shown(rank_text)} "
            "(use A 2 … 9 10 J Q K, or T for 10)"
        )
    return card_id(_RANK_ALIASES[rank_text], _SUIT_ALIASES[suit_text])


def parse_cards(tokens: Iterable[str] | str) -> list[int]:
    """Parse a list of tokens, or one string of tokens separated by spaces or commas.

    >>> parse_cards("AS, 2H 10D")
    [0, 14, 35]
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    return [parse_card(t) for t in tokens]


def deck(jokers: bool = False, decks: int = 1) -> np.ndarray:
    """The full deck as ids in canonical order (0 … 51, then RJ, BJ with jokers); with
    ``decks=2`` the second deck follows as ids 54 … (the same cards, 54 on)."""
    one = np.arange(54 if jokers else 52, dtype=np.int16)
    return np.concatenate([one + DECK_CARDS * i for i in range(decks)]).astype(np.int16)


def colour_deck(red: bool, jokers: bool = False) -> np.ndarray:
    """One colour's 26 cards (27 with its joker), canonical order, as in ``japanese``."""
    suits = RED_SUITS if red else BLACK_SUITS
    cards = [card_id(r, s) for s in suits for r in range(13)]
    if jokers:
        cards.append(RED_JOKER if red else BLACK_JOKER)
    return np.array(sorted(cards), dtype=np.int16)
