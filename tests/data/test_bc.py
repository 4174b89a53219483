"""``speed train bc``: recorded plays cloned into a kit model that plays as ``ppo:M/model.json``,
its held-out agreement above chance (the scripted person) and near its teacher (chain)."""

from __future__ import annotations

import json

import pytest

import agents
import speed_cli
from speed_env.rules import make_rules
from speed_env.single import SpeedGymEnv

pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")


@pytest.mark.slow
def test_a_clone_of_the_scripted_person_agrees_above_chance_and_plays(person_games, tmp_path):
    folder, _ = person_games
    out = tmp_path / "me"
    assert speed_cli.main(["train", "bc", "--data", str(folder), "--out", str(out)]) == 0
    stats = json.loads((out / "bc.json").read_text(encoding="utf-8"))
    assert stats["held_out_plays"] >= 20
    assert stats["held_out_agreement"] > stats["chance_agreement"]
    bot = agents.make(f"ppo:{out / 'model.json'}", make_rules("us"), seed=0)
    env = SpeedGymEnv("us", opponent=agents.make("greedy", make_rules("us"), seed=0))
    obs, info = env.reset(seed=1)
    for _ in range(100):
        action = int(bot.act(obs[None], info["action_mask"][None])[0])
        assert info["action_mask"][action] == 1
        obs, _, term, trunc, info = env.step(action)
        if term or trunc:
            break
    tour = ["tournament", "--agents", f"ppo:{out / 'model.json'},greedy", "--games", "4",
            "--workers", "1", "--out", str(tmp_path / "t")]  # fmt: skip
    assert speed_cli.main(tour) == 0


def test_a_clone_of_chain_from_a_minari_dataset_agrees_with_chain(tmp_path, monkeypatch, capsys):
    pytest.importorskip("minari", reason="the [data] extra is not installed")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    gen = ["data", "generate", "--agents", "chain,greedy", "--games", "40", "--minari",
           "speed/chain-v0"]  # fmt: skip
    assert speed_cli.main(gen) == 0
    out = tmp_path / "clone"
    argv = ["train", "bc", "--data", "speed/chain-v0", "--out", str(out)]
    assert speed_cli.main(argv) == 0
    stats = json.loads((out / "bc.json").read_text(encoding="utf-8"))
    assert stats["data"] == "Minari dataset speed/chain-v0"
    # chain's own choices agree with themselves except its random tie-breaks.
    assert stats["chain_agreement"] > 0.85
    assert stats["held_out_agreement"] > stats["chance_agreement"]
    assert "held-out agreement" in capsys.readouterr().out
    manifest = json.loads((out / "model.json").read_text(encoding="utf-8"))
    assert manifest["training"]["recipe"] == "bc_data"


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--data", "no/such-v0", "--out", "x"], "neither a records folder nor"),
        (["--data", ".", "--out", "x", "--holdout", "1.5"], "--holdout"),
    ],
)
def test_bad_input_is_one_line(argv, fragment, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    try:
        code = speed_cli.main(["train", "bc", *argv])
    except SystemExit as done:  # a flag's bad value: refused by argparse, as speed train's are
        code = done.code
    assert code == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err
    assert err.startswith("speed train bc: error: ")  # the command named as argparse names it
