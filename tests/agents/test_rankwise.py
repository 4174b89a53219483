"""The rank-relative network (``--policy rankwise``): one scorer shared by every play, fed the
observation re-indexed to the play's rank; numpy and torch agree; its files are checked."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers_rankwise import torch_actor

import speed_env
from agents.model_io import kit_model
from agents.model_io.rankwise import RankwisePolicy, check_rules, gather, rankwise_shapes
from agents.model_io.rankwise_gather import rotate_ranks
from agents.model_io.tensor_file import ModelFormatError
from speed_env.observation import obs_dim
from speed_env.rules import Rules, make_rules

DIM = obs_dim(Rules(preset="us"))
HIDDEN = [16, 8]


def random_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    """Random actor weights (large enough that every action's score differs)."""
    rng = np.random.default_rng(seed)
    return {
        name: rng.normal(0.0, 0.5, shape).astype(np.float32)
        for name, shape in rankwise_shapes(DIM, HIDDEN).items()
    }


def played_observations(rules: str, n: int = 32, ticks: int = 40) -> np.ndarray:
    """Seat 0's observations after some random legal play (cards in flight, layouts, stacks)."""
    env = speed_env.BatchEnv(n, rules)
    obs, mask = env.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(ticks):
        actions = np.where(mask > 0, rng.random(mask.shape), -1.0).argmax(axis=2)
        obs, mask, *_ = env.step(actions)
    return np.asarray(obs[0], np.float32)


@pytest.mark.parametrize("rules", ["japanese", "us"])
def test_rotating_every_rank_by_one_step_rotates_the_play_scores(rules):
    """With wrap-around ranks, the table with every rank one higher scores the play of rank
    r + 1 exactly as it scored the play of rank r; the wait logit does not change."""
    policy = RankwisePolicy(random_tensors(), "relu", obs_dim=DIM)
    obs = played_observations(rules)
    before = policy.logits(obs)
    after = policy.logits(rotate_ranks(obs, 1))
    plays_before = before[:, 1:].reshape(-1, 13, 2)  # (rank, pile)
    plays_after = after[:, 1:].reshape(-1, 13, 2)
    np.testing.assert_allclose(plays_after, np.roll(plays_before, 1, axis=1), atol=1e-5)
    np.testing.assert_allclose(after[:, 0], before[:, 0], atol=1e-5)
    assert np.ptp(plays_before, axis=1).min() > 0  # the ranks' scores differ: not a trivial pass


def test_each_play_reads_its_own_rank_first():
    """The first feature of play (r, p) is my hand's count of rank r; the 14th is rank r's
    count in pile p's one-hot top."""
    obs = played_observations("us")
    feats = gather(obs)
    lay = speed_env.observation.observation_layout(Rules(preset="us"))
    for r in range(13):
        for p in (0, 1):
            a = 2 * r + p
            np.testing.assert_array_equal(feats[:, a, 0], obs[:, lay["hand"].start + r])
            top = lay["centre_top"].start + 13 * p + r
            np.testing.assert_array_equal(feats[:, a, 13 * 2], obs[:, top])


def test_numpy_inference_equals_torch_inference():
    """The numpy actor the bundled agent plays with gives the torch actor's logits, on played
    and on uniformly random observations."""
    torch = pytest.importorskip("torch")

    tensors = random_tensors(3)
    actor = torch_actor(DIM, HIDDEN, tensors)
    policy = RankwisePolicy(tensors, "relu", obs_dim=DIM)
    rng = np.random.default_rng(0)
    for obs in (played_observations("japanese"), rng.random((64, DIM), dtype=np.float32)):
        with torch.no_grad():
            want = actor(torch.as_tensor(obs)).numpy()
        np.testing.assert_allclose(policy.logits(obs), want, rtol=1e-5, atol=1e-5)


def save_tiny(path, tensors=None):
    """A rankwise model trained (so its manifest says) on japanese and us."""
    return kit_model.save_model(
        path,
        tensors or random_tensors(),
        rules=[make_rules("japanese"), make_rules("us")],
        hidden=HIDDEN,
        activation="relu",
        kind="rankwise",
        training={"timesteps": 0},
    )


def gathered_logits(tensors: dict[str, np.ndarray], obs: np.ndarray) -> np.ndarray:
    """The network written out the slow way: every play's gathered features through the shared
    MLP (the definition the folded first layer must equal)."""
    h = gather(obs).astype(np.float64)
    for k in range(len(HIDDEN)):
        h = np.maximum(h @ tensors[f"act.{k}.weight"].T + tensors[f"act.{k}.bias"], 0.0)
    plays = h @ tensors["score.weight"][0] + tensors["score.bias"][0]
    pooled = np.concatenate([h.mean(axis=1), h.max(axis=1)], axis=1)
    wait = pooled @ tensors["wait.weight"][0] + tensors["wait.bias"][0]
    return np.concatenate([wait[:, None], plays], axis=1)


def test_the_folded_first_layer_equals_the_gathered_network():
    """The first layer run as one matmul over the observation (numpy and torch) gives the
    logits of the gathered features through the shared MLP, and torch's gradient of the first
    layer's weight is the gathered network's."""
    torch = pytest.importorskip("torch")
    from train.policy.rankwise_policy import RankwiseActor

    tensors = random_tensors(7)
    obs = np.concatenate([played_observations("us"), played_observations("japanese")])
    want = gathered_logits(tensors, obs)
    np.testing.assert_allclose(
        RankwisePolicy(tensors, "relu", obs_dim=DIM).logits(obs), want, rtol=1e-4, atol=1e-4
    )
    actor = RankwiseActor(DIM, HIDDEN, torch.nn.ReLU).double()
    named = {
        f"act.{k}.{w}": getattr(layer, w)
        for k, layer in enumerate(actor.act)
        for w in ("weight", "bias")
    }
    named.update(
        {
            f"{h}.{w}": getattr(getattr(actor, h), w)
            for h in ("score", "wait")
            for w in ("weight", "bias")
        }
    )
    with torch.no_grad():
        for name, param in named.items():
            param.copy_(torch.from_numpy(tensors[name]))
    x = torch.from_numpy(obs).double()
    got = actor(x)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-9, atol=1e-9)
    (grad,) = torch.autograd.grad(got.square().sum(), actor.act[0].weight)
    w0 = actor.act[0].weight.detach().clone().requires_grad_(True)
    h = torch.from_numpy(gather(obs)).double() @ w0.T + actor.act[0].bias.detach()
    h = torch.relu(h)
    for layer in actor.act[1:]:
        h = torch.relu(layer(h))
    pooled = torch.cat([h.mean(dim=1), h.amax(dim=1)], dim=1)
    ref = torch.cat([actor.wait(pooled), actor.score(h).squeeze(-1)], dim=1)
    (want_grad,) = torch.autograd.grad(ref.square().sum(), w0)
    np.testing.assert_allclose(grad.numpy(), want_grad.numpy(), rtol=1e-9, atol=1e-9)
    assert np.abs(want_grad.numpy()).max() > 0  # a gradient that is there to compare


