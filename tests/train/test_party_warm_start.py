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
    assert not np.array_equal(trained["pi.0.weight"], source["pi.0.weight"])  # then it trained
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
