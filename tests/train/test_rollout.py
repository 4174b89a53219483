"""The lean rollout collector fills the rollout buffer as MaskablePPO's own loop does.

:class:`train.policy.rollout.LeanMaskablePPO` draws its actions its own way (inverse
CDF on the run's uniforms); given the same actions, every array of the buffer,
the episode records, the time-limit bootstrap and the state carried to the
next rollout are the stock loop's. ``--rollout sb3`` gives the stock loop.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from train.common.settings import make_model, model_class
from train.policy.rollout import LeanMaskablePPO, draw
from train.ppo import Config, check_config
from train.vec_env.env import SpeedVecEnv

N_ENVS, N_STEPS = 16, 48


class Recorder(BaseCallback):
    """Keeps what a callback sees of each step (the names TrainCallback reads); stops the
    rollout after ``stop_after`` steps when given."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__()
        self.stop_after = stop_after
        self.seen: list[tuple[np.ndarray, list[dict]]] = []
        self.ends = 0

    def _on_step(self) -> bool:
        self.seen.append((self.locals["dones"].copy(), self.locals["infos"]))
        return self.stop_after is None or len(self.seen) < self.stop_after

    def _on_rollout_end(self) -> None:
        self.ends += 1


def _model(rollout: str, policy: str = "mlp", n_envs: int = N_ENVS, **env_options):
    """A model on a fresh env whose games are cut at 2 s (truncated, bootstrapped)."""
    env = SpeedVecEnv(n_envs, "us,japanese", opponent="greedy", seed=3, **env_options)
    cfg = Config(n_envs=n_envs, n_steps=N_STEPS, batch_size=64, net_arch="32,32", rollout=rollout)
    model = make_model(cfg, env, policy=policy)
    model.gamma = 0.9  # a visible bootstrap (the recipe's gamma is 1)
    model.rollout_buffer.gamma = 0.9
    return model, env


def _collect(model, callback: BaseCallback, rollouts: int = 1) -> list[bool]:
    _, cb = model._setup_learn(10**6, callback)
    return [
        model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)
        for _ in range(rollouts)
    ]


