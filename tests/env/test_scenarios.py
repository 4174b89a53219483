"""Scenarios of the rules (docs/rules.md, its sections named below), played
through the public contract only: ``parallel_env``, ``reset`` with an
explicit deal, ``step``, ``snapshot()`` and ``table()``.

Each test names the cards that matter (``build_deal`` fills in the rest of the
deck), plays a timeline with fixed latencies so that every landing happens at
a known millisecond, and compares the table drawn as text. Unless a test says
otherwise: ``tick_ms=50``, player_0 lands 100 ms after committing, player_1
200 ms, ``stuck_countdown_ms=1000``.

In a drawn table (see ``helpers_deal.show``) a centre pile is ``top/size``,
``side a b`` counts the side piles, ``--`` is a hand slot whose card is in
flight, ``[..]`` lists the cards stacked under a layout card.
"""

from __future__ import annotations

import pytest
from helpers_deal import (
    AGENTS,
    build_deal,
    drawn,
    make_env,
    multi,
    play,
    run,
    show,
    stack,
    start,
    tops,
)

import speed_env

P0, P1 = AGENTS


def table(env):
    return env.unwrapped.table()


def snap(env):
    return env.unwrapped.snapshot()


# =========================================================================
# The worked hand (docs/rules.md "Legality of a play")
# =========================================================================


def worked_hand_deal():
    """The centre piles show the 8♣ and the J♥. Your hand is 9♦, 10♠, Q♣, 3♥
    and 7♠, with 15 cards in your draw pile (K♦ 2♣ 5♥ 6♠ on top). The
    opponent holds the J♠ and nothing else that fits; the side piles have the
    4♠ and the A♦ on top."""
    return build_deal(
        "us",
        hands=["9D 10S QC 3H 7S", "JS 8D 8H 9C 9H"],
        draw_piles=["KD 2C 5H 6S", "8S"],
        side_piles=["4S", "AD"],
        centre=["8C", "JH"],
        avoid="2 3 5 6 7",  # the filler cards you draw later are not the ranks you still play
    )


def test_worked_hand_004():
    env = make_env("us", reaction=(100, 200))
    start(env, worked_hand_deal())
    assert show(env) == drawn("""
        clock 0 play
        centre 8C/1 JH/1 side 5 5
        p0 9D 10S QC 3H 7S draw 15 played 0
        p1 JS 8D 8H 9C 9H  draw 15 played 0
    """)

    # You play the 9♦ on the 8♣ and draw the K♦.
    run(env, "0 p0 9D->0", until=50)
    assert show(env) == drawn("""
        clock 50 play
        centre 8C/1 JH/1 side 5 5
        p0 -- 10S QC 3H 7S draw 15 played 0 flying 9D->0@100
        p1 JS 8D 8H 9C 9H  draw 15 played 0
    """)
    run(env, until=100)
    assert show(env) == drawn("""
        clock 100 play
        centre 9D/2 JH/1 side 5 5
        p0 KD 10S QC 3H 7S draw 14 played 1
        p1 JS 8D 8H 9C 9H  draw 15 played 0
    """)

    # The 10♠ on the 9♦ (draw the 2♣), the Q♣ on the J♥ (draw the 5♥), then
    # the K♦ on the Q♣ (draw the 6♠). The opponent covers your 10♠ with the
    # J♠ after that: player_1 commits at 250 and lands at 450.
    run(
        env,
        """
        100  p0 10S->0
        200  p0 QC->1
        250  p1 JS->0
        300  p0 KD->1
    """,
        until=350,
    )
    assert show(env) == drawn("""
        clock 350 play
        centre 10S/3 QC/2 side 5 5
        p0 -- 2C 5H 3H 7S draw 12 played 3 flying KD->1@400
        p1 -- 8D 8H 9C 9H draw 15 played 0 flying JS->0@450
    """)

    # Now the piles show J♠ and K♦ and your hand of 3♥, 7♠, 2♣, 5♥ and 6♠ has
    # nothing that fits; your opponent is stuck too: the countdown starts at
    # the landing of the J♠ (450) and the flip is due at 1450.
    run(env, until=450)
    assert show(env) == drawn("""
        clock 450 stuck flip@1450
        centre JS/4 KD/3 side 5 5
        p0 6S 2C 5H 3H 7S draw 11 played 4
        p1 8S 8D 8H 9C 9H draw 14 played 1
    """)
    assert sorted(c for c in snap(env)["players"][0]["hand"]) == sorted(
        ["3H", "7S", "2C", "5H", "6S"]
    )

    # You each flip the top card of your side pile: the 4♠ lands on the J♠
    # and the A♦ on the K♦, exactly at 1450.
    run(env, until=1400)
    assert tops(env) == ["JS", "KD"] and snap(env)["phase"] == "stuck"
    run(env, until=1450)
    assert show(env) == drawn("""
        clock 1450 play
        centre 4S/5 AD/4 side 4 4
        p0 6S 2C 5H 3H 7S draw 11 played 4
        p1 8S 8D 8H 9C 9H draw 14 played 1
    """)
    assert snap(env)["flips"] == 1
    assert snap(env)["players"][0]["played"] == 4  # flips are not counted as plays

    # You go fast: 5♥ on the 4♠, 6♠ on the 5♥, 7♠ on the 6♠, then 2♣ on the
    # A♦ and 3♥ on the 2♣, drawing after each play.
    expected_tops = {
        1550: ["5H", "AD"],
        1650: ["6S", "AD"],
        1750: ["7S", "AD"],
        1850: ["7S", "2C"],
        1950: ["7S", "3H"],
    }
    timeline = {
        1450: {P0: play("5", 0)},
        1550: {P0: play("6", 0)},
        1650: {P0: play("7", 0)},
        1750: {P0: play("2", 1)},
        1850: {P0: play("3", 1)},
    }
    for clock, want in expected_tops.items():
        run(env, timeline, until=clock)
        assert tops(env) == want, clock
        assert snap(env)["players"][0]["draw_pile"] == 11 - (clock - 1450) // 100
        assert None not in snap(env)["players"][0]["hand"]

    # 9 cards played and 9 drawn: you still hold 5 cards with 6 left in your
    # draw pile, 11 cards from winning.
    s = snap(env)
    me = s["players"][0]
    assert len([c for c in me["hand"] if c]) == 5
    assert me["draw_pile"] == 6
    assert me["played"] == 9
    assert len([c for c in me["hand"] if c]) + me["draw_pile"] == 11
    assert table(env)["centre"] == [
        ["7S", "6S", "5H", "4S", "JS", "10S", "9D", "8C"],
        ["3H", "2C", "AD", "KD", "QC", "JH"],
    ]
    assert s["players"][1]["played"] == 1 and s["players"][1]["bounced"] == 0
    assert s["winner"] is None


# =========================================================================
# Races (docs/rules.md "Landing"): the faster card stays, the slower bounces back
# =========================================================================

