"""Bots: legal actions only, no peeking at hidden cards, spec strings."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import speed_env
from speed_env.cards import card_str, parse_card

BOTS = ["random", "greedy", "chain"]
PRESETS = [("us", {}), ("pagat", {}), ("japanese", {}), ("japanese", {"jokers": True, "same_rank": True}),
           ("japanese", {"stack_layout": True, "multi_play": True})]


@pytest.mark.parametrize("spec", BOTS)
@pytest.mark.parametrize(("rules", "options"), PRESETS)
def test_bots_only_choose_legal_actions(spec, rules, options):
    env = speed_env.BatchEnv(64, rules, **options)
    bot = agents.make(spec, env.rules, seed=1)
    obs, mask = env.reset(seed=3)
    for _ in range(400):
        actions = np.stack([bot.act(obs[p], mask[p]) for p in range(2)])
        chosen = np.take_along_axis(mask, actions[..., None], axis=2)[..., 0]
        assert (chosen == 1).all()
        obs, mask, *_, info = env.step(actions)
        assert not info["illegal"].any()


@pytest.mark.parametrize("spec", ["greedy", "chain"])
def test_playing_bots_never_wait_with_a_legal_play(spec):
    env = speed_env.BatchEnv(64, "us")
    bot = agents.make(spec, env.rules, seed=0)
    obs, mask = env.reset(seed=0)
    for _ in range(200):
        actions = np.stack([bot.act(obs[p], mask[p]) for p in range(2)])
        can_play = mask[:, :, 1:].any(axis=2)
        assert (actions[can_play] != 0).all()
        obs, mask, *_ = env.step(actions)


def _permuted_hidden_deal(seed: int, perm_seed: int) -> dict:
    """The seeded us deal with player_1's hand + draw pile and the side piles shuffled together."""
    rules = speed_env.make_rules("us")
    deal = speed_env.deal_from_seed(rules, seed).to_dict()
    hidden = deal["hands"][1] + deal["draw_piles"][1] + deal["side_piles"][0] + deal["side_piles"][1]
    rng = np.random.default_rng(perm_seed)
    hidden = [hidden[i] for i in rng.permutation(len(hidden))]
    deal["hands"][1], rest = hidden[:5], hidden[5:]
    deal["draw_piles"][1], rest = rest[:15], rest[15:]
    deal["side_piles"] = [rest[:5], rest[5:]]
    deal["draw_piles"][0] = list(deal["draw_piles"][0])
    return deal


@pytest.mark.parametrize("spec", BOTS)
def test_bots_never_read_hidden_state(spec):
    # player_0's view is the same whatever the opponent's hidden cards are, and so is every
    # choice a bot makes from it. The one exception is public by the rules: whether the
    # table is stuck (both players count down together), which tells that the opponent
    # has no play; a stuck table leaves only waiting, so the choices still agree.
    phase = speed_env.observation_layout(speed_env.make_rules("us"))["phase"]
    for seed in range(40):
        views, choices = [], []
        for perm in range(3):
            env = speed_env.parallel_env("us")
            obs, _ = env.reset(seed=seed, options={"deal": _permuted_hidden_deal(seed, perm)})
            bot = agents.make(spec, env.rules, seed=5)
            o, m = obs["player_0"]["observation"][None], obs["player_0"]["action_mask"][None]
            views.append(np.delete(o[0], np.arange(phase.start, phase.stop)))
            choices.append(int(bot.act(o, m)[0]))
        np.testing.assert_array_equal(views[0], views[1])
        np.testing.assert_array_equal(views[0], views[2])
        assert choices[0] == choices[1] == choices[2]


def test_permuted_deal_is_a_real_permutation():
    a, b = _permuted_hidden_deal(1, 0), _permuted_hidden_deal(1, 1)
    assert a["hands"][0] == b["hands"][0] and a["hands"][1] != b["hands"][1]
    cards = [parse_card(c) for group in a.values() for pile in group for c in pile]
    assert sorted(cards) == list(range(52)) and card_str(cards[0])


