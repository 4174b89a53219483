"""Unit tests of the reference referee alone (tests/referee.py).

The referee is the oracle the engine is checked against, so these tests pin
the rules it plays on small hand-made tables (docs/rules.md), plus
conservation of the deck over random games.
"""

from __future__ import annotations

import random

import pytest
from referee import Referee

from speed_env import rng
from speed_env.deal import parse_deal
from speed_env.reaction import fixed, make_profile
from speed_env.rules import make_rules

HUMAN_PRO = (make_profile("human"), make_profile("pro"))
FIXED_250 = (fixed(250), fixed(250))


def every_card(ref: Referee) -> list[int]:
    """All card ids on the table; flying cards are still in their slot lists."""
    out = [c for pile in ref.centre + ref.side + ref.draw for c in pile]
    out += [c for p in (0, 1) for slot in ref.slots[p] for c in slot]
    return out


def table_tokens(table: dict) -> list[str]:
    """Every card token of a full table, each card once (flying ones from in_flight)."""
    out = [c for pile in table["centre"] + table["side_piles"] for c in pile]
    for pl in table["players"]:
        out += [c for c in pl["hand"] if c is not None]
        out += [c for slot in pl["stacked"] for c in slot]
        out += pl["draw_pile"]
        if pl["in_flight"] is not None:
            out += pl["in_flight"]["cards"]
    return out


def random_action(rnd: random.Random, ref: Referee, p: int) -> int:
    legal = [a for a, v in enumerate(ref.legal_mask(p)) if v]
    x = rnd.random()
    if x < 0.3:
        return 0
    if x < 0.35:
        return rnd.randrange(ref.n_actions)
    return rnd.choice(legal)


def us_deal(**piles):
    """An explicit us deal in the public format; ``rest`` goes to the centre piles."""
    return parse_deal(make_rules("us"), piles)


@pytest.mark.parametrize(
    "rules",
    [
        make_rules("us"),
        make_rules("us", stuck_countdown_ms=0, wrap=False),
        make_rules("pagat", reserve_rule="lock"),
        make_rules("japanese"),
        make_rules(
            "japanese",
            jokers=True,
            play_out=True,
            same_rank=True,
            stack_layout=True,
            multi_play=True,
        ),
    ],
    ids=["us", "us-cd0-nowrap", "pagat-lock", "japanese", "japanese-all"],
)
def test_deck_conserved_and_games_end(rules):
    rnd = random.Random(7)
    size = rules.deck_size
    for seed in range(25):
        ref = Referee(rules, HUMAN_PRO if seed % 2 else FIXED_250, 50 + 50 * (seed % 2), seed)
        assert len(ref.table()["players"][0]["hand"]) == rules.hand_size
        steps = 0
        while not ref.done:
            masks = [list(ref.legal_mask(0)), list(ref.legal_mask(1))]
            assert masks[0][0] == masks[1][0] == 1, "wait is always legal"
            for p in (0, 1):
                if ref.flight[p] is not None:
                    assert sum(masks[p]) == 1, "a player with a card in flight may only wait"
            rewards, terminated, truncated = ref.step(
                random_action(rnd, ref, 0), random_action(rnd, ref, 1)
            )
            steps += 1
            assert sorted(every_card(ref)) == list(range(size)), f"seed {seed} step {steps}"
            tokens = table_tokens(ref.table())
            assert len(tokens) == len(set(tokens)) == size
            assert terminated == (ref.done and not ref.truncated) and truncated == ref.truncated
            if terminated:
                assert rewards == {0: (1.0, -1.0), 1: (-1.0, 1.0), "draw": (0.0, 0.0)}[ref.winner]
        assert ref.table()["phase"] == "over" or ref.truncated


def test_japanese_opening_flip_at_reset():
    rules = make_rules("japanese", jokers=True)
    ref = Referee(rules, HUMAN_PRO, 50, 3)
    table = ref.table()
    assert [len(p) for p in table["centre"]] == [1, 1]
    assert table["top_owner"] == [0, 1]
    assert [len(pl["draw_pile"]) for pl in table["players"]] == [22, 22]
    assert table["flips"] == 0 and table["clock_ms"] == 0


def test_exact_tie_is_decided_by_the_seeded_coin():
    # Both players can play on pile 0 (5S): a 6 and a 4. Equal fixed latencies make
    # the two cards land at the same millisecond; whichever lands second is no
    # longer valid (6 on 4, or 4 on 6) and bounces.
    # Every card not named goes under the KD on pile 1.
    named = ["6S", "4H", "10S", "10H", "10D", "10C", "JS", "JH", "2C", "2D", "5S", "KD"]
    rest = [
        r + s
        for s in "SHDC"
        for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    ]
    rest = [c for c in rest if c not in named]
    deal = us_deal(
        hands=[["6S"], ["4H"]],
        draw_piles=[["10S", "10H", "10D"], ["10C", "JS", "JH"]],
        side_piles=[["2C"], ["2D"]],
        centre=[["5S"], ["KD", *rest]],
    )
    seed = 11
    ref = Referee(make_rules("us"), FIXED_250, 50, seed, deal=deal)
    assert ref.legal_mask(0)[1 + 2 * 5 + 0] == 1  # rank 6 is index 5, pile 0
    assert ref.legal_mask(1)[1 + 2 * 3 + 0] == 1  # rank 4 is index 3, pile 0
    ref.step(1 + 2 * 5, 1 + 2 * 3)
    for _ in range(5):
        ref.step(0, 0)
    table = ref.table()
    assert table["clock_ms"] == 300 and table["ties"] == 1
    first = 0 if rng.uniform(rng.seed_to_u64(seed), rng.TIE, 0) < 0.5 else 1
    assert table["centre"][0] == [["6S", "4H"][first], "5S"]
    assert [pl["played"] for pl in table["players"]] == [int(first == 0), int(first == 1)]
    assert [pl["bounced"] for pl in table["players"]] == [int(first == 1), int(first == 0)]
    assert table["top_owner"][0] == first
    # The placed card's slot was refilled from the draw pile at once.
    assert table["players"][first]["hand"][0] == ["10S", "10C"][first]