RACE = {
    # centre 8 / 8: player_0 holds a 9, player_1 a 7; both go for pile 0
    "us": {"hands": ["AS 9D 2S 3S 4S", "AH 2H 7H 3H 4H"], "centre": ["8C", "8S"]},
    "pagat": {"hands": ["AS 9D 2S 3S 4S", "AH 2H 7H 3H 4H"], "centre": ["8C", "8S"]},
    "japanese": {"hands": ["AH 9D 2H 3H", "AS 2S 7S 3S"], "centre": ["8C", "8H"]},
}


@pytest.mark.parametrize("rules", list(RACE))
@pytest.mark.parametrize(
    ("reaction", "winner"),
    [((100, 200), 0), ((200, 100), 1)],
    ids=["player_0-faster", "player_1-faster"],
)
def test_race_faster_card_stays_slower_bounces(rules, reaction, winner):
    env = make_env(rules, reaction=reaction)
    start(env, build_deal(rules, **RACE[rules]))
    before = snap(env)["players"]
    # Both commit at clock 0 onto pile 0 (a 9 and a 7 on the 8).
    run(env, {0: {P0: play("9", 0), P1: play("7", 0)}}, until=50)
    assert snap(env)["players"][0]["hand"][1] is None and snap(env)["players"][1]["hand"][2] is None
    run(env, until=250)
    s = snap(env)
    loser = 1 - winner
    won_card = ("9D", "7" + ("S" if rules == "japanese" else "H"))[winner]
    assert s["centre"][0] == {"top": won_card, "size": 2}
    assert s["players"][winner]["played"] == 1 and s["players"][winner]["bounced"] == 0
    assert s["players"][loser]["played"] == 0 and s["players"][loser]["bounced"] == 1
    # The late card went back to the slot it came from; nothing was drawn for it.
    assert s["players"][loser]["hand"] == before[loser]["hand"]
    assert s["players"][loser]["draw_pile"] == before[loser]["draw_pile"]
    assert s["players"][loser]["in_flight"] is None
    assert table(env)["ties"] == 0


def test_race_is_decided_by_landing_not_by_release():
    """001: "the first released lies underneath; then check whether the second
    is still valid". With latencies, what counts is when a card is down: the
    slow player_0 releases first (clock 0, 300 ms) but the fast player_1
    (100 ms), releasing at 100, is down first at 200."""
    env = make_env("us", reaction=(300, 100))
    start(env, build_deal("us", **RACE["us"], draw_piles=["", "KC"]))
    run(env, "0 p0 9->0\n100 p1 7->0", until=350)
    assert show(env) == drawn("""
        clock 350 play
        centre 7H/2 8S/1 side 5 5
        p0 AS 9D 2S 3S 4S draw 15 played 0 bounced 1
        p1 AH 2H KC 3H 4H draw 14 played 1
    """)


def test_landings_inside_one_tick_are_ordered_by_their_exact_times():
    """tick_ms=100: both cards land inside the first tick, player_1's at 30
    and player_0's at 60; the earlier one stays."""
    env = make_env("us", reaction=(60, 30), tick_ms=100)
    start(env, build_deal("us", **RACE["us"]))
    run(env, {0: {P0: play("9", 0), P1: play("7", 0)}}, until=100)
    t = table(env)
    assert t["clock_ms"] == 100 and t["centre"][0] == ["7H", "8C"]
    assert [p["bounced"] for p in t["players"]] == [1, 0] and t["ties"] == 0


def test_a_joker_landing_second_is_still_valid_on_the_first_card():
    """Two cards on one pile in one race are both placed when the second is
    still valid on the first: a joker goes on any (non-joker) top."""
    env = make_env("japanese", jokers=True)
    start(
        env,
        build_deal(
            "japanese", jokers=True, hands=["9H 2H 3H 4H", "BJ AS 2S 3S"], centre=["8C", "KD"]
        ),
    )
    run(env, {0: {P0: play("9", 0), P1: play("joker", 0)}}, until=250)
    t = table(env)
    assert t["centre"][0][:3] == ["BJ", "9H", "8C"] and t["top_owner"][0] == 1
    assert [p["bounced"] for p in t["players"]] == [0, 0]


@pytest.mark.parametrize(("same_rank", "placed"), [(True, True), (False, False)])
def test_second_card_still_valid_on_the_first_is_placed(same_rank, placed):
    """Two cards on one pile in one race are both placed only when the second
    is still valid on the first: a 9 then a 9 on an 8 needs ``same_rank``."""
    env = make_env("us", same_rank=same_rank)
    start(env, build_deal("us", hands=["9D 2S 3S 4S 5S", "9H 2H 3H 4H 5H"], centre=["8C", "KS"]))
    run(env, {0: {P0: play("9", 0), P1: play("9", 0)}}, until=250)
    t = table(env)
    if placed:
        assert t["centre"][0] == ["9H", "9D", "8C"]
        assert [p["played"] for p in t["players"]] == [1, 1]
        assert [p["bounced"] for p in t["players"]] == [0, 0]
        assert t["top_owner"][0] == 1
    else:
        assert t["centre"][0] == ["9D", "8C"]
        assert [p["played"] for p in t["players"]] == [1, 0]
        assert [p["bounced"] for p in t["players"]] == [0, 1]
        assert t["players"][1]["hand"][0] == "9H"


def _tie_outcome(seed):
    env = make_env("us", reaction=(100, 100))
    start(env, build_deal("us", **RACE["us"]), seed=seed)
    run(env, {0: {P0: play("9", 0), P1: play("7", 0)}}, until=150)
    t = table(env)
    assert t["ties"] == 1
    assert sorted(p["bounced"] for p in t["players"]) == [0, 1]
    return t["centre"][0][0]


def test_exact_tie_is_decided_by_the_seeded_coin():
    """Equal fixed latencies: both cards land at 100 exactly. docs/rules.md:
    ``u = uniform(seed, TIE, ties)``; player_0 lands first when ``u < 0.5``."""
    from speed_env import rng

    outcomes = {}
    for seed in range(24):
        outcomes[seed] = _tie_outcome(seed)
        assert _tie_outcome(seed) == outcomes[seed], "a tie must be deterministic per seed"
        p0_first = rng.uniform(rng.seed_to_u64(seed), rng.TIE, 0) < 0.5
        assert outcomes[seed] == ("9D" if p0_first else "7H"), seed
    assert set(outcomes.values()) == {"9D", "7H"}, "both outcomes must be possible across seeds"


def test_tie_with_same_rank_places_both_in_coin_order():
    seen = set()
    for seed in range(16):
        env = make_env("us", reaction=(100, 100), same_rank=True)
        start(
            env,
            build_deal("us", hands=["9D 2S 3S 4S 5S", "9H 2H 3H 4H 5H"], centre=["8C", "KS"]),
            seed=seed,
        )
        run(env, {0: {P0: play("9", 0), P1: play("9", 0)}}, until=150)
        t = table(env)
        assert sorted(t["centre"][0][:2]) == ["9D", "9H"] and t["centre"][0][2] == "8C"
        assert [p["bounced"] for p in t["players"]] == [0, 0]
        seen.add(t["centre"][0][0])
    assert seen == {"9D", "9H"}


# =========================================================================
# Wrap (docs/rules.md "Legality of a play")
# =========================================================================


