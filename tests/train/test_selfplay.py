"""The bundled ``selfplay`` agent: learned from reward alone, plays legal moves only, refuses
other rules."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import speed_env
from agents.model_io.kit_model import BUNDLED, read_model
from agents.model_io.tensor_file import ModelFormatError

SELFPLAY = BUNDLED.parent / "selfplay" / "selfplay.json"


def test_the_selfplay_model_was_trained_from_reward_alone_in_two_stages():
    """Its manifest records PPO without behaviour cloning, warm-started only from its own first
    stage (bundled beside it, weights checked by hash), which was PPO from scratch."""
    _, manifest, _ = read_model(SELFPLAY)
    training = manifest["training"]
    assert training["init_bc"] is None
    assert training["config"]["opponent"] == "self"
    assert training["config"]["init_from"] == "agents/models/selfplay/stage1.json"
    assert training["timesteps"] > 0
    stage1 = SELFPLAY.parent / "stage1.json"
    _, first, _ = read_model(stage1)
    assert training["init_from_weights_sha256"] == first["weights_sha256"]
    assert first["training"]["init_bc"] is None
    assert first["training"]["config"]["init_from"] is None
    assert first["training"]["config"]["opponent"] == "self"
    assert first["training"]["timesteps"] > 0


def test_the_selfplay_model_is_the_rank_relative_network_played_in_numpy():
    """Its manifest names the rankwise network and its gather; it loads as the numpy
    ``RankwisePolicy`` (no torch needed to play it)."""
    from agents.model_io.rankwise import RankwisePolicy

    _, manifest, _ = read_model(SELFPLAY)
    assert manifest["net"]["kind"] == "rankwise" and manifest["net"]["features"] == 194
    assert manifest["training"]["config"]["policy"] == "rankwise"
    assert isinstance(agents.make("selfplay", "us"), RankwisePolicy)


@pytest.mark.parametrize("rules", ["japanese", "us"])
def test_selfplay_plays_only_legal_moves_on_the_rules_it_learned(rules):
    """Every action it picks is allowed by the mask, in both seats, over a stretch of play."""
    env = speed_env.BatchEnv(64, rules)
    obs, mask = env.reset(seed=3)
    bot = agents.make("selfplay", rules)
    for _ in range(60):
        actions = np.stack([np.asarray(bot.act(obs[p], mask[p])) for p in range(2)])
        for p in range(2):
            assert np.all(mask[p][np.arange(64), actions[p]] == 1)
        obs, mask, *_ = env.step(actions)


def test_selfplay_refuses_rules_it_was_not_trained_on():
    """``pagat`` is not among its training rules: refused, naming both."""
    with pytest.raises(ModelFormatError, match="not on pagat"):
        agents.make("selfplay", "pagat")


def test_the_probe_measures_the_policy_among_the_legal_plays_only():
    """Equal logits over two legal plays: entropy ln 2, top play 1/2, whatever the illegal
    actions' logits say."""
    from speed_lab.selfplay_probe import _among_plays

    logits = np.array([[9.0, 1.0, 1.0, 50.0]])
    plays = np.array([[0, 1, 1, 0]], np.int8)
    entropy, top = _among_plays(logits, plays)
    assert entropy[0] == pytest.approx(np.log(2))
    assert top[0] == pytest.approx(0.5)


def test_the_probe_reports_the_bundled_models_decisions():
    """A short probe of the bundled model: rates are fractions, the entropy among plays is at
    most the uniform policy's."""
    from speed_lab.selfplay_probe import probe

    out = probe(str(SELFPLAY), "japanese", steps=20, envs=16)
    assert out["decisions"] > 0 and out["states_with_2_plays"] > 0
    for key in ("wait_with_play", "agrees_with_chain", "greedy_agrees_with_chain"):
        assert 0.0 <= out[key] <= 1.0
    assert 0.0 <= out["entropy_among_plays"] <= out["uniform_entropy"] + 1e-9
