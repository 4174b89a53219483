"""Warm starts of `speed train realtime --players 3|4`: ``--init-from`` a saved n-seat model."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.model_io import kit_model
from speed_cli import main as cli
from train.ppo import Config, check_config

TINY = [
    *("--timesteps", "512", "--n-envs", "16", "--n-steps", "32", "--batch-size", "256"),
    *("--n-epochs", "1", "--net-arch", "16", "--eval-every", "512", "--eval-games", "6"),
    *("--eval-opponents", "greedy", "--opponent", "greedy", "--no-progress"),
]
"""A run of one rollout and one evaluation of two deals at each of three seats."""


@pytest.fixture(scope="module")
def three_seat_model(tmp_path_factory):
    """The model of a tiny 3-seat run."""
    out = tmp_path_factory.mktemp("party_init") / "source"
    assert cli(["train", "realtime", "--players", "3", *TINY, "--out", str(out)]) == 0
    return out / "model.json"


def test_init_from_starts_the_network_from_the_saved_weights(three_seat_model, tmp_path, capsys):
    out = tmp_path / "warm"
    argv = ["train", "realtime", "--players", "3", *TINY, "--seed", "9", "--out", str(out)]
    assert cli([*argv, "--init-from", str(three_seat_model)]) == 0
    assert f"started from {three_seat_model}" in "".join(capsys.readouterr())
    source = kit_model.read_model(three_seat_model)[0]
    # The checkpoint at 0 timesteps: the network before any update (its curve's first point).
    start = kit_model.read_model(out / "checkpoints" / "step_000000000.json")[0]
    assert source.keys() == start.keys()
    assert all(np.array_equal(source[k], start[k]) for k in source)
    trained = kit_model.read_model(out / "model.json")[0]
    assert not np.array_equal(trained["act.0.weight"], source["act.0.weight"])  # then it trained
    rows = (out / "eval.csv").read_text().splitlines()[1:]
    assert [r.split(",")[0] for r in rows] == ["0", "512"]
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["training"]["init_from"] == str(three_seat_model)


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        ({"players": 4}, r"init_from: .* trained at tables of 3 players, not 4"),
        ({"players": 3, "net_arch": "32"}, r"init_from: .* layers \[16\]; this run's .* \[32\]"),
        ({"players": 3, "rules": "pagat"}, r"init_from: .* was trained on "),
        ({"players": 3, "policy": "mlp"}, r"init_from: .* is a rankwise .* this run's is a mlp"),
    ],
)
def test_a_start_model_of_other_seats_rules_or_network_is_refused_by_name(
    three_seat_model, flags, named
):
    cfg = Config(
        **{"opponent": "greedy", "net_arch": "16", "init_from": str(three_seat_model), **flags}
    )
    with pytest.raises(ValueError, match=named):
        check_config(cfg)


def test_init_from_a_file_that_is_not_there_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "never"
    argv = ["train", "realtime", "--players", "4", *TINY, "--out", str(out)]
    assert cli([*argv, "--init-from", str(tmp_path / "nope.json")]) != 0
    assert not out.exists()


def held_out_states(rules, decisions: int, seed: int):
    """Party states ``chain`` reaches in the learner's seat against greedy, with ``chain``'s best
    plays (its tied best set) and the legal ones: the choices only (two or more legal)."""
    import agents
    from train.bc import best_actions
    from train.vec_env.party_env import PartyVecEnv

    env = PartyVecEnv(32, rules, opponent="greedy", seed=seed)
    teacher = agents.make("chain", rules, seed=seed)
    obs, rows = env.reset(), []
    for _ in range(decisions // 32):
        mask = env.action_masks()
        acts = teacher.act(obs, mask)
        rows.append((obs, mask, best_actions(teacher, obs, mask, acts)))
        obs, *_ = env.step(acts)
    obs, mask, best = (np.concatenate(x) for x in zip(*rows, strict=True))
    choice = mask.sum(axis=1) >= 2
    return obs[choice], mask[choice], best[choice]


def test_init_bc_chain_clones_chain_at_four_seats_far_above_chance(tmp_path, capsys):
    from speed_env.rules import make_rules

    out = tmp_path / "bc"
    argv = ["train", "realtime", "--players", "4", *TINY, "--net-arch", "64,64", "--out", str(out)]
    # The MLP: the rankwise clone is run by test_party_train (its cost per decision is higher).
    bc = ["--policy", "mlp", "--init-bc", "chain", "--bc-decisions", "24000", "--bc-epochs", "8"]
    assert cli([*argv, *bc]) == 0
    assert "cloned chain: held-out agreement" in "".join(capsys.readouterr())
    state = json.loads((out / "state.json").read_text())
    assert state["bc"]["teacher"] == "chain" and state["bc"]["recorded_decisions"] > 5000
    rules = make_rules("us", players=4)
    # The clone before PPO (the checkpoint at 0 timesteps), on states of other deals.
    clone = kit_model.load_policy(out / "checkpoints" / "step_000000000.json", rules)
    obs, mask, best = held_out_states(rules, 3200, seed=777)
    pred = clone.act(obs, mask)
    agreement = float(best[np.arange(len(pred)), pred].mean())
    chance = float(np.mean(best.sum(axis=1) / mask.sum(axis=1)))  # a legal action at random
    assert len(pred) > 1000
    assert agreement > chance + 0.3 and agreement > 0.7, (agreement, chance)


def test_a_clone_recording_that_finishes_no_game_is_refused_naming_the_flag(tmp_path, capsys):
    # 16 games at once for 4 steps each: no game of four ends, so nothing has a known return.
    argv = ["train", "realtime", "--players", "4", *TINY, "--out", str(tmp_path / "bc")]
    assert cli([*argv, "--init-bc", "chain", "--bc-decisions", "64"]) != 0
    err = capsys.readouterr().err
    assert "bc_decisions: 64 decisions over 16 games at once (4 steps each) finished no game" in err
    assert "--bc-decisions" in err and "Traceback" not in err
