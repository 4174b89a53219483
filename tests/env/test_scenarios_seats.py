"""Scenarios of three and four players (docs/rules.md, "Party Speed"), played on the engine.

The n-seat games run on the engine's own door, :class:`speed_env.seats.SeatGames`
(the envs seat two players yet), from explicit deals. Each test names the
cards that matter (:func:`deal` puts every other card of the two decks face up
under the centre starts, out of play), plays a timeline with fixed latencies
and compares the table drawn as text, as ``tests/env/test_scenarios.py`` does
for two players. Unless a test says otherwise: ``us``, ``hand_size=3``,
``tick_ms=50``, every seat lands 100 ms after committing,
``stuck_countdown_ms=1000``.

In a drawn table a centre pile is ``top/size``, ``side a b c`` counts the side
piles, ``--`` is a hand slot whose card is in flight; a play in a timeline is
``pS CARD->K`` (seat ``S`` puts ``CARD`` on centre pile ``K``).
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections import Counter

import numpy as np
import pytest

from speed_env import rng
from speed_env.cards import card_str, deck, parse_card, rank_of
from speed_env.deal import deal_from_seed
from speed_env.rules import make_rules
from speed_env.seats import SeatGames


def games(players: int = 3, n: int = 1, latency: int = 100, **options) -> SeatGames:
    options.setdefault("hand_size", 3)
    rules = make_rules(options.pop("preset", "us"), players=players, **options)
    return SeatGames(n, rules, reactions=[latency] * players)


def deal(g: SeatGames, hands, centre, draw_piles=None, side_piles=None) -> dict:
    """The public deal from the named cards; every other card of the decks goes face up under
    the centre starts (dealt round the piles), where no play or flip reaches it."""
    n = g.players
    hands = [h.split() for h in hands]
    draws = [p.split() for p in (draw_piles or [""] * n)]
    sides = [p.split() for p in (side_piles or [""] * n)]
    tops = [[c] for c in centre.split()]
    named = {parse_card(c) for group in (hands, draws, sides, tops) for pile in group for c in pile}
    rest = [card_str(int(c)) for c in deck(g.rules.jokers, g.rules.decks) if int(c) not in named]
    for i, c in enumerate(rest):
        tops[i % n].append(c)
    return {"hands": hands, "draw_piles": draws, "side_piles": sides, "centre": tops}


def action(g: SeatGames, seat: int, card: str, pile: int) -> int:
    """The action that puts ``card``'s rank on centre pile ``pile`` (its number counted from
    the seat's own pile: docs/rules.md, "Party Speed")."""
    n = g.players
    return 1 + n * rank_of(parse_card(card)) + (pile - seat) % n


def run(g: SeatGames, timeline: str = "", until: int = 0) -> list[np.ndarray]:
    """Play ``timeline`` (lines ``ms pS CARD->K …``) in game 0, every seat waiting otherwise,
    until the clock reads ``until``; the rewards of each step."""
    plays: dict[int, list[tuple[int, str, int]]] = {}
    for line in textwrap.dedent(timeline).strip().splitlines():
        ms, moves = line.split(maxsplit=1)
        for seat, card, pile in re.findall(r"p(\d)\s+(\S+)->(\d)", moves):
            plays.setdefault(int(ms), []).append((int(seat), card, int(pile)))
    out = []
    while g.table(0)["clock_ms"] < until and not g.over[0]:
        acts = np.zeros((g.players, g.n), np.int64)
        for seat, card, pile in plays.pop(g.table(0)["clock_ms"], []):
            acts[seat, 0] = action(g, seat, card, pile)
        out.append(g.step(acts))
    assert not plays, f"timeline moves never played (the game ended first?): {plays}"
    return out


def show(g: SeatGames, b: int = 0) -> str:
    t = g.table(b)
    head = f"clock {t['clock_ms']} {t['phase']}"
    if t["flip_ms"] is not None:
        head += f" flip@{t['flip_ms']}"
    if t["winner"] is not None:
        head += f" winner {t['winner']}"
    centre = " ".join(f"{pile[0]}/{len(pile)}" for pile in t["centre"])
    sides = " ".join(str(len(pile)) for pile in t["side_piles"])
    lines = [head, f"centre {centre} side {sides}"]
    for i, pl in enumerate(t["players"]):
        line = f"p{i} {' '.join(c or '--' for c in pl['hand'])} draw {len(pl['draw_pile'])}"
        line += f" played {pl['played']}"
        if pl["bounced"]:
            line += f" bounced {pl['bounced']}"
        f = pl["in_flight"]
        if f is not None:
            line += f" flying {f['cards'][0]}->{f['pile']}@{f['lands_ms']}"
        lines.append(line)
    return "\n".join(lines)


