"""Bots: legal actions only, no peeking at hidden cards, spec strings."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import speed_env
from agents.chain import ChainWeights
from speed_env.cards import card_str, parse_card

BOTS = ["random", "greedy", "chain"]
PRESETS = [
    ("us", {}),
    ("pagat", {}),
    ("japanese", {}),
    ("japanese", {"jokers": True, "same_rank": True}),
    ("japanese", {"stack_layout": True, "multi_play": True}),
]


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
    hidden = (
        deal["hands"][1] + deal["draw_piles"][1] + deal["side_piles"][0] + deal["side_piles"][1]
    )
    rng = np.random.default_rng(perm_seed)
    hidden = [hidden[i] for i in rng.permutation(len(hidden))]
    deal["hands"][1], rest = hidden[:5], hidden[5:]
    deal["draw_piles"][1], rest = rest[:15], rest[15:]
    deal["side_piles"] = [rest[:5], rest[5:]]
    deal["draw_piles"][0] = list(deal["draw_piles"][0])
    return deal


@pytest.mark.parametrize("spec", [*BOTS, "search:worlds=4,depth=10"])
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
    action = int(
        bot.act(obs["player_0"]["observation"][None], obs["player_0"]["action_mask"][None])[0]
    )
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
    assert agents.make("chain:plan=0").weights.plan == 0
    with pytest.raises(ValueError, match=r"ChainWeights\.plan is 0 or 1, got 2"):
        ChainWeights(plan=2)
    with pytest.raises(agents.AgentSpecError, match=r"bad chain weight 'plan=0.5'.*plan=0 or "):
        agents.make("chain:plan=0.5")


def _chain_scores_reference(
    rules,
    obs,
    n_actions,
    run_w=0.3,
    flying_w=6.0,
    deny_w=0.5,
    plan=True,
    multi_w=1.0,
    stack_w=0.0,
    joker_w=0.0,
    keep_w=1.0,
    flip_w=0.5,
):
    """``chain``'s scores written again, plainly, one row at a time (the bot's kernel is compiled).

    ``plan=False`` is the first ``chain``, blind to the japanese options' moves."""
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
        # cards of mine each card would have led to, were it dumped at a play-out flip
        links = [sum(hand[s] - (s == r) for s in range(13) if fits(r, s)) for r in range(13)]
        choosing = plan and rules.play_out and row[lay["phase"]][0] == 1
        seat_0 = row[lay["seat"]][0] == 0
        opp_stock = row[lay["opp_cards"]][1] > 0
        opp_joker = round(row[lay["opp_layout"]][13] * 4) if nr == 14 else 0
        out[i, 0] = -1e6
        tops = row[lay["centre_top"]].reshape(2, nr)[:, :13]
        my_joker_on = row[lay["centre_joker"]].reshape(2, 2)[:, 0] == 1
        flying = row[lay["opp_flight"]][nr : nr + 2]
        for k in range(2):
            before = float(tops[k] @ np.array(options))
            buried = choosing and seat_0 and (flying[k] == 1 or (k == 1 and opp_stock))
            cover = keep_w if plan and my_joker_on[k] else 0.0
            for r in range(13):
                if buried:
                    score = -flip_w * links[r]
                elif choosing:
                    score = run_w * run[r] + deny_w * (before - options[r])
                else:
                    score = (
                        run_w * run[r]
                        - flying_w * flying[k]
                        + deny_w * (before - options[r])
                        - cover
                    )
                out[i, 1 + 2 * r + k] = score
            if nr == 14:
                if not plan:
                    out[i, 1 + 2 * 13 + k] = -flying_w * flying[k]
                elif buried:
                    out[i, 1 + 2 * 13 + k] = -flip_w * 4
                else:
                    their_joker = row[lay["opp_flight"]][13] == 1 and not choosing
                    race = flying[k] if their_joker else 0.0  # only their joker bounces mine
                    joker = joker_w - flying_w * race + deny_w * (before + opp_joker)
                    out[i, 1 + 2 * 13 + k] = joker
        base = 1 + 2 * nr
        if plan and rules.stack_layout:
            out[i, base : base + 13] = stack_w
        base += nr if rules.stack_layout else 0
        if plan and rules.multi_play:
            for r in range(13):
                for k in range(2):
                    out[i, base + 2 * r + k] = out[i, 1 + 2 * r + k] + multi_w * (hand[r] - 1)
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


