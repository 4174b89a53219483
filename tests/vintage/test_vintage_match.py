"""A match of several games: the cut for first dealer, the deal passing left, scores carrying."""

from __future__ import annotations

import numpy as np
import pytest
from vintage_helpers import parse_table, play

from speed_env.vintage import raw_env
from speed_env.vintage.deal import cut_for_dealer
from speed_env.vintage.rules import make_vintage_rules


class FixedCuts:
    """Stands in for a Generator: each ``permutation`` returns the next order given."""

    def __init__(self, *orders: list[int]) -> None:
        self.orders = list(orders)

    def permutation(self, n: int) -> np.ndarray:
        order = self.orders.pop(0)
        return np.array(order + [i for i in range(n) if i not in order])


def kinds(*tokens: str) -> list[int]:
    """Positions in the canonical card list (one pack) of these tokens."""
    pack = make_vintage_rules(3).pack
    cards = pack.cards()
    out = []
    for t in tokens:
        k = pack.parse(t)
        out.append(next(i for i, c in enumerate(cards) if c == k and i not in out))
    return out


def test_the_lowest_cut_deals() -> None:
    rules = make_vintage_rules(3)
    # player_0 cuts A5, player_1 T2, player_2 S4: player_1 deals.
    assert cut_for_dealer(rules, FixedCuts(kinds("A5", "T2", "S4"))) == 1  # type: ignore[arg-type]


def test_a_horse_cuts_its_lower_number_and_lightning_or_x_cut_again() -> None:
    rules = make_vintage_rules(3)
    # player_0 cuts L (again: X, again: M6), player_1 H2/5 counts 2, player_2 A3.
    order = kinds("L", "X", "M6", "H2/5", "A3")
    assert cut_for_dealer(rules, FixedCuts(order)) == 1  # type: ignore[arg-type]
    rules_high = make_vintage_rules(3, cut_horse="higher")
    # Counting a Horse's higher number, H2/5 is 5: player_2's A3 is lowest.
    assert cut_for_dealer(rules_high, FixedCuts(order)) == 2  # type: ignore[arg-type]


def test_ties_for_lowest_cut_again() -> None:
    rules = make_vintage_rules(3)
    # player_0 A2 and player_2 T2 tie (player_1 S7); they cut again: A9 and M1.
    cuts = FixedCuts(kinds("A2", "S7", "T2"), kinds("A9", "M1"))
    assert cut_for_dealer(rules, cuts) == 2  # type: ignore[arg-type]


def test_the_cut_is_seeded_and_reaches_every_seat() -> None:
    dealers = set()
    for seed in range(40):
        a, b = raw_env(num_players=4), raw_env(num_players=4)
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.snapshot() == b.snapshot()
        dealers.add(a.snapshot()["dealer"])
    assert dealers == {"player_0", "player_1", "player_2", "player_3"}
    e = raw_env(num_players=4, first_dealer=2)
    e.reset(seed=0)
    assert e.snapshot()["dealer"] == "player_2" and e.agent_selection == "player_3"


def finish_quickly(e: raw_env) -> None:
    """Play the game out with the first legal action each turn."""
    while not e.game.over:
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))


def test_a_match_deals_left_each_game_and_carries_the_scores() -> None:
    e = raw_env(num_players=3, games=3)
    first = parse_table(
        """
        dealer: 0
        discard: A5
        player_0: M8
        player_1: A3
        player_2: H2/5 T4
        """
    )
    e.reset(seed=1, options={"deal": first})
    assert e.agent_selection == "player_1"  # left of the dealer
    play(e, "play A3")
    scores = [p["score"] for p in e.snapshot()["players"]]
    assert scores == [8, 0, 11]

    e.reset(options={"next_game": True})
    snap = e.snapshot()
    assert snap["dealer"] == "player_1" and snap["current"] == "player_2" and snap["game"] == 2
    assert [p["score"] for p in snap["players"]] == scores  # carried
    assert e.observe("player_0")["observation"][e.layout["scores"]][:3].tolist() == [8, 0, 11]
    finish_quickly(e)
    after_two = [p["score"] for p in e.snapshot()["players"]]
    assert all(b >= a for a, b in zip(scores, after_two, strict=True))

    e.reset(options={"next_game": True})
    assert e.snapshot()["dealer"] == "player_2" and e.snapshot()["game"] == 3
    finish_quickly(e)
    snap = e.snapshot()
    totals = [p["score"] for p in snap["players"]]
    lowest = [f"player_{i}" for i, t in enumerate(totals) if t == min(totals)]
    assert snap["match_winner"] == (lowest[0] if len(lowest) == 1 else "draw")

    # After the match's last game, "next_game" starts a new match.
    e.reset(options={"next_game": True})
    snap = e.snapshot()
    assert snap["game"] == 1 and [p["score"] for p in snap["players"]] == [0, 0, 0]


def test_an_explicit_deal_can_be_the_next_game() -> None:
    e = raw_env(num_players=2, games=2, first_dealer=0)
    e.reset(seed=5)
    finish_quickly(e)
    scores = [p["score"] for p in e.snapshot()["players"]]
    deal = parse_table(
        """
        discard: T5
        player_0: T2
        player_1: A1
        """
    )
    del deal["dealer"]  # defaults to the next dealer in turn: player_1
    e.reset(options={"next_game": True, "deal": deal})
    snap = e.snapshot()
    assert snap["game"] == 2 and snap["dealer"] == "player_1" and snap["current"] == "player_0"
    assert [p["score"] for p in snap["players"]] == scores


@pytest.mark.parametrize("num_players", [2, 5, 8])
def test_a_seeded_match_replays_exactly(num_players: int) -> None:
    def run() -> list[dict]:
        e = raw_env(num_players=num_players, games=3)
        e.reset(seed=77)
        snaps = []
        for g in range(3):
            if g:
                e.reset(options={"next_game": True})
            finish_quickly(e)
            snaps.append(e.snapshot())
        return snaps

    assert run() == run()
