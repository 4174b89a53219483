"""Training: the VecEnv against SB3's expectations, opponent pools, model format, `speed train`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecCheckNan

import agents
import speed_env
from agents.model_io import kit_model, tensor_file
from agents.model_io.tensor_file import ModelFormatError
from speed_cli import main as cli
from speed_env.rules import make_rules
from train.policy.checkpoint import export_model, policy_tensors
from train.vec_env.env import SpeedVecEnv
from train.vec_env.pool import OpponentPool

torch.set_num_threads(1)


class FirstLegalPlay:
    """Deterministic test bot: the lowest legal play, else wait (no generator: any call order)."""

    def act(self, obs, mask):
        plays = mask.copy()
        plays[:, 0] = 0
        return np.where(plays.any(axis=1), plays.argmax(axis=1), 0)


def _masked_random(env, rng):
    m = get_action_masks(env)
    return np.where(m > 0, rng.random(m.shape), -1.0).argmax(axis=1)


# ---------------------------------------------------------------------- the VecEnv
def test_vec_env_meets_sb3_expectations():
    env = VecCheckNan(
        SpeedVecEnv(16, "japanese", opponent="greedy,random", seed=3), raise_exception=True
    )
    assert is_masking_supported(env)
    obs = env.reset()
    assert obs.shape == (16, env.observation_space.shape[0]) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        masks = get_action_masks(env)
        assert masks.shape == (16, env.action_space.n) and (masks.sum(axis=1) >= 1).all()
        obs, rewards, dones, infos = env.step(_masked_random(env, rng))
        assert obs.dtype == np.float32 and rewards.dtype == np.float32 and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == 16
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == obs.shape[1:]
            assert rewards[i] in (-1.0, 0.0, 1.0) and info["episode"]["r"] == rewards[i]
            assert info["opponent"] in ("greedy", "random") and info["seat"] in (0, 1)
            ended += 1
        assert not dones.any() or all(
            isinstance(infos[i]["episode"]["l"], int) for i in np.flatnonzero(dones)
        )
    assert ended > 10


def test_short_maskable_ppo_learn_on_the_vec_env():
    env = VecCheckNan(SpeedVecEnv(8, "us", opponent="random", seed=0), raise_exception=True)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(512)
    assert model.num_timesteps >= 512


def test_skipping_forced_waits_plays_the_same_games():
    # The learner and the opponent are deterministic: with or without skipping, and in
    # BatchEnv's lockstep, each deal must end the same way.
    n = 12
    bot = FirstLegalPlay()
    results = {}
    for skip in (True, False):
        env = SpeedVecEnv(n, "us", opponent=bot, seat=0, seed=5, skip_forced=skip, skip_tail=0.0)
        obs = env.reset()
        first = {}
        for _ in range(20_000):
            obs, rewards, dones, infos = env.step(bot.act(obs, env.action_masks()))
            for i in np.flatnonzero(dones):
                first.setdefault(int(i), (float(rewards[i]), infos[i]["ticks"]))
            if len(first) == n:
                break
        results[skip] = first
    batch = speed_env.BatchEnv(n, "us", autoreset=False)
    obs, mask = batch.reset(seed=5)
    outcome = {}
    while not batch.all_finished:
        obs, mask, rewards, term, trunc, info = batch.step(
            np.stack([bot.act(obs[p], mask[p]) for p in range(2)])
        )
        for i in np.flatnonzero(term | trunc):
            outcome[int(i)] = (float(rewards[0, i]), int(info["clock_ms"][i]) // 50)
    assert results[True] == results[False] == outcome


def test_skipping_presents_mostly_decisions_and_is_deterministic():
    def play(seed):
        env = SpeedVecEnv(32, "japanese", opponent="greedy", seed=seed)
        env.reset()
        rng = np.random.default_rng(1)
        trace = []
        for _ in range(60):
            masks = env.action_masks()
            trace.append(masks.sum())
            env.step(np.where(masks > 0, rng.random(masks.shape), -1).argmax(axis=1))
        return env, trace

    env, trace = play(7)
    c = env.counters
    assert c["forced"] < 0.1 * c["decisions"]  # nearly every step is a real choice
    assert c["ticks"] > 4 * c["decisions"]  # while the games ran many more ticks
    assert play(7)[1] == trace


def test_vec_env_refuses_bad_actions_and_settings():
    env = SpeedVecEnv(4, "us", opponent="random")
    env.reset()
    with pytest.raises(speed_env.ActionError, match="outside the action space"):
        env.step(np.array([0, 0, 99, 0]))
    with pytest.raises(ValueError, match="seat"):
        SpeedVecEnv(4, "us", seat=2)
    with pytest.raises(ValueError, match="observation/action size"):
        SpeedVecEnv(4, ["us", make_rules("japanese", jokers=True)])


def test_wait_penalty_and_truncation_reward():
    rules = make_rules("us", max_game_ms=2000)
    env = SpeedVecEnv(
        8, rules, opponent=FirstLegalPlay(), seed=0, wait_penalty=0.5, truncation_reward=-1.0
    )
    env.reset()
    rewards_seen, truncated = [], 0
    for _ in range(200):
        masks = env.action_masks()
        _, rewards, dones, infos = env.step(np.zeros(8, np.int64))  # a learner that always waits
        choice = masks.sum(axis=1) >= 2
        for i in range(8):
            if dones[i] and infos[i]["ticks"] >= 40 and infos[i]["episode"]["r"] == 0:
                truncated += 1
                assert not infos[i]["TimeLimit.truncated"] and rewards[i] <= -1.0
            elif not dones[i]:
                assert rewards[i] == pytest.approx(-0.5 if choice[i] else 0.0)
        rewards_seen.append(rewards)
    assert truncated > 0


def test_multi_rules_split_the_slots():
    env = SpeedVecEnv(10, "japanese,us", opponent="greedy")
    assert [(g.lo, g.hi, g.games.rules.preset) for g in env.groups] == [
        (0, 5, "japanese"),
        (5, 10, "us"),
    ]
    obs = env.reset()
    opp_layout = speed_env.observation_layout(make_rules("us"))["opp_layout"]
    assert (obs[:5, opp_layout].sum(axis=1) > 0).all()  # japanese: the opponent's layout is face up
    assert (obs[5:, opp_layout] == 0).all()


# ---------------------------------------------------------------------- pools
def test_an_opponent_spec_with_options_is_one_member_of_the_pool():
    """``search:worlds=2,depth=5*0.5``: its options and its weight stay with it."""
    pool = OpponentPool.from_spec("search:worlds=2,depth=5*0.5,chain", [make_rules("us")])
    assert [(m.name, m.weight) for m in pool.members] == [
        ("search:worlds=2,depth=5", 0.5),
        ("chain", 1.0),
    ]
    assert pool.members[0].policies[0].settings.depth == 5


def test_opponent_pool_mix_and_self_play():
    rules = [make_rules("us")]
    rng = np.random.default_rng(0)
    mix = OpponentPool.from_spec("greedy,random,random", rules)
    drawn = mix.sample(3000, rng)
    shares = np.bincount(drawn, minlength=3) / 3000
    assert np.allclose(
        shares, 1 / 3, atol=0.04
    )  # each listed spec equally, so repeating one weights it
    pool = OpponentPool.from_spec("self", rules, self_fraction=0.75, max_snapshots=2)
    assert [m.name for m in pool.members] == ["random", "greedy", "chain"] and pool.self_play
    assert np.allclose(pool.weights(), 1 / 3)  # no snapshot yet: the bots only
    for k in range(3):
        pool.add_snapshot(f"self@{k}", FirstLegalPlay(), 1)
    w = pool.weights()
    assert w[:3].sum() == pytest.approx(0.25) and w[3] == 0.0 and w[4:].sum() == pytest.approx(0.75)
    who = pool.sample(400, rng)
    pool.record(who, np.ones(400))
    report = pool.report()
    assert sum(r["share"] for r in report.values()) == pytest.approx(1.0)
    assert all(r["win_rate"] == 1.0 for r in report.values() if r["finished"])
    assert [d["active"] for d in pool.describe()] == [True, True, True, False, True, True]


# ---------------------------------------------------------------------- the model format
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A tiny MaskablePPO model and its kit files (a few updates: not the initial weights)."""
    env = SpeedVecEnv(8, "us,japanese", opponent="greedy", seed=1)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        seed=1,
        device="cpu",
        policy_kwargs={"net_arch": [64, 32]},
    )
    model.learn(256)
    folder = tmp_path_factory.mktemp("model")
    path = export_model(
        model,
        folder / "tiny",
        rules=env.rules_list,
        reaction={"learner": "human"},
        tick_ms=50,
        training={"timesteps": 256},
    )
    return model, path, env