def test_chain_prefers_keeping_a_run_going():
    # Holding 5, 6, 7 (and two dead cards) on a 4: the 5 goes first (it keeps 6, 7 playable).
    rules = speed_env.make_rules("japanese")
    env = speed_env.parallel_env(rules)
    deal = {
        "hands": [["5S", "7C", "6S", "QS"], ["KH", "KD", "JH", "JD"]],
        "centre": ["4C", "9H"],
    }
    used = {*deal["hands"][0], *deal["hands"][1], *deal["centre"]}
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    black = [f"{r}{s}" for s in "SC" for r in ranks if f"{r}{s}" not in used]
    red = [f"{r}{s}" for s in "HD" for r in ranks if f"{r}{s}" not in used]
    deal["draw_piles"] = [black, red]
    obs, _ = env.reset(seed=0, options={"deal": deal})
    bot = agents.make("chain", rules, seed=0)
    action = int(bot.act(obs["player_0"]["observation"][None], obs["player_0"]["action_mask"][None])[0])
    assert action == 1 + 2 * 4 + 0  # rank index 4 is the 5, onto pile 0 (the 4)


def test_spec_strings():
    bot = agents.make("greedy@200")
    assert bot.reaction.is_fixed and bot.reaction.mu == 200
    assert agents.make("chain@pro").reaction.name == "pro"
    assert agents.make("random").reaction is None
    assert set(BOTS) <= set(agents.available())
    with pytest.raises(agents.AgentSpecError, match="unknown agent 'nope'"):
        agents.make("nope")
    with pytest.raises(agents.AgentSpecError, match="bad reaction"):
        agents.make("greedy@fast")
    with pytest.raises(agents.AgentSpecError, match="bad chain weight"):
        agents.make("chain:speed=2")
    assert agents.make("chain:flying=0").weights.flying == 0


def _chain_scores_reference(rules, obs, n_actions, run_w=0.3, flying_w=6.0, deny_w=0.5):
    """``chain``'s scores written again, plainly, one row at a time (the bot's kernel is compiled)."""
    from speed_env.observation import observation_layout

    lay, nr = observation_layout(rules), rules.n_ranks

    def fits(t, r):
        d = abs(r - t)
        return d == 1 or (rules.wrap and d == 12) or (rules.same_rank and d == 0)

    out = np.zeros((len(obs), n_actions))
    for i, row in enumerate(obs.astype(np.float64)):
        hand = np.rint(row[lay["hand"]][:13] * 4)
        if rules.is_japanese:
            opp = np.rint(row[lay["opp_layout"]][:13] * 4)
        else:
            unknown = np.rint(row[lay["unknown"]][:13] * 4)
            opp = unknown / max(unknown.sum(), 1.0) * row[lay["opp_cards"]][0] * rules.hand_size
        options = [sum(opp[r] for r in range(13) if fits(t, r)) for t in range(13)]
        run = []
        for r in range(13):
            left = hand.copy()
            left[r] -= 1
            lengths = []
            for step in (1, -1):
                ranks = [r + step * j for j in range(1, 5)]
                if rules.wrap:
                    ranks = [x % 13 for x in ranks]
                n = 0
                for x in ranks:
                    if not 0 <= x < 13 or left[x] <= 0:
                        break
                    n += 1
                lengths.append(n)
            run.append(max(lengths))
        out[i, 0] = -1e6
        tops = row[lay["centre_top"]].reshape(2, nr)[:, :13]
        flying = row[lay["opp_flight"]][nr : nr + 2]
        for k in range(2):
            before = float(tops[k] @ np.array(options))
            for r in range(13):
                out[i, 1 + 2 * r + k] = run_w * run[r] - flying_w * flying[k] + deny_w * (before - options[r])
            if nr == 14:
                out[i, 1 + 2 * 13 + k] = -flying_w * flying[k]
    return out


@pytest.mark.parametrize(("rules", "options"), [*PRESETS, ("us", {"wrap": True})])
def test_chain_scores_match_a_plain_reference(rules, options):
    # The compiled scorer against the same terms written out row by row, on states from real games.
    env = speed_env.BatchEnv(16, rules, **options)
    bot = agents.make("chain", env.rules, seed=2)
    obs, mask = env.reset(seed=5)
    checked = 0
    for t in range(300):
        if t % 10 == 0:
            flat = obs.reshape(-1, obs.shape[-1])
            want = _chain_scores_reference(env.rules, flat, mask.shape[-1])
            np.testing.assert_allclose(bot.scores(flat, mask.shape[-1]), want, rtol=1e-9, atol=1e-9)
            checked += len(flat)
        obs, mask, *_ = env.step(np.stack([bot.act(obs[p], mask[p]) for p in range(2)]))
    assert checked == 30 * 32


# ----------------------------------------------------------------- the observation says its rules

