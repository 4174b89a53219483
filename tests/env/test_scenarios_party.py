"""Scenarios of Party Speed's two-seat options (docs/rules.md, "Wild jokers" and
"Hand size"), played through the public contract like ``test_scenarios.py``:
``parallel_env``, ``reset`` with an explicit or seeded deal, ``step``,
``snapshot()`` and ``table()``, the table drawn as text.

Unless a test says otherwise: ``tick_ms=50``, player_0 lands 100 ms after
committing, player_1 200 ms, ``stuck_countdown_ms=1000``.
"""

from __future__ import annotations

import pytest
from helpers_deal import AGENTS, build_deal, drawn, make_env, play, run, show, start, tops

import speed_env
from speed_env.rules import RulesError, make_rules

P0, P1 = AGENTS


def table(env):
    return env.unwrapped.table()


def mask(env, agent):
    return env._helpers_obs[agent]["action_mask"]


# =========================================================================
# Wild jokers (us, pagat)
# =========================================================================


def wild_deal(**overrides):
    """player_0 holds the red joker, player_1 the black one; the piles show 8♣ and K♦."""
    spec = {
        "hands": ["RJ 2H 3H 4H 5H", "BJ 7S 4S 5S 6S"],
        "centre": ["8C", "KD"],
        "avoid": "7 8 9 Q K A",
    }
    spec.update(overrides)
    return build_deal("us", jokers=True, **spec)


def test_wild_jokers_widen_the_spaces_of_us():
    env = make_env("us", jokers=True)
    assert env.action_space(P0).n == 1 + 2 * 14  # the joker is rank 13 on either pile
    assert env.observation_space(P0)["observation"].shape == (205,)
    plain = make_env("us")
    assert plain.action_space(P0).n == 27
    assert plain.observation_space(P0)["observation"].shape == (193,)


def test_a_wild_joker_goes_on_any_pile_and_anything_goes_on_it():
    env = make_env("us", jokers=True)
    start(env, wild_deal())
    # Each joker may go on either pile; nothing else in player_0's hand fits 8♣ or K♦.
    for agent in AGENTS:
        assert mask(env, agent)[play("joker", 0)] == 1
        assert mask(env, agent)[play("joker", 1)] == 1
    assert [mask(env, P0)[play(r, k)] for r in "2345" for k in (0, 1)] == [0] * 8
    run(env, "0 p0 joker->0", until=150)
    assert show(env) == drawn("""
        clock 150 play
        centre RJ/2 KD/1 side 5 5
        p0 2S 2H 3H 4H 5H draw 15 played 1
        p1 BJ 7S 4S 5S 6S draw 16 played 0
    """)
    # On the wild joker, any rank goes, for both players: the player who put it there
    # has no privilege (unlike japanese's own jokers), and a joker goes on a joker.
    for agent, ranks in ((P0, "2 3 4 5"), (P1, "7 4 5 6")):
        assert all(mask(env, agent)[play(r, 0)] == 1 for r in ranks.split()), agent
    assert mask(env, P1)[play("joker", 0)] == 1
    run(env, "150 p1 joker->0", until=400)  # lands at 350
    assert tops(env) == ["BJ", "KD"] and table(env)["top_owner"][0] == 1
    run(env, "400 p0 2->0", until=550)
    assert table(env)["centre"][0][:3] == ["2S", "BJ", "RJ"]  # the leftmost 2: slot 0


def test_a_card_aimed_at_the_same_pile_lands_on_the_wild_joker():
    """player_0's joker lands at 100, player_1's 7♠ (aimed at the 8♣) at 200: on a wild
    joker the 7 is still good, where japanese's joker would bounce it."""
    env = make_env("us", jokers=True)
    start(env, wild_deal())
    run(env, "0 p0 joker->0 p1 7->0", until=250)
    assert show(env) == drawn("""
        clock 250 play
        centre 7S/3 KD/1 side 5 5
        p0 2S 2H 3H 4H 5H draw 15 played 1
        p1 BJ 4C 4S 5S 6S draw 15 played 1
    """)


