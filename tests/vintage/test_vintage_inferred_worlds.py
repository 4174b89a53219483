"""Worlds that use what the table reveals: a seat that just drew could not follow the top.

``sample_world(..., infer=True)`` deals the hidden cards so that each seat of the run of
stuck seats before the observer held nothing that follows the top before its draw; the
search (``vintage-search:infer=1``) and the expert-iteration targets (``--infer``) use it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import agents
from agents import AgentSpecError
from agents.vintage.bots import VintageTactician
from agents.vintage.search import SearchSettings, VintageSearch
from speed_env.vintage import ObservationLayout, default_pack, raw_env
from speed_env.vintage.engine import legal_mask
from speed_env.vintage.observation import encode
from speed_env.vintage.worlds import _stuck_run, followers, sample_world

PACK = default_pack()
LAYOUT = ObservationLayout(PACK)


def stuck_states(seeds: range):
    """(env, observation, stuck run) where seats before the player to act drew at the top."""
    bot = VintageTactician()
    for seed in seeds:
        env = raw_env(num_players=4, games=1)
        env.reset(seed=seed)
        while not env.game.over:
            view = env.observe(env.agent_selection)
            obs, mask = view["observation"], view["action_mask"]
            if not obs[LAYOUT["lead"]][0] and not obs[LAYOUT["extra"]][0]:
                run = _stuck_run(obs, LAYOUT, 4)
                if run:
                    yield env, obs, run
            env.step(int(bot.act(obs[None], mask[None])[0]))


def follower_count(hand: list[int], top: int, called: int) -> int:
    ok = followers(PACK, top, called)
    return sum(c for c, f in zip(hand, ok, strict=True) if f)


def test_a_seat_that_drew_at_the_top_really_holds_at_most_the_card_it_drew_that_follows():
    # The inference holds in real games: the true hands obey it (a passing seat holds none).
    checked = 0
    for env, _obs, run in stuck_states(range(60)):
        game = env.game
        for seat, passed in run:
            held = follower_count(game.hands[(game.current + seat) % 4], game.top, game.called)
            assert held <= (0 if passed else 1)
            checked += 1
    assert checked > 300


def test_inferred_worlds_agree_with_the_view_and_with_what_the_stuck_seats_reveal():
    rng = np.random.default_rng(0)
    uniform_followers = inferred_followers = 0
    for env, obs, run in stuck_states(range(12)):
        for infer in (False, True):
            world = sample_world(obs, rng, infer=infer)
            seen = encode(world, 0, [0] * 4, 0, LAYOUT)
            for name in ("hand", "top", "discard", "pack", "hand_sizes", "stuck", "passes"):
                assert np.array_equal(seen[LAYOUT[name]], obs[LAYOUT[name]]), name
            mask = env.observe(env.agent_selection)["action_mask"]
            assert np.array_equal(legal_mask(world), mask)
            held = sum(follower_count(world.hands[s], world.top, world.called) for s, _ in run)
            if infer:
                assert all(
                    follower_count(world.hands[s], world.top, world.called) <= (0 if p else 1)
                    for s, p in run
                )
                inferred_followers += held
            else:
                uniform_followers += held
    # Uniform worlds hand the stuck seats followers they cannot hold; inferred ones do not.
    assert inferred_followers < uniform_followers / 2


def test_a_seat_that_drew_holds_each_unseen_card_as_its_draw_with_the_posterior_weight():
    # One stuck next-but-two seat: among worlds, hands with one follower (the card drawn)
    # are h times less likely per hand than hands with none (each of its h cards may be it).
    for _env, obs, run in stuck_states(range(40)):
        if len(run) == 1 and not run[0][1]:
            break
    else:
        pytest.fail("no state with one stuck seat that drew")
    seat = run[0][0]
    rng = np.random.default_rng(3)
    worlds = [sample_world(obs, rng, infer=True) for _ in range(3000)]
    top, called = worlds[0].top, worlds[0].called
    counts = Counter(follower_count(w.hands[seat], top, called) for w in worlds)
    assert set(counts) <= {0, 1} and counts[1] > 0
    # Exact posterior share of one-follower hands, by enumeration of uniform deals.
    uniform = [sample_world(obs, rng) for _ in range(20000)]
    size = sum(uniform[0].hands[seat])
    raw = Counter(follower_count(w.hands[seat], top, called) for w in uniform)
    share = raw[1] / size / (raw[0] + raw[1] / size)
    got = counts[1] / len(worlds)
    assert abs(got - share) < 4 * np.sqrt(share * (1 - share) / len(worlds)) + 0.01


def test_the_search_spec_and_settings_carry_infer():
    bot = agents.make("vintage-search:infer=1@4", seed=0)
    assert isinstance(bot, VintageSearch) and bot.settings == SearchSettings(worlds=4, infer=True)
    assert agents.make("vintage-search@4").settings.infer is False
    with pytest.raises(AgentSpecError, match="infer"):
        agents.make("vintage-search:infer=yes")
    # It changes what the search sees: the same seed gives other values at a stuck table.
    for env, obs, _run in stuck_states(range(20)):
        mask = env.observe(env.agent_selection)["action_mask"]
        if mask.sum() >= 2:
            break
    plain = VintageSearch(SearchSettings(worlds=8), seed=1).evaluate(obs, mask)
    inferred = VintageSearch(SearchSettings(worlds=8, infer=True), seed=1).evaluate(obs, mask)
    assert len(plain.legal) >= 2 and not np.array_equal(plain.means, inferred.means)
