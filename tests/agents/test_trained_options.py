"""``trained`` picks the bundled model made for the rules it is given: the plain presets' clone of
``chain``, or the model distilled from ``search`` on ``japanese`` with all four options."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import speed_env
from agents.model_io.kit_model import BUNDLED
from agents.model_io.manifest import read_manifest
from agents.model_io.tensor_file import ModelFormatError

OPTIONS = {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True}
OPTIONS_MODEL = BUNDLED.parent / "japanese_options.json"


def test_the_options_model_is_bundled_for_japanese_with_all_four_options():
    manifest = read_manifest(OPTIONS_MODEL)
    assert manifest["rules"] == speed_env.make_rules("japanese", **OPTIONS).to_dict()
    assert manifest["training"]["init_bc"] == "search:wait=0"


@pytest.mark.parametrize("preset", ["japanese", "us"])
def test_the_plain_presets_still_get_the_clone_of_chain(preset):
    assert agents.make("trained", preset).source == str(BUNDLED)


def test_japanese_with_the_four_options_gets_the_options_model():
    rules = speed_env.make_rules("japanese", **OPTIONS)
    assert agents.make("trained", rules).source == str(OPTIONS_MODEL)


@pytest.mark.parametrize(
    ("preset", "options", "named"),
    [
        ("japanese", {"jokers": True}, r"japanese \(jokers\)"),
        ("japanese", {**OPTIONS, "play_out": False}, r"japanese \(jokers, stack_layout, multi"),
        ("pagat", {}, "pagat"),
    ],
)
def test_rules_no_bundled_model_was_trained_on_are_refused_naming_them_and_each_model(
    preset, options, named
):
    rules = speed_env.make_rules(preset, **options)
    with pytest.raises(ModelFormatError, match=f"no bundled model .* plays {named}") as err:
        agents.make("trained", rules)
    assert "trained.json was trained" in str(err.value)
    assert "japanese_options.json was trained" in str(err.value)


def _kind(action: int, n_ranks: int) -> str:
    """0 waits; then a play per rank and pile (the joker's last); then stacks and multi-plays."""
    if action == 0:
        return "wait"
    if action > 2 * n_ranks:
        return "stack/multi"
    return "joker" if action >= 2 * n_ranks - 1 else "play"


def test_the_options_model_plays_only_legal_moves_under_the_options():
    env = speed_env.BatchEnv(64, "japanese", **OPTIONS)
    bot = agents.make("trained", env.rules)
    chain = agents.make("chain", env.rules, seed=1)
    obs, mask = env.reset(seed=5)
    kinds = set()
    for _ in range(300):
        mine = bot.act(obs[0], mask[0])
        assert (np.take_along_axis(mask[0], mine[:, None], axis=1) == 1).all()
        kinds |= {_kind(int(a), env.rules.n_ranks) for a in mine}
        obs, mask, *_, info = env.step(np.stack([mine, chain.act(obs[1], mask[1])]))
        assert not info["illegal"].any()
    assert {"play", "joker", "stack/multi"} <= kinds
