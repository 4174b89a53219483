"""Training on Vintage Speed: the single-agent Gymnasium wrapper, model format, a short run."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.vintage.bots import VintageGreedy, VintageRandom
from speed_env.policy import Policy
from speed_env.vintage import make_vintage_rules
from speed_env.vintage.single import VintageSingleEnv

pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("players", [2, 4, 7])
def test_wrapper_passes_gymnasium_and_sb3_checkers(players):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common import env_checker as sb3

    check_env(VintageSingleEnv(players, opponents=VintageGreedy()), skip_render_check=True)
    sb3.check_env(VintageSingleEnv(players, opponents=VintageRandom(1)), warn=True)


def test_wrapper_with_scaled_observations_passes_the_checkers():
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common import env_checker as sb3

    from train.vintage_ppo import observation_scale

    scale = observation_scale(make_vintage_rules(4, 1))
    check_env(
        VintageSingleEnv(4, opponents=VintageGreedy(), obs_scale=scale), skip_render_check=True
    )
    sb3.check_env(VintageSingleEnv(4, opponents=VintageGreedy(), obs_scale=scale), warn=True)


def _play(env, seed, pick):
    """One game: the trace of (observation, reward) per step, the last reward and info."""
    obs, info = env.reset(seed=seed)
    trace = [(obs.copy(), 0.0)]
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"]) and mask.dtype == np.int8
        obs, reward, term, trunc, info = env.step(pick(mask))
        assert type(reward) is float and type(term) is bool and type(trunc) is bool
        trace.append((obs.copy(), reward))
        if term or trunc:
            return trace, reward, info


def test_every_step_is_the_learners_and_the_reward_is_the_aec_envs():
    env = VintageSingleEnv(4, opponents=[VintageGreedy(), VintageRandom(3), VintageGreedy()])
    for seed in range(20):
        trace, reward, info = _play(env, seed, lambda m: int(np.flatnonzero(m)[-1]))
        game = env.table.game
        assert game.over and info["penalties"] == [
            sum(c * p for c, p in zip(h, game.rules.pack.penalties)) for h in game.hands
        ]
        if game.winner == env.seat:
            assert reward == 1.0
        else:
            assert reward == -info["penalty"] / 100
        # Every action of the learner's seat came from a step (the others never acted for it),
        # and every step was one of its actions.
        assert sum(seat == env.seat for seat, _ in game.history) == len(trace) - 1
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_seeded_games_repeat_and_seats_vary():
    def run(seed):
        env = VintageSingleEnv(3, opponents=VintageRandom(7))
        return _play(env, seed, lambda m: int(np.flatnonzero(m)[0]))

    a, b = run(4), run(4)
    assert len(a[0]) == len(b[0]) and all(np.array_equal(x[0], y[0]) for x, y in zip(a[0], b[0]))
    seats = set()
    env = VintageSingleEnv(3)
    for s in range(30):
        env.reset(seed=s)
        seats.add(env.seat)
    assert seats == {0, 1, 2}


def test_illegal_action_is_a_noop_or_raises():
    env = VintageSingleEnv(4, opponents=VintageGreedy(), seat=1)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.snapshot()
    obs2, reward, term, trunc, info2 = env.step(illegal)
    assert info2["illegal"] and reward == 0.0 and not term and np.array_equal(obs, obs2)
    assert env.snapshot() == before
    strict = VintageSingleEnv(4, opponents=VintageGreedy(), seat=1, illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="seat"):
        VintageSingleEnv(4, seat=4)
    with pytest.raises(ValueError, match="one or 3"):
        VintageSingleEnv(4, opponents=[VintageGreedy(), VintageGreedy()])
    with pytest.raises(TypeError, match="Policy"):
        VintageSingleEnv(4, opponents="vintage-greedy")
    with pytest.raises(ValueError, match="obs_scale"):
        VintageSingleEnv(4, obs_scale=np.ones(3))


def test_export_folds_the_scale_into_the_first_layer(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from train.vintage_ppo import export, observation_scale

    rules = make_vintage_rules(4, 1)
    scale = observation_scale(rules)
    env = VintageSingleEnv(4, opponents=VintageGreedy(), obs_scale=scale)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}},
    )
    path = export(model, tmp_path / "m", scale, rules, {"note": "test"})
    manifest = json.loads(path.read_text())
    assert manifest["game"] == "vintage" and manifest["observation"]["obs_dim"] == 174
    policy = agents.make(f"vintage-ppo:{path}")
    assert isinstance(policy, Policy)
    raw = VintageSingleEnv(4, opponents=VintageGreedy())
    obs, info = raw.reset(seed=3)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor((obs * scale)[None]))
        want = dist.distribution.logits.numpy()
    got = policy.logits(obs[None])
    # SB3 normalises logits (log-softmax); differences between actions must agree.
    np.testing.assert_allclose(got - got.max(), want - want.max(), atol=1e-4)


def test_vintage_model_is_refused_where_it_does_not_fit(tmp_path):
    from agents.model_io.tensor_file import ModelFormatError

    with pytest.raises(ModelFormatError, match="does not exist"):
        agents.make(f"vintage-ppo:{tmp_path / 'none.json'}")
    with pytest.raises(ModelFormatError, match="unknown option"):
        agents.make(f"vintage-ppo:{tmp_path / 'none.json'}?fast")


def test_short_training_run_end_to_end(tmp_path, capsys):
    """``speed train --game vintage``: a few thousand steps, every file, a model that plays."""
    from agents.tournament import vintage
    from speed_cli import main as cli

    out = tmp_path / "run"
    code = cli(
        [
            "train",
            "--game",
            "vintage",
            "--players",
            "3",
            "--opponent",
            "vintage-greedy",
            "--timesteps",
            "2048",
            "--n-envs",
            "4",
            "--n-steps",
            "128",
            "--batch-size",
            "128",
            "--net-arch",
            "64,64",
            "--eval-every",
            "1024",
            "--eval-games",
            "6",
            "--eval-opponents",
            "vintage-greedy",
            "--seed",
            "0",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    for name in (
        "model.json",
        "model.safetensors",
        "eval.csv",
        "curves.png",
        "summary.json",
        "config.json",
        "logs/progress.csv",
    ):
        assert (out / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["timesteps"] >= 2048
    config = json.loads((out / "config.json").read_text())
    assert config["players"] == 3 and config["n_envs"] == 4 and config["net_arch"] == "64,64"
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,opponent") and len(rows) >= 3
    # The saved model plays in the N-player harness.
    spec = f"vintage-ppo:{out / 'model.json'}"
    settings = vintage.VintageSettings(
        agents=(spec, "vintage-greedy"), players=3, games=6, gauntlet=spec
    )
    results, complete = vintage.run(settings)
    assert (
        complete
        and vintage.summarise(settings, results, bootstrap=5)["settings"]["games_played"] == 6
    )
    # Without --resume the used folder is refused (one line, exit 2, the real-time recipe's
    # words); with it, training continues from the last checkpoint under the saved settings.
    capsys.readouterr()
    again = cli(
        ["train", "--game", "vintage", "--timesteps", "3072", "--out", str(out), "--no-progress"]
    )
    err = capsys.readouterr().err
    assert again == 2 and "already holds a training run; pass --resume" in err
    assert len(err.strip().splitlines()) == 1
    resumed = ["train", "vintage", "--timesteps", "3072", "--resume", "--out", str(out)]
    assert cli([*resumed, "--no-progress"]) == 0
    assert "resuming" in capsys.readouterr().out
    state = json.loads((out / "state.json").read_text())
    assert state["timesteps"] >= 3072 and state["config"]["players"] == 3
    assert json.loads((out / "summary.json").read_text())["complete"]
    evals = [r.split(",")[0] for r in (out / "eval.csv").read_text().splitlines()[1:]]
    assert len(evals) == len(rows) and int(evals[-1]) >= 3072  # one more evaluation, at the end


@pytest.mark.parametrize(
    ("state", "message"),
    [
        (None, "holds no run to resume (no state.json)"),
        ({"recipe": "train.ppo", "checkpoint": "c.json"}, "holds a run of train.ppo, not of"),
        ({"recipe": "train.vintage_ppo", "timesteps": 0}, "holds no checkpoint yet"),
    ],
)
def test_resume_refuses_a_folder_without_a_run_of_this_recipe(tmp_path, capsys, state, message):
    """``--resume`` continues only a vintage run that reached a checkpoint (the shared
    run folder's checks, before any work or any file is written)."""
    from speed_cli import main as cli

    out = tmp_path / "r"
    out.mkdir()
    if state is not None:
        (out / "state.json").write_text(json.dumps({"config": {"players": 3}, **state}))
    before = sorted(p.name for p in out.iterdir())
    code = cli(["train", "vintage", "--resume", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rules", "japanese"], "--rules: not a setting of the vintage recipe"),
        # --players 1: refused by the flag's type (tests/kit/test_cli_flags.py)
        (["--opponent", "chain"], "plays real-time Speed"),
        (["--opponent", "vintage-nobody"], "unknown agent"),
        (["--batch-size", "100000"], "exceeds a rollout"),
    ],
)
def test_train_cli_bad_input(tmp_path, capsys, argv, message):
    from speed_cli import main as cli

    code = cli(["train", "--game", "vintage", "--out", str(tmp_path / "r"), "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_every_flag_given_reaches_the_vintage_settings(tmp_path, monkeypatch):
    """``--gamma 1.0 --n-envs 256 --timesteps 2000000`` equal the real-time defaults: the vintage
    run must still get them as given (they were once silently replaced by its own defaults)."""
    from speed_cli import main as cli
    from train import vintage_ppo

    seen = []
    monkeypatch.setattr(vintage_ppo, "train", lambda cfg: seen.append(cfg) or {"complete": True})
    flags = ["--gamma", "1.0", "--n-envs", "256", "--timesteps", "2000000", "--players", "3"]
    assert cli(["train", "--game", "vintage", *flags, "--out", str(tmp_path / "a")]) == 0
    cfg = seen[0]
    assert (cfg.gamma, cfg.n_envs, cfg.timesteps, cfg.players) == (1.0, 256, 2_000_000, 3)
    assert cfg.n_steps == vintage_ppo.VintageConfig.n_steps  # a flag not given: its default
    # The subcommand and the recipe's own command line give the same settings.
    assert cli(["train", "vintage", *flags, "--out", str(tmp_path / "a")]) == 0
    assert vintage_ppo.main([*flags, "--out", str(tmp_path / "a")]) == 0
    assert len(seen) == 3 and seen[0] == seen[1] == seen[2]


@pytest.mark.slow
def test_vintage_run_warm_starts_from_a_cloned_bot(tmp_path):
    """``--init-bc``: the shared behaviour cloning fits the tactician (reading raw counts while
    the learner sees scaled ones), and the clone is the curve's first point."""
    from train import vintage_ppo

    out = tmp_path / "bc"
    flags = ["--players", "3", "--init-bc", "vintage-tactician", "--bc-decisions", "4000"]
    flags += ["--bc-epochs", "3", "--timesteps", "256", "--n-envs", "4", "--n-steps", "64"]
    flags += ["--batch-size", "128", "--net-arch", "64,64", "--eval-every", "256"]
    flags += ["--eval-games", "6", "--eval-opponents", "vintage-greedy", "--no-progress"]
    assert vintage_ppo.main([*flags, "--out", str(out)]) == 0
    bc = json.loads((out / "summary.json").read_text())["bc"]
    assert bc["teacher"] == "vintage-tactician" and bc["recorded_decisions"] > 3000
    assert bc["held_out_agreement"] > 0.5  # 68.5% measured with these settings
    rows = (out / "eval.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["0", "256"]


@pytest.mark.slow
def test_an_interrupted_vintage_run_resumes_to_the_end(tmp_path, monkeypatch):
    """Ctrl-C right after the first checkpoint: the run still finishes (incomplete, exit 130);
    ``--resume`` continues from that checkpoint to ``timesteps`` and evaluates once more."""
    from train import vintage_ppo
    from train.common import run as common_run

    evaluate = common_run.Run.evaluate

    def evaluate_then_interrupt(self, steps):
        rows = evaluate(self, steps)
        monkeypatch.setattr(common_run.Run, "evaluate", evaluate)  # only the first time
        raise KeyboardInterrupt

    monkeypatch.setattr(common_run.Run, "evaluate", evaluate_then_interrupt)
    out = tmp_path / "run"
    flags = ["--players", "3", "--timesteps", "2048", "--n-envs", "4", "--n-steps", "128"]
    flags += ["--batch-size", "128", "--net-arch", "32,32", "--eval-every", "1024"]
    flags += ["--eval-games", "6", "--eval-opponents", "vintage-greedy", "--no-progress"]
    assert vintage_ppo.main([*flags, "--out", str(out)]) == 130
    summary = json.loads((out / "summary.json").read_text())
    stopped = json.loads((out / "state.json").read_text())
    assert not summary["complete"] and stopped["timesteps"] == 1024

    resume = ["--timesteps", "2048", "--resume", "--no-progress", "--out", str(out)]
    assert vintage_ppo.main(resume) == 0  # the other settings are the saved ones
    summary = json.loads((out / "summary.json").read_text())
    state = json.loads((out / "state.json").read_text())
    assert summary["complete"] and state["timesteps"] == summary["timesteps"] == 2048
    # The update count went on from the checkpoint's: two rollouts of 512 after it, each one
    # PPO update of n_epochs passes (the checkpoint at 1,024 precedes its rollout's update).
    epochs = vintage_ppo.VintageConfig.n_epochs
    assert stopped["n_updates"] == epochs
    assert state["n_updates"] == stopped["n_updates"] + 2 * epochs
    evals = [r.split(",")[0] for r in (out / "eval.csv").read_text().splitlines()[1:]]
    assert evals == ["1024", "2048"]
