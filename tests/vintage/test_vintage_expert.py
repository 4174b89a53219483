"""Vintage expert iteration: search targets are a pure function of the seed (the same file for
any number of workers), they say what the search saw, and a tiny run writes a model that loads
and plays."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from agents.model_io.tensor_file import ModelFormatError
from agents.tournament.vintage import VintageSettings, run
from agents.vintage import registry
from agents.vintage.search import SearchSettings, VintageSearch
from train.vintage.expert_targets import (
    TargetSettings,
    distribution,
    generate,
    read_targets,
    write_targets,
)

pytest.importorskip("sb3_contrib")

SMALL = TargetSettings(games=6, chunk_games=2, worlds=4, seed=3)


def write(tmp_path, name, settings=SMALL, workers=1):
    targets, complete = generate(settings, workers=workers)
    assert complete
    return write_targets(tmp_path / name / "targets.safetensors", targets, settings)


@pytest.fixture(scope="module")
def small_file(tmp_path_factory):
    """The target file of SMALL, written once for the tests that read it."""
    return write(tmp_path_factory.mktemp("targets"), "small")


def test_the_same_seed_writes_the_same_target_file_for_any_number_of_workers(tmp_path, small_file):
    one = small_file
    two = write(tmp_path, "two", workers=2)
    assert one.read_bytes() == two.read_bytes()
    other = write(tmp_path, "other", TargetSettings(games=6, chunk_games=2, worlds=4, seed=4))
    assert other.read_bytes() != one.read_bytes(), "another seed plays other games"


def test_targets_record_the_search_at_the_learners_choice_decisions(small_file):
    targets, settings = read_targets(small_file)
    assert settings["worlds"] == 4 and settings["games"] == 6
    assert len(targets) > 0 and set(np.unique(targets.game)) <= set(range(6))
    rows = np.arange(len(targets))
    # Only decisions with a choice; values exactly on the legal actions; both actions legal.
    assert (targets.mask.sum(axis=1) >= 2).all()
    assert (np.isnan(targets.values) == (targets.mask == 0)).all()
    assert (targets.mask[rows, targets.choice] == 1).all()
    assert (targets.mask[rows, targets.prior] == 1).all()
    # The values are shares of the other seats finished ahead of.
    legal = targets.values[targets.mask > 0]
    assert ((legal >= 0) & (legal <= 1)).all()
    # Rows that differ from the prior chose an action of best value.
    moved = targets.choice != targets.prior
    best = np.nanmax(targets.values, axis=1)
    assert (targets.values[rows, targets.choice][moved] == best[moved]).all()
    # Every row of one game carries that game's reward.
    for g in np.unique(targets.game):
        assert len(set(targets.ret[targets.game == g].tolist())) == 1


def test_target_distributions_put_mass_on_legal_actions_only(small_file):
    targets, _ = read_targets(small_file)
    for kind in ("choice", "soft"):
        dist = distribution(targets, kind)
        assert np.allclose(dist.sum(axis=1), 1.0)
        assert (dist[targets.mask == 0] == 0).all()
    one_hot = distribution(targets, "choice")
    assert (one_hot.argmax(axis=1) == targets.choice).all()
    soft = distribution(targets, "soft")
    assert (soft.argmax(axis=1) == np.nanargmax(targets.values, axis=1)).all()


def test_the_search_keeps_the_prior_it_is_given_unless_beaten(small_file):
    class First:
        """Always the first legal action."""

        def act(self, obs, mask):
            return np.asarray(mask).argmax(axis=1)

    search = VintageSearch(SearchSettings(worlds=4, z=1e9), seed=0, prior=First())
    targets, _ = read_targets(small_file)
    for obs, mask in zip(targets.obs, targets.mask, strict=True):
        found = search.evaluate(obs, mask)
        assert found.default == found.choice == int(np.flatnonzero(mask)[0])


def test_bad_settings_and_files_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="acting must be"):
        TargetSettings(acting="oracle")
    with pytest.raises(ValueError, match="is no Vintage Speed agent"):
        TargetSettings(opponents=("chain",))
    with pytest.raises(ValueError, match="needs one"):
        generate(TargetSettings(games=1, acting="network"))
    for part in ({"rollout": "network"}, {"own": "network"}):
        with pytest.raises(ValueError, match="rollouts are the network needs one"):
            generate(TargetSettings(games=1, **part))
    bogus = tmp_path / "bogus.safetensors"
    bogus.write_bytes(b"not a file of targets")
    with pytest.raises(ModelFormatError, match=r"bogus\.safetensors"):
        read_targets(bogus)


def test_network_rollouts_and_cut_rollouts_write_the_same_targets_for_any_number_of_workers(
    tmp_path,
):
    # The round's network plays the rollouts; the value network scores rollouts cut 3 in.
    from agents.vintage.value import ValueNet, save_value

    expert = registry.make("vintage-expert")
    network = (_tensors(expert), expert.activation)
    zero = {"v.0.weight": np.zeros((2, 174), np.float32), "v.0.bias": np.zeros(2, np.float32)}
    value = ValueNet({**zero, "out.weight": np.ones((1, 2), np.float32), "out.bias": np.ones(1)})
    path = save_value(tmp_path / "v.safetensors", value)
    settings = replace(SMALL, games=4, worlds=2, rollout="network", leaf=3, value=str(path))
    one, _ = generate(settings, network, workers=1)
    two, _ = generate(settings, network, workers=2)
    assert all(
        np.array_equal(a, b, equal_nan=True)
        for a, b in zip(one.arrays().values(), two.arrays().values(), strict=True)
    )
    plain, _ = generate(replace(settings, rollout="greedy", leaf=0, value=""), network)
    assert not np.array_equal(one.values, plain.values, equal_nan=True)


def _tensors(policy):
    """The kit tensors of a loaded vintage model (``pi.*``, ``logits.*``)."""
    out = {f"pi.{k}.weight": w.T for k, (w, _) in enumerate(policy.layers)}
    out |= {f"pi.{k}.bias": b for k, (_, b) in enumerate(policy.layers)}
    return out | {"logits.weight": policy.head[0].T, "logits.bias": policy.head[1]}


def test_a_confirmed_search_writes_fewer_overrides_of_its_prior():
    # confirm: a second search must repeat every choice that leaves the tactician's.
    noisy = TargetSettings(games=12, chunk_games=12, worlds=3, z=0.0, seed=3)
    left = [
        float((t.choice != t.prior).mean())
        for t, _ in (generate(noisy), generate(replace(noisy, confirm=3)))
    ]
    assert 0 < left[1] < left[0]
    with pytest.raises(ValueError, match="confirm"):
        TargetSettings(confirm=-1)


@pytest.mark.slow
def test_a_tiny_expert_iteration_run_writes_a_model_that_loads_and_plays(tmp_path, capsys):
    from speed_cli import main as cli

    def main(argv):
        return cli(["train-expert", "--game", "vintage", *argv])

    out = tmp_path / "run"
    argv = ["--rounds", "2", "--games", "8", "--worlds", "4", "--chunk-games", "4"]
    argv += ["--bc-decisions", "600", "--bc-epochs", "1", "--epochs", "2", "--eval-games", "8"]
    argv += ["--prior", "network", "--no-progress", "--out", str(out)]
    assert main(argv) == 0
    assert f"play it with vintage-ppo:{out / 'model.json'}" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert [r["round"] for r in summary["rounds"]] == [0, 1]
    first, second = summary["rounds"]
    assert (first["acting"], first["prior"]) == ("search", "network")
    assert (second["acting"], second["prior"]) == ("network", "network")
    for r in summary["rounds"]:
        assert (out / f"round_{r['round']}" / "targets.safetensors").exists()
        # Agreement where the search overrode its prior: a share of those held-out rows.
        share, n_left = r["agrees_where_search_left_prior"], r["held_out_search_left_prior"]
        assert (share is None) == (n_left == 0) and (share is None or 0 <= share <= 1)
        assert r["eval"][0]["opponent"] == "vintage-tactician" and r["eval"][0]["games"] == 8
    spec = f"vintage-ppo:{out / 'model.json'}"
    assert summary["play_with"] == spec
    registry.make(spec)  # loads
    settings = VintageSettings(agents=(spec, "vintage-greedy"), players=3, games=6, gauntlet=spec)
    results, complete = run(settings)
    assert complete and sum(len(r.deal) for r in results) == 6
    assert main(argv) == 2, "a finished run is not overwritten"
    assert "already holds a finished run" in capsys.readouterr().err


@pytest.mark.slow
def test_a_run_with_network_rollouts_and_cut_rollouts_fits_its_value_network_first(
    tmp_path, capsys
):
    from speed_cli import main as cli

    out = tmp_path / "run"
    argv = ["train-expert", "--rounds", "1", "--games", "4", "--worlds", "2", "--chunk-games", "4"]
    argv += ["--bc-decisions", "400", "--bc-epochs", "1", "--epochs", "1", "--eval-games", "4"]
    argv += ["--rollout", "network", "--own-rollout", "greedy", "--leaf", "6"]
    argv += ["--value-games", "40", "--no-progress", "--out", str(out)]
    assert cli(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["value"]["model"] == str(out / "value.safetensors")
    assert summary["value"]["observations"] > 100
    _, settings = read_targets(out / "round_0" / "targets.safetensors")
    assert (settings["rollout"], settings["own"], settings["leaf"]) == ("network", "greedy", 6)
    assert settings["value"] == str(out / "value.safetensors")
    # Without a network from round 0 there is none to roll out with.
    bare = ["train-expert", "--rollout", "network", "--init-bc", "", "--out", str(tmp_path / "n")]
    assert cli(bare) == 2
    assert "needs a network from round 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--target", "oracle", "target must be one of choice, soft"),
        ("--prior", "chain", "prior must be one of tactician, network"),
        ("--opponents", "chain", "is no Vintage Speed agent"),
        ("--backend", "slurm", "backend must be one of local, ray"),
        ("--init-model", "nowhere/model.json", "nowhere/model.json"),
        ("--rollout", "mcts", "rollout must be one of greedy, tactician, network"),
        ("--own-rollout", "oracle", "own_rollout must be one of greedy, tactician, network"),
        ("--value-model", "nowhere/v.safetensors", "nowhere/v.safetensors"),
        # numbers out of range: refused by the flags' types (tests/kit/test_cli_flags.py)
    ],
)
def test_bad_flags_print_one_line_naming_them(tmp_path, capsys, flag, value, message):
    from speed_cli import main as cli
    from train.vintage_expert import main

    assert main([flag, value, "--out", str(tmp_path / "x")]) == 2
    assert message in capsys.readouterr().err
    assert cli(["train-expert", flag, value, "--out", str(tmp_path / "x")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists(), "nothing is written for bad settings"


def test_value_model_and_value_games_where_nothing_reads_them_are_refused(tmp_path, capsys):
    from agents.vintage.value import ValueNet, save_value
    from train.vintage_expert import main

    zero = {"v.0.weight": np.zeros((2, 174), np.float32), "v.0.bias": np.zeros(2, np.float32)}
    value = ValueNet({**zero, "out.weight": np.ones((1, 2), np.float32), "out.bias": np.ones(1)})
    path = save_value(tmp_path / "v.safetensors", value)
    assert main(["--value-model", str(path), "--out", str(tmp_path / "x")]) == 2
    assert f"value_model {path} is read only with leaf > 0" in capsys.readouterr().err
    assert main(["--value-games", "50", "--out", str(tmp_path / "x")]) == 2
    assert "value_games is read only with leaf > 0" in capsys.readouterr().err
    argv = ["--leaf", "2", "--value-model", str(path), "--value-games", "50"]
    assert main([*argv, "--out", str(tmp_path / "x")]) == 2
    assert "value_games is read only with leaf > 0 and no value_model" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_saved_network_loads_back_into_the_learner_unchanged(tmp_path):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.model_io.kit_model import read_model
    from speed_env.vintage import make_vintage_rules
    from speed_env.vintage.single import VintageSingleEnv
    from train.common.settings import make_model
    from train.vintage_expert import ExpertConfig, ppo_config
    from train.vintage_ppo import export, load_network, observation_scale

    rules = make_vintage_rules(4, 1)
    scale = observation_scale(rules)
    env = DummyVecEnv([lambda: VintageSingleEnv(4, obs_scale=scale)])

    def model(seed):
        return make_model(ppo_config(ExpertConfig(net_arch="16,8", seed=seed)), env)

    saved = export(model(1), tmp_path / "a", scale, rules, {})
    other = model(2)
    load_network(other.policy, str(saved), scale, "tanh")
    again = export(other, tmp_path / "b", scale, rules, {})
    first, second = read_model(saved)[0], read_model(again)[0]
    assert sorted(first) == sorted(second)
    for name in first:
        assert np.allclose(first[name], second[name], atol=1e-6), name
    with pytest.raises(ModelFormatError, match="uses tanh"):
        load_network(other.policy, str(saved), scale, "relu")
    narrower = make_model(ppo_config(ExpertConfig(net_arch="12,8")), env)
    with pytest.raises(ModelFormatError, match=r"layer pi\.0"):
        load_network(narrower.policy, str(saved), scale, "tanh")


def test_the_bundled_expert_network_is_an_agent_that_plays_every_table_size():
    assert "vintage-expert" in registry.available()
    for players in (2, 4, 7):
        spec = "vintage-expert"
        settings = VintageSettings(
            agents=(spec, "vintage-tactician"), players=players, games=players, gauntlet=spec
        )
        results, complete = run(settings)
        assert complete and all(w >= -1 for r in results for w in r.winner)
    sampled = registry.make("vintage-expert:sample", seed=1)
    assert sampled.sample