def drawn(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in textwrap.dedent(text).strip().splitlines())


def tie_order(seed: int, seats: list[int]) -> list[int]:
    """docs/rules.md "Party Speed", ties: while more than one is left, the next to land is the
    floor(u * left)-th of the remaining seats in seat order, u = uniform(seed, TIE, ties)."""
    left, order, ties = list(seats), [], 0
    while len(left) > 1:
        u = rng.uniform(rng.seed_to_u64(seed), rng.TIE, ties)
        order.append(left.pop(int(u * len(left))))
        ties += 1
    return order + left


# =========================================================================
# Deals (docs/rules.md, "Party Speed": the deal table)
# =========================================================================


@pytest.mark.parametrize(
    "preset,players,jokers,hand_draw,side,under,deck_size",
    [
        ("us", 3, False, (5, 15), 13, 2, 104),
        ("us", 4, False, (5, 15), 5, 0, 104),
        ("us", 3, True, (5, 16), 14, 0, 108),
        ("us", 4, True, (5, 16), 5, 0, 108),
        ("pagat", 3, False, (5, 10), 18, 2, 104),
        ("pagat", 4, False, (5, 10), 10, 0, 104),
        ("pagat", 3, True, (5, 11), 19, 0, 108),
        ("pagat", 4, True, (5, 11), 10, 0, 108),
    ],
)
def test_deal_sizes_follow_the_table(preset, players, jokers, hand_draw, side, under, deck_size):
    rules = make_rules(preset, players=players, jokers=jokers)
    d = deal_from_seed(rules, 3)
    assert [(len(h), len(p)) for h, p in zip(d.hands, d.draw_piles, strict=True)] == [
        hand_draw
    ] * players
    assert [len(p) for p in d.side_piles] == [side] * players
    assert [len(p) for p in d.centre] == [2] * under + [1] * (players - under)
    dealt = [
        c for group in (d.hands, d.draw_piles, d.side_piles, d.centre) for p in group for c in p
    ]
    assert sorted(dealt) == sorted(int(c) for c in deck(jokers, 2)) and len(dealt) == deck_size
    # The engine deals the same cards in the same places.
    g = SeatGames(1, rules, seed=3)
    t = g.table(0)
    assert [p["draw_pile"] for p in t["players"]] == [
        [card_str(c) for c in p] for p in d.draw_piles
    ]
    assert t["centre"] == [[card_str(c) for c in p] for p in d.centre]


def test_the_two_seat_deal_is_the_one_deck_deal():
    rules = make_rules("us")
    d = deal_from_seed(rules, 11)
    assert len(d.hands) == 2 and max(c for h in d.hands for c in h) < 52


# =========================================================================
# Simultaneous landings on one pile, and the seeded order among the tied
# =========================================================================


def test_three_cards_landing_on_one_pile_at_one_ms():
    # Three players each put a 9 on the 8♣ at clock 0; all land at 100. The first in the
    # seeded order is placed; the other two find a 9 on top and bounce back.
    g = games(3)
    g.start(0, deal(g, ["9D 2S", "9S 2H", "9H 2D"], centre="8C KS KH"), seed=4)
    run(g, "0 p0 9D->0 p1 9S->0 p2 9H->0", until=50)
    assert show(g) == drawn("""
        clock 50 play
        centre 8C/33 KS/33 KH/32 side 0 0 0
        p0 -- 2S -- draw 0 played 0 flying 9D->0@100
        p1 -- 2H -- draw 0 played 0 flying 9S->0@100
        p2 -- 2D -- draw 0 played 0 flying 9H->0@100
    """)
    first = tie_order(4, [0, 1, 2])[0]
    run(g, until=100)
    t = g.table(0)
    assert t["centre"][0][0] == ["9D", "9S", "9H"][first]
    assert [p["played"] for p in t["players"]] == [int(p == first) for p in range(3)]
    assert [p["bounced"] for p in t["players"]] == [int(p != first) for p in range(3)]
    assert t["ties"] == 2  # one draw for the first of three, one for the first of the two left


