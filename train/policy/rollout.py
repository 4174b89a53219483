"""A lean rollout collector for MaskablePPO (training speed; ``--rollout lean``, the default).

sb3-contrib's ``MaskablePPO.collect_rollouts`` spends, per step of 256
real-time games, about as long around the policy as in it: the masks
gathered row by row through ``env_method`` and stacked, the policy's
distribution (three normalisations and ``torch.multinomial``), the rollout
buffer's copies, and two Python passes over every env's info (the episode
buffer and the time-limit bootstrap). :class:`LeanMaskablePPO` is MaskablePPO
with :meth:`~LeanMaskablePPO.collect_rollouts` rewritten in the CleanRL
spirit, for a CPU model with a ``Box`` observation, a ``Discrete`` action and
sb3-contrib's ``MaskableRolloutBuffer`` (anything else takes the stock loop):

- the observation and the masks are written once, into the rollout buffer's
  arrays, and the policy reads those rows (no other copy);
- one forward pass under ``torch.inference_mode`` through the policy's own
  modules (its feature extractor once when shared, actor, critic, heads; for
  SB3's MLP, :class:`MlpForward`: the same products into hidden outputs
  allocated once a rollout), then the masked log-softmax and an inverse-CDF
  draw (:func:`draw`) on one uniform a row from the run's own seeded
  generator, drawn for the whole rollout at its start;
- only the envs that finished a game are visited in Python: their infos go
  to SB3's ``_update_info_buffer`` (``ep_info_buffer``, ``ep_success_buffer``;
  SB3's VecEnvs, like :class:`~train.vec_env.env.SpeedVecEnv`, put ``episode``
  and ``is_success`` in a finished game's info only), and those cut by the
  time limit (``TimeLimit.truncated`` with a ``terminal_observation``) are
  bootstrapped with ``gamma`` times the critic's value, in one batch.

Everything else is the stock loop's: ``num_timesteps``, ``_last_obs`` and
``_last_episode_starts``, the callback's ``on_rollout_start``, ``on_step``
after ``update_locals`` (the same local names: ``infos``, ``dones``,
``rewards``, ``new_obs``, ``actions``, ``values``, ``log_probs``), stopping
when it returns False, and ``compute_returns_and_advantage`` on the last
values before ``on_rollout_end``. The buffer holds what the stock loop would
for the same actions (``tests/train/test_rollout.py``), to float rounding: one
log-softmax where sb3-contrib normalises three times, the truncated games'
values in one batch.

The draw is not ``torch.multinomial``'s, so a run samples other actions than
the stock loop would: ``--rollout sb3`` (:func:`train.common.settings.model_class`) keeps
MaskablePPO's own loop, which repeats earlier runs exactly. Each rollout's
uniforms come from a generator seeded with the model's seed and the timestep
the rollout starts at, so they do not depend on what else drew from torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv
from torch import nn

from train.policy.masked_policy import HUGE_NEG

__all__ = [
    "LeanMaskablePPO",
    "MlpForward",
    "draw",
    "policy_logits_and_values",
]

_SEED_STRIDE = 1_000_003  # spreads (seed, timestep) pairs over distinct generator seeds


def draw(logits: torch.Tensor, uniforms: torch.Tensor) -> torch.Tensor:
    """One action a row, by inverse CDF.

    The first action whose cumulative probability reaches the row's uniform times the row's
    total.

    - ``logits`` ``(B, A)``: masked actions at a huge negative value, probability exactly 0,
      never drawn;
    - ``uniforms`` ``(B, 1)`` in ``(0, 1]``: at 0 a leading masked action would be drawn;
    - returns the actions ``(B, 1)``, int64.

    A row of NaN logits, a diverged network, draws ``A``, which the env refuses as outside its
    action space.
    """
    # softmax, not exp of the log-probabilities: torch's exp is ~8x slower on the -1e8 entries
    cdf = torch.softmax(logits, dim=-1).cumsum(dim=-1)
    # u * total <= total in floating point too: the search never runs past the last action
    return torch.searchsorted(cdf, uniforms * cdf[:, -1:])


def policy_logits_and_values(policy: Any, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The raw action logits ``(B, A)`` and values ``(B, 1)`` of a ``MaskableActorCriticPolicy``.

    Its ``forward`` up to the distribution, through the same modules; the features are
    extracted once when actor and critic share the extractor.
    """
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        pi_features = vf_features = features
    else:
        pi_features, vf_features = features
    latent_pi = policy.mlp_extractor.forward_actor(pi_features)
    latent_vf = policy.mlp_extractor.forward_critic(vf_features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf)


