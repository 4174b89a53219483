"""One agent registry per game: a spec builds its own game's bot, never the other game's rules."""

from __future__ import annotations

import pytest

import agents
import agents.games.realtime
from agents.vintage import registry
from agents.vintage.bots import VintageRandom
from speed_env.policy import RandomPolicy


def test_each_game_lists_only_its_own_agents():
    realtime, vintage = set(agents.available()), set(registry.available())
    assert {"random", "greedy", "chain", "search", "ppo", "trained"} <= realtime
    assert {"vintage-random", "vintage-greedy", "vintage-tactician", "vintage-search"} <= vintage
    assert {"vintage-ppo"} <= vintage and not realtime & vintage


def test_a_vintage_bot_is_built_without_real_time_rules(monkeypatch):
    def no_rules(*args, **kwargs):
        raise AssertionError("a vintage bot built real-time rules")

    monkeypatch.setattr(agents.games.realtime, "make_rules", no_rules)
    for spec in ("vintage-greedy", "vintage-tactician", "vintage-random", "vintage-search@2"):
        assert agents.make(spec, seed=0).spec == spec
        assert registry.make(spec, seed=0).spec == spec


def test_a_bot_of_one_game_is_refused_by_the_other_naming_it():
    with pytest.raises(agents.AgentSpecError, match="'vintage-greedy' plays Vintage Speed"):
        agents.make("vintage-greedy", "us")
    with pytest.raises(agents.AgentSpecError, match=r"unknown agent 'greedy'.*Vintage Speed"):
        registry.make("greedy")


def test_an_unknown_keyword_is_an_error_naming_it():
    with pytest.raises(TypeError, match="'rulez'"):
        agents.make("greedy", seed=0, rulez="us")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'rules'"):
        registry.make("vintage-greedy", rules="us")  # type: ignore[call-arg]


def test_one_uniform_random_player_serves_both_games():
    assert type(agents.make("random", seed=3)) is RandomPolicy
    vintage = agents.make("vintage-random", seed=3)
    assert isinstance(vintage, VintageRandom) and isinstance(vintage, RandomPolicy)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "search:worlds=many",
            "bad search spec 'worlds=many': search setting worlds='many' is not",
        ),
        (
            "vintage-search:score=best@4",
            "bad vintage-search spec 'score=best@4': score must be one of reward, ahead",
        ),
        ("vintage-search@x", "bad vintage-search spec '@x': worlds per decision must be a whole"),
        ("vintage-ismcts:uct_c=-1", "bad vintage-ismcts spec 'uct_c=-1': uct_c must be a finite"),
    ],
)
def test_a_bad_settings_argument_is_refused_naming_the_kind_and_the_argument(spec, message):
    # Both games' builders refuse through one spec_settings: the kind, the argument, the reason.
    with pytest.raises(agents.AgentSpecError) as info:
        agents.make(spec, seed=0)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("chain,search:worlds=4,depth=10", ["chain", "search:worlds=4,depth=10"]),
        (
            "search:worlds=4, depth=10*0.5, greedy@pro,",
            ["search:worlds=4,depth=10*0.5", "greedy@pro"],
        ),
        ("chain:run=1,flying=0@pro,random", ["chain:run=1,flying=0@pro", "random"]),
        ("chain,run=1", ["chain", "run=1"]),  # an option after a spec without one: refused later
    ],
)
def test_a_list_of_specs_keeps_each_specs_options(text, specs):
    from agents.specs.registry import split_specs

    assert split_specs(text) == specs


def test_tournament_agents_with_options_are_seated_whole(tmp_path, capsys):
    from speed_cli import main

    argv = ["tournament", "--agents", "chain,search:worlds=2,depth=5", "--games", "2"]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "t")]) == 0
    assert "search:worlds=2,depth=5" in capsys.readouterr().out