def _batch(rules, n=256, seed=0):
    env = speed_env.BatchEnv(n, rules)
    obs, mask = env.reset(seed=seed)
    bot = agents.make("random", rules, seed=seed)
    for _ in range(30):
        obs, mask, *_ = env.step(np.stack([bot.act(obs[p], mask[p]) for p in range(2)]))
    return obs[0], mask[0]


def test_manifest_records_what_the_model_needs(tiny_model):
    _, path, _ = tiny_model
    manifest = json.loads(path.read_text())
    weights = path.with_suffix(".safetensors")
    assert manifest["weights"] == weights.name
    assert manifest["weights_sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    assert manifest["observation"]["obs_dim"] == 193 and manifest["observation"]["n_actions"] == 27
    assert manifest["observation"]["layout"][0] == ["hand", 0, 13]
    assert ["rules", 128, 138] in manifest["observation"]["layout"]
    assert manifest["observation"]["layout"][-1] == ["since_placed", 192, 193]
    assert manifest["rules"]["preset"] == "us" and manifest["net"]["hidden"] == [64, 32]
    assert [r["preset"] for r in manifest["trained_rules"]] == ["us", "japanese"]
    assert {"python", "numpy", "torch", "stable-baselines3", "sb3-contrib"} <= set(
        manifest["versions"]
    )


def test_save_load_round_trip_gives_identical_actions(tiny_model):
    model, path, _ = tiny_model
    obs, mask = _batch("us")
    loaded = agents.make(f"ppo:{path}", "us")
    mine = loaded.act(obs, mask)
    sb3, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert (mask[np.arange(len(mine)), mine] == 1).all()
    np.testing.assert_array_equal(mine, sb3)
    # by its weights file too, and for the other preset it was trained on
    np.testing.assert_array_equal(
        agents.make(f"ppo:{path.with_suffix('.safetensors')}", "us").act(obs, mask), mine
    )
    obs_j, mask_j = _batch("japanese")
    np.testing.assert_array_equal(
        agents.make(f"ppo:{path}", "japanese").act(obs_j, mask_j),
        model.predict(obs_j, action_masks=mask_j, deterministic=True)[0],
    )


def test_a_model_refuses_rules_it_was_not_trained_on_naming_both(tiny_model):
    """Trained on us and japanese: pagat (same 193 floats, same 27 actions) is refused, at
    load and when an observation of it reaches the model, never silently misread."""
    _, path, _ = tiny_model
    with pytest.raises(
        ModelFormatError, match=r"tiny\.json was trained on us and japanese, not on pagat"
    ):
        agents.make(f"ppo:{path}", "pagat")
    with pytest.raises(
        ModelFormatError, match=r"trained on us and japanese, not on us \(no wrap\)"
    ):
        agents.make(f"ppo:{path}", make_rules("us", wrap=False))
    bot = agents.make(f"ppo:{path}", "us")
    obs, mask = _batch("pagat")
    with pytest.raises(
        ModelFormatError,
        match=r"trained on us and japanese and cannot play an observation of pagat",
    ):
        bot.act(obs, mask)
    mixed = np.concatenate([_batch("us")[0][:3], obs[:1]])  # one row of other rules is enough
    with pytest.raises(ModelFormatError, match=r"of pagat \(row 3\)"):
        bot.act(mixed, mask[:4])


def test_weights_file_is_standard_safetensors(tiny_model):
    from safetensors.numpy import load_file, save_file

    model, path, _ = tiny_model
    theirs = load_file(str(path.with_suffix(".safetensors")))
    ours, _ = tensor_file.parse_safetensors(path.with_suffix(".safetensors").read_bytes(), "x")
    assert theirs.keys() == ours.keys()
    for k in ours:
        np.testing.assert_array_equal(theirs[k], ours[k])
    other = path.parent / "lib.safetensors"
    save_file(theirs, str(other))
    again, _ = tensor_file.parse_safetensors(other.read_bytes(), "lib")
    assert all(np.array_equal(again[k], ours[k]) for k in ours)


def _copy(path, tmp_path):
    return kit_model.copy_model(path, tmp_path / "m")


def test_corrupted_weights_are_refused(tiny_model, tmp_path):
    m = _copy(tiny_model[1], tmp_path)
    w = m.with_suffix(".safetensors")
    blob = bytearray(w.read_bytes())
    blob[-5] ^= 0xFF
    w.write_bytes(bytes(blob))
    with pytest.raises(
        ModelFormatError, match=r"m\.safetensors does not match the SHA-256.*contents changed"
    ):
        agents.make(f"ppo:{m}", "us")


def test_truncated_weights_are_refused(tiny_model, tmp_path):
    m = _copy(tiny_model[1], tmp_path)
    w = m.with_suffix(".safetensors")
    w.write_bytes(w.read_bytes()[:1000])
    with pytest.raises(
        ModelFormatError, match=r"m\.safetensors is 1000 bytes, but its safetensors.*truncated"
    ):
        agents.make(f"ppo:{m}", "us")
    m.write_text(m.read_text()[:200])
    with pytest.raises(ModelFormatError, match=r"m\.json is not valid JSON"):
        agents.make(f"ppo:{m}", "us")


def test_missing_tensor_is_refused(tiny_model, tmp_path):
    m = _copy(tiny_model[1], tmp_path)
    w = m.with_suffix(".safetensors")
    tensors, _ = tensor_file.parse_safetensors(w.read_bytes(), "x")
    del tensors["logits.bias"]
    blob = tensor_file.write_safetensors(w, tensors)
    manifest = json.loads(m.read_text())
    manifest["weights_sha256"] = hashlib.sha256(
        blob
    ).hexdigest()  # a consistent file, but incomplete
    m.write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=r"m\.safetensors lacks the tensors logits\.bias"):
        agents.make(f"ppo:{m}", "us")