@pytest.mark.parametrize("wrap", [True, False])
def test_wrap_connects_king_and_ace_only_when_on(wrap):
    """Centre A♣ and K♥; player_0 holds a K, an A, a Q and a 2."""
    env = make_env("us", wrap=wrap)
    obs = start(
        env, build_deal("us", hands=["KS AS QS 2S 7D", "5H 5D 5C 6H 6D"], centre=["AC", "KH"])
    )
    mask = obs[P0]["action_mask"]
    assert mask[play("K", 0)] == wrap  # K on A
    assert mask[play("A", 1)] == wrap  # A on K
    assert mask[play("2", 0)] == 1 and mask[play("Q", 1)] == 1  # always
    assert mask[play("Q", 0)] == 0 and mask[play("2", 1)] == 0
    run(env, {0: {P0: play("K", 0)}}, until=150, strict=False)
    t = table(env)
    if wrap:
        assert t["centre"][0] == ["KS", "AC"] and t["players"][0]["played"] == 1
    else:  # an illegal action is a wait, counted
        assert t["centre"][0] == ["AC"] and t["players"][0]["illegal"] == 1
        assert t["players"][0]["hand"][0] == "KS" and t["players"][0]["commits"] == 0


# =========================================================================
# Stuck: the countdown and the flip of the side piles (docs/rules.md "Flips")
# =========================================================================

QUIET = {"hands": ["AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H"], "centre": ["8C", "8D"]}  # nobody can play


def test_side_piles_flip_when_the_countdown_ends():
    env = make_env("us")
    start(env, build_deal("us", **QUIET, side_piles=["JC", "JD"]))
    assert show(env) == drawn("""
        clock 0 stuck flip@1000
        centre 8C/1 8D/1 side 5 5
        p0 AS 2S 3S 4S 5S draw 15 played 0
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)
    run(env, until=950)
    assert tops(env) == ["8C", "8D"] and snap(env)["phase"] == "stuck"
    run(env, until=1000)  # the step at 950 covers (950, 1000]: the flip is at 1000
    # Still stuck after the flip (J on 8, nothing fits): a new countdown from 1000.
    assert show(env) == drawn("""
        clock 1000 stuck flip@2000
        centre JC/2 JD/2 side 4 4
        p0 AS 2S 3S 4S 5S draw 15 played 0
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)
    assert table(env)["top_owner"] == [None, None]  # flipped cards have no owner
    assert snap(env)["flips"] == 1


def test_countdown_starts_at_the_exact_landing_that_leaves_the_table_stuck():
    """player_0 plays its last playable card (the 9♠, lands at 100); the table
    is stuck from 100, so with a 730 ms countdown the flip is at 830, inside
    the tick that starts at 800; after it the table is still stuck (J and J),
    so the next flip is due at 830 + 730."""
    env = make_env("us", stuck_countdown_ms=730)
    start(
        env,
        build_deal(
            "us",
            hands=["9S 2S 3S 4S 5S", "AH 2H 3H 4H 5H"],
            centre=["8C", "8D"],
            draw_piles=["KS", ""],
            side_piles=["JC", "JD"],
        ),
    )
    assert snap(env)["phase"] == "play"
    run(env, "0 p0 9->0", until=100)
    assert snap(env)["phase"] == "stuck" and snap(env)["flip_ms"] == 830
    run(env, until=800)
    assert tops(env) == ["9S", "8D"]
    run(env, until=850)
    assert tops(env) == ["JC", "JD"]
    assert snap(env)["phase"] == "stuck" and snap(env)["flip_ms"] == 1560


# =========================================================================
# Reserves: rebuild and lock (docs/rules.md "Flips" [assumption])
# =========================================================================


def test_rebuild_when_the_side_piles_run_out():
    """No side piles left and nobody can play: at the flip each centre pile
    but its top is shuffled into a new side pile, which then flips."""
    deal = build_deal(
        "us", **QUIET, side_sizes=(0, 0)
    )  # the other 10 cards lie under the centre tops
    old = [list(p) for p in deal["centre"]]
    assert [len(p) for p in old] == [6, 6]
    env = make_env("us")
    start(env, deal, seed=7)
    run(env, until=1000)
    t = table(env)
    assert t["flips"] == 1 and t["reshuffles"] == 2 and t["rebuilds"] == [1, 1]
    for k in range(2):
        assert len(t["centre"][k]) == 2 and len(t["side_piles"][k]) == 4
        assert t["centre"][k][1] == old[k][0]  # the old top stays
        assert sorted(t["side_piles"][k] + t["centre"][k][:1]) == sorted(old[k][1:])
        # docs/rules.md: the pile below the top, listed bottom first, shuffled
        # with shuffle_order(seed, REBUILD + k, 64 * rebuilds, m), top first.
        from speed_env import rng

        below = old[k][1:][::-1]
        order = rng.shuffle_order(rng.seed_to_u64(7), rng.REBUILD + k, 0, len(below))
        assert [t["centre"][k][0], *t["side_piles"][k]] == [below[i] for i in order]


def test_rebuild_is_the_same_for_the_same_seed():
    deal = build_deal("us", **QUIET, side_sizes=(0, 0))
    piles = []
    for _ in range(2):
        env = make_env("us")
        start(env, deal, seed=99)
        run(env, until=1000)
        piles.append(table(env)["side_piles"])
    assert piles[0] == piles[1]


@pytest.mark.parametrize(
    ("draw_sizes", "winner", "rewards"),
    [((3, 10), "player_0", (1, -1)), ((10, 3), "player_1", (-1, 1)), ((6, 6), "draw", (0, 0))],
)
def test_lock_rule_ends_the_game_at_the_flip(draw_sizes, winner, rewards):
    """reserve_rule="lock": once the side piles are empty the next flip locks
    the game; fewer cards left (hand + draw pile) wins, equal is a draw."""
    env = make_env("us", reserve_rule="lock")
    start(env, build_deal("us", **QUIET, side_sizes=(0, 0), draw_sizes=draw_sizes))
    last = run(env, until=950)
    assert env.agents and snap(env)["phase"] == "stuck"
    _, rew, term, trunc, info = run(env, until=1000)
    assert snap(env)["winner"] == winner and snap(env)["clock_ms"] == 1000
    assert (rew[P0], rew[P1]) == rewards
    assert term == {P0: True, P1: True} and trunc == {P0: False, P1: False}
    assert env.agents == []
    assert info[P0]["winner"] == winner
    assert last is not None


def test_rebuild_cycle_locks_when_nothing_was_played_since():
    """reserve_rule="rebuild": the side piles run out a second time with no
    card played since the rebuild, so the same cards would cycle: locked.
    Each centre pile is two cards deep (8 on top of a J), no side piles."""
    deal = build_deal(
        "us",
        hands=["AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H"],
        centre=[["8C", "JC"], ["8D", "JD"]],
        side_sizes=(0, 0),
        draw_sizes=(19, 19),
    )
    assert deal["centre"] == [["8C", "JC"], ["8D", "JD"]]
    env = make_env("us")
    start(env, deal)
    run(env, until=1000)  # first flip: each J is rebuilt into a side pile and flipped
    assert show(env) == drawn("""
        clock 1000 stuck flip@2000
        centre JC/2 JD/2 side 0 0
        p0 AS 2S 3S 4S 5S draw 19 played 0
        p1 AH 2H 3H 4H 5H draw 19 played 0
    """)
    assert table(env)["reshuffles"] == 2 and table(env)["rebuilds"] == [1, 1]
    _, rew, term, _, _ = run(env, until=2000)
    assert snap(env)["winner"] == "draw" and term[P0] and rew == {P0: 0, P1: 0}  # 24 cards each
    assert table(env)["flips"] == 2 and table(env)["reshuffles"] == 2