@pytest.mark.parametrize("players", [3, 4])
def test_tied_landings_follow_the_seeded_order_uniformly(players):
    # With same_rank every tied 9 is placed, so the pile lists the landing order. Over
    # 600 seeds each order is the documented draw, and every order comes up about as often.
    n_games = 600 if players == 3 else 960
    g = games(players, n=n_games, same_rank=True)
    nines = ["9D", "9S", "9H", "9C"][:players]
    # A second card each, so that no seat wins at the landing of its 9.
    hands = [f"{c} {two}'" for c, two in zip(nines, ["2S", "2H", "2D", "2C"], strict=False)]
    centre = " ".join(["8C", "KS", "KH", "KD"][:players])
    for b in range(n_games):
        g.start(b, deal(g, hands, centre=centre), seed=b)
    acts = np.zeros((players, n_games), np.int64)
    for p in range(players):
        acts[p] = action(g, p, nines[p], 0)
    g.step(acts)
    g.step(np.zeros_like(acts))
    g.step(np.zeros_like(acts))  # the landings are at 100
    seen = Counter()
    for b in range(n_games):
        t = g.table(b)
        landed = [nines.index(c) for c in reversed(t["centre"][0][:players])]
        assert landed == tie_order(b, list(range(players))), f"seed {b}"
        assert t["ties"] == players - 1
        seen[tuple(landed)] += 1
    orders = list(itertools.permutations(range(players)))
    assert set(seen) == set(orders)
    expected = n_games / len(orders)  # 100 (3 players) or 40 (4 players)
    assert all(abs(seen[o] - expected) < 4 * np.sqrt(expected) for o in orders), seen


def test_cards_landing_together_on_a_wild_joker_are_checked_against_the_first():
    # Three 9s land on the red joker at one ms: the first in the seeded order goes on it
    # (wild), the other two are checked against that 9, not the joker, and bounce.
    g = games(3, jokers=True)
    g.start(0, deal(g, ["9D 2C", "9S 2H", "9H 2D"], centre="RJ KS KH"), seed=1)
    run(g, "0 p0 9D->0 p1 9S->0 p2 9H->0", until=100)
    first = tie_order(1, [0, 1, 2])[0]
    t = g.table(0)
    assert t["centre"][0][:2] == [["9D", "9S", "9H"][first], "RJ"]
    assert [p["bounced"] for p in t["players"]] == [int(p != first) for p in range(3)]


# =========================================================================
# Piles counted from one's own pile; every side pile flips at once
# =========================================================================


def test_actions_name_piles_from_the_players_own_pile():
    g = games(3)
    # Only pile 0 takes a 9. Seat 1 counts pile 0 as its third (j = 2), seat 2 as its second.
    g.start(0, deal(g, ["2S", "9S 2H", "9H 2D"], centre="8C KS KH", side_piles=["4S", "4H", "4D"]))
    masks = g.masks()
    assert np.flatnonzero(masks[1, 0]).tolist() == [0, 1 + 3 * 8 + 2]
    assert np.flatnonzero(masks[2, 0]).tolist() == [0, 1 + 3 * 8 + 1]
    run(g, "0 p1 9S->0", until=100)
    assert g.table(0)["centre"][0][0] == "9S"


def test_stuck_table_flips_every_side_pile_at_once():
    g = games(3)
    g.start(0, deal(g, ["2S", "2H", "2D"], centre="8C KS KH", side_piles=["4S 7S", "4H", "4D"]))
    assert show(g) == drawn("""
        clock 0 stuck flip@1000
        centre 8C/33 KS/32 KH/32 side 2 1 1
        p0 2S -- -- draw 0 played 0
        p1 2H -- -- draw 0 played 0
        p2 2D -- -- draw 0 played 0
    """)
    run(g, until=1000)
    # Still nobody can play a 2 on the 4s: the next countdown starts at the flip.
    assert show(g) == drawn("""
        clock 1000 stuck flip@2000
        centre 4S/34 4H/33 4D/33 side 1 0 0
        p0 2S -- -- draw 0 played 0
        p1 2H -- -- draw 0 played 0
        p2 2D -- -- draw 0 played 0
    """)


def test_idle_rule_with_four_players():
    # Seat 3 holds a 9 that fits the 8♣ and only waits; nobody else can play. Nothing is
    # placed for idle_flip_ms (5000): the countdown starts then, and at 6000 every side
    # pile flips.
    g = games(4)
    g.start(
        0,
        deal(
            g,
            ["2S", "2H", "2D", "9D"],
            centre="8C KS KH KD",
            side_piles=["5S", "5H", "5D", "5C"],
        ),
    )
    run(g, until=5000)
    assert show(g) == drawn("""
        clock 5000 stuck flip@6000
        centre 8C/24 KS/24 KH/24 KD/24 side 1 1 1 1
        p0 2S -- -- draw 0 played 0
        p1 2H -- -- draw 0 played 0
        p2 2D -- -- draw 0 played 0
        p3 9D -- -- draw 0 played 0
    """)
    run(g, until=6000)
    t = g.table(0)
    assert [p[0] for p in t["centre"]] == ["5S", "5H", "5D", "5C"] and t["flips"] == 1
    # Nobody plays on the 5s: a plain stuck table, the next countdown from the flip.
    assert (t["phase"], t["flip_ms"], t["placed_ms"]) == ("stuck", 7000, 6000)


# =========================================================================
# Winning, locks and rewards
# =========================================================================


