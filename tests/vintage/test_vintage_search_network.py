"""vintage-search with a network inside: rollouts played by a policy network (every seat, or
the searcher's own), the network as the prior, rollouts cut short and scored by a value
network; and the value network's fit. The search still sees only its seat's observation."""

from __future__ import annotations

import numpy as np
import pytest
from test_vintage_search import decisions, permute_hidden_cards

import agents
from agents import AgentSpecError
from agents.model_io.mlp import MLPPolicy
from agents.model_io.tensor_file import ModelFormatError, write_safetensors
from agents.vintage.search import SearchSettings, VintageSearch
from agents.vintage.value import ValueNet, load_value, save_value
from speed_env.vintage import ObservationLayout, default_pack
from speed_env.vintage.actions import Actions
from speed_env.vintage.engine import apply, legal_actions
from speed_env.vintage.worlds import copy_game, sample_world

PACK = default_pack()
WIDTH = ObservationLayout(PACK).size
N_ACTIONS = Actions(PACK).n


def bias_network(seed: int = 0) -> tuple[MLPPolicy, np.ndarray]:
    """A network whose choice is a fixed ranking of the actions (its weights are zero): easy
    to replay by hand."""
    bias = np.random.default_rng(seed).permutation(N_ACTIONS).astype(np.float32)
    tensors = {
        "pi.0.weight": np.zeros((8, WIDTH), np.float32),
        "pi.0.bias": np.zeros(8, np.float32),
        "logits.weight": np.zeros((N_ACTIONS, 8), np.float32),
        "logits.bias": bias,
    }
    return MLPPolicy(tensors, "tanh"), bias


def constant_value(share: float) -> ValueNet:
    """A value network that says ``share`` of every observation."""
    logit = float(np.log(share / (1 - share)))
    return ValueNet(
        {
            "v.0.weight": np.zeros((4, WIDTH), np.float32),
            "v.0.bias": np.zeros(4, np.float32),
            "out.weight": np.zeros((1, 4), np.float32),
            "out.bias": np.array([logit], np.float32),
        }
    )


@pytest.mark.parametrize("own_only", [False, True])
def test_network_rollouts_play_the_networks_choice_at_its_seats_and_greedy_at_the_others(
    own_only: bool,
) -> None:
    net, bias = bias_network()
    settings = (
        SearchSettings(worlds=2, rollout="greedy", own="network")
        if own_only
        else (SearchSettings(worlds=2, rollout="network"))
    )
    search = VintageSearch(settings, network=net)
    for _env, obs, _mask in decisions(4, range(2), every=7):
        world = sample_world(obs, np.random.default_rng(1))
        played, replayed = copy_game(world), copy_game(world)
        search.rng = np.random.default_rng(5)
        search._play_out([played])
        rng = np.random.default_rng(5)
        while not replayed.over:
            legal = legal_actions(replayed)
            if len(legal) > 1 and (replayed.current == 0 or not own_only):
                action = max(legal, key=lambda a: bias[a])
            else:
                action = legal[0] if len(legal) == 1 else search._greedy(replayed, legal)
            apply(replayed, action, rng)
        assert played.hands == replayed.hands and played.winner == replayed.winner


def test_a_search_with_network_rollouts_sees_only_its_seats_view_and_repeats_for_one_seed() -> None:
    net, _ = bias_network(3)
    settings = SearchSettings(worlds=3, rollout="network", prior="network", z=0.0)
    rng = np.random.default_rng(2)
    compared = 0
    for env, obs, mask in decisions(4, range(3)):
        if mask.sum() < 2:
            continue
        first = VintageSearch(settings, seed=7, network=net).evaluate(obs, mask)
        permute_hidden_cards(env.game, rng, env.game.current)
        view = env.observe(env.agent_selection)
        second = VintageSearch(settings, seed=7, network=net).evaluate(
            view["observation"], view["action_mask"]
        )
        assert first.choice == second.choice and np.array_equal(first.means, second.means)
        assert first.default == int(net.act(obs[None], mask[None])[0])  # the network's prior
        compared += 1
    assert compared >= 5


def test_a_rollout_cut_short_is_worth_what_the_value_network_says() -> None:
    search = VintageSearch(SearchSettings(worlds=3, leaf=1, value="v"), value=constant_value(0.3))
    checked = 0
    for _env, obs, mask in decisions(4, range(2), every=5):
        found = search.evaluate(obs, mask)
        if len(found.legal) < 2:
            continue
        world = sample_world(obs, np.random.default_rng(0))
        scores = search.world_scores([world], found.legal)
        for action, score in zip(found.legal, scores[0], strict=True):
            after = copy_game(world)
            apply(after, action, np.random.default_rng(0))
            legal = legal_actions(after)
            if not after.over and not (len(legal) == 1 and _ends(after, legal[0])):
                assert score == pytest.approx(0.3, abs=1e-6)  # cut one action later: the value
                checked += 1
    assert checked >= 10