ALL_OPTIONS = {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True}


@pytest.mark.slow
@pytest.mark.parametrize("plan", [1, 0])
@pytest.mark.parametrize(
    "options", [ALL_OPTIONS, {"jokers": True, "play_out": True, "same_rank": True}]
)
def test_chain_plans_the_japanese_options_as_the_reference_says(options, plan):
    # Whole games, so that the stock runs out and play-out flip choices come up; chain:plan=0
    # is the first chain, whose scores the reference gives with plan=False.
    env = speed_env.BatchEnv(16, "japanese", **options)
    bot = agents.make(f"chain:plan={plan}", env.rules, seed=2)
    lay = speed_env.observation_layout(env.rules)
    obs, mask = env.reset(seed=8)
    seen = {"flip choice": 0, "my joker on a pile": 0, "stack or multi-play legal": 0}
    for t in range(2400):
        if t % 8 == 0:
            flat, legal = obs.reshape(-1, obs.shape[-1]), mask.reshape(-1, mask.shape[-1])
            want = _chain_scores_reference(env.rules, flat, mask.shape[-1], plan=bool(plan))
            np.testing.assert_allclose(bot.scores(flat, mask.shape[-1]), want, rtol=1e-9, atol=1e-9)
            stuck = flat[:, lay["phase"].start] == 1
            seen["flip choice"] += int((stuck & legal[:, 1:].any(axis=1)).sum())
            mine = flat[:, lay["centre_joker"]][:, ::2]  # pile 0's "mine", pile 1's "mine"
            seen["my joker on a pile"] += int(mine.any(axis=1).sum())
            seen["stack or multi-play legal"] += int(legal[:, 1 + 2 * 14 :].any(axis=1).sum())
        obs, mask, *_ = env.step(np.stack([bot.act(obs[p], mask[p]) for p in range(2)]))
    needed = ["flip choice", "my joker on a pile"]
    needed += ["stack or multi-play legal"] if "multi_play" in options else []
    assert all(seen[name] > 0 for name in needed), seen


# ----------------------------------------------------------------- the observation says its rules

ALL_RULES = [
    ("us", {}),
    ("us", {"wrap": False, "same_rank": True}),
    ("pagat", {"reserve_rule": "lock"}),
    ("japanese", {}),
    ("japanese", {"jokers": True, "play_out": True}),
    ("japanese", {"stack_layout": True, "multi_play": True, "same_rank": True}),
]


@pytest.mark.parametrize(("rules", "options"), ALL_RULES)
def test_every_observation_carries_its_rules(rules, options):
    from speed_env.observation import RULES_TAG, layout_for_dim, rules_tag

    env = speed_env.BatchEnv(8, rules, **options)
    obs, _ = env.reset(seed=2)
    lay = layout_for_dim(obs.shape[2])
    assert lay == speed_env.observation_layout(env.rules)
    np.testing.assert_array_equal(
        obs[:, :, lay["rules"]], np.broadcast_to(rules_tag(env.rules), (2, 8, len(RULES_TAG)))
    )
    tag = dict(zip(RULES_TAG, rules_tag(env.rules), strict=True))
    assert tag[rules] == 1 and sum(tag[p] for p in speed_env.PRESETS) == 1
    assert all(tag[k] == v for k, v in options.items() if isinstance(v, bool))
    assert tag["lock"] == (options.get("reserve_rule") == "lock")
    for _ in range(50):  # restarts and every step keep it
        np.testing.assert_array_equal(
            obs[..., lay["rules"]], np.broadcast_to(rules_tag(env.rules), (2, 8, 10))
        )
        obs, *_ = env.step(np.zeros((2, 8), np.int64))