def test_rebuild_cycle_lock_goes_to_the_player_with_fewer_cards():
    deal = build_deal(
        "us",
        hands=["AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H"],
        centre=[["8C", "JC"], ["8D", "JD"]],
        side_sizes=(0, 0),
        draw_sizes=(18, 20),
    )
    env = make_env("us")
    start(env, deal)
    _, rew, term, _, _ = run(env, until=2000)
    assert snap(env)["winner"] == "player_0" and rew == {P0: 1.0, P1: -1.0} and term[P1]


def test_rebuild_again_when_a_card_was_played_since():
    """Same, but player_0 plays a 10 on the flipped J: the side piles are
    rebuilt a second time instead of locking."""
    deal = build_deal(
        "us",
        hands=["AS 2S 3S 10S 5S", "AH 2H 3H 4H 5H"],
        centre=[["8C", "JC"], ["8D", "JD"]],
        draw_piles=["KS", ""],
        side_sizes=(0, 0),
        draw_sizes=(19, 19),
    )
    env = make_env("us")
    start(env, deal)
    run(env, "1000 p0 10->0", until=1100)  # lands at 1100: stuck again, flip due at 2100
    assert show(env) == drawn("""
        clock 1100 stuck flip@2100
        centre 10S/3 JD/2 side 0 0
        p0 AS 2S 3S KS 5S draw 18 played 1
        p1 AH 2H 3H 4H 5H draw 19 played 0
    """)
    run(env, until=2100)
    t = table(env)
    assert t["winner"] is None and t["reshuffles"] == 4 and t["rebuilds"] == [2, 2]
    assert len(t["centre"][0]) == 2 and t["centre"][0][1] == "10S"
    assert sorted([t["centre"][0][0], *t["side_piles"][0]]) == ["8C", "JC"]
    assert t["centre"][1] == ["8D", "JD"] and t["side_piles"][1] == []


def test_centre_piles_of_one_card_cannot_be_rebuilt_so_the_game_locks():
    """Nothing under the centre tops: the rebuilt side piles are empty, no
    side pile can flip, the game is locked: fewer cards wins."""
    env = make_env("us")
    start(env, build_deal("us", **QUIET, side_sizes=(0, 0), draw_sizes=(19, 21)))
    assert show(env) == drawn("""
        clock 0 stuck flip@1000
        centre 8C/1 8D/1 side 0 0
        p0 AS 2S 3S 4S 5S draw 19 played 0
        p1 AH 2H 3H 4H 5H draw 21 played 0
    """)
    _, rew, term, _, _ = run(env, until=1000)
    assert snap(env)["winner"] == "player_0" and rew == {P0: 1.0, P1: -1.0} and term[P0]
    assert table(env)["reshuffles"] == 2  # counted even when nothing could be rebuilt


ONE_SIDE_EMPTY = {
    "hands": ["AS 2S 3S 4S 5S", "AH 2H 3H 4H 5H"],
    "centre": [["8C", "JC", "QC"], "8D"],
    "side_piles": ["", "JD"],
    "side_sizes": (0, 5),
}


def test_only_the_empty_side_pile_is_rebuilt():
    env = make_env("us")
    deal = build_deal("us", **ONE_SIDE_EMPTY)
    start(env, deal)
    run(env, until=1000)
    t = table(env)
    assert t["reshuffles"] == 1 and t["rebuilds"] == [1, 0]
    assert t["centre"][0][1] == "8C" and len(t["centre"][0]) == 2
    assert sorted([t["centre"][0][0], *t["side_piles"][0]]) == sorted(deal["centre"][0][1:])
    assert t["centre"][1][:2] == ["JD", "8D"] and len(t["side_piles"][1]) == 4


def test_lock_rule_does_not_lock_while_one_side_pile_can_still_flip():
    env = make_env("us", reserve_rule="lock")
    start(env, build_deal("us", **ONE_SIDE_EMPTY))
    run(env, until=1000)
    t = table(env)
    assert t["winner"] is None and t["reshuffles"] == 0 and t["flips"] == 1
    assert t["centre"][0][0] == "8C" and t["centre"][1][:2] == ["JD", "8D"]


# =========================================================================
# Japanese (003)
# =========================================================================


def test_japanese_opening_flip():
    """003 ③: at "seeno" each player turns the top of their stock onto the
    centre: player_0 onto pile 0, player_1 onto pile 1; 21 cards stay."""
    env = make_env("japanese")
    start(
        env, build_deal("japanese", hands=["AH 2H 3H 4H", "AS 2S 3S 4S"], draw_piles=["5D", "QC"])
    )
    assert show(env) == drawn("""
        clock 0 play
        centre 5D/1 QC/1
        p0 AH 2H 3H 4H draw 21 played 0
        p1 AS 2S 3S 4S draw 21 played 0
    """)
    assert table(env)["top_owner"] == [0, 1]
    assert snap(env)["players"][0]["played"] == 0


def test_japanese_win_at_the_refill_that_empties_the_stock():
    """003 ⑧: the last card of the stock fills the layout: that player wins at
    once, even with four layout cards left. (player_0's stock is down to the
    K♦; the red cards already played lie under the centre piles.)"""
    env = make_env("japanese")
    start(
        env,
        build_deal(
            "japanese",
            hands=["6H 2H 3H 4H", "AS 2S 3S 4S"],
            draw_piles=["KD", ""],
            draw_sizes=(1, None),
            centre=["5C", "QS"],
        ),
    )
    _, rew, term, trunc, _info = run(env, "0 p0 6->0", until=150)
    assert show(env) == drawn("""
        clock 100 over winner=0
        centre 6H/13 QS/11
        p0 KD 2H 3H 4H draw 0 played 1
        p1 AS 2S 3S 4S draw 20 played 0
    """)
    assert rew == {P0: 1.0, P1: -1.0} and term == {P0: True, P1: True} and not any(trunc.values())
    assert snap(env)["winner"] == "player_0" and env.agents == []


def test_japanese_win_at_a_flip():
    env = make_env("japanese")
    start(
        env,
        build_deal(
            "japanese",
            hands=["AH 2H 3H 4H", "AS 2S 3S 4S"],
            draw_piles=["KD", "KC"],
            draw_sizes=(1, 5),
            centre=["8C", "8S"],
        ),
    )
    assert snap(env)["phase"] == "stuck"
    _, rew, term, _, _ = run(env, until=1000)
    t = table(env)
    assert t["winner"] == 0 and t["clock_ms"] == 1000
    assert t["centre"][0][0] == "KD" and t["top_owner"][0] == 0
    assert t["centre"][1][:2] == ["KC", "8S"] and t["top_owner"][1] == 1
    assert len(t["players"][1]["draw_pile"]) == 4
    assert rew == {P0: 1.0, P1: -1.0} and term[P0]