def test_mismatched_rules_are_refused(tiny_model, tmp_path):
    _, path, _ = tiny_model
    with pytest.raises(
        ModelFormatError,
        match=(
            r"tiny\.json was trained for n_actions = 27 \(rules us\), "
            r"but rules japanese \(jokers=True\) have n_actions = 29"
        ),
    ):
        agents.make(f"ppo:{path}", make_rules("japanese", jokers=True))
    m = _copy(path, tmp_path)
    manifest = json.loads(m.read_text())
    manifest["observation"]["layout"][0] = ["my_hand", 0, 13]
    m.write_text(json.dumps(manifest))
    with pytest.raises(
        ModelFormatError,
        match="an observation layout this version of speed_env does not start with",
    ):
        agents.make(f"ppo:{m}", "us")
    with pytest.raises(ModelFormatError, match="does not exist"):
        agents.make(f"ppo:{tmp_path / 'nothing.json'}", "us")


def test_sb3_zip_needs_the_trust_flag(tiny_model, tmp_path):
    model, _, _ = tiny_model
    z = tmp_path / "plain.zip"
    model.save(z)
    with pytest.raises(
        ModelFormatError, match=r"plain\.zip is a stable-baselines3 \.zip, which unpickles.*\?trust"
    ):
        agents.make(f"ppo:{z}", "us")
    trusted = agents.make(f"ppo:{z}?trust", "us")
    obs, mask = _batch("us")
    np.testing.assert_array_equal(
        trusted.act(obs, mask), model.predict(obs, action_masks=mask, deterministic=True)[0]
    )
    with pytest.raises(ModelFormatError, match="unknown option"):
        agents.make(f"ppo:{z}?trusted", "us")


