"""Sampled worlds: legal tables agreeing with a seat's view, hidden cards uniform on the unseen."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from speed_env import engine
from speed_env.cards import RED_SUITS
from speed_env.game import Games
from speed_env.observation import observation_layout
from speed_env.rules import make_rules
from speed_env.worlds import WorldError, sample_worlds

PRESETS = [
    ("us", {}),
    ("pagat", {}),
    ("us", {"reserve_rule": "lock", "idle_flip_ms": 0}),
    ("japanese", {}),
    ("japanese", {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True}),
    ("japanese", {"jokers": True, "same_rank": True, "wrap": False}),
    # Party Speed's two-seat options: wild jokers, hand sizes 3 and 7
    ("us", {"jokers": True}),
    ("pagat", {"jokers": True, "hand_size": 3}),
    ("us", {"hand_size": 7}),
    ("japanese", {"hand_size": 7, "jokers": True, "stack_layout": True, "multi_play": True}),
]


def _states(rules, games=12, seed=5, every=6):
    """Observations (both seats) of mid-game states of chain games, some random moves mixed in."""
    g = Games(games, rules)
    g.deal_seeded(np.arange(games), np.arange(games) + seed)
    chain = agents.make("chain", rules, seed=seed)
    rng = np.random.default_rng(seed)
    tick = 0
    while not (g.state["phase"] == engine.OVER).all():
        obs, mask = g.observe()
        live = np.flatnonzero(g.state["phase"] != engine.OVER)
        if tick % every == 0:
            yield g.state[live].copy(), obs[:, live], mask[:, live]
        actions = np.stack([chain.act(obs[p], mask[p]) for p in range(2)])
        keys = np.where(
            mask > 0, rng.random(mask.shape), -1
        )  # a random legal move a third of the time
        actions = np.where(rng.random(actions.shape) < 0.33, keys.argmax(axis=2), actions)
        g.step(actions)
        tick += 1


def _cards_of(rec, rules):
    """Every card id on the table of one record, wherever it lies."""
    cards = [
        rec["hand"][:, : rules.hand_size].ravel(),
        rec["draw"].ravel(),
        rec["side"].ravel(),
        rec["centre"].ravel(),
        rec["stk"].ravel(),
        rec["fl_cards"].ravel(),
    ]
    out = np.concatenate(cards)
    return np.sort(out[out >= 0])


def _assert_legal_table(rec, rules):
    deck = np.arange(rules.deck_size if rules.jokers else 52)
    if rules.jokers:
        deck = np.arange(54)
    np.testing.assert_array_equal(_cards_of(rec, rules), deck)  # every card exactly once
    for field in ("draw", "side", "centre"):
        for k in range(2):
            n = rec[field + "_n"][k]
            assert (rec[field][k, :n] >= 0).all() and (rec[field][k, n:] == -1).all()
    assert (rec["centre_n"] >= 1).all()
    if rules.is_japanese:  # each stock holds its owner's colour only
        for p in range(2):
            for c in rec["draw"][p, : rec["draw_n"][p]]:
                red = c == 52 or (c < 52 and c // 13 in RED_SUITS)
                assert red == (p == 0)


@pytest.mark.parametrize(("preset", "options"), PRESETS)
def test_every_sampled_world_is_a_legal_table_that_gives_back_the_same_observation(preset, options):
    rules = make_rules(preset, **options)
    rng = np.random.default_rng(0)
    lay = observation_layout(rules)
    seen = dict.fromkeys(("flight", "stuck", "rebuilt", "stacked", "multi"), False)
    for records, obs, mask in _states(rules):
        for seat in (0, 1):
            worlds = sample_worlds(rules, obs[seat], 2, rng)
            g = Games(len(worlds), rules)
            g.state[:] = worlds
            again, again_mask = g.observe()
            np.testing.assert_array_equal(again[seat], np.repeat(obs[seat], 2, axis=0))
            np.testing.assert_array_equal(again_mask[seat], np.repeat(mask[seat], 2, axis=0))
            for rec in worlds[::7]:
                _assert_legal_table(rec, rules)
        seen["flight"] |= bool((records["fl_kind"] >= 0).any())
        seen["stuck"] |= bool((records["phase"] == engine.STUCK).any())
        seen["rebuilt"] |= bool(obs[0][:, lay["side_known"]].any())
        seen["stacked"] |= bool((records["stk_n"] > 0).any())
        seen["multi"] |= bool((records["fl_n"] > 1).any())
    # the states covered what the sampler must reconstruct
    assert seen["flight"] and seen["stuck"]
    # side piles of 5 run out often (less so with a hand of 7, which is rarely stuck)
    if rules.preset == "us" and rules.reserve_rule == "rebuild" and rules.hand_size <= 5:
        assert seen["rebuilt"]
    if rules.stack_layout:
        assert seen["stacked"] and seen["multi"]


def test_sampled_worlds_play_on_to_the_end():
    rules = make_rules("japanese", jokers=True, stack_layout=True, multi_play=True, play_out=True)
    records, obs, _ = list(_states(rules, games=4))[10]
    worlds = sample_worlds(rules, obs[1], 8, seed=3)
    g = Games(len(worlds), rules)
    g.state[:] = worlds
    chain = agents.make("chain", rules, seed=1)
    for _ in range(20_000):
        if (g.state["phase"] == engine.OVER).all():
            break
        o, m = g.observe()
        g.step(np.stack([chain.act(o[p], m[p]) for p in range(2)]))
    assert (g.state["phase"] == engine.OVER).all()
    assert len(np.unique(worlds["seed"])) == len(worlds)  # each world draws its own future


def _chi_square(counts, expected):
    return float(((counts - expected) ** 2 / expected).sum())


# 99.9% quantiles of the chi-square distribution (df: critical value); a fair sampler
# exceeds one with probability 0.001, the seed is fixed, and a biased one is caught below.
CHI2_999 = {
    1: 10.83,
    2: 13.82,
    3: 16.27,
    4: 18.47,
    5: 20.52,
    6: 22.46,
    7: 24.32,
    8: 26.12,
    9: 27.88,
    10: 29.59,
    11: 31.26,
    12: 32.91,
    13: 34.53,
}


def _uniformity(places, pool_counts, n):
    """Chi-square statistic and df of the ranks found at each hidden place vs the unseen counts."""
    expected = pool_counts / pool_counts.sum() * n
    keep = expected > 0
    return [
        (
            _chi_square(np.bincount(ranks, minlength=len(pool_counts))[keep], expected[keep]),
            keep.sum() - 1,
        )
        for ranks in places
    ]


def test_hidden_cards_are_uniform_over_the_unseen_ones_in_us():
    rules = make_rules("us")
    lay = observation_layout(rules)
    records, obs, _ = list(_states(rules, games=4, seed=9))[30]
    row = obs[0][0]
    unknown = np.rint(row[lay["unknown"]] * 4) - np.rint(row[lay["side_known"]] * 4).reshape(
        2, -1
    ).sum(axis=0)
    n = 4000
    worlds = sample_worlds(rules, row, n, seed=11)
    rank = np.array([c % 13 for c in range(52)])
    places = [
        rank[worlds["draw"][:, 0, worlds["draw_n"][0, 0] - 1]],  # the top of my own draw pile
        rank[worlds["draw"][:, 1, 0]],  # the bottom of theirs
        rank[np.sort(worlds["hand"][:, 1, :5], axis=1)[:, -1]],
    ]  # a card of their hidden hand
    if worlds["side_n"][0, 0] and not row[lay["side_known"]].any():
        places.append(rank[worlds["side"][:, 0, 0]])
    for stat, df in _uniformity(places[:2], unknown, n):
        assert stat < CHI2_999[df]
    # the same test catches a sampler that is off: rank frequencies skewed by a tenth
    skewed = np.concatenate([places[0], places[0][places[0] < 4][: n // 10]])
    stat, df = _uniformity([skewed], unknown, skewed.size)[0]
    assert stat > CHI2_999[df]


def test_in_japanese_each_stock_is_uniform_over_its_owner_colours_unseen_cards():
    rules = make_rules("japanese", jokers=True)
    lay = observation_layout(rules)
    records, obs, _ = list(_states(rules, games=4, seed=2))[12]
    row = obs[1][0]  # seat 1's view
    mine = np.rint(row[lay["my_colour_unseen"]] * 4)
    theirs = np.rint(row[lay["unknown"]] * 4) - mine
    n = 4000
    worlds = sample_worlds(rules, row, n, seed=4)
    rank = np.array([c % 13 for c in range(52)] + [13, 13])
    top = rank[worlds["draw"][np.arange(n), 1, worlds["draw_n"][:, 1] - 1]]
    bottom_theirs = rank[worlds["draw"][:, 0, 0]]
    for stat, df in _uniformity([top], mine, n) + _uniformity([bottom_theirs], theirs, n):
        assert stat < CHI2_999[df]


def test_observations_no_table_can_produce_are_refused():
    rules = make_rules("us")
    obs = Games(1, rules)
    obs.deal_seeded([0], [1])
    row = obs.observe()[0][0, 0]
    with pytest.raises(WorldError, match="have length"):
        sample_worlds(rules, row[:-1], 2)
    with pytest.raises(WorldError, match="have length"):
        sample_worlds(make_rules("japanese", jokers=True), row, 2)
    bad = row.copy()
    bad[observation_layout(rules)["unknown"]] = (
        0.0  # nothing unseen: 47 cards for two 1-card centre piles
    )
    with pytest.raises(WorldError, match="centre piles hold 1 and 1 cards"):
        sample_worlds(rules, bad, 2)
    with pytest.raises(WorldError, match="worlds must be"):
        sample_worlds(rules, row, 0)