def test_japanese_draw_when_both_stocks_empty_at_one_flip():
    env = make_env("japanese")
    start(
        env,
        build_deal(
            "japanese",
            hands=["AH 2H 3H 4H", "AS 2S 3S 4S"],
            draw_piles=["KD", "KC"],
            draw_sizes=(1, 1),
            centre=["8C", "8S"],
        ),
    )
    _, rew, term, trunc, info = run(env, until=1000)
    assert snap(env)["winner"] == "draw" and tops(env) == ["KD", "KC"]
    assert rew == {P0: 0.0, P1: 0.0} and term == {P0: True, P1: True} and not any(trunc.values())
    assert info[P0]["winner"] == "draw" and env.agents == []


# ----------------------------------------------------------------- jokers


def test_layout_joker_goes_on_any_pile_and_then_only_its_owner_plays_on_it():
    env = make_env("japanese", jokers=True)
    assert env.action_space(P0).n == 29
    obs = start(
        env,
        build_deal(
            "japanese",
            jokers=True,
            hands=["RJ 2H 3H 4H", "BJ 7S 4S 5S"],
            draw_piles=["KH", ""],
            centre=["8C", "8S"],
        ),
    )
    # A joker from the layout may go on any (non-joker) pile, for either player.
    for agent in AGENTS:
        assert obs[agent]["action_mask"][play("joker", 0)] == 1
        assert obs[agent]["action_mask"][play("joker", 1)] == 1
    # player_1's 7 races player_0's joker onto pile 0 and loses: on the
    # opponent's joker nobody else may play.
    run(env, {0: {P0: play("joker", 0), P1: play("7", 0)}}, until=100)
    assert show(env) == drawn("""
        clock 100 play
        centre RJ/2 8S/1
        p0 KH 2H 3H 4H draw 22 played 1
        p1 BJ -- 4S 5S draw 21 played 0 flying 7S->0@200
    """)
    run(env, until=200)
    t = table(env)
    assert (
        t["top_owner"][0] == 0
        and t["players"][1]["bounced"] == 1
        and t["players"][1]["hand"][1] == "7S"
    )
    obs = env._helpers_obs
    m0, m1 = obs[P0]["action_mask"], obs[P1]["action_mask"]
    # the owner may put any card on their joker: K 2 3 4 all go on pile 0
    assert [m0[play(r, 0)] for r in ["K", "2", "3", "4"]] == [1, 1, 1, 1]
    # the opponent may put nothing on it, not even their own joker
    assert not any(m1[play(r, 0)] for r in range(14))
    assert m1[play("joker", 1)] == 1 and m1[play("7", 1)] == 1  # pile 1 (8♠) is open to them
    run(env, {200: {P1: play("4", 0)}}, until=250, strict=False)
    assert table(env)["players"][1]["illegal"] == 1 and tops(env)[0] == "RJ"
    run(env, {250: {P0: play("2", 0)}}, until=400)
    assert table(env)["centre"][0][:2] == ["2H", "RJ"]


def test_joker_turned_up_by_a_flip_belongs_to_the_player_who_flipped_it():
    env = make_env("japanese", jokers=True)
    obs = start(
        env,
        build_deal(
            "japanese", jokers=True, hands=["RJ 2H 3H 4H", "7S 4S 5S 6S"], draw_piles=["8H", "BJ"]
        ),
    )
    assert tops(env) == ["8H", "BJ"] and table(env)["top_owner"] == [0, 1]
    m0, m1 = obs[P0]["action_mask"], obs[P1]["action_mask"]
    assert not any(m0[play(r, 1)] for r in range(14))  # not even the red joker
    assert m0[play("joker", 0)] == 1
    assert all(m1[play(r, 1)] for r in ["7", "4", "5", "6"])  # any card on their own joker


# ----------------------------------------------------------------- play_out


def test_play_out_continues_after_the_stock_is_empty():
    env = make_env("japanese", play_out=True)
    start(
        env,
        build_deal(
            "japanese",
            play_out=True,
            hands=["6H 2H 3H 4H", "AS 2S 3S 4S"],
            draw_piles=["KD", ""],
            draw_sizes=(1, None),
            centre=["5C", "QS"],
        ),
    )
    run(env, "0 p0 6->0", until=150)
    assert show(env) == drawn("""
        clock 150 play
        centre 6H/13 QS/11
        p0 KD 2H 3H 4H draw 0 played 1
        p1 AS 2S 3S 4S draw 20 played 0
    """)
    assert env.agents and snap(env)["winner"] is None


def play_out_stuck_deal(layout0="9H 2H JH 4H"):
    """player_0 has no stock left, player_1 has 5; nobody can play on 7♣ / 7♠.
    The cards already played (19 and 18) lie under the two 7s."""
    return build_deal(
        "japanese",
        play_out=True,
        hands=[layout0, "AS 2S 3S 4S"],
        draw_piles=["", "KC"],
        draw_sizes=(0, 5),
        centre=["7C", "7S"],
    )


def test_play_out_default_flip_puts_the_leftmost_layout_card_on_own_pile():
    env = make_env("japanese", play_out=True)
    start(env, play_out_stuck_deal())
    assert snap(env)["phase"] == "stuck"
    run(env, until=1000)
    assert show(env) == drawn("""
        clock 1000 play
        centre 9H/21 KC/20
        p0 -- 2H JH 4H draw 0 played 0
        p1 AS 2S 3S 4S draw 4 played 0
    """)
    assert table(env)["top_owner"] == [0, 1]


def test_play_out_flip_choice_during_the_countdown():
    """During the countdown a stockless player may pick any layout card and
    either pile; it goes down at the flip, player_0's flip before player_1's."""
    env = make_env("japanese", play_out=True)
    obs = start(env, play_out_stuck_deal())
    m0, m1 = obs[P0]["action_mask"], obs[P1]["action_mask"]
    assert sorted(i for i, v in enumerate(m0) if v) == sorted(
        [0] + [play(r, k) for r in ("9", "2", "J", "4") for k in (0, 1)]
    )
    assert sorted(i for i, v in enumerate(m1) if v) == [0]  # player_1 has a stock: it just flips
    run(env, "300 p0 J->1", until=350)
    f = table(env)["players"][0]["in_flight"]
    assert f == {"kind": "flip_choice", "cards": ["JH"], "slots": [2], "pile": 1, "lands_ms": 1000}
    assert snap(env)["phase"] == "stuck" and snap(env)["flip_ms"] == 1000
    run(env, until=1000)
    t = table(env)
    assert t["centre"][0][0] == "7C" and len(t["centre"][0]) == 20
    assert t["centre"][1][:3] == ["KC", "JH", "7S"]  # player_0's choice first, then player_1's flip
    assert t["players"][0]["hand"] == ["9H", "2H", None, "4H"]
    assert t["players"][0]["played"] == 0 and t["players"][0]["commits"] == 0  # no latency draw
    assert t["top_owner"] == [None, 1]