@pytest.mark.parametrize("rules", ["us", "japanese"])
def test_saved_model_plays_legal_moves_through_agents_make(tiny_model, rules):
    _, path, _ = tiny_model
    env = speed_env.BatchEnv(64, rules)
    bots = [agents.make(f"ppo:{path}", rules), agents.make(f"ppo:{path}?sample", rules, seed=3)]
    obs, mask = env.reset(seed=11)
    for _ in range(300):
        actions = np.stack([bots[p].act(obs[p], mask[p]) for p in range(2)])
        assert (np.take_along_axis(mask, actions[..., None], axis=2) == 1).all()
        obs, mask, *_, info = env.step(actions)
        assert not info["illegal"].any()


def test_trained_spec_says_when_the_bundled_model_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(kit_model, "BUNDLED", tmp_path / "models" / "trained.json")
    with pytest.raises(ModelFormatError, match=r"bundled model .*trained\.json is missing"):
        agents.make("trained", "japanese")
    assert "trained" in agents.available() and "ppo" in agents.available()


def test_copy_model_rewrites_the_manifest(tiny_model, tmp_path, monkeypatch):
    _, path, _ = tiny_model
    out = kit_model.copy_model(path, tmp_path / "models" / "trained")
    assert json.loads(out.read_text())["weights"] == "trained.safetensors"
    monkeypatch.setattr(kit_model, "BUNDLED", out)
    obs, mask = _batch("us")
    np.testing.assert_array_equal(
        agents.make("trained", "us").act(obs, mask), agents.make(f"ppo:{path}", "us").act(obs, mask)
    )


