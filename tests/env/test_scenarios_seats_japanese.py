"""Scenarios of ``japanese`` with three and four players (docs/rules.md, "Party Speed").

Each player owns one suit of both decks (hearts, spades, diamonds, clubs for seats 0 … 3;
three players leave the clubs out), flips their own stock onto their own centre pile, and
only the player who put a joker down may cover it. The games run on the engine's n-seat
door, :class:`speed_env.seats.SeatGames`, from explicit deals; each test names the cards
that matter (:func:`deal` puts every other card of the game face up under the centre
starts, out of play), plays a timeline with fixed latencies and compares the table drawn
as text, as ``tests/env/test_scenarios_seats.py`` does for ``us``. Unless a test says
otherwise: ``tick_ms=50``, every seat lands 100 ms after committing,
``stuck_countdown_ms=1000``, layouts of 4.

In a drawn table a centre pile is ``top/size`` (``top/size@S``: seat ``S`` put the top
there), ``--`` is a layout slot whose card is in flight; a play in a timeline is
``pS CARD->K`` (seat ``S`` puts ``CARD`` on centre pile ``K``), ``pS CARD*2->K`` a
multi-play of the two cards of ``CARD``'s rank.
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from speed_env.cards import card_str, parse_card, rank_of
from speed_env.deal import DealError, deal_from_seed, game_cards
from speed_env.engine import n_actions
from speed_env.rules import RulesError, make_rules
from speed_env.seats import SeatGames


def games(players: int = 3, n: int = 1, **options) -> SeatGames:
    rules = make_rules("japanese", players=players, **options)
    return SeatGames(n, rules, reactions=[100] * players)


def deal(g: SeatGames, layouts, stocks, centre: str) -> dict:
    """The public deal from the named cards; every other card of the game goes face up under
    the centre starts (dealt round the piles), where no play or flip reaches it."""
    n = g.players
    hands = [h.split() for h in layouts]
    draws = [p.split() for p in stocks]
    tops = [[c] for c in centre.split()]
    named = {parse_card(c) for group in (hands, draws, tops) for pile in group for c in pile}
    rest = [card_str(c) for c in sorted(game_cards(g.rules) - named)]
    for i, c in enumerate(rest):
        tops[i % n].append(c)
    return {"hands": hands, "draw_piles": draws, "side_piles": [[]] * n, "centre": tops}


def action(g: SeatGames, seat: int, card: str, pile: int, multi: bool = False) -> int:
    """The action that puts ``card``'s rank on centre pile ``pile`` (counted from the seat's
    own pile), or multi-plays every layout card of that rank there."""
    n, r = g.players, rank_of(parse_card(card))
    if not multi:
        return 1 + n * r + (pile - seat) % n
    base = 1 + n * g.rules.n_ranks + (g.rules.n_ranks if g.rules.stack_layout else 0)
    return base + n * r + (pile - seat) % n


def run(g: SeatGames, timeline: str = "", until: int = 0) -> list[np.ndarray]:
    """Play ``timeline`` (lines ``ms pS CARD->K …``) in game 0, every seat waiting otherwise,
    until the clock reads ``until`` or the game ends; the rewards of each step."""
    plays: dict[int, list[tuple[int, str, bool, int]]] = {}
    for line in textwrap.dedent(timeline).strip().splitlines():
        ms, moves = line.split(maxsplit=1)
        for seat, card, multi, pile in re.findall(r"p(\d)\s+([^\s*]+)(\*2)?->(\d)", moves):
            plays.setdefault(int(ms), []).append((int(seat), card, bool(multi), int(pile)))
    out = []
    while g.table(0)["clock_ms"] < until and not g.over[0]:
        acts = np.zeros((g.players, g.n), np.int64)
        for seat, card, multi, pile in plays.pop(g.table(0)["clock_ms"], []):
            acts[seat, 0] = action(g, seat, card, pile, multi)
        out.append(g.step(acts))
    assert not plays, f"timeline moves never played (the game ended first?): {plays}"
    return out


def show(g: SeatGames) -> str:
    t = g.table(0)
    head = f"clock {t['clock_ms']} {t['phase']}"
    if t["flip_ms"] is not None:
        head += f" flip@{t['flip_ms']}"
    if t["winner"] is not None:
        head += f" winner {t['winner']}"
    piles = []
    for pile, owner in zip(t["centre"], t["top_owner"], strict=True):
        piles.append(f"{pile[0]}/{len(pile)}" + ("" if owner is None else f"@{owner}"))
    lines = [head, "centre " + " ".join(piles)]
    for i, pl in enumerate(t["players"]):
        line = f"p{i} {' '.join(c or '--' for c in pl['hand'])} stock {len(pl['draw_pile'])}"
        line += f" played {pl['played']}"
        if pl["bounced"]:
            line += f" bounced {pl['bounced']}"
        f = pl["in_flight"]
        if f is not None:
            line += f" flying {'+'.join(f['cards'])}->{f['pile']}@{f['lands_ms']}"
        lines.append(line)
    return "\n".join(lines)


def drawn(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in textwrap.dedent(text).strip().splitlines())


def legal(g: SeatGames, seat: int) -> list[int]:
    return np.flatnonzero(g.masks()[seat, 0]).tolist()


# =========================================================================
# The deal (docs/rules.md, "Party Speed": the japanese table)
# =========================================================================


@pytest.mark.parametrize(
    "players,jokers,layout_stock,cards,suits,own_jokers",
    [
        (3, False, (4, 22), 78, "HSD", []),
        (3, True, (4, 23), 81, "HSD", ["RJ", "BJ", "RJ'"]),
        (4, False, (4, 22), 104, "HSDC", []),
        (4, True, (4, 23), 108, "HSDC", ["RJ", "BJ", "RJ'", "BJ'"]),
    ],
)
def test_each_player_owns_one_suit_of_both_decks(
    players, jokers, layout_stock, cards, suits, own_jokers
):
    rules = make_rules("japanese", players=players, jokers=jokers)
    assert (rules.deck_size, rules.side_size, rules.under_centre) == (cards, 0, 0)
    d = deal_from_seed(rules, 3)
    assert [(len(h), len(s)) for h, s in zip(d.hands, d.draw_piles, strict=True)] == [
        layout_stock
    ] * players
    assert d.side_piles == ((),) * players and d.centre is None  # the opening flip
    for p in range(players):
        owned = [card_str(c) for c in d.hands[p] + d.draw_piles[p]]
        plain = sorted(c for c in owned if c.rstrip("'") not in ("RJ", "BJ"))
        # 26 cards: each rank of the seat's suit twice (the second deck's with a ')
        assert len(plain) == 26 and {c.rstrip("'")[-1] for c in plain} == {suits[p]}
        assert {c.rstrip("'")[:-1] for c in plain} == {card_str(r)[:-1] for r in range(13)}
        assert [c for c in owned if c not in plain] == own_jokers[p : p + 1]
    dealt = [c for group in (d.hands, d.draw_piles) for pile in group for c in pile]
    assert len(dealt) == len(set(dealt)) == cards and set(dealt) == game_cards(rules)
    # The engine deals the same, then flips each stock's top onto its owner's own pile.
    g = SeatGames(1, rules, seed=3)
    t = g.table(0)
    assert [p["hand"] for p in t["players"]] == [[card_str(c) for c in h] for h in d.hands]
    assert [p["draw_pile"] for p in t["players"]] == [
        [card_str(c) for c in s[1:]] for s in d.draw_piles
    ]
    assert t["centre"] == [[card_str(s[0])] for s in d.draw_piles]
    assert t["top_owner"] == list(range(players))


def test_the_two_seat_deal_stays_one_colour_each():
    d = deal_from_seed(make_rules("japanese", jokers=True), 11)
    colours = [{card_str(c)[-1] for c in h + s} for h, s in zip(d.hands, d.draw_piles, strict=True)]
    assert colours == [{"H", "D", "J"}, {"S", "C", "J"}]
    assert max(c for h in d.hands for c in h) < 54  # one deck


# =========================================================================
# Flips: every stock onto its own pile at once; the flip that empties a stock wins
# =========================================================================


def test_stuck_table_flips_every_stock_onto_its_own_pile_and_the_emptied_stock_wins():
    # Nobody can play a 2 on the 8s: stuck at 0, and at 1000 each stock's top goes onto its
    # owner's pile. Seat 1's stock held one card: that flip empties it, and seat 1 wins.
    g = games(3)
    g.start(0, deal(g, ["2H", "2S", "2D"], ["5H 9H", "5S", "6D 5D"], centre="8H' 8S' 8D'"))
    assert show(g) == drawn("""
        clock 0 stuck flip@1000
        centre 8H'/24 8S'/23 8D'/23
        p0 2H -- -- -- stock 2 played 0
        p1 2S -- -- -- stock 1 played 0
        p2 2D -- -- -- stock 2 played 0
    """)
    rewards = run(g, until=2000)
    assert show(g) == drawn("""
        clock 1000 over winner 1
        centre 5H/25@0 5S/24@1 6D/24@2
        p0 2H -- -- -- stock 1 played 0
        p1 2S -- -- -- stock 0 played 0
        p2 2D -- -- -- stock 1 played 0
    """)
    assert rewards[-1][:, 0].tolist() == pytest.approx([-0.5, 1.0, -0.5])


def test_two_stocks_emptied_at_one_flip_draw_the_game_for_everyone():
    g = games(4)
    g.start(
        0,
        deal(g, ["2H", "2S", "2D", "2C"], ["5H", "9S 5S", "5D", "9C 5C"], centre="8H' 8S' 8D' 8C'"),
    )
    rewards = run(g, until=2000)
    t = g.table(0)
    assert (t["clock_ms"], t["winner"]) == (1000, "draw")
    assert [p[0] for p in t["centre"]] == ["5H", "9S", "5D", "9C"]
    assert rewards[-1][:, 0].tolist() == [0.0] * 4


def test_the_refill_that_empties_a_stock_wins_at_its_landing():
    # Seat 2 puts its 9 on seat 0's 8; the refill takes its last stock card: it wins at 100.
    g = games(3)
    g.start(0, deal(g, ["2H", "2S", "9D"], ["5H 6H", "5S 6S", "KD"], centre="8H' 8S' 8D'"))
    rewards = run(g, "0 p2 9D->0", until=500)
    assert show(g) == drawn("""
        clock 100 over winner 2
        centre 9D/25@2 8S'/23 8D'/23
        p0 2H -- -- -- stock 2 played 0
        p1 2S -- -- -- stock 2 played 0
        p2 KD -- -- -- stock 0 played 1
    """)
    assert rewards[-1][:, 0].tolist() == pytest.approx([-0.5, -0.5, 1.0])


# =========================================================================
# The owned joker, and both decks' cards of one rank
# =========================================================================


def test_only_the_player_who_put_a_joker_down_may_cover_it():
    # Seat 1 puts its joker on pile 0 at 0 (lands 100). Seat 0's 9 and seat 2's 9 may not go
    # on it; seat 1's Q may (the owner covers it with anything).
    g = games(3, jokers=True)
    g.start(
        0,
        deal(
            g,
            ["9H 2H", "BJ QS", "9D 2D"],
            ["5H 6H 7H", "5S 6S 7S", "5D 6D 7D"],
            centre="8H' 8S' 8D'",
        ),
    )
    run(g, "0 p1 BJ->0", until=100)
    assert show(g) == drawn("""
        clock 100 play
        centre BJ/23@1 8S'/22 8D'/22
        p0 9H 2H -- -- stock 3 played 0
        p1 5S QS -- -- stock 2 played 1
        p2 9D 2D -- -- stock 3 played 0
    """)
    assert action(g, 0, "9H", 0) not in legal(g, 0)
    assert action(g, 2, "9D", 0) not in legal(g, 2)
    assert action(g, 1, "QS", 0) in legal(g, 1)
    assert action(g, 0, "9H", 1) in legal(g, 0)  # the 8S' on pile 1 takes it
    run(g, "100 p0 9H->1 p1 QS->0", until=200)
    assert show(g) == drawn("""
        clock 200 play
        centre QS/24@1 9H/23@0 8D'/22
        p0 5H 2H -- -- stock 2 played 1
        p1 5S 6S -- -- stock 1 played 2
        p2 9D 2D -- -- stock 3 played 0
    """)


def test_multi_play_takes_both_decks_cards_of_one_rank():
    # 5H and its twin 5H' go down together on seat 1's 4S' (four players, multi_play).
    g = games(4, multi_play=True)
    g.start(
        0,
        deal(
            g,
            ["5H 5H' 2H 3H", "2S", "2D", "2C"],
            ["9H KH QH", "5S 6S", "5D 6D", "5C 6C"],
            centre="8H' 4S' 8D' 8C'",
        ),
    )
    assert action(g, 0, "5H", 1, multi=True) in legal(g, 0)
    run(g, "0 p0 5H*2->1", until=50)
    assert show(g) == drawn("""
        clock 50 play
        centre 8H'/22 4S'/22 8D'/22 8C'/22
        p0 -- -- 2H 3H stock 3 played 0 flying 5H+5H'->1@100
        p1 2S -- -- -- stock 2 played 0
        p2 2D -- -- -- stock 2 played 0
        p3 2C -- -- -- stock 2 played 0
    """)
    run(g, until=100)
    assert show(g) == drawn("""
        clock 100 play
        centre 8H'/22 5H'/24@0 8D'/22 8C'/22
        p0 9H KH 2H 3H stock 1 played 2
        p1 2S -- -- -- stock 2 played 0
        p2 2D -- -- -- stock 2 played 0
        p3 2C -- -- -- stock 2 played 0
    """)
    assert g.table(0)["centre"][1][:3] == ["5H'", "5H", "4S'"]


# =========================================================================
# What it cannot deal is refused, naming it
# =========================================================================


def test_japanese_refuses_what_it_cannot_deal_naming_the_preset_and_the_count():
    with pytest.raises(RulesError, match=r"'players' must be one of 2, 3, 4, got 5: 'japanese'"):
        make_rules("japanese", players=5)
    g = games(3)
    bad = deal(g, ["2H", "2S", "2D"], ["5H", "5S", "5D"], centre="8H' 8S' 8D'")
    bad["centre"][0].append("9C")  # three players leave the clubs out of the game
    with pytest.raises(DealError, match=r"card 9C is not in the 'japanese' deck .*players=3"):
        g.start(0, bad)
    assert n_actions(g.rules) == 1 + 3 * 13
