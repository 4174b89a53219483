"""Sampled worlds at three and four seats: legal tables agreeing with a seat's view, hidden
cards uniform over the cards the view does not show, nothing read but the view."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from speed_env import engine
from speed_env.party_games import PartyGames
from speed_env.party_obs import observe_seats
from speed_env.party_worlds import sample_party_worlds
from speed_env.rules import make_rules
from speed_env.worlds import WorldError

RANK_OF = np.array([c % 54 % 13 if c % 54 < 52 else 13 for c in range(108)])
CHI2_999_12 = 32.91  # chi-square, 12 degrees of freedom, 99.9th percentile


def _states(rules, games=8, seed=5, every=8, ticks=160):
    """Mid-game records and every seat's views of ``chain`` games, random moves mixed in."""
    g = PartyGames(games, rules)
    g.deal_seeded(np.arange(games), np.arange(games) + seed)
    chain = agents.make("chain", rules, seed=seed)
    rng = np.random.default_rng(seed)
    for tick in range(ticks):
        obs, mask = g.observe()
        live = np.flatnonzero(g.state["phase"] != engine.OVER)
        if live.size == 0:
            return
        if tick % every == 0:
            yield g.state[live].copy(), obs[:, live], mask[:, live]
        actions = np.stack([chain.act(obs[p], mask[p]) for p in range(rules.players)])
        keys = np.where(mask > 0, rng.random(mask.shape), -1)  # a random legal move at times
        actions = np.where(rng.random(actions.shape) < 0.33, keys.argmax(axis=2), actions)
        g.step_observe(actions)


def _assert_legal_table(rec, rules):
    ids = [c for c in range(108) if rules.jokers or c % 54 < 52]
    cards = np.concatenate(
        [
            rec["hand"][:, : rules.hand_size].ravel(),
            *(rec[f].ravel() for f in ("draw", "side", "centre", "fl_cards")),
        ]
    )
    np.testing.assert_array_equal(np.sort(cards[cards >= 0]), ids)  # every card exactly once
    for field in ("draw", "side", "centre"):
        for k in range(rules.players):
            n = rec[field + "_n"][k]
            assert (rec[field][k, :n] >= 0).all() and (rec[field][k, n:] == -1).all()


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, {}), (4, {"jokers": True}), (4, {"hand_size": 3, "preset": "pagat"})],
)
def test_every_sampled_world_is_a_legal_table_that_gives_back_the_same_view(players, options):
    options = dict(options)
    rules = make_rules(options.pop("preset", "us"), players=players, **options)
    rng = np.random.default_rng(0)
    seen = {"flight": False, "stuck": False}
    for records, obs, mask in _states(rules):
        for seat in range(players):
            worlds = sample_party_worlds(rules, obs[seat], 2, rng)
            g = PartyGames(len(worlds), rules)
            g.state[:] = worlds
            again, again_mask = g.observe()  # the world's seat 0 is the observer
            np.testing.assert_array_equal(again[0], np.repeat(obs[seat], 2, axis=0))
            np.testing.assert_array_equal(again_mask[0], np.repeat(mask[seat], 2, axis=0))
            for rec in worlds[::5]:
                _assert_legal_table(rec, rules)
        seen["flight"] |= bool((records["fl_kind"] >= 0).any())
        seen["stuck"] |= bool((records["phase"] == engine.STUCK).any())
    # the states covered what must be rebuilt (wild jokers seldom leave a table stuck)
    assert seen["flight"] and (seen["stuck"] or rules.jokers)


def _hidden_twin(rules, seed=3):
    """A mid-game record and a twin that differs only in cards seat 0 cannot see: a card of
    seat 1's hand swapped with one of another rank from seat 2's draw pile."""
    for records, _, _ in _states(rules, games=4, seed=seed):
        for rec in records:
            hand = [i for i in range(rules.hand_size) if rec["hand"][1, i] >= 0]
            for i in hand:
                for j in range(rec["draw_n"][2]):
                    if RANK_OF[rec["hand"][1, i]] != RANK_OF[rec["draw"][2, j]]:
                        twin = rec.copy()
                        twin["hand"][1, i], twin["draw"][2, j] = (
                            rec["draw"][2, j],
                            rec["hand"][1, i],
                        )
                        return rec, twin
    raise AssertionError("no state with a hidden card to swap")


def test_two_tables_that_differ_only_in_hidden_cards_give_the_same_worlds():
    rules = make_rules("us", players=4)
    rec, twin = _hidden_twin(rules)
    views = observe_seats(np.stack([rec, twin]), rules)[0]
    np.testing.assert_array_equal(views[0], views[1])  # seat 0 sees no difference
    assert not np.array_equal(rec["hand"], twin["hand"])  # but the tables differ
    a = sample_party_worlds(rules, views[0], 8, seed=1)
    b = sample_party_worlds(rules, views[1], 8, seed=1)
    assert a.tobytes() == b.tobytes()


def test_hidden_cards_are_uniform_over_the_cards_the_view_does_not_show():
    rules = make_rules("us", players=4)
    records, obs, _ = list(_states(rules, games=4, seed=9))[6]
    rec, row = records[0], obs[0][0]
    shown = np.concatenate([rec["hand"][0, :5], rec["fl_cards"][:, 0]])
    shown = np.concatenate([shown, [rec["centre"][k, rec["centre_n"][k] - 1] for k in range(4)]])
    counts = np.full(13, 8.0) - np.bincount(RANK_OF[shown[shown >= 0]], minlength=13)
    n = 4000
    worlds = sample_party_worlds(rules, row, n, seed=11)
    hand3 = worlds["hand"][:, 3, :5]
    places = {
        "the top of my own draw pile": worlds["draw"][np.arange(n), 0, worlds["draw_n"][:, 0] - 1],
        "the bottom of seat 2's draw pile": worlds["draw"][:, 2, 0],
        "a card of seat 3's hand": hand3[:, int(np.flatnonzero(hand3[0] >= 0)[0])],
        "the card under centre pile 1's top": worlds["centre"][:, 1, 0],
    }
    expected = counts / counts.sum() * n
    for where, cards in places.items():
        assert (cards >= 0).all(), where
        found = np.bincount(RANK_OF[cards], minlength=13)
        stat = float(((found - expected) ** 2 / expected).sum())
        assert stat < CHI2_999_12, (where, stat)
    # the same statistic catches a sampler skewed by a tenth toward the low ranks
    skewed = RANK_OF[places["the bottom of seat 2's draw pile"]]
    skewed = np.concatenate([skewed, skewed[skewed < 4][: n // 10]])
    found = np.bincount(skewed, minlength=13)
    exp = counts / counts.sum() * skewed.size
    assert float(((found - exp) ** 2 / exp).sum()) > CHI2_999_12


def test_views_no_table_can_produce_and_japanese_are_refused():
    rules = make_rules("us", players=3)
    obs = observe_seats(_states(rules).__next__()[0][:1], rules)[0, 0]
    with pytest.raises(WorldError, match="length"):
        sample_party_worlds(rules, obs[:-1], 2)
    broken = obs.copy()
    broken[:13] = 0.0  # my hand shows no card, its count still five
    with pytest.raises(WorldError, match="my hand shows 0 cards by rank but 5"):
        sample_party_worlds(rules, broken, 2)
    with pytest.raises(WorldError, match="japanese at 4 players"):
        sample_party_worlds(make_rules("japanese", players=4), obs, 2)
    with pytest.raises(WorldError, match="not 2"):
        sample_party_worlds(make_rules("us"), obs, 2)