def test_play_out_win_when_stock_and_layout_are_empty():
    env = make_env("japanese", play_out=True)
    start(
        env,
        build_deal(
            "japanese",
            play_out=True,
            hands=["6H", "AS 2S 3S 4S"],
            draw_piles=["", ""],
            draw_sizes=(0, None),
            centre=["5C", "QS"],
        ),
    )
    _, rew, term, _, _ = run(env, "0 p0 6->0", until=150)
    assert snap(env)["winner"] == "player_0" and snap(env)["clock_ms"] == 100
    assert rew == {P0: 1.0, P1: -1.0} and term[P0] and env.agents == []


def test_play_out_win_at_a_flip_and_draw_when_both_finish_at_one_flip():
    env = make_env("japanese", play_out=True)
    start(env, play_out_stuck_deal("9H"))
    _, rew, _, _, _ = run(env, until=1000)
    assert snap(env)["winner"] == "player_0" and rew == {P0: 1.0, P1: -1.0}
    env = make_env("japanese", play_out=True)
    start(
        env,
        build_deal(
            "japanese",
            play_out=True,
            hands=["9H", "AS"],
            draw_piles=["", ""],
            draw_sizes=(0, 0),
            centre=["7C", "7S"],
        ),
    )
    _, rew, term, _, _ = run(env, until=1000)
    assert snap(env)["winner"] == "draw" and rew == {P0: 0.0, P1: 0.0} and term[P0]
    assert tops(env) == ["9H", "AS"]


# ----------------------------------------------------------------- stack_layout / multi_play


def test_stack_layout_frees_a_slot_refilled_from_the_stock():
    env = make_env("japanese", stack_layout=True)
    rules = env.unwrapped.rules
    assert env.action_space(P0).n == 1 + 26 + 13
    assert stack("7", rules) == 1 + 26 + 6
    obs = start(
        env,
        build_deal(
            "japanese",
            stack_layout=True,
            hands=["7H 3D 7D QH", "AS 2S 3S 4S"],
            draw_piles=["KH 5D", ""],
            centre=["8S", "10C"],
        ),
    )
    assert obs[P0]["action_mask"][stack("7", rules)] == 1
    assert obs[P0]["action_mask"][stack("3", rules)] == 0  # only one 3
    run(env, "0 p0 stack 7", until=50)
    f = table(env)["players"][0]["in_flight"]
    assert f["kind"] == "stack" and f["cards"] == ["7H"] and f["slots"] == [0] and f["pile"] == 2
    run(env, until=100)
    assert show(env) == drawn("""
        clock 100 play
        centre 8S/1 10C/1
        p0 KH 3D 7H[7D] QH draw 21 played 0
        p1 AS 2S 3S 4S draw 20 played 0
    """)
    # Playing the 7 from the stacked slot shows the card under it (no refill).
    run(env, "100 p0 7->0", until=200)
    assert show(env) == drawn("""
        clock 200 stuck flip@1200
        centre 7H/2 10C/1
        p0 KH 3D 7D QH draw 21 played 1
        p1 AS 2S 3S 4S draw 20 played 0
    """)


def test_stack_whose_refill_empties_the_stock_wins():
    """003 ⑧ with stacking: the refill after a stack is a refill too."""
    env = make_env("japanese", stack_layout=True)
    rules = env.unwrapped.rules
    start(
        env,
        build_deal(
            "japanese",
            stack_layout=True,
            hands=["7H 3D 7D QH", "AS 2S 3S 4S"],
            draw_piles=["KH", ""],
            draw_sizes=(1, None),
            centre=["8S", "10C"],
        ),
    )
    _, rew, term, _, _ = run(env, {0: {P0: stack("7", rules)}}, until=150)
    assert snap(env)["winner"] == "player_0" and snap(env)["clock_ms"] == 100
    assert table(env)["players"][0]["hand"] == ["KH", "3D", "7H", "QH"]
    assert rew == {P0: 1.0, P1: -1.0} and term[P0]


def test_stack_layout_needs_a_stock():
    env = make_env("japanese", stack_layout=True, play_out=True)
    obs = start(
        env,
        build_deal(
            "japanese",
            stack_layout=True,
            play_out=True,
            hands=["7H 3D 7D QH", "AS 2S 3S 4S"],
            draw_sizes=(0, None),
            centre=["8S", "10C"],
        ),
    )
    assert obs[P0]["action_mask"][stack("7", env.unwrapped.rules)] == 0


@pytest.mark.parametrize("with_stack", [False, True])
def test_multi_play_puts_every_layout_card_of_a_rank_down_together(with_stack):
    opts = {"multi_play": True, "stack_layout": with_stack}
    env = make_env("japanese", **opts)
    rules = env.unwrapped.rules
    assert env.action_space(P0).n == 1 + 26 + (13 if with_stack else 0) + 26
    assert multi("7", 0, rules) == 1 + 26 + (13 if with_stack else 0) + 12
    obs = start(
        env,
        build_deal(
            "japanese",
            **opts,
            hands=["7H 3D 7D QH", "AS 2S 3S 4S"],
            draw_piles=["KH 5D", ""],
            centre=["8S", "10C"],
        ),
    )
    m = obs[P0]["action_mask"]
    assert m[multi("7", 0, rules)] == 1 and m[multi("7", 1, rules)] == 0  # 7 on 8 only
    assert m[multi("3", 0, rules)] == 0  # a single 3 is no multi-play
    run(env, {0: {P0: multi("7", 0, rules)}}, until=100)
    assert show(env) == drawn("""
        clock 100 stuck flip@1100
        centre 7D/3 10C/1
        p0 KH 3D 5D QH draw 20 played 2
        p1 AS 2S 3S 4S draw 20 played 0
    """)
    assert table(env)["centre"][0] == ["7D", "7H", "8S"]  # left to right


def test_multi_play_bounces_as_a_whole():
    env = make_env("japanese", multi_play=True, reaction=(200, 100))
    rules = env.unwrapped.rules
    start(
        env,
        build_deal(
            "japanese",
            multi_play=True,
            hands=["7H 3D 7D QH", "9S 2S 3S 4S"],
            draw_piles=["KH 5D", ""],
            centre=["8S", "10C"],
        ),
    )
    run(env, {0: {P0: multi("7", 0, rules), P1: play("9", 0)}}, until=250)
    t = table(env)
    assert t["centre"][0] == ["9S", "8S"]
    assert t["players"][0]["hand"] == ["7H", "3D", "7D", "QH"]
    assert t["players"][0]["bounced"] == 2 and t["players"][0]["played"] == 0
    assert len(t["players"][0]["draw_pile"]) == 22


# =========================================================================
# The end of a game
# =========================================================================