def _ends(game, action) -> bool:
    after = copy_game(game)
    apply(after, action, np.random.default_rng(0))
    return after.over


def test_spec_options_of_the_network_and_the_value_are_checked_by_name(tmp_path) -> None:
    bot = agents.make("vintage-search:rollout=greedy+own=network+prior=network@4")
    assert isinstance(bot, VintageSearch)
    assert bot.settings == SearchSettings(worlds=4, own="network", prior="network")
    assert bot.network is not None and bot.prior is bot.network  # the bundled vintage-expert
    path = save_value(tmp_path / "v.safetensors", constant_value(0.6))
    cut = agents.make(f"vintage-search:leaf=4+value={path}@2")
    assert isinstance(cut, VintageSearch) and cut.settings.leaf == 4
    with pytest.raises(ValueError, match="net=PATH"):
        VintageSearch(SearchSettings(rollout="network"))  # no network given, none named
    for bad, what in [
        ("vintage-search:own=mcts", "own"),
        ("vintage-search:prior=oracle", "prior"),
        ("vintage-search:leaf=3", "value"),
        (f"vintage-search:leaf=3+value={path}+score=reward", "score=ahead"),
        ("vintage-search:leaf=x", "leaf"),
        ("vintage-search:rollout=network+net=nowhere.json", "nowhere"),
        (f"vintage-search:leaf=2+value={tmp_path / 'none'}", "none"),
        # an option that nothing reads is refused, not ignored
        (f"vintage-search:value={path}", "read only with leaf"),
        ("vintage-search:rollout=tactician+net=some.json", "read only when rollout, own or prior"),
    ]:
        with pytest.raises((AgentSpecError, ModelFormatError, ValueError), match=what):
            agents.make(bad)


def test_a_value_network_file_round_trips_and_a_foreign_one_is_refused(tmp_path) -> None:
    net = constant_value(0.25)
    path = save_value(tmp_path / "v.safetensors", net)
    back = load_value(path)
    obs = np.zeros((3, WIDTH), np.float32)
    assert np.allclose(back(obs), 0.25)
    (tmp_path / "junk.safetensors").write_bytes(b"not a file at all")
    with pytest.raises(ModelFormatError, match="junk"):
        load_value(tmp_path / "junk.safetensors")
    with pytest.raises(ValueError, match="reads"):
        back(np.zeros((2, 5), np.float32))
    tensors = net.tensors()
    for name, broken in [
        ("v.0.bias", {k: v for k, v in tensors.items() if k != "v.0.bias"}),
        ("out.weight", {k: v for k, v in tensors.items() if k != "out.weight"}),
        ("v.0.bias", {**tensors, "v.0.bias": np.zeros(3, np.float32)}),
    ]:
        broken_file = tmp_path / "broken.safetensors"
        write_safetensors(broken_file, broken, {"format": "vintage-value/1"})
        with pytest.raises(ModelFormatError, match=rf"broken\.safetensors.*{name}"):
            load_value(broken_file)


def test_a_value_fit_on_bot_games_predicts_better_than_the_mean(tmp_path) -> None:
    from agents.vintage.value import ahead_share
    from train.vintage_value import ValueConfig, fit_value

    assert ahead_share([3, 10, 3, 0], 0) == pytest.approx((1 + 0.5 + 0) / 3)
    cfg = ValueConfig(games=300, epochs=6, seed=1, out=str(tmp_path / "v.safetensors"))
    measured = fit_value(cfg)
    assert measured["observations"] > 1000 and measured["held_out"] > 0
    # The hand in view says much about the end: the fit explains some of the variance.
    assert measured["held_out_mse"] < measured["constant_mse"]
    value = load_value(cfg.out)
    assert value.training["held_out_mse"] == measured["held_out_mse"]
    for _env, obs, _mask in decisions(4, range(1), every=4):
        assert 0.0 < float(value(obs[None])[0]) < 1.0
    for bad, what in [
        ({"keep": 0.0}, "keep"),
        ({"games": 1}, "games must be a whole number, at least 2"),
        ({"learning_rate": -1e-3}, "learning_rate"),
        ({"torch_threads": 0}, "torch_threads"),
        ({"seed": -1}, "seed"),
    ]:
        with pytest.raises(ValueError, match=what):
            fit_value(ValueConfig(**bad, out=str(tmp_path / "w.safetensors")))
    assert not (tmp_path / "w.safetensors").exists()
