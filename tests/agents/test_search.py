"""``search``: a fair, plain Policy over sampled worlds, its spec, thinking charged as latency."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import speed_env
from agents.search import SearchAgent, SearchSettings
from agents.tournament import realtime
from speed_env.reaction import make_profile


def test_search_is_registered_and_its_spec_sets_the_budget():
    assert "search" in agents.available()
    bot = agents.make("search:worlds=8,depth=20,scale=2,ms_per_world=1.5@pro", "japanese")
    assert isinstance(bot, SearchAgent)
    assert bot.settings == SearchSettings(worlds=8, depth=20, scale=2.0, ms_per_world=1.5)
    assert bot.think_ms == 12.0 and bot.reaction.name == "pro"
    assert agents.make("search:32").settings.worlds == 32
    assert agents.make("search").settings == SearchSettings()
    with pytest.raises(agents.AgentSpecError, match="unknown search setting 'width'"):
        agents.make("search:width=3")
    with pytest.raises(agents.AgentSpecError, match="worlds=many"):
        agents.make("search:worlds=many")
    with pytest.raises(agents.AgentSpecError, match="out of range"):
        agents.make("search:depth=-1")


@pytest.mark.parametrize(
    ("rules", "options"),
    [
        ("us", {}),
        ("japanese", {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True}),
    ],
)
def test_search_only_chooses_legal_actions(rules, options):
    env = speed_env.BatchEnv(6, rules, **options)
    bot = agents.make("search:worlds=2,depth=6", env.rules, seed=1)
    obs, mask = env.reset(seed=7)
    searched = 0
    for _ in range(80):
        actions = np.stack([bot.act(obs[p], mask[p]) for p in range(2)])
        searched += int((mask.sum(axis=2) >= 2).sum())
        chosen = np.take_along_axis(mask, actions[..., None], axis=2)[..., 0]
        assert (chosen == 1).all()
        obs, mask, *_, info = env.step(actions)
        assert not info["illegal"].any()
    assert searched > 0


def test_thinking_is_charged_to_the_seats_reaction():
    human = make_profile("human")
    bot = agents.make("search:worlds=4,ms_per_world=5")
    slow = agents.seat_reaction(bot, human)
    assert (slow.mu, slow.sigma, slow.tau, slow.floor) == (
        human.mu + 20,
        human.sigma,
        human.tau,
        human.floor + 20,
    )
    assert agents.seat_reaction(agents.make("chain"), human) is human
    assert agents.seat_reaction(agents.make("search:worlds=4"), human) is human


def test_a_search_that_thinks_a_second_a_world_loses_to_chain_in_the_tournament():
    # The charge reaches the games: a second of thinking per play hands chain every race.
    settings = realtime.Settings(
        agents=("search:worlds=1,depth=2,ms_per_world=1000", "chain"),
        games=8,
        rules=speed_env.make_rules("us"),
        seed=1,
    )
    results, complete = realtime.run(settings)
    wins = sum(r.wins_a for r in results)
    losses = sum(r.wins_b for r in results)
    assert complete and losses >= 7 and wins <= 1


def test_z_keeps_chains_choice_unless_the_lead_is_clear():
    rules = speed_env.make_rules("us")
    env = speed_env.BatchEnv(64, rules)
    obs, mask = env.reset(seed=2)
    chain = agents.make("chain", rules)
    for _ in range(12):  # into the game, where choices are real
        obs, mask, *_ = env.step(np.stack([chain.act(obs[p], mask[p]) for p in range(2)]))
    rows = mask[0].sum(axis=1) >= 2
    deviations = {}
    for z in (0.0, 1e6):
        search = agents.make(f"search:worlds=6,depth=10,z={z}", rules, seed=4)
        mine = agents.make("chain", rules, seed=4).act(
            obs[0], mask[0]
        )  # the search's own chain, same seed
        deviations[z] = int((search.act(obs[0], mask[0]) != mine)[rows].sum())
    # a huge z leaves chain's choice only where an action led in every world alike
    assert rows.sum() >= 3 and deviations[1e6] < deviations[0.0]


def test_search_labels_for_cloning_are_chains_ties_where_it_kept_chains_choice():
    """``best_set``: where the search kept ``chain``'s choice, every action ``chain`` scores as
    high (a coin broke that tie); where it left it, only the search's own choice."""
    from train.bc import best_actions

    env = speed_env.BatchEnv(64, "japanese", jokers=True, multi_play=True)
    obs, mask = env.reset(seed=3)
    chain = agents.make("chain", env.rules)
    search = agents.make("search:worlds=4,depth=10", env.rules, seed=5)
    seen = {"kept": 0, "left": 0, "tied": 0}
    for _ in range(30):
        chosen = search.act(obs[0], mask[0])
        best = best_actions(search, obs[0], mask[0], chosen)
        scores = np.where(mask[0] > 0, chain.scores(obs[0], mask.shape[2]), -np.inf)
        ties = (scores >= scores.max(axis=1, keepdims=True) - 1e-9) & (mask[0] > 0)
        rows = np.arange(len(chosen))
        kept = ties[rows, chosen]
        assert best.dtype == np.int8 and (best[rows, chosen] == 1).all()
        np.testing.assert_array_equal(best[kept], ties[kept])
        assert (best[~kept].sum(axis=1) == 1).all()
        assert (best <= mask[0]).all()
        seen["kept"] += int(kept.sum())
        seen["left"] += int((~kept).sum())
        seen["tied"] += int((best.sum(axis=1) >= 2).sum())
        obs, mask, *_ = env.step(np.stack([chosen, chain.act(obs[1], mask[1])]))
    assert min(seen.values()) > 0, seen


def test_wait_0_never_waits_holding_a_play_where_the_plain_search_does():
    env = speed_env.BatchEnv(64, "japanese", jokers=True, stack_layout=True, play_out=True)
    obs, mask = env.reset(seed=4)
    chain = agents.make("chain", env.rules, seed=2)
    bots = {w: agents.make(f"search:worlds=4,depth=10,wait={w}", env.rules, seed=5) for w in (0, 1)}
    waits = {0: 0, 1: 0}
    for _ in range(25):
        can_play = mask[0, :, 1:].any(axis=1)
        for w, bot in bots.items():
            waits[w] += int(((bot.act(obs[0], mask[0]) == 0) & can_play).sum())
        obs, mask, *_ = env.step(np.stack([chain.act(obs[p], mask[p]) for p in range(2)]))
    assert waits[0] == 0 and waits[1] > 0, waits
    with pytest.raises(agents.AgentSpecError, match="wait 0 or 1"):
        agents.make("search:wait=2")