def test_us_game_is_won_at_the_landing_of_the_last_card():
    """docs/rules.md "Winning": the game ends the moment a player has played every card of
    hand and draw pile; here player_0's last card, the 9♦, lands at 100."""
    env = make_env("us")
    start(
        env,
        build_deal("us", hands=["9D", "AH 2H 3H 4H 5H"], draw_sizes=(0, 15), centre=["8C", "KS"]),
    )
    assert snap(env)["players"][0]["hand"] == ["9D", None, None, None, None]
    _, rew, term, trunc, info = run(env, "0 p0 9->0", until=50)
    assert rew == {P0: 0.0, P1: 0.0} and not any(term.values()) and env.agents == list(AGENTS)
    _, rew, term, trunc, info = run(env, until=100)
    assert rew == {P0: 1.0, P1: -1.0}
    assert term == {P0: True, P1: True} and trunc == {P0: False, P1: False}
    assert env.agents == []
    s = snap(env)
    assert s["winner"] == "player_0" and s["phase"] == "over" and s["players"][0]["played"] == 1
    assert info[P0]["winner"] == "player_0" and info[P0]["played"] == 1
    with pytest.raises(RuntimeError):
        env.step({P0: 0, P1: 0})


def test_last_cards_landing_together_the_coin_picks_the_winner():
    """Both players' last cards land at 100 exactly (on different piles): the
    seeded coin orders the landings, the first ends the game and nothing
    after it is processed (docs/rules.md "Winning")."""
    from speed_env import rng

    winners = set()
    for seed in range(8):
        env = make_env("us", reaction=(100, 100))
        start(
            env,
            build_deal("us", hands=["9D", "QH"], draw_sizes=(0, 0), centre=["8C", "KS"]),
            seed=seed,
        )
        _, rew, term, _, _ = run(env, {0: {P0: play("9", 0), P1: play("Q", 1)}}, until=150)
        w = 0 if rng.uniform(rng.seed_to_u64(seed), rng.TIE, 0) < 0.5 else 1
        t = table(env)
        assert t["winner"] == w and t["ties"] == 1 and t["clock_ms"] == 100
        assert rew[AGENTS[w]] == 1.0 and rew[AGENTS[1 - w]] == -1.0 and term[P0] and term[P1]
        assert t["players"][w]["played"] == 1 and t["players"][1 - w]["played"] == 0
        assert t["centre"][1 - w][0] == ("8C", "KS")[1 - w]  # the loser's card was never put down
        winners.add(w)
    assert winners == {0, 1}


def test_truncation_at_max_game_ms_pays_nothing():
    env = make_env("us", max_game_ms=500)
    start(env, build_deal("us", **QUIET))
    steps = 0
    last = None
    while env.agents:
        last = env.step({P0: 0, P1: 0})
        steps += 1
    _, rew, term, trunc, _info = last
    assert steps == 10 and snap(env)["clock_ms"] == 500
    assert rew == {P0: 0.0, P1: 0.0}
    assert trunc == {P0: True, P1: True} and term == {P0: False, P1: False}
    assert snap(env)["winner"] is None and snap(env)["truncated"] is True


def test_short_hand_keeps_its_empty_slots_at_the_right_and_is_not_topped_up():
    env = make_env("pagat")
    start(
        env,
        build_deal(
            "pagat", hands=["9D 2S", "AH 2H 3H 4H 5H"], draw_sizes=(0, 10), centre=["8C", "KS"]
        ),
    )
    assert snap(env)["players"][0]["hand"] == ["9D", "2S", None, None, None]
    assert snap(env)["players"][0]["side_pile"] == 10


def test_unequal_side_piles_that_cycle_with_no_play_lock_instead_of_running_to_the_cap():
    # Nobody can ever play (every 6, 7 and 8 is in a hand or a draw pile, and the hands
    # are all 7s). The centre piles hold 17 and 21 cards, so the rebuilt side piles run
    # out at different flips; once both have been rebuilt with no card placed since, the
    # next rebuild would only cycle the same cards again: the game locks.
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    rest = [
        f"{r}{s}"
        for s in "SHDC"
        for r in ranks
        if r not in ("6", "7", "8") and f"{r}{s}" not in ("2C", "2D")
    ]
    deal = {
        "hands": [["7S", "7H"], ["7D", "7C"]],
        "draw_piles": [["6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C"], []],
        "side_piles": [["2C"], ["2D"]],
        "centre": [rest[:17], rest[17:]],
    }
    env = speed_env.parallel_env("us", reaction=(100, 100))
    env.reset(seed=0, options={"deal": deal})
    rewards = {}
    while env.agents:
        _, rewards, _, trunc, _ = env.step({"player_0": 0, "player_1": 0})
    t = env.unwrapped.table()
    assert not trunc["player_0"] and t["clock_ms"] < 60_000
    assert t["rebuilds"][0] >= 1 and t["rebuilds"][1] >= 1
    # Locked: player_1 (2 cards) has fewer cards left than player_0 (2 + 8) and wins.
    assert t["winner"] == 1 and rewards == {"player_0": -1.0, "player_1": 1.0}


# =========================================================================
# Idle: nobody places a card for idle_flip_ms (docs/rules.md "Idle" [assumption])
# =========================================================================

# player_0 holds the 9♦ (playable on the 8♣) and only waits; player_1 has nothing.
WAITER = {"hands": ["9D 2S 3S 4S 5S", "AH 2H 3H 4H 5H"], "centre": ["8C", "8D"]}


def test_a_held_play_left_unplayed_for_idle_flip_ms_starts_the_countdown():
    """Nothing placed since the deal at 0: the idle period runs out at 5000, the
    countdown runs as when stuck (only waiting is legal, even the 9♦), and the
    side piles flip at 6000. The flip restarts the idle clock: the 10s keep the
    9♦ playable, so the next countdown starts at 11000 and flips at 12000."""
    env = make_env("us")
    start(env, build_deal("us", **WAITER, side_piles=["10C", "10D"]))
    assert snap(env)["idle_ms"] == 5000
    run(env, until=5000)
    assert show(env) == drawn("""
        clock 5000 stuck flip@6000
        centre 8C/1 8D/1 side 5 5
        p0 9D 2S 3S 4S 5S draw 15 played 0
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)
    assert env._helpers_obs[P0]["action_mask"].tolist() == [1] + [0] * 26  # the 9♦ waits too
    run(env, until=6000)
    assert show(env) == drawn("""
        clock 6000 play
        centre 10C/2 10D/2 side 4 4
        p0 9D 2S 3S 4S 5S draw 15 played 0
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)
    assert table(env)["placed_ms"] == 6000 and snap(env)["idle_ms"] == 11000
    run(env, until=11000)
    assert show(env) == drawn("""
        clock 11000 stuck flip@12000
        centre 10C/2 10D/2 side 4 4
        p0 9D 2S 3S 4S 5S draw 15 played 0
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)


def test_the_idle_period_runs_out_at_the_exact_millisecond_of_the_last_placement_plus_idle():
    """The 9♦ lands at 130 (tick 50, latency 80): the idle clock starts there, so with
    idle_flip_ms=700 the period runs out at 830, inside the tick from 800, and the flip
    (countdown 1000) is at 1830. The 10♠ drawn after it is playable, and waits."""
    env = make_env("us", reaction=(80, 200), idle_flip_ms=700)
    start(env, build_deal("us", **WAITER, draw_piles=["10S", ""], side_piles=["KC", "KD"]))
    run(env, "50 p0 9D->0", until=800)
    assert table(env)["placed_ms"] == 130 and snap(env)["idle_ms"] == 830
    run(env, until=850)
    assert show(env) == drawn("""
        clock 850 stuck flip@1830
        centre 9D/2 8D/1 side 5 5
        p0 10S 2S 3S 4S 5S draw 14 played 1
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)