def test_first_to_empty_wins_and_the_rewards_sum_to_zero():
    g = games(4)
    g.start(0, deal(g, ["2S 4S", "2H 4H", "9D", "2D 4D"], centre="8C KS KH KD"))
    rewards = run(g, "0 p2 9D->0", until=200)
    assert show(g) == drawn("""
        clock 100 over winner 2
        centre 9D/26 KS/24 KH/24 KD/24 side 0 0 0 0
        p0 2S 4S -- draw 0 played 0
        p1 2H 4H -- draw 0 played 0
        p2 -- -- -- draw 0 played 1
        p3 2D 4D -- draw 0 played 0
    """)
    assert rewards[-1][:, 0].tolist() == pytest.approx([-1 / 3, -1 / 3, 1.0, -1 / 3])
    assert abs(float(rewards[-1][:, 0].sum())) < 1e-6
    assert all(not r.any() for r in rewards[:-1])


def test_two_last_cards_at_one_ms_the_first_in_the_seeded_order_wins():
    # Seats 0 and 1 each land their last card at 100, on different piles: the tie-break
    # picks who lands first, that seat wins, and nothing after its landing is processed.
    g = games(3)
    g.start(0, deal(g, ["9D", "AH", "2S 4S"], centre="8C KS KH"), seed=9)
    rewards = run(g, "0 p0 9D->0 p1 AH->1", until=200)
    first = tie_order(9, [0, 1])[0]
    t = g.table(0)
    assert t["winner"] == first and t["ties"] == 1
    assert t["players"][1 - first]["in_flight"] is not None  # its card never landed
    assert rewards[-1][:, 0].tolist() == [1.0 if p == first else -0.5 for p in range(3)]


@pytest.mark.parametrize(
    "hands,winner,rewards",
    [
        (["2S", "2H 4H", "2D 4D"], 0, [1.0, -0.5, -0.5]),  # the fewest cards left wins
        (["2S", "2H", "2D 4D"], "draw", [0.0, 0.0, 0.0]),  # a tie for the fewest is a draw
    ],
)
def test_a_locked_table_is_won_by_the_fewest_cards(hands, winner, rewards):
    # reserve_rule "lock": nobody can play and every side pile is empty, so the flip locks.
    g = games(3, reserve_rule="lock")
    g.start(0, deal(g, hands, centre="8C KS KH"))
    got = run(g, until=1000)
    t = g.table(0)
    assert (t["phase"], t["winner"], t["clock_ms"]) == ("over", winner, 1000)
    assert got[-1][:, 0].tolist() == pytest.approx(rewards)


# =========================================================================
# The engine's n-seat door refuses what it cannot play, naming it
# =========================================================================


def test_seat_games_refuse_bad_input_naming_it():
    g = games(3, n=2)
    with pytest.raises(ValueError, match=r"actions must be integers of shape \(3, 2\)"):
        g.step(np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError, match=r"actions must lie in 0 … 39"):
        g.step(np.full((3, 2), 40))
    with pytest.raises(ValueError, match=r"one profile per seat \(3\), got 2"):
        SeatGames(1, "us", players=3, reactions=[100, 100])
    with pytest.raises(ValueError, match="deal 'hands' must be a list of three entries"):
        g.start(0, {"hands": [["9D"], ["9S"]], "draw_piles": [[], [], []]})


def _latency_on(stream: int, params: np.ndarray, seed: np.uint64, n: int) -> int:
    """A play's latency drawn on ``stream`` (reaction.latency_ms's formula, any stream)."""
    import math

    u1, u2, u3 = (rng.uniform(seed, stream, 3 * n + k) for k in range(3))
    normal = math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)
    value = max(params[4], params[1] + params[2] * normal - params[3] * math.log(1.0 - u3))
    return max(1, round(value))


def test_no_two_seats_or_piles_of_a_four_player_game_share_a_random_stream() -> None:
    """Each seat draws its latencies on a stream of its own, clear of every pile's rebuild
    stream: at four players ``LATENCY + 3`` was pile 0's ``REBUILD`` stream (8), so seat 3's
    reactions read the bits of pile 0's shuffles. The two seats of a duel keep 5 and 6."""
    from speed_env import reaction

    params = reaction.make_profile("human").params()
    expected = {0: 5, 1: 6, 2: rng.PARTY_LATENCY, 3: rng.PARTY_LATENCY + 1}
    piles = {rng.REBUILD + j for j in range(4)}
    assert not set(expected.values()) & piles
    assert len(set(expected.values())) == 4
    for seed in (np.uint64(7), np.uint64(2**40 + 3)):
        for seat, stream in expected.items():
            drawn = [reaction.latency_ms(params, seed, seat, n) for n in range(12)]
            assert drawn == [_latency_on(stream, params, seed, n) for n in range(12)], seat