def test_the_landing_check_bounces_a_card_aimed_at_a_joker_that_was_covered():
    """Pile 0 shows player_1's joker. player_1 aims a 5♠ at it (lands at 200); player_0's Q♥
    lands first (100) and covers the joker: the 5 on a Q is not a play, so it bounces."""
    env = make_env("us", jokers=True)
    start(env, wild_deal(hands=["QH 2H 3H 4H 9H", "5S 7S 4S 6S 10S"], centre=["BJ", "KD"]))
    assert mask(env, P1)[play("5", 0)] == 1 and mask(env, P0)[play("Q", 0)] == 1
    run(env, "0 p0 Q->0 p1 5->0", until=250)
    # Nothing fits Q♥ / K♦ now: the bounce at 200 leaves the table stuck.
    assert show(env) == drawn("""
        clock 250 stuck flip@1200
        centre QH/2 KD/1 side 5 5
        p0 2S 2H 3H 4H 9H draw 15 played 1
        p1 5S 7S 4S 6S 10S draw 16 played 0 bounced 1
    """)


def test_a_joker_still_lands_on_a_pile_that_changed_under_it():
    """player_1's joker, aimed at the 8♣, lands after player_0's 9♥ covered it: a joker
    goes on any top, so it lands."""
    env = make_env("us", jokers=True)
    start(env, wild_deal(hands=["9H 2H 3H 4H 5H", "BJ 7S 4S 5S 6S"]))
    run(env, "0 p0 9->0 p1 joker->0", until=250)
    assert tops(env) == ["BJ", "KD"]
    assert table(env)["centre"][0][:3] == ["BJ", "9H", "8C"]
    assert table(env)["players"][1]["bounced"] == 0


def test_a_flipped_joker_is_wild_and_unsticks_the_table():
    """Nobody can play on 8♣ / K♦; the countdown flips the side piles, and the joker
    turned up on pile 0 takes any card of either player at once."""
    env = make_env("us", jokers=True)
    start(
        env,
        wild_deal(
            hands=["2H 3H 4H 5H 4D", "2S 3S 4S 5S 6S"], side_piles=["RJ", "BJ"], avoid="7 9 Q A"
        ),
    )
    assert show(env).splitlines()[0] == "clock 0 stuck flip@1000"
    run(env, until=1000)
    assert show(env) == drawn("""
        clock 1000 play
        centre RJ/2 BJ/2 side 4 4
        p0 2H 3H 4H 5H 4D draw 16 played 0
        p1 2S 3S 4S 5S 6S draw 16 played 0
    """)
    assert table(env)["top_owner"] == [None, None]  # flipped: nobody's
    for agent, ranks in ((P0, "2 3 4 5"), (P1, "2 3 4 5 6")):
        assert all(mask(env, agent)[play(r, k)] == 1 for r in ranks.split() for k in (0, 1))


def test_a_held_wild_joker_always_has_a_play():
    """A joker in hand is a legal play whatever the tops: the table is never stuck while
    a player holds one (it was stuck without it, in the previous test)."""
    env = make_env("us", jokers=True)
    start(env, wild_deal(hands=["2H 3H 4H 5H RJ", "2S 3S 4S 5S 6S"], avoid="7 9 Q A"))
    assert show(env).splitlines()[0] == "clock 0 play"


def test_japanese_keeps_its_own_joker_rule():
    """The same race as the wild one above, under japanese: the 7 bounces off the
    opponent's joker (only its owner may cover it)."""
    env = make_env("japanese", jokers=True)
    start(
        env,
        build_deal(
            "japanese",
            jokers=True,
            hands=["RJ 2H 3H 4H", "BJ 7S 4S 5S"],
            draw_piles=["KH", ""],
            centre=["8C", "8S"],
        ),
    )
    run(env, "0 p0 joker->0 p1 7->0", until=250)
    assert tops(env)[0] == "RJ" and table(env)["players"][1]["bounced"] == 1


# =========================================================================
# Deal sizes from the seed: each preset, hand sizes 3 and 7, with and without jokers
# =========================================================================

#   preset     hand  jokers   hand  draw  side  centre  deck
DEAL_SIZES = """
    us         5     no       5     15    5     1       52
    us         3     no       3     17    5     1       52
    us         7     no       7     13    5     1       52
    us         5     yes      5     16    5     1       54
    us         3     yes      3     18    5     1       54
    us         7     yes      7     14    5     1       54
    pagat      5     no       5     10    10    1       52
    pagat      3     no       3     12    10    1       52
    pagat      7     no       7     8     10    1       52
    pagat      3     yes      3     13    10    1       54
    pagat      7     yes      7     9     10    1       54
    japanese   4     no       4     21    0     1       52
    japanese   3     no       3     22    0     1       52
    japanese   7     no       7     18    0     1       52
    japanese   3     yes      3     23    0     1       54
    japanese   7     yes      7     19    0     1       54
"""
"""Sizes right after the deal (japanese: after the opening flip of each stock's top)."""