ALL_RULES = [("us", {}), ("us", {"wrap": False, "same_rank": True}), ("pagat", {"reserve_rule": "lock"}),
             ("japanese", {}), ("japanese", {"jokers": True, "play_out": True}),
             ("japanese", {"stack_layout": True, "multi_play": True, "same_rank": True})]


@pytest.mark.parametrize(("rules", "options"), ALL_RULES)
def test_every_observation_ends_with_its_rules(rules, options):
    from speed_env.observation import RULES_TAG, layout_for_dim, rules_tag

    env = speed_env.BatchEnv(8, rules, **options)
    obs, _ = env.reset(seed=2)
    lay = layout_for_dim(obs.shape[2])
    assert lay == speed_env.observation_layout(env.rules) and lay["rules"].stop == obs.shape[2]
    tag = dict(zip(RULES_TAG, rules_tag(env.rules), strict=True))
    assert tag[rules] == 1 and sum(tag[p] for p in speed_env.PRESETS) == 1
    assert all(tag[k] == v for k, v in options.items() if isinstance(v, bool))
    assert tag["lock"] == (options.get("reserve_rule") == "lock")
    for _ in range(50):  # restarts and every step keep it
        np.testing.assert_array_equal(obs[..., lay["rules"]], np.broadcast_to(rules_tag(env.rules), (2, 8, 10)))
        obs, *_ = env.step(np.zeros((2, 8), np.int64))


def test_the_rules_field_left_every_earlier_slice_where_it_was():
    """The bundled model's manifest holds the layout from before ``rules`` was appended."""
    import json

    from agents.model_io import BUNDLED

    old = json.loads(BUNDLED.read_text(encoding="utf-8"))["observation"]["layout"]
    now = speed_env.observation_layout(speed_env.make_rules("us"))
    assert [[name, s.start, s.stop] for name, s in now.items()][: len(old)] == old
    assert list(now)[len(old):] == ["rules"]


@pytest.mark.parametrize(("rules", "options"), ALL_RULES)
def test_one_chain_bot_plays_every_rules_as_the_bot_built_for_them(rules, options):
    env = speed_env.BatchEnv(64, rules, **options)
    built_for, built_for_us = agents.make("chain", env.rules, seed=4), agents.make("chain", "us", seed=4)
    obs, mask = env.reset(seed=6)
    for _ in range(150):
        actions = [built_for.act(obs[p], mask[p]) for p in range(2)]
        for p in range(2):
            np.testing.assert_array_equal(built_for_us.scores(obs[p], mask.shape[2]),
                                          built_for.scores(obs[p], mask.shape[2]))
            np.testing.assert_array_equal(built_for_us.act(obs[p], mask[p]), actions[p])
        obs, mask, *_ = env.step(np.stack(actions))


def test_chain_refuses_an_observation_of_no_known_layout():
    bot = agents.make("chain", "japanese")
    with pytest.raises(ValueError, match="an observation of 128 floats is not one of this speed_env"):
        bot.act(np.zeros((1, 128), np.float32), np.ones((1, 27), np.int8))


def test_the_bundled_model_reads_the_observation_it_was_trained_on():
    """Trained on the 128-float layout: it is fed the first 128 floats, unchanged, and plays
    exactly as its network does on them; it refuses rules it was not trained on."""
    from agents.model_io import BUNDLED, MLPPolicy, ModelFormatError, read_model

    tensors, manifest, _ = read_model(BUNDLED)
    assert manifest["observation"]["obs_dim"] == 128
    bare = MLPPolicy(tensors, manifest["net"]["activation"])  # no manifest: reads what it is given
    for rules in ("japanese", "us"):
        env = speed_env.BatchEnv(128, rules)
        obs, mask = env.reset(seed=9)
        trained = agents.make("trained", rules)
        for _ in range(40):
            np.testing.assert_array_equal(trained.logits(obs[0]), bare.logits(obs[0][:, :128]))
            actions = np.stack([trained.act(obs[p], mask[p]) for p in range(2)])
            np.testing.assert_array_equal(actions[1], bare.act(obs[1][:, :128], mask[1]))
            obs, mask, *_ = env.step(actions)
    env = speed_env.BatchEnv(4, "pagat")
    obs, mask = env.reset(seed=0)
    with pytest.raises(ModelFormatError, match="trained on japanese and us and cannot play an observation of pagat"):
        agents.make("trained", "us").act(obs[0], mask[0])
    with pytest.raises(ModelFormatError, match="trained on japanese and us, not on pagat"):
        agents.make("trained", "pagat")