def test_fields_appended_later_left_every_earlier_slice_where_it_was():
    """The bundled model's manifest holds the layout from before ``rules`` and sampler fields."""
    import json

    from agents.model_io.kit_model import BUNDLED

    old = json.loads(BUNDLED.read_text(encoding="utf-8"))["observation"]["layout"]
    now = speed_env.observation_layout(speed_env.make_rules("us"))
    assert [[name, s.start, s.stop] for name, s in now.items()][: len(old)] == old
    assert list(now)[len(old) :] == [
        "rules",
        "my_colour_unseen",
        "opp_stacked",
        "side_known",
        "idle_rebuilds",
        "since_placed",
    ]


@pytest.mark.parametrize(("rules", "options"), ALL_RULES)
def test_one_chain_bot_plays_every_rules_as_the_bot_built_for_them(rules, options):
    env = speed_env.BatchEnv(64, rules, **options)
    built_for, built_for_us = (
        agents.make("chain", env.rules, seed=4),
        agents.make("chain", "us", seed=4),
    )
    obs, mask = env.reset(seed=6)
    for _ in range(150):
        actions = [built_for.act(obs[p], mask[p]) for p in range(2)]
        for p in range(2):
            np.testing.assert_array_equal(
                built_for_us.scores(obs[p], mask.shape[2]), built_for.scores(obs[p], mask.shape[2])
            )
            np.testing.assert_array_equal(built_for_us.act(obs[p], mask[p]), actions[p])
        obs, mask, *_ = env.step(np.stack(actions))


def test_chain_refuses_an_observation_of_no_known_layout():
    bot = agents.make("chain", "japanese")
    with pytest.raises(
        ValueError, match="an observation of 128 floats is not one of this speed_env"
    ):
        bot.act(np.zeros((1, 128), np.float32), np.ones((1, 27), np.int8))


def test_the_bundled_model_reads_the_observation_it_was_trained_on():
    """Trained on the 128-float layout: it is fed the first 128 floats, unchanged, and plays
    exactly as its network does on them; it refuses rules it was not trained on."""
    from agents.model_io.kit_model import BUNDLED, read_model
    from agents.model_io.mlp import MLPPolicy
    from agents.model_io.tensor_file import ModelFormatError

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
    with pytest.raises(
        ModelFormatError, match="trained on japanese and us and cannot play an observation of pagat"
    ):
        agents.make("trained", "us").act(obs[0], mask[0])
    with pytest.raises(ModelFormatError, match="trained on japanese and us, not on pagat"):
        agents.make("trained", "pagat")