_IN_PLACE = {nn.ReLU: torch.Tensor.relu_, nn.Tanh: torch.Tensor.tanh_}
Layer = tuple[torch.Tensor, torch.Tensor, Callable[[torch.Tensor], Any] | None]


def _layers(net: nn.Module, head: nn.Module) -> list[Layer] | None:
    """``net`` (Linear layers, each maybe followed by ReLU or Tanh) then the linear ``head`` as
    (bias, transposed weight, in-place activation) triples; None for any other shape."""
    plan: list[Layer] = []
    for m in [*net, head] if isinstance(net, nn.Sequential) else []:
        # type, not isinstance: a subclass of Linear may compute something else.
        if type(m) is nn.Linear and m.bias is not None:
            plan.append((m.bias, m.weight.t(), None))
        # An activation only right after a Linear, and never after the head.
        elif type(m) in _IN_PLACE and plan and plan[-1][2] is None and m is not head:
            plan[-1] = (*plan[-1][:2], _IN_PLACE[type(m)])
        else:
            return None
    return plan if plan and plan[-1][2] is None else None


class MlpForward:
    """:func:`policy_logits_and_values` of SB3's MLP actor-critic, into outputs allocated once.

    The network is a flattening feature extractor, ``MlpExtractor``'s Linear and ReLU/Tanh
    layers, and linear heads. Its hidden layers are written with the same ``addmm`` that
    ``nn.Linear`` calls, so the same numbers, without a module call or a fresh tensor a layer:
    after an env step the allocator's fresh memory is cold, about 85 us a step of 256 rows with
    64x64 networks. :meth:`of` gives None for any other policy.
    """

    def __init__(self, actor: list[Layer], critic: list[Layer], rows: int) -> None:
        self.nets = [
            (layers, [torch.empty(rows, w.shape[1]) for _, w, _ in layers[:-1]])
            for layers in (actor, critic)
        ]

    @classmethod
    def of(cls, policy: Any, rows: int) -> MlpForward | None:
        """The fast forward of ``policy`` for batches of ``rows``, or None where it does not apply.

        It does not apply to another network, a hook on a module, or observations that are not
        flat float32.
        """
        from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor

        space = policy.observation_space
        if (
            type(policy.mlp_extractor) is not MlpExtractor
            or not policy.share_features_extractor
            or type(policy.features_extractor) is not FlattenExtractor
            or len(space.shape) != 1
            or space.dtype != np.float32
            # The fast path calls no module, so a hook would be skipped: fall back.
            or any(m._forward_hooks or m._forward_pre_hooks for m in policy.modules())
        ):
            return None
        ext = policy.mlp_extractor
        actor = _layers(ext.policy_net, policy.action_net)
        critic = _layers(ext.value_net, policy.value_net)
        return None if actor is None or critic is None else cls(actor, critic, rows)

    def __call__(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The raw logits and the values of a batch of ``rows`` flat observations."""
        logits_and_values = []
        for layers, outs in self.nets:
            x = obs
            for (bias, weight_t, act), out in zip(layers[:-1], outs, strict=True):
                torch.addmm(bias, x, weight_t, out=out)
                if act is not None:
                    act(out)
                x = out
            bias, weight_t, _ = layers[-1]
            logits_and_values.append(torch.addmm(bias, x, weight_t))  # fresh: handed out
        return logits_and_values[0], logits_and_values[1]


class LeanMaskablePPO(MaskablePPO):
    """MaskablePPO with the lean :meth:`collect_rollouts`, as the module docstring says.

    Everything else, the update, saving and loading included, is MaskablePPO's.
    """

    draw_actions: Any = staticmethod(draw)
    """``(masked logits, uniforms) -> actions``: how a step's actions are drawn (a test replaces
    it to replay given actions)."""

    def uses_lean_loop(self, rollout_buffer: Any) -> bool:
        """Whether the lean loop serves this model, else MaskablePPO's own loop runs.

        It needs a CPU model, a ``Box`` observation, a ``Discrete`` action, sb3-contrib's buffer.
        """
        return (
            self.device.type == "cpu"
            and type(rollout_buffer) is MaskableRolloutBuffer
            and isinstance(self.action_space, spaces.Discrete)
            and isinstance(self.observation_space, spaces.Box)
        )

    def _uniforms(self, n_steps: int, n_envs: int) -> torch.Tensor:
        """The rollout's uniforms in (0, 1], ``(n_steps, n_envs, 1)``.

        Seeded from the model's seed, 0 when it has none, and the timestep the rollout starts at.
        """
        seed = (self.seed or 0) * _SEED_STRIDE + self.num_timesteps
        gen = torch.Generator().manual_seed(seed % 2**63)
        # rand is in [0, 1); draw needs (0, 1].
        return 1.0 - torch.rand(n_steps, n_envs, 1, generator=gen)

    def collect_rollouts(
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: Any,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        """Fill ``rollout_buffer`` with ``n_rollout_steps`` steps of every env.

        As the module docstring says; False if the callback stopped the rollout.
        """
        if not self.uses_lean_loop(rollout_buffer):
            return super().collect_rollouts(
                env, callback, rollout_buffer, n_rollout_steps, use_masking
            )
        assert self._last_obs is not None, "No previous observation was provided"
        if use_masking and not is_masking_supported(env):
            raise ValueError(
                "Environment does not support action masking. Consider using ActionMasker wrapper"
            )
        policy, buf = self.policy, rollout_buffer
        policy.set_training_mode(False)
        buf.reset()
        own_masks = getattr(env, "action_masks", None)
        masks_of = own_masks if callable(own_masks) else (lambda: get_action_masks(env))
        uniforms = self._uniforms(n_rollout_steps, env.num_envs)
        forward = MlpForward.of(policy, env.num_envs) or (
            lambda obs: policy_logits_and_values(policy, obs)
        )
        callback.on_rollout_start()

        n_steps = 0
        action_masks = None
        while n_steps < n_rollout_steps:
            pos = buf.pos
            # The buffer row doubles as the network's input: from_numpy shares it, no copy.
            buf.observations[pos] = self._last_obs
            obs_tensor = torch.from_numpy(buf.observations[pos])
            with torch.inference_mode():
                logits, values = forward(obs_tensor)
                if use_masking:
                    action_masks = np.asarray(masks_of()).reshape(buf.action_masks[pos].shape)
                    buf.action_masks[pos] = action_masks
                    legal = torch.from_numpy(action_masks).bool()  # from int8: ~1/7 of `> 0`'s time
                    logits = torch.where(legal, logits, HUGE_NEG)
                chosen = self.draw_actions(logits, uniforms[n_steps])
                # Of the masked logits: the log-probabilities the update will compute again.
                log_probs = torch.log_softmax(logits, dim=-1).gather(1, chosen).view(-1)
            actions = chosen.numpy().reshape(-1)
            new_obs, rewards, dones, infos = env.step(actions)
            # Counted before the callback, as in SB3's loop: callbacks read it.
            self.num_timesteps += env.num_envs

            callback.update_locals(locals())
            if not callback.on_step():
                return False

            ended = np.flatnonzero(dones)
            if ended.size:
                self._update_info_buffer([infos[i] for i in ended], dones[ended])
                self._bootstrap_truncated(ended, infos, rewards)
            n_steps += 1

            # Written after the callback, as in SB3: a stop leaves this step out.
            buf.actions[pos] = chosen.numpy()
            buf.rewards[pos] = rewards
            buf.episode_starts[pos] = self._last_episode_starts
            buf.values[pos] = values.numpy().reshape(-1)
            buf.log_probs[pos] = log_probs.numpy()
            buf.pos += 1
            buf.full = buf.pos == buf.buffer_size
            self._last_obs = new_obs  # type: ignore[assignment]
            self._last_episode_starts = dones

        with torch.inference_mode():
            # the value of the observation after the last step (masks play no part in it)
            values = policy.predict_values(torch.as_tensor(new_obs, device=self.device))
        buf.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.update_locals(locals())
        callback.on_rollout_end()
        return True

    def _bootstrap_truncated(self, ended: np.ndarray, infos: Any, rewards: np.ndarray) -> None:
        """Add ``gamma`` times the critic's value of the terminal observation to the reward of
        each ended game cut by the time limit (SB3's bootstrap, issue #633), in one batch."""
        cut = [
            int(i)
            for i in ended
            if infos[i].get("terminal_observation") is not None
            and infos[i].get("TimeLimit.truncated", False)
        ]
        if not cut:
            return
        terminal = np.stack([infos[i]["terminal_observation"] for i in cut])
        with torch.inference_mode():
            values = self.policy.predict_values(torch.as_tensor(terminal, device=self.device))
        # SB3's bootstrap: a game cut by the clock is paid the discounted value of where
        # it stopped, not a loss.
        rewards[cut] += self.gamma * values.numpy().reshape(-1)