def _rows(text):
    for line in text.strip().splitlines():
        preset, hs, jk, *sizes = line.split()
        yield preset, int(hs), jk == "yes", tuple(int(x) for x in sizes)


@pytest.mark.parametrize("preset,hand_size,jokers,sizes", list(_rows(DEAL_SIZES)))
def test_deal_sizes(preset, hand_size, jokers, sizes):
    hand, draw, side, centre, deck = sizes
    env = make_env(preset, hand_size=hand_size, jokers=jokers)
    for seed in range(3):
        env.reset(seed=seed)
        t = table(env)
        for pl in t["players"]:
            assert len(pl["hand"]) == hand and None not in pl["hand"]
            assert len(pl["draw_pile"]) == draw
        assert [len(p) for p in t["side_piles"]] == [side, side]
        assert [len(p) for p in t["centre"]] == [centre, centre]
        everything = [c for pl in t["players"] for c in [*pl["hand"], *pl["draw_pile"]]] + [
            c for p in t["side_piles"] + t["centre"] for c in p
        ]
        assert len(everything) == len(set(everything)) == deck
        assert ({"RJ", "BJ"} <= set(everything)) == jokers


def test_the_seeded_deal_is_the_documented_one_at_any_hand_size():
    """Hands first, then draw piles, side piles, centre: the deal_from_seed order."""
    for preset in ("us", "pagat", "japanese"):
        for hs in (3, 7):
            rules = make_rules(preset, hand_size=hs)
            deal = speed_env.deal_from_seed(rules, 11)
            env = make_env(preset, hand_size=hs)
            env.reset(seed=11)
            t = table(env)
            assert [pl["hand"] for pl in t["players"]] == deal.to_dict()["hands"]


# =========================================================================
# Refill to the hand size
# =========================================================================


def test_hand_of_three_refills_and_shrinks_once_the_draw_pile_is_out():
    env = make_env("us", hand_size=3)
    deal = build_deal(
        "us",
        hand_size=3,
        hands=["9D 10S 3H", "JS 8D 8H"],
        draw_piles=["JD 2C", "8S"],
        draw_sizes=(2, None),
        centre=["8C", "2D"],
        avoid="7 9 10 J Q",
    )
    start(env, deal)
    assert show(env) == drawn("""
        clock 0 play
        centre 8C/9 2D/8 side 5 5
        p0 9D 10S 3H draw 2 played 0
        p1 JS 8D 8H draw 17 played 0
    """)
    run(
        env,
        """
        0    p0 9->0
        100  p0 10->0
        200  p0 J->0
    """,
        until=350,
    )
    # The 9 and the 10 drew the J♦ and the 2♣; the J♦'s slot finds the draw pile empty.
    assert show(env) == drawn("""
        clock 350 play
        centre JD/12 2D/8 side 5 5
        p0 -- 2C 3H draw 0 played 3
        p1 JS 8D 8H draw 17 played 0
    """)
    _, rewards, *_ = run(
        env,
        """
        350  p0 3->1
        450  p0 2->1
    """,
        until=600,
    )
    assert show(env) == drawn("""
        clock 550 over winner=0
        centre JD/12 2C/10 side 5 5
        p0 -- -- -- draw 0 played 5
        p1 JS 8D 8H draw 17 played 0
    """)
    assert rewards == {P0: 1.0, P1: -1.0} and env.agents == []


def test_hand_of_seven_refills_each_slot_it_plays():
    env = make_env("pagat", hand_size=7)
    deal = build_deal(
        "pagat",
        hand_size=7,
        hands=["9D 10S QC 3H 7S 2C 4C", "JS 8D 8H 9C 9H KS KH"],
        draw_piles=["5H 6S", "8S"],
        centre=["8C", "JH"],
        avoid="A 5 6",
    )
    start(env, deal)
    assert show(env) == drawn("""
        clock 0 play
        centre 8C/1 JH/1 side 10 10
        p0 9D 10S QC 3H 7S 2C 4C draw 8 played 0
        p1 JS 8D 8H 9C 9H KS KH draw 8 played 0
    """)
    run(
        env,
        """
        0    p0 9->0
        100  p0 Q->1
    """,
        until=250,
    )
    # Each played slot took the draw pile's top in turn: the 5♥, then the 6♠.
    assert show(env) == drawn("""
        clock 250 play
        centre 9D/2 QC/2 side 10 10
        p0 5H 10S 6S 3H 7S 2C 4C draw 6 played 2
        p1 JS 8D 8H 9C 9H KS KH draw 8 played 0
    """)