def test_a_learned_agent_runs_its_network_only_on_rows_with_a_choice():
    """A row with one legal action (wait) plays it without the network; a row with a choice
    plays the argmax (or, with ``sample``, the Gumbel draw) of its masked logits, as when every
    row went through the network; the sampling stream draws for every row either way."""
    from agents.model_io.kit_model import BUNDLED, read_model
    from agents.model_io.mlp import MLPPolicy

    tensors, manifest, _ = read_model(BUNDLED)
    env = speed_env.BatchEnv(256, "japanese")
    obs, mask = env.reset(seed=4)
    for _ in range(30):  # into the game: some rows choose, most can only wait
        obs, mask, *_ = env.step(np.zeros((2, 256), np.int64))
    obs, mask = obs[0][:, :128], mask[0]
    choice = (mask > 0).sum(axis=1) >= 2
    assert 0 < choice.sum() < 256
    for sample in (False, True):
        policy = MLPPolicy(tensors, manifest["net"]["activation"], sample=sample, seed=3)
        seen: list[int] = []
        full = policy._logits

        def counted(x, seen=seen, full=full):
            seen.append(len(x))
            return full(x)

        policy._logits = counted  # type: ignore[method-assign]
        actions = policy.act(obs, mask)
        assert seen == [int(choice.sum())]  # only the rows with a choice reached the network
        assert (actions[~choice] == 0).all()  # 0 is wait
        z = full(obs)  # every row, as before
        if sample:
            u = np.random.default_rng(3).random(z.shape, dtype=np.float32)
            z = z - np.log(-np.log(u + 1e-12) + 1e-12)
        z = np.where(mask > 0, z, -np.inf)
        top2 = np.sort(z[choice], axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 1e-4  # a near-tie may differ by BLAS rounding
        assert clear.mean() > 0.9
        np.testing.assert_array_equal(actions[choice][clear], z.argmax(axis=1)[choice][clear])


def _bundle_for(folder, name, rules_list):
    """A bundled model in ``folder`` with the real one's network, its manifest saying it was
    trained on ``rules_list`` (so the picker has something else to pick)."""
    import hashlib
    import json

    from agents.model_io.kit_model import BUNDLED, read_model
    from agents.model_io.tensor_file import write_safetensors

    tensors, manifest, _ = read_model(BUNDLED)
    folder.mkdir(exist_ok=True)
    blob = write_safetensors(folder / f"{name}.safetensors", tensors, {"format": "speed-rl-policy"})
    trained = [speed_env.make_rules(r).to_dict() for r in rules_list]
    manifest = {
        **manifest,
        "weights": f"{name}.safetensors",
        "rules": trained[0],
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        "trained_rules": trained,
    }
    (folder / f"{name}.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder / f"{name}.json"


def test_trained_picks_the_bundled_model_made_for_the_rules(tmp_path, monkeypatch):
    from agents.model_io import kit_model, learned, tensor_file

    models = tmp_path / "models"
    default = _bundle_for(models, "trained", ["japanese", "us"])
    other = _bundle_for(models, "pagat_model", ["pagat"])
    monkeypatch.setattr(kit_model, "BUNDLED", default)
    assert learned.bundled_models() == [default, other]
    assert agents.make("trained", "us").source == str(default)
    assert agents.make("trained", "japanese").source == str(default)
    picked = agents.make("trained", "pagat")
    assert picked.source == str(other)
    env = speed_env.BatchEnv(32, "pagat")
    obs, mask = env.reset(seed=1)
    assert (np.take_along_axis(mask[0], picked.act(obs[0], mask[0])[:, None], axis=1) == 1).all()
    with pytest.raises(
        tensor_file.ModelFormatError,
        match=r"no bundled model .* plays us \(same_rank\): trained\.json was "
        r"trained on japanese and us, not on us \(same_rank\); "
        r"pagat_model\.json was trained on pagat, not on",
    ):
        agents.make("trained", speed_env.make_rules("us", same_rank=True))


def _japanese_deal(hands, centre, jokers=False):
    """A japanese deal with these layouts and centre tops; every other card in a stock."""
    used = {*hands[0], *hands[1], *centre}
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    black = [f"{r}{s}" for s in "SC" for r in ranks if f"{r}{s}" not in used]
    red = [f"{r}{s}" for s in "HD" for r in ranks if f"{r}{s}" not in used]
    if jokers:
        black += [j for j in ("BJ",) if j not in used]
        red += [j for j in ("RJ",) if j not in used]
    return {"hands": hands, "centre": centre, "draw_piles": [black, red]}


def _first_choice(rules, deal, spec="chain"):
    env = speed_env.parallel_env(rules)
    obs, _ = env.reset(seed=0, options={"deal": deal})
    bot = agents.make(spec, rules, seed=0)
    seat = obs["player_0"]
    return int(bot.act(seat["observation"][None], seat["action_mask"][None])[0])


def test_chain_plays_a_pair_together():
    # Multi-play: two 5s on a 4 go down in one move (both refill from the stock at once).
    rules = speed_env.make_rules("japanese", multi_play=True)
    deal = _japanese_deal([["5S", "9S", "5C", "QS"], ["KH", "KD", "JH", "JD"]], ["4C", "9H"])
    assert _first_choice(rules, deal) == 1 + 2 * 13 + 2 * 4 + 0  # multi-play, rank index 4, pile 0


def test_chain_blocks_the_pile_the_opponent_can_play_on_with_its_joker():
    # Only the joker is playable; the opponent holds a 10 and an 8 for the 9 on pile 0 and
    # nothing for the queen on pile 1: the joker goes on pile 0, where only I may follow it.
    rules = speed_env.make_rules("japanese", jokers=True)
    layouts = [["RJ", "2S", "2C", "7S"], ["10H", "8D", "5H", "4D"]]
    deal = _japanese_deal(layouts, ["9H", "QD"], jokers=True)
    assert _first_choice(rules, deal) == 1 + 2 * 13 + 0
