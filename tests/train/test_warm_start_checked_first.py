"""``speed train realtime --init-from`` at two seats: the model is checked before any work."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from speed_cli import main as cli
from train.ppo import Config, check_config

BUNDLED_MLP = "agents/models/trained.json"  # an mlp network of layers [256, 256]


def test_a_model_of_another_network_is_refused_by_the_settings_check():
    cfg = Config(opponent="greedy", init_from=BUNDLED_MLP)  # auto: rankwise [64, 64] on us
    with pytest.raises(ValueError, match=r"init_from: .*trained.json is a mlp network"):
        check_config(cfg)


def test_the_same_network_passes_the_check():
    check_config(Config(opponent="greedy", init_from="agents/models/selfplay/selfplay.json"))


@pytest.mark.parametrize("model", ["nope.json", BUNDLED_MLP])
def test_a_refused_warm_start_writes_no_run_folder(tmp_path, capsys, model):
    out = tmp_path / "never"
    argv = ["train", "realtime", "--timesteps", "1024", "--n-envs", "16", "--n-steps", "16",
            "--batch-size", "256"]  # fmt: skip
    assert cli([*argv, "--init-from", model, "--out", str(out)]) == 2
    assert "init_from" in capsys.readouterr().err
    assert not out.exists()