def test_a_rankwise_model_file_round_trips(tmp_path):
    """Saved and loaded back, it names its network and plays the same logits and actions."""
    tensors = random_tensors(7)
    path = save_tiny(tmp_path / "rw", tensors)
    manifest = json.loads(path.read_text())
    assert manifest["net"]["kind"] == "rankwise" and manifest["net"]["features"] == 194
    loaded = kit_model.load_policy(path, make_rules("us"))
    assert isinstance(loaded, RankwisePolicy)
    obs = played_observations("us")
    mask = np.ones((len(obs), 27), np.int8)
    mine = RankwisePolicy(tensors, "relu", obs_dim=DIM)
    np.testing.assert_array_equal(loaded.logits(obs), mine.logits(obs))
    np.testing.assert_array_equal(loaded.act(obs, mask), mine.act(obs, mask))


def _rewrite(path, change):
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["net"].update(kind="transformer"), "net must be one of mlp, rankwise"),
        (lambda m: m["net"].update(features=193), "gather reads 193 features per action"),
        (lambda m: m["net"].update(hidden=[16, 9]), "tensor 'act.1.weight' has shape"),
        (lambda m: m["net"].update(kind="mlp"), "lacks the tensors pi.0.weight"),
    ],
)
def test_a_bad_rankwise_file_is_refused_by_name(tmp_path, change, message):
    """A manifest that names another network, another gather or other sizes is refused,
    naming the file and what does not fit."""
    path = save_tiny(tmp_path / "rw")
    _rewrite(path, change)
    with pytest.raises(ModelFormatError, match=message) as err:
        kit_model.load_policy(path, make_rules("us"))
    assert "rw.safetensors" in str(err.value) or "rw.json" in str(err.value)


def test_rules_it_cannot_play_are_refused():
    """Jokers, stack or multi-play moves and rules without wrap-around are named."""
    check_rules(make_rules("japanese"))
    for options, named in (
        ({"jokers": True}, "jokers"),
        ({"multi_play": True, "stack_layout": True}, "stack_layout, multi_play"),
        ({"wrap": False}, "wrap=false"),
    ):
        with pytest.raises(ModelFormatError, match=named):
            check_rules(Rules(preset="japanese", **options))


@pytest.mark.slow
def test_speed_train_policy_rankwise_writes_a_model_that_plays(tmp_path):
    """``speed train --policy rankwise`` trains, snapshots into its self-play pool and writes a
    rankwise model that ``ppo:PATH`` plays; ``--policy rankwise`` with jokers is refused."""
    pytest.importorskip("sb3_contrib")
    import agents
    from speed_cli import main as cli

    out = tmp_path / "rw"
    small = ["--n-envs", "16", "--n-steps", "32", "--batch-size", "256", "--n-epochs", "1"]
    small += ["--net-arch", "16", "--eval-games", "4", "--eval-opponents", "greedy"]
    small += ["--options", "max_game_ms=30000", "--no-progress"]
    argv = ["train", "--rules", "japanese,us", "--policy", "rankwise", "--opponent", "self"]
    argv += ["--timesteps", "1024", "--snapshot-every", "512", "--eval-every", "1024"]
    assert cli([*argv, "--out", str(out), *small]) == 0
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["net"]["kind"] == "rankwise"
    assert any(p.name.startswith("self_") for p in (out / "pool").glob("*.json"))
    bot = agents.make(f"ppo:{out / 'model.json'}", "us")
    obs = played_observations("us", n=8)
    env_mask = np.ones((8, 27), np.int8)
    assert isinstance(bot, RankwisePolicy) and bot.act(obs, env_mask).shape == (8,)
    refused = ["train", "--rules", "japanese", "--policy", "rankwise", "--options", "jokers=true"]
    assert cli([*refused, "--out", str(tmp_path / "j"), "--no-progress"]) == 2