def test_stuck_countdown_then_flip_then_cycle_lock():
    # Both hands hold only 7s; every 6 and 8 is in player_0's draw pile, so no
    # centre top can ever take a 7: the side piles flip, are rebuilt once, run out
    # again with no card played, and the game locks. player_1 holds fewer cards.
    named = ["7S", "7H", "7D", "7C", "6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C", "2C", "2D"]
    rest = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "9", "10", "J", "Q", "K")]
    rest = [c for c in rest if c not in named]
    deal = us_deal(
        hands=[["7S", "7H"], ["7D", "7C"]],
        draw_piles=[["6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C"], []],
        side_piles=[["2C"], ["2D"]],
        centre=[rest[:19], rest[19:]],  # equal piles: both side piles run out together
    )
    rules = make_rules("us")
    ref = Referee(rules, HUMAN_PRO, 50, 5, deal=deal)
    assert ref.table()["phase"] == "stuck" and ref.table()["flip_ms"] == 1000
    assert ref.legal_mask(0) == [1] + [0] * 26
    for _ in range(20):
        ref.step(0, 0)
    table = ref.table()
    assert table["clock_ms"] == 1000 and table["flips"] == 1 and table["reshuffles"] == 0
    assert table["centre"][0][0] == "2C" and table["top_owner"] == [None, None]
    assert table["phase"] == "stuck" and table["flip_ms"] == 2000
    ref.step(0, 0)  # 1050
    while not ref.done:
        assert ref.step(0, 0)[0] == (0.0, 0.0) or ref.done
    table = ref.table()
    assert table["reshuffles"] == 2 and table["rebuilds"] == [1, 1]
    assert table["winner"] == 1 and table["phase"] == "over" and not table["truncated"]
    # flip 1 turns 2C/2D; flip 2 rebuilds both (19 cards each) and turns one;
    # flips 3-20 turn the other 18; flip 21 finds both empty again with no play: locked.
    assert table["flips"] == 21 and table["clock_ms"] == 21_000


def test_lock_rule_locks_when_side_piles_are_empty():
    named = ["7S", "7H", "7D", "7C", "6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C"]
    rest = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "9", "10", "J", "Q", "K")]
    deal = parse_deal(
        make_rules("us", reserve_rule="lock"),
        {
            "hands": [["7S", "7H", "7D"], ["7C"]],
            "draw_piles": [["6S", "6H", "6D", "6C"], ["8S", "8H", "8D", "8C"]],
            "side_piles": [[], []],
            "centre": [rest[:20], rest[20:]],
        },
    )
    ref = Referee(make_rules("us", reserve_rule="lock"), FIXED_250, 100, 0, deal=deal)
    for _ in range(9):
        assert ref.step(0, 0) == ((0.0, 0.0), False, False)
    rewards, terminated, truncated = ref.step(0, 0)  # the flip at 1000 ms locks
    assert (rewards, terminated, truncated) == ((-1.0, 1.0), True, False)
    assert ref.table()["flips"] == 1 and ref.winner == 1


def test_illegal_action_is_a_counted_wait_and_truncation_pays_nothing():
    rules = make_rules("us", max_game_ms=500)
    ref = Referee(rules, HUMAN_PRO, 100, 1)
    mask = ref.legal_mask(0)
    bad = next(a for a in range(1, ref.n_actions) if not mask[a])
    before = ref.table()
    ref.step(bad, 0)
    after = ref.table()
    assert after["players"][0]["illegal"] == 1 and after["players"][0]["commits"] == 0
    assert after["players"][0]["in_flight"] is None
    assert after["players"][0]["hand"] == before["players"][0]["hand"]
    results = [ref.step(0, 0) for _ in range(4)]
    assert results[-1] == ((0.0, 0.0), False, True) and ref.done and ref.table()["truncated"]
    assert ref.table()["clock_ms"] == 500


def test_same_seed_same_game():
    rules = make_rules("japanese", jokers=True, stack_layout=True, multi_play=True)
    tables = []
    for _ in range(2):
        rnd = random.Random(3)
        ref = Referee(rules, HUMAN_PRO, 50, 42)
        while not ref.done:
            ref.step(random_action(rnd, ref, 0), random_action(rnd, ref, 1))
        tables.append(ref.table())
    assert tables[0] == tables[1]