def _replaying(actions: np.ndarray):
    """A ``draw_actions`` that plays ``actions[k]`` at the k-th call."""
    calls = iter(actions)

    def replay(logits: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(next(calls)).view(-1, 1)

    return replay


BUFFER_EXACT = ("observations", "actions", "episode_starts", "action_masks")
BUFFER_CLOSE = ("rewards", "values", "log_probs", "advantages", "returns")


@pytest.mark.parametrize("policy", ["mlp", "rankwise"])
def test_the_lean_loop_fills_the_buffer_as_the_stock_loop_for_the_same_actions(policy):
    stock, _ = _model("sb3", policy, max_game_ms=2000)
    lean, _ = _model("lean", policy, max_game_ms=2000)
    assert type(stock) is MaskablePPO and type(lean) is LeanMaskablePPO
    seen_stock, seen_lean = Recorder(), Recorder()
    _collect(stock, seen_stock)
    theirs = {k: getattr(stock.rollout_buffer, k).copy() for k in BUFFER_EXACT + BUFFER_CLOSE}
    lean.draw_actions = _replaying(theirs["actions"])
    _collect(lean, seen_lean)
    ours = lean.rollout_buffer
    for name in BUFFER_EXACT:
        assert np.array_equal(getattr(ours, name), theirs[name]), name
    for name in BUFFER_CLOSE:  # one log-softmax for three normalisations, batched values
        np.testing.assert_allclose(getattr(ours, name), theirs[name], atol=2e-5, err_msg=name)
    # games were cut by the time limit, so the bootstrap was exercised
    cut = sum(
        info.get("TimeLimit.truncated", False) for _, infos in seen_stock.seen for info in infos
    )
    assert cut > 0
    # the episode records and the state carried into the next rollout
    assert [(e["r"], e["l"]) for e in lean.ep_info_buffer] == [
        (e["r"], e["l"]) for e in stock.ep_info_buffer
    ]
    assert list(lean.ep_success_buffer) == list(stock.ep_success_buffer)
    assert len(lean.ep_info_buffer) > 0
    assert lean.num_timesteps == stock.num_timesteps == N_STEPS * N_ENVS
    assert np.array_equal(lean._last_obs, stock._last_obs)
    assert np.array_equal(lean._last_episode_starts, stock._last_episode_starts)
    # the callback saw the same dones and infos at every step, and the rollout's end
    assert len(seen_lean.seen) == len(seen_stock.seen) == N_STEPS
    for (d1, i1), (d2, i2) in zip(seen_lean.seen, seen_stock.seen, strict=True):
        assert np.array_equal(d1, d2)
        assert all(_same_info(a, b) for a, b in zip(i1, i2, strict=True))
    assert seen_lean.ends == seen_stock.ends == 1


def _same_info(a: dict, b: dict) -> bool:
    """The same info dict, but for the wall-clock ``episode['t']``."""
    if sorted(a) != sorted(b):
        return False
    for key in a:
        x, y = a[key], b[key]
        if key == "episode":
            x, y = (x["r"], x["l"]), (y["r"], y["l"])
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def test_a_time_limit_cut_is_bootstrapped_with_the_critics_value_of_its_last_observation():
    model, env = _model("lean")
    obs = env.reset()
    infos = [{} for _ in range(N_ENVS)]
    infos[2] = {"terminal_observation": obs[5], "TimeLimit.truncated": True}
    infos[4] = {"terminal_observation": obs[6], "TimeLimit.truncated": False}  # a real end
    infos[7] = {"terminal_observation": obs[8], "TimeLimit.truncated": True}
    rewards = np.ones(N_ENVS, np.float32)
    model._bootstrap_truncated(np.array([2, 4, 7, 9]), infos, rewards)
    with torch.no_grad():
        value = model.policy.predict_values(torch.as_tensor(obs[[5, 8]])).numpy().ravel()
    expected = np.ones(N_ENVS, np.float32)
    expected[[2, 7]] += 0.9 * value
    np.testing.assert_allclose(rewards, expected, rtol=1e-6)


def test_the_draw_picks_only_legal_actions_in_proportion_to_their_probabilities():
    gen = torch.Generator().manual_seed(0)
    logits = torch.tensor([[0.0, 1.0, 2.0, -1.0]]).repeat(40_000, 1)
    legal = torch.tensor([[False, True, True, True]]).repeat(40_000, 1)
    masked = torch.where(legal, logits, -1e8)
    drawn = draw(masked, 1.0 - torch.rand(40_000, 1, generator=gen)).view(-1)
    share = torch.bincount(drawn, minlength=4).double() / 40_000
    want = torch.softmax(masked.double()[0], dim=-1)
    assert share[0] == 0.0
    assert torch.allclose(share, want, atol=0.01)  # 40k draws: a few standard errors
    # the ends of (0, 1]: the first and the last legal action, never the masked one
    ends = draw(masked[:2], torch.tensor([[1e-12], [1.0]])).view(-1)
    assert ends.tolist() == [1, 3]
    # a diverged network's row draws an action the env refuses (not a silent legal-looking one)
    assert draw(torch.full((1, 4), float("nan")), torch.tensor([[0.5]])).item() == 4


def test_the_rollout_flag_switches_the_collector():
    assert model_class("sb3") is MaskablePPO and model_class("lean") is LeanMaskablePPO
    for rollout, forward_calls in (("sb3", N_STEPS), ("lean", 0)):
        model, _ = _model(rollout)
        calls: list[int] = []

        def counted(*args, forward=model.policy.forward, calls=calls, **kwargs):
            calls.append(1)
            return forward(*args, **kwargs)

        model.policy.forward = counted
        _collect(model, Recorder())
        assert len(calls) == forward_calls, rollout  # the stock loop calls the policy's forward
    with pytest.raises(ValueError, match="rollout must be lean or sb3"):
        check_config(Config(rollout="fast"))
    with pytest.raises(ValueError, match="rollout must be lean or sb3"):
        model_class("fast")


def test_a_model_the_lean_loop_does_not_serve_gets_the_stock_loop():
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    class OwnBuffer(MaskableRolloutBuffer):
        """A buffer of someone's own: the lean loop writes only sb3-contrib's."""

    env = SpeedVecEnv(4, "us", opponent="greedy", seed=0)
    model = LeanMaskablePPO(
        "MlpPolicy", env, n_steps=8, batch_size=32, rollout_buffer_class=OwnBuffer, device="cpu"
    )
    assert not model.uses_lean_loop(model.rollout_buffer)
    calls: list[int] = []

    def counted(*args, forward=model.policy.forward, **kwargs):
        calls.append(1)
        return forward(*args, **kwargs)

    model.policy.forward = counted
    assert _collect(model, Recorder()) == [True]
    assert len(calls) == 8  # MaskablePPO's own loop: the policy's forward once a step


def test_a_callback_that_stops_stops_the_lean_rollout():
    model, _ = _model("lean")
    stopper = Recorder(stop_after=3)
    assert _collect(model, stopper) == [False]
    assert len(stopper.seen) == 3 and stopper.ends == 0


def test_the_lean_loop_serves_5_envs_across_rollouts_and_learn_drawing_only_legal_actions():
    model, _ = _model("lean", n_envs=5)
    assert _collect(model, Recorder(), rollouts=2) == [True, True]
    assert model.num_timesteps == 2 * N_STEPS * 5
    model.learn(N_STEPS * 5, reset_num_timesteps=False)
    assert model.num_timesteps == 3 * N_STEPS * 5
    buf = model.rollout_buffer
    legal = buf.action_masks.reshape(-1, 27)[np.arange(N_STEPS * 5), buf.actions.reshape(-1)]
    assert (legal == 1).all()  # every action drawn was legal


@pytest.mark.parametrize(("flags", "lean_rollouts"), [((), True), (("--rollout", "sb3"), False)])
def test_speed_train_collects_with_the_collector_its_flag_names(
    tmp_path, monkeypatch, flags, lean_rollouts
):
    from speed_cli import main as cli

    lean_calls: list[int] = []

    def counted(self, *args, **kwargs):
        lean_calls.append(1)
        return collect(self, *args, **kwargs)

    collect = LeanMaskablePPO.collect_rollouts
    monkeypatch.setattr(LeanMaskablePPO, "collect_rollouts", counted)
    small = ["--n-envs", "8", "--n-steps", "32", "--batch-size", "128", "--n-epochs", "1"]
    argv = ["train", "--rules", "us", "--opponent", "greedy", "--timesteps", "512", *small]
    argv += ["--net-arch", "16", "--eval-games", "2", "--eval-opponents", "random"]
    assert cli([*argv, "--no-progress", "--out", str(tmp_path / "run"), *flags]) == 0
    # 512 timesteps are two rollouts of 8 x 32 steps
    assert len(lean_calls) == (2 if lean_rollouts else 0)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_the_mlp_forward_computes_the_policys_own_numbers(activation):
    from train.policy.rollout import MlpForward, policy_logits_and_values

    env = SpeedVecEnv(N_ENVS, "us", opponent="greedy", seed=1)
    cfg = Config(n_envs=N_ENVS, batch_size=64, net_arch="32,16", activation=activation)
    policy = make_model(cfg, env).policy
    forward = MlpForward.of(policy, N_ENVS)
    assert forward is not None
    obs = torch.as_tensor(env.reset())
    with torch.inference_mode():
        for _ in range(2):  # the hidden outputs are reused from call to call
            ours, theirs = forward(obs), policy_logits_and_values(policy, obs)
            assert torch.equal(ours[0], theirs[0]) and torch.equal(ours[1], theirs[1])
    # a network of another shape takes the policy's own modules
    rankwise = make_model(Config(n_envs=N_ENVS, batch_size=64), env, policy="rankwise").policy
    assert MlpForward.of(rankwise, N_ENVS) is None
    policy.value_net.register_forward_hook(lambda *args: None)  # a hook must still run
    assert MlpForward.of(policy, N_ENVS) is None