def test_a_card_on_its_way_is_not_overtaken_by_the_idle_flip():
    """player_0 commits the 9♦ at 4950; the idle period runs out at 5000 with the card
    in the air, so nothing happens then; it lands at 5050, is placed, and the idle
    clock starts again from 5050 (the 10♠ drawn then is playable: no plain stuck)."""
    env = make_env("us")
    start(env, build_deal("us", **WAITER, draw_piles=["10S", ""], side_piles=["KC", "KD"]))
    run(env, "4950 p0 9D->0", until=5000)
    assert show(env) == drawn("""
        clock 5000 play
        centre 8C/1 8D/1 side 5 5
        p0 -- 2S 3S 4S 5S draw 15 played 0 flying 9D->0@5050
        p1 AH 2H 3H 4H 5H draw 15 played 0
    """)
    run(env, until=5050)
    assert snap(env)["phase"] == "play" and tops(env) == ["9D", "8D"]
    assert table(env)["placed_ms"] == 5050 and snap(env)["idle_ms"] == 10050


def test_a_card_that_bounces_after_the_idle_period_ran_out_starts_the_countdown_at_its_landing():
    """player_1 is slow (1000 ms). Both go for pile 0: player_0's 7♠ lands at 150
    (idle clock 150, period out at 650); player_1's 9♥ is still in the air then, so the
    countdown waits for it; it bounces off the 7♠ at 1000 and the countdown starts
    there (flip at 2000), although the 9♥ would go on the 8♦."""
    env = make_env("us", reaction=(100, 1000), idle_flip_ms=500)
    start(
        env,
        build_deal(
            "us",
            hands=["7S 2S 3S 4S 5S", "9H AH 2H 3H 4H"],
            centre=["8C", "8D"],
            draw_piles=["KS", ""],
            side_piles=["JC", "JD"],
        ),
    )
    run(env, "0 p1 9H->0\n50 p0 7S->0", until=700)
    assert show(env) == drawn("""
        clock 700 play
        centre 7S/2 8D/1 side 5 5
        p0 KS 2S 3S 4S 5S draw 14 played 1
        p1 -- AH 2H 3H 4H draw 15 played 0 flying 9H->0@1000
    """)
    run(env, until=1000)
    assert show(env) == drawn("""
        clock 1000 stuck flip@2000
        centre 7S/2 8D/1 side 5 5
        p0 KS 2S 3S 4S 5S draw 14 played 1
        p1 9H AH 2H 3H 4H draw 15 played 0 bounced 1
    """)


def test_an_idle_flip_with_no_side_piles_left_locks_under_the_lock_rule():
    """reserve_rule="lock", side piles empty: the idle flip at 6000 locks the game
    although player_0 still holds the 9♦; fewer cards wins (player_1: 5 + 10)."""
    env = make_env("us", reserve_rule="lock")
    start(env, build_deal("us", **WAITER, side_sizes=(0, 0), draw_sizes=(15, 10)))
    run(env, until=5950)
    assert snap(env)["phase"] == "stuck" and snap(env)["flip_ms"] == 6000
    _, rew, term, _, info = run(env, until=6000)
    assert snap(env)["winner"] == "player_1" and rew == {P0: -1.0, P1: 1.0}
    assert info[P1]["points"] == 20 and info[P0]["points"] == 0  # player_0's 5 + 15 cards


def test_an_idle_flip_rebuilds_empty_side_piles_like_a_stuck_flip():
    env = make_env("us")
    start(env, build_deal("us", **WAITER, side_sizes=(0, 0)))
    run(env, until=6000)
    t = table(env)
    assert t["rebuilds"] == [1, 1] and t["flips"] == 1 and t["placed_ms"] == 6000
    assert [len(p) for p in t["centre"]] == [2, 2]


def test_japanese_idle_flip_turns_up_both_stocks():
    """player_0's 6♥ fits the 5♦ and waits: the idle flip at 6000 turns each stock's
    top onto its owner's pile, as when stuck; the 6♥ still fits (the 7♦)."""
    env = make_env("japanese")
    start(
        env,
        build_deal("japanese", hands=["6H 2H 3H 4H", "AS 2S 3S 4S"], draw_piles=["5D 7D", "QC 8S"]),
    )
    run(env, until=6000)
    assert show(env) == drawn("""
        clock 6000 play
        centre 7D/2 8S/2
        p0 6H 2H 3H 4H draw 20 played 0
        p1 AS 2S 3S 4S draw 20 played 0
    """)


def test_idle_flip_ms_0_keeps_a_held_play_waiting_until_the_game_is_truncated():
    env = make_env("us", idle_flip_ms=0, max_game_ms=20_000)
    start(env, build_deal("us", **WAITER))
    assert snap(env)["idle_ms"] is None
    _, rew, _, trunc, info = run(env, until=20_000)
    t = table(env)
    assert t["truncated"] and t["flips"] == 0 and t["placed_ms"] == 0
    assert rew == {P0: 0.0, P1: 0.0} and trunc == {P0: True, P1: True}
    assert info[P0]["points"] == 0 and info[P1]["points"] == 0


# =========================================================================
# Match points (docs/rules.md "Match points")
# =========================================================================


def test_points_are_the_cards_the_loser_has_not_got_rid_of_in_flight_included():
    """player_0's last card lands at 100 while player_1's 9♥ is still in the air: the
    9♥ counts with player_1's 4 other hand cards and 15 draw cards: 20 points."""
    env = make_env("us")
    start(
        env,
        build_deal("us", hands=["9D", "9H AH 2H 3H 4H"], draw_sizes=(0, 15), centre=["8C", "8S"]),
    )
    _, rew, _, _, info = run(env, "0 p0 9D->0 p1 9H->1", until=100)
    assert rew == {P0: 1.0, P1: -1.0}
    assert snap(env)["players"][1]["in_flight"]["card"] == "9H"
    assert info[P0]["points"] == 20 and info[P1]["points"] == 0
    assert snap(env)["points"] == {P0: 20, P1: 0}


def test_points_are_0_for_both_in_a_drawn_lock():
    env = make_env("us", reserve_rule="lock")
    start(env, build_deal("us", **QUIET, side_sizes=(0, 0), draw_sizes=(6, 6)))
    _, _, _, _, info = run(env, until=1000)
    assert snap(env)["winner"] == "draw" and info[P0]["points"] == info[P1]["points"] == 0


def test_japanese_has_no_match_points():
    env = make_env("japanese", max_game_ms=100)
    start(
        env, build_deal("japanese", hands=["6H 2H 3H 4H", "AS 2S 3S 4S"], draw_piles=["5D", "QC"])
    )
    _, _, _, _, info = run(env, until=100)
    assert "points" not in info[P0] and "points" not in snap(env)
