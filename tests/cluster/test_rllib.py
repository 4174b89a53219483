"""RLlib: the batch env is the PettingZoo game; a short PPO run exports a model that loads, plays.

The RLlib runs start a two-CPU cluster on 127.0.0.1 and stop it after.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers_run import ROOT, run_python
from ray_helpers import SKIP_REASON

ray = pytest.importorskip("ray", reason=SKIP_REASON)

import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402

import agents  # noqa: E402
import speed_env  # noqa: E402
from agents.model_io.kit_model import load_policy  # noqa: E402
from speed_cli import main as cli  # noqa: E402
from speed_env.rules import make_rules  # noqa: E402
from train import rllib_ppo  # noqa: E402
from train.rllib.env import AGENTS, BatchVectorEnv  # noqa: E402


def test_the_batch_env_plays_the_pettingzoo_games_and_restarts_on_the_next_step():
    """Game i of a batch seeded s is parallel_env's game seeded s + i, step by step, to its end;
    RLlib then gets the end once (final observation, +1/-1) and the next game on the next step."""
    env = BatchVectorEnv(2, {"rules": "us", "reaction": 120})
    games = [speed_env.parallel_env("us", reaction=120) for _ in range(2)]
    obs, _ = env.reset(seed=40)
    ref = [g.reset(seed=40 + i)[0] for i, g in enumerate(games)]
    greedy = agents.make("greedy", "us", seed=0)
    ended = None
    for _ in range(6000):
        for i in range(2):
            for a in AGENTS:
                np.testing.assert_array_equal(obs[i][a]["observation"], ref[i][a]["observation"])
                np.testing.assert_array_equal(obs[i][a]["action_mask"], ref[i][a]["action_mask"])
        actions = [
            {
                a: int(
                    greedy.act(obs[i][a]["observation"][None], obs[i][a]["action_mask"][None])[0]
                )
                for a in AGENTS
            }
            for i in range(2)
        ]
        obs, rewards, term, trunc, _ = env.step(actions)
        steps = [g.step(act) for g, act in zip(games, actions)]
        ref = [s[0] for s in steps]
        done = [i for i in range(2) if term[i]["__all__"] or trunc[i]["__all__"]]
        for i in range(2):
            assert rewards[i] == {a: float(steps[i][1][a]) for a in AGENTS}
        if done:
            ended = done[0]
            break
    assert ended is not None, "a greedy mirror game ends within 6000 ticks"
    i = ended
    assert term[i] == {AGENTS[0]: True, AGENTS[1]: True, "__all__": True}
    assert sorted(rewards[i].values()) == [-1.0, 1.0]
    assert all(
        obs[i][a]["action_mask"].tolist() == [1] + [0] * (len(obs[i][a]["action_mask"]) - 1)
        for a in AGENTS
    ), "nothing is acted on a finished game's last observation"
    # The next step brings the restart: no reward, not done, legal moves again.
    obs, rewards, term, trunc, _ = env.step([dict.fromkeys(AGENTS, 0)] * 2)
    assert (
        rewards[i] == dict.fromkeys(AGENTS, 0.0)
        and not term[i]["__all__"]
        and not trunc[i]["__all__"]
    )
    assert all(obs[i][a]["action_mask"][0] == 1 for a in AGENTS)


def test_the_recipe_refuses_bad_settings_naming_them():
    with pytest.raises(ValueError, match="env_runner"):
        rllib_ppo.check(rllib_ppo.Config(env_runner="threads"))
    with pytest.raises(ValueError, match="unknown agent"):
        rllib_ppo.check(rllib_ppo.Config(opponents="self,speedy"))
    with pytest.raises(ValueError, match="minibatch_size"):
        rllib_ppo.check(rllib_ppo.Config(train_batch_size=64, minibatch_size=128))
    assert rllib_ppo.opponent_module("chain@pro") == "bot_chain_pro"


@pytest.mark.slow
def test_a_short_rllib_run_exports_a_model_that_loads_and_plays(tmp_path):
    """Two PPO iterations, a remote env runner on BatchEnv, opponents self, snapshot and greedy."""
    out = tmp_path / "run"
    code = cli(
        [
            "train-rllib",
            "--out",
            str(out),
            "--iterations",
            "2",
            "--num-env-runners",
            "1",
            "--games-per-runner",
            "8",
            "--train-batch-size",
            "256",
            "--minibatch-size",
            "64",
            "--num-epochs",
            "1",
            "--net-arch",
            "32,32",
            "--snapshot-every",
            "1",
            "--checkpoint-every",
            "1",
            "--opponents",
            "self,snapshot,greedy",
            "--seed",
            "3",
        ]
    )
    assert code == 0
    assert not ray.is_initialized(), "the cluster started for the run is stopped after it"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["iterations"] == 2
    assert [r["iteration"] for r in summary["progress"]] == [1, 2]
    assert summary["progress"][-1]["env_steps"] >= 2 * 256
    assert (out / "progress.csv").read_text().splitlines()[0].split(",") == list(
        rllib_ppo.PROGRESS_COLUMNS
    )
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["net"] == {**manifest["net"], "hidden": [32, 32], "activation": "relu"}
    assert (
        manifest["training"]["recipe"] == "train/rllib_ppo.py"
        and manifest["training"]["iterations"] == 2
    )

    # The exported network is the trained module: same logits on the same observations.
    checkpoint = Path(summary["checkpoint"])
    module = RLModule.from_checkpoint(
        checkpoint / "learner_group" / "learner" / "rl_module" / "main"
    )
    policy = load_policy(out / "model.json", make_rules("us"))
    env = speed_env.parallel_env("us")
    rows, masks = [], []
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        rows += [obs[a]["observation"] for a in AGENTS]
        masks += [obs[a]["action_mask"] for a in AGENTS]
    x, m = np.stack(rows), np.stack(masks)
    with torch.no_grad():
        out_rllib = module.forward_inference(
            {Columns.OBS: {"observation": torch.from_numpy(x), "action_mask": torch.from_numpy(m)}}
        )
    theirs = out_rllib[Columns.ACTION_DIST_INPUTS].numpy()
    ours = policy.logits(x)
    legal = m > 0
    np.testing.assert_allclose(ours[legal], theirs[legal], rtol=1e-5, atol=1e-5)
    assert (theirs[~legal] < -1e30).all(), "illegal actions are masked out of RLlib's logits"

    # It plays as ppo:PATH in a tournament.
    spec = f"ppo:{out / 'model.json'}"
    assert (
        cli(
            [
                "tournament",
                "--agents",
                f"{spec},greedy",
                "--games",
                "4",
                "--out",
                str(tmp_path / "t"),
            ]
        )
        == 0
    )
    results = json.loads((tmp_path / "t" / "results.json").read_text())
    assert results["matches"][0]["games"] == 4


@pytest.mark.slow
def test_the_rllib_example_script_trains_one_iteration():
    out = run_python(str(ROOT / "examples" / "rllib_ppo_masking.py"))
    line = [s for s in out.splitlines() if s.startswith("one iteration:")]
    assert line and int(float(line[0].split()[2])) >= 256, out