def test_policy_tensors_name_the_kit_layout(tiny_model):
    tensors, hidden, activation = policy_tensors(tiny_model[0])
    assert hidden == [64, 32] and activation == "tanh"
    assert {"pi.0.weight", "pi.1.bias", "logits.weight", "vf.0.weight", "value.bias"} <= set(
        tensors
    )


# ---------------------------------------------------------------------- speed train
SMALL = [
    "--n-envs",
    "16",
    "--n-steps",
    "32",
    "--batch-size",
    "256",
    "--n-epochs",
    "1",
    "--net-arch",
    "32",
    "--eval-games",
    "4",
    "--eval-opponents",
    "greedy",
    "--options",
    "max_game_ms=30000",
    "--no-progress",
]


def test_speed_train_end_to_end_and_resume(tmp_path, capsys):
    out = tmp_path / "run"
    code = cli(
        [
            "train",
            "--rules",
            "japanese",
            "--opponent",
            "greedy,random",
            "--timesteps",
            "1024",
            "--eval-every",
            "512",
            "--seed",
            "0",
            "--out",
            str(out),
            *SMALL,
            "--progress",
        ]
    )
    assert code == 0
    printed = capsys.readouterr()
    assert "train [" in printed.err  # the progress bar
    for name in (
        "model.json",
        "model.safetensors",
        "eval.csv",
        "curves.png",
        "summary.json",
        "state.json",
        "logs/progress.csv",
        "pool.json",
    ):
        assert (out / name).exists(), name
    assert list((out / "logs").glob("events.out.tfevents.*"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["throughput"]["timesteps"] >= 1024
    # The loop's time split, written and printed: the kit's share is all but PPO's update.
    tp = summary["throughput"]
    split = tp["split_s"]
    kit = sum(split[k] for k in ("env_engine", "env_opponents", "policy_forward_and_sb3"))
    # the seconds are written to the millisecond: a tiny run's shares carry that rounding
    tol = max(0.01, 0.005 / tp["wall_s"])
    assert tp["kit_share"] == pytest.approx((kit + split["evaluation"]) / tp["wall_s"], abs=tol)
    assert tp["kit_share_without_evaluation"] == pytest.approx(kit / tp["wall_s"], abs=tol)
    assert (
        f"the kit's share {100 * tp['kit_share']:.0f}% "
        f"({100 * tp['kit_share_without_evaluation']:.0f}% without the evaluations)"
    ) in printed.out
    assert torch.distributions.Distribution._validate_args  # checks back on after learning
    rows = (out / "eval.csv").read_text().splitlines()
    assert (
        rows[0].startswith("timesteps,rules,opponent") and len(rows) == 3
    )  # evaluated at 512 and 1024
    assert agents.make(f"ppo:{out / 'model.json'}", "japanese") is not None

    # Without --resume an existing run is refused; with it, training continues.
    assert cli(["train", "--out", str(out), "--timesteps", "2048", *SMALL]) == 2
    assert "already holds a training run" in capsys.readouterr().err
    assert (
        cli(["train", "--out", str(out), "--timesteps", "2048", "--resume", "--no-progress"]) == 0
    )
    state = json.loads((out / "state.json").read_text())
    assert state["timesteps"] >= 2048 and state["config"]["rules"] == "japanese"
    assert len((out / "eval.csv").read_text().splitlines()) == 5


def test_speed_train_minutes_ends_at_the_first_whole_rollout_past_the_budget(tmp_path, capsys):
    """``--minutes``: training stops at the end of the first rollout past the wall-clock budget
    (well before ``--timesteps``), then the model is saved and evaluated and the run says what
    it reached; the summary counts the run complete, ended by the clock."""
    out = tmp_path / "run"
    argv = ["train", "--rules", "us", "--timesteps", "1000000", "--minutes", "0.0001"]
    assert cli([*argv, "--out", str(out), *SMALL]) == 0
    said = capsys.readouterr().out
    assert "the 0.0001-minute budget is spent after 512 timesteps" in said
    assert "what it reached at 512 timesteps: us/greedy " in said
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 512  # one whole rollout (16 envs x 32 steps)
    assert summary["complete"] and summary["ended_by"] == "minutes" and summary["stopped"] is None
    assert summary["final_evaluation"] == "done" and (out / "model.json").exists()
    assert len((out / "eval.csv").read_text().splitlines()) == 2  # the header and one row
    with pytest.raises(SystemExit) as refused:
        cli([*argv[:-1], "0", "--out", str(tmp_path / "bad"), *SMALL])
    assert refused.value.code == 2
    assert "argument --minutes: must be a finite number > 0, got '0'" in capsys.readouterr().err


def test_speed_train_self_play_and_bc_warm_start(tmp_path):
    out = tmp_path / "sp"
    code = cli(
        [
            "train",
            "--rules",
            "us",
            "--opponent",
            "self,greedy",
            "--timesteps",
            "1024",
            "--snapshot-every",
            "256",
            "--eval-every",
            "1024",
            "--init-bc",
            "chain",
            "--bc-decisions",
            "2000",
            "--bc-epochs",
            "2",
            "--bc-dagger",
            "1",
            "--out",
            str(out),
            *SMALL,
        ]
    )
    assert code == 0
    pool = json.loads((out / "pool.json").read_text())
    names = [m["name"] for m in pool]
    assert (
        names[0] == "greedy"
        and "self@0" in names
        and sum(n.startswith("self@") for n in names) >= 3
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bc"]["teacher"] == "chain" and summary["bc"]["held_out_agreement"] > 0.5
    assert summary["bc"]["dagger_rounds"] == 1 and summary["bc"]["recorded_decisions"] > 3000


def test_speed_train_refuses_bad_input(tmp_path, capsys):
    assert cli(["train", "--opponent", "nobody", "--out", str(tmp_path / "x")]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # a flag's bad value: argparse's one line
        cli(["train", "--net-arch", "a,b", "--out", str(tmp_path / "y")])
    assert refused.value.code == 2 and "argument --net-arch" in capsys.readouterr().err
    assert cli(["train", "--resume", "--out", str(tmp_path / "z")]) == 2
    assert "no run to resume" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_model_paths_are_plain_paths():
    assert kit_model.manifest_path_of("a/b.safetensors") == Path("a/b.json")
    assert kit_model.manifest_path_of("a/b") == Path("a/b.json")


def test_bc_labels_every_best_action_of_a_scoring_teacher():
    from train.bc import best_actions

    class Scorer:
        def scores(self, obs, n_actions):
            return np.tile(np.array([-1e6, 2.0, 2.0, 1.0, 2.0]), (len(obs), 1))

    mask = np.array([[1, 1, 1, 1, 0], [1, 0, 0, 1, 1]], np.int8)
    best = best_actions(Scorer(), np.zeros((2, 3), np.float32), mask, np.array([1, 4]))
    assert best.dtype == np.int8
    assert best.tolist() == [
        [0, 1, 1, 0, 0],
        [0, 0, 0, 0, 1],
    ]  # ties kept; illegal action 4 of row 0 is not
    # A teacher without scores labels just the action it chose.
    plain = best_actions(object(), np.zeros((2, 3), np.float32), mask, np.array([3, 0]))
    assert plain.tolist() == [[0, 0, 0, 1, 0], [1, 0, 0, 0, 0]]


def test_bc_fit_spreads_over_the_teachers_ties():
    # Labels {1, 2} tied best, 3 legal but worse: the fit must put nearly all mass on 1 and 2.

    from train.bc import BCConfig, _fit, _forward
    from train.vec_env.env import SpeedVecEnv

    env = SpeedVecEnv(4, "us", opponent="greedy")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [16]}, device="cpu"
    )
    rng = np.random.default_rng(0)
    n = 256
    mask = np.zeros((n, env.n_actions), np.int8)
    mask[:, [0, 1, 2, 3]] = 1
    best = np.zeros_like(mask)
    best[:, [1, 2]] = 1
    data = {
        "obs": rng.random((n, env.obs_dim), dtype=np.float32),
        "mask": mask,
        "best": best,
        "ret": np.zeros(n, np.float32),
    }
    _fit(
        model.policy, data, np.arange(n), 30, BCConfig(batch_size=64, learning_rate=3e-3), rng, None
    )
    with torch.no_grad():
        log_p, _ = _forward(model.policy, torch.as_tensor(data["obs"]), mask)
    p = log_p.exp().numpy()
    assert (p[:, 1] + p[:, 2] > 0.95).all()
    assert p[:, 4:].max() < 1e-6  # illegal actions get nothing


def test_returns_to_go_per_game_and_unknown_tail():
    from train.bc import returns_to_go

    # Env 0: a game ending at step 1 (reward 1), then one ending at step 3 (reward -1).
    # Env 1: one game ending at step 2, then a game still running at step 3.
    rew = np.array([[0, 0], [1, 0], [0, 1], [-1, 0]], np.float32)
    done = np.array([[0, 0], [1, 0], [0, 1], [1, 0]], bool)
    ret, known, game = returns_to_go(rew, done, 0.5)
    assert ret[:, 0].tolist() == [0.5, 1.0, -0.5, -1.0]
    assert ret[:3, 1].tolist() == [0.25, 0.5, 1.0]
    assert known[:, 0].all() and known[:3, 1].all() and not known[3, 1]
    assert game[:, 0].tolist() == [0, 0, 1, 1] and game[0, 1] == game[2, 1] != game[3, 1]
    assert set(game[:, 0]).isdisjoint(game[:, 1])


# ---------------------------------------------------------------------- the toolkit
def test_speed_train_spellings_give_the_same_settings(tmp_path):
    import dataclasses

    from train import ppo, vintage_ppo
    from train.common.cli_args import parse

    flags = ["--rules", "japanese", "--gamma", "0.99", "--no-skip-forced", "--out", "x"]
    old = parse(flags)
    assert old == parse(["--game", "realtime", *flags]) == parse(["realtime", *flags])
    assert old == parse(["--players", "2", *flags])  # two players is real-time Speed
    game, cfg = old
    assert game == "realtime" and (cfg.rules, cfg.gamma, cfg.skip_forced) == (
        "japanese",
        0.99,
        False,
    )
    # No flag given: every field takes its recipe's default (the flags are made from the dataclass).
    assert parse(["realtime"])[1] == ppo.Config()
    assert parse(["vintage"])[1] == vintage_ppo.VintageConfig()
    assert {f.name for f in dataclasses.fields(ppo.Config)} >= {"rules", "n_steps", "eval_every"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "vintage", "--shaping"], "--shaping: not a setting of the vintage recipe"),
        (["vintage", "--tick-ms", "20"], "--tick-ms: not a setting of the vintage recipe"),
        (["--players", "5"], "players must be 2, 3 or 4, got 5"),
        (["realtime", "--players", "4", "--seat", "0"], "seat: at --players 4 the learner's"),
        (["vintage", "--game", "vintage"], "--game: the game is the subcommand"),
        (["--game", "chess"], "--game must be realtime or vintage, got 'chess'"),
    ],
)
def test_speed_train_refuses_flags_its_game_does_not_have(tmp_path, capsys, argv, message):
    code = cli(["train", *argv, "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_speed_train_help_lists_each_registered_recipe(capsys):
    """The subcommands are the registered recipes (train/common/recipes.py), each with its line,
    and a subcommand's flags are its recipe's settings."""
    from train.common.recipes import RECIPES

    with pytest.raises(SystemExit) as done:
        cli(["train", "--help"])
    text = capsys.readouterr().out
    assert done.value.code == 0 and "{realtime,vintage}" in text
    for game, recipe in RECIPES.items():
        assert f"\n    {game} " in text and recipe.help[:30] in " ".join(text.split()), game
    with pytest.raises(SystemExit):
        cli(["train", "vintage", "--help"])
    assert "--players" in capsys.readouterr().out


def test_recipes_run_as_modules_with_their_own_flags(capsys):
    from train import ppo, vintage_ppo

    for recipe, own, foreign in (
        (ppo, ("--rules", "--players"), ()),  # realtime seats 2, 3 or 4 (--players)
        (vintage_ppo, ("--players",), ("--rules",)),
    ):
        with pytest.raises(SystemExit) as done:
            recipe.main(["--help"])
        text = capsys.readouterr().out
        assert done.value.code == 0 and all(f in text for f in own)
        assert not any(f in text for f in foreign)
        assert "--n-envs" in text and "--learning-rate" in text


def test_the_atomic_writer_honours_the_umask(tmp_path):
    import os

    from agents.runtime.files import write_atomic, write_json

    old = os.umask(0o027)
    try:
        path = write_atomic(tmp_path / "sub" / "a.bin", b"data")
        assert path.read_bytes() == b"data" and (path.stat().st_mode & 0o777) == 0o640
        write_json(tmp_path / "a.json", {"k": 1})
        assert json.loads((tmp_path / "a.json").read_text()) == {"k": 1}
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.bin", "a.json", "sub"]  # no leftovers