# =========================================================================
# The options' refusals
# =========================================================================


@pytest.mark.parametrize(
    "options,message",
    [
        ({"hand_size": 2}, r"'hand_size' must be 3 … 7 .* got 2"),
        ({"hand_size": 8}, r"'hand_size' must be 3 … 7 .* got 8"),
        ({"hand_size": "5"}, r"'hand_size' must be a whole number"),
        ({"players": 5}, r"'players' must be one of 2, 3, 4, got 5"),
        ({"play_out": True}, r"'play_out' belongs to the 'japanese' preset"),
    ],
)
def test_bad_party_options_are_refused_naming_the_option(options, message):
    with pytest.raises(RulesError, match=message):
        make_rules("us", **options)
    with pytest.raises(RulesError, match=message):
        speed_env.parallel_env("us", **options)


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_play_in_the_parallel_and_batch_envs_not_in_japanese(players):
    # The engine plays them (speed_env.seats), parallel_env seats them (speed_env.party) and
    # BatchEnv (speed_env.party_games); japanese refuses them by name.
    assert make_rules("us", players=players).players == players
    env = speed_env.parallel_env("us", players=players)
    assert env.possible_agents == [f"player_{p}" for p in range(players)]
    assert speed_env.BatchEnv(2, "us", players=players).reset(seed=0)[0].shape[0] == players
    assert make_rules("japanese", players=players).players == players


def test_defaults_keep_the_rules_dict_and_follow_the_preset():
    assert "hand_size" not in make_rules("us").to_dict()
    assert "players" not in make_rules("us").to_dict()
    assert make_rules("us", hand_size=6).to_dict()["hand_size"] == 6
    assert make_rules("us", hand_size=5) == make_rules("us")
    # A hand size taken from the preset follows a new preset; a chosen one stays.
    assert make_rules(make_rules("us"), preset="japanese").hand_size == 4
    assert make_rules(make_rules("us", hand_size=6), preset="japanese").hand_size == 6
    rules = make_rules("pagat", jokers=True, hand_size=3)
    assert speed_env.Rules(**rules.to_dict()) == rules


# =========================================================================
# Every door takes the options (DESIGN.md, "Party Speed")
# =========================================================================


def _doors():
    import gymnasium

    yield "parallel_env", lambda **kw: speed_env.parallel_env("us", **kw)
    yield "env (AEC)", lambda **kw: speed_env.env("us", **kw)
    yield "BatchEnv", lambda **kw: speed_env.BatchEnv(4, "us", **kw)
    yield "SpeedGymEnv", lambda **kw: speed_env.SpeedGymEnv("us", **kw)
    yield "make_vec", lambda **kw: gymnasium.make_vec("speed_env/Speed-v1", 2, rules="us", **kw)
    yield (
        "self-play rows",
        lambda **kw: gymnasium.make_vec("speed_env/SpeedSelfPlay-v1", 4, rules="us", **kw),
    )


@pytest.mark.parametrize("door", [name for name, _ in _doors()])
def test_every_env_takes_hand_size_and_jokers_and_the_party_doors_seat_more(door):
    build = dict(_doors())[door]
    env = build(hand_size=7, jokers=True)
    rules = env.unwrapped.rules if hasattr(env, "unwrapped") else env.rules
    assert (rules.hand_size, rules.jokers, rules.n_ranks) == (7, True, 14)
    if door in ("parallel_env", "env (AEC)"):  # the doors Party Speed opened (speed_env.party)
        assert build(players=3).possible_agents == ["player_0", "player_1", "player_2"]
        return
    if door == "BatchEnv":  # speed_env.party_games: a seat axis of n
        assert build(players=4).players == 4
        return
    # The two-seat ids seat two and name the id where three play (Speed-v1's doors:
    # SpeedParty-v0; the rows: SpeedPartySelfPlay-v0, whose rows env seats three or four).
    with pytest.raises(RulesError, match=r"SpeedParty(SelfPlay)?-v0"):
        build(players=3)
