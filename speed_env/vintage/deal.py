"""Starting a game of Vintage Speed: the cut for first dealer, a shuffled deal,
and an explicit deal given by a test or a user.

All randomness comes from the numpy ``Generator`` passed in, so a match
seeded once plays out the same every time.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from speed_env.shown import shown
from speed_env.vintage.engine import Game
from speed_env.vintage.pack import VintageCardError
from speed_env.vintage.rules import VintageRules

# Ties for lowest cut again; after this many rounds of ties (only a pack whose
# numbered cards all share one number could get here) the lowest seat deals.
MAX_CUT_ROUNDS = 100


class DealError(ValueError):
    """An explicit deal is not a valid starting position for this table."""


def cut_for_dealer(rules: VintageRules, rng: np.random.Generator) -> int:
    """Seat of the first dealer, chosen by a cut (the rules: :mod:`speed_env.vintage.aec`).

    Each contender cuts a card from a shuffled pack; a two-number card counts
    its lower number (option ``cut_horse``). A contender who cuts Lightning or
    Extra Turn cuts again (takes the next card); the lowest number deals, and
    contenders tied for lowest cut again from a fresh shuffle.
    """
    pack = rules.pack
    cards = pack.cards(rules.packs)
    pick = min if rules.cut_horse == "lower" else max
    contenders = list(range(rules.num_players))
    for _ in range(MAX_CUT_ROUNDS):
        order = rng.permutation(len(cards))
        numbered = (pick(pack.numbers[cards[i]]) for i in order if cards[i] < pack.n_numbered)
        # A pack with fewer numbered cards than contenders: the unlucky cut "high".
        values = {seat: next(numbered, 10**6) for seat in contenders}
        low = min(values.values())
        contenders = [seat for seat, v in values.items() if v == low]
        if len(contenders) == 1:
            return contenders[0]
    return contenders[0]


def deal_game(rules: VintageRules, dealer: int, rng: np.random.Generator) -> Game:
    """A shuffled deal: ``hand_size`` cards each, one at a time from the dealer's left."""
    pack = rules.pack
    cards = pack.cards(rules.packs)
    n = rules.num_players
    dealt = rules.hand_size * n
    if len(cards) < dealt:
        # A small pack can still serve explicit deals (tests, puzzles), so this is
        # checked here rather than when the options are made.
        raise DealError(
            f"{pack.source} holds {len(cards)} cards in play; dealing {rules.hand_size} "
            f"to each of {n} players needs {dealt}"
        )
    order = rng.permutation(len(cards))
    shuffled = [cards[i] for i in order]
    hands = [[0] * pack.n_kinds for _ in range(n)]
    for j, kind in enumerate(shuffled[:dealt]):
        hands[(dealer + 1 + j) % n][kind] += 1
    return Game(
        rules=rules,
        hands=hands,
        pack=shuffled[dealt:],
        discard=[],
        dealer=dealer,
        current=(dealer + 1) % n,
    )


def game_from_deal(rules: VintageRules, spec: Any, default_dealer: int = 0) -> Game:
    """A game from an explicit deal ``{"hands", "pack", "discard", "dealer", "called"}``.

    ``hands`` lists each seat's cards; ``pack`` and ``discard`` are listed top
    first (both optional, default empty); ``dealer`` defaults to
    ``default_dealer``; ``called`` (a set letter) is required exactly when the
    discard's top is a Lightning. Together they must hold every card in play
    (one pack, two for 6–10 players) exactly once; hands may be short but not
    empty. The seat left of the dealer acts first and must follow the discard's
    top. Raises :class:`DealError` naming the card, count or key that is wrong.
    """
    if not isinstance(spec, dict):
        raise DealError(
            f"a deal must be a dict with hands, pack, discard, dealer; got {shown(spec)}"
        )
    known = {"hands", "pack", "discard", "dealer", "called"}
    unknown = sorted(set(spec) - known)
    if unknown:
        raise DealError(
            f"unknown deal key(s) {', '.join(unknown)}; a deal holds {', '.join(sorted(known))}"
        )
    pack = rules.pack
    n = rules.num_players
    hands_spec = spec.get("hands")
    if not isinstance(hands_spec, list | tuple) or len(hands_spec) != n:
        got = len(hands_spec) if isinstance(hands_spec, list | tuple) else shown(hands_spec)
        raise DealError(f"deal has {got} hands; this table has {n} players, so give {n}")

    def parse(tokens: Any, where: str) -> list[int]:
        if isinstance(tokens, str):
            tokens = tokens.replace(",", " ").split()
        if not isinstance(tokens, list | tuple):
            raise DealError(f"deal {where} must be a list of card tokens, got {shown(tokens)}")
        kinds = []
        for i, token in enumerate(tokens):
            try:
                kinds.append(pack.parse(token))
            except VintageCardError as exc:
                raise DealError(f"deal {where}[{i}]: {exc}") from None
        return kinds

    hand_lists = [parse(h, f"hands[{s}]") for s, h in enumerate(hands_spec)]
    pile = parse(spec.get("pack", []), "pack")
    discard = parse(spec.get("discard", []), "discard")
    for s, h in enumerate(hand_lists):
        if not h:
            raise DealError(
                f"deal hands[{s}] is empty; a player with no cards has already gone out"
            )

    want = Counter(pack.cards(rules.packs))
    have = Counter(k for h in hand_lists for k in h) + Counter(pile) + Counter(discard)
    problems = []
    for kind in range(pack.n_kinds):
        if have[kind] != want[kind]:
            problems.append(
                f"{pack.tokens[kind]} appears {have[kind]} time(s), "
                f"the {rules.packs} pack(s) in play hold {want[kind]}"
            )
    if problems:
        listed = "; ".join(problems[:6]) + ("; …" if len(problems) > 6 else "")
        raise DealError(
            f"deal must hold every card in play exactly once ({rules.total_cards} cards, "
            f"got {sum(have.values())}): {listed}"
        )

    dealer = spec.get("dealer", default_dealer)
    if isinstance(dealer, bool) or not isinstance(dealer, int | np.integer) or not 0 <= dealer < n:
        raise DealError(f"deal dealer {shown(dealer)} must be a seat 0–{n - 1}")
    called = -1
    letter = spec.get("called")
    top_is_lightning = bool(discard) and discard[0] == pack.L
    if top_is_lightning and letter is None:
        raise DealError(
            'deal discard\'s top is L: give the set it called, e.g. "called": '
            f"{pack.set_letters[0]!r}"
        )
    if letter is not None:
        if not top_is_lightning:
            raise DealError(
                f"deal called {shown(letter)} but the discard's top is not L; "
                "only a Lightning calls"
            )
        try:
            called = pack.set_index(letter)
        except VintageCardError as exc:
            raise DealError(f"deal called: {exc}") from None

    hands = [[0] * pack.n_kinds for _ in range(n)]
    for s, h in enumerate(hand_lists):
        for kind in h:
            hands[s][kind] += 1
    return Game(
        rules=rules,
        hands=hands,
        pack=pile,
        discard=discard,
        dealer=int(dealer),
        current=(int(dealer) + 1) % n,
        called=called,
    )
