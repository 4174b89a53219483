"""RLlib modules for real-time Speed: the masked actor-critic MLP the kit can save, and bots.

:class:`MaskedMLPModule` is the network of the kit's model format
(``agents/model_io/kit_model.py``): an actor MLP ``pi.K`` with a ``logits`` head and a
separate critic MLP ``vf.K`` with a ``value`` head. Its forward pass reads the
``{"observation", "action_mask"}`` dict and sets the logits of illegal actions
to the float minimum, so PPO never samples or trains on them.
:func:`kit_tensors` names its weights as the kit does, so an RLlib-trained
policy is saved by ``model_io.save_model`` unchanged and plays as ``ppo:PATH``.

:class:`BotModule` plays a kit agent (``greedy``, ``chain``, …) inside RLlib:
a frozen opponent that returns actions, never trained.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from agents.model_io.mlp import ACTIVATIONS

# The mask floor, not -inf: RLlib's entropy and KL terms would meet 0 * -inf = NaN.
_FLOAT_MIN = torch.finfo(torch.float32).min


def _mlp(sizes: list[int], activation: str) -> nn.Sequential:
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for n_in, n_out in itertools.pairwise(sizes):
        layers += [nn.Linear(n_in, n_out), act()]
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """Actor and critic MLPs over the observation; illegal actions masked out of the logits.

    ``model_config``: ``hidden`` (layer sizes, default ``[256, 256]``) and
    ``activation`` (``tanh`` or ``relu``, default ``relu``).
    """

    def setup(self) -> None:
        """Build ``pi``/``logits`` and ``vf``/``value`` for the dict observation space."""
        cfg = self.model_config or {}
        hidden = [int(h) for h in cfg.get("hidden", [256, 256])]
        activation = str(cfg.get("activation", "relu"))
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
        obs_dim = int(self.observation_space["observation"].shape[0])
        n_actions = int(self.action_space.n)
        self.hidden, self.activation = hidden, activation
        self.pi = _mlp([obs_dim, *hidden], activation)
        self.logits = nn.Linear(hidden[-1], n_actions)
        self.vf = _mlp([obs_dim, *hidden], activation)
        self.value = nn.Linear(hidden[-1], 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.logits(self.pi(obs["observation"]))
        return {Columns.ACTION_DIST_INPUTS: logits.masked_fill(obs["action_mask"] == 0, _FLOAT_MIN)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The critic's value of each observation (PPO's baseline)."""
        return self.value(self.vf(batch[Columns.OBS]["observation"])).squeeze(-1)


def kit_tensors(state: dict[str, Any]) -> dict[str, np.ndarray]:
    """A :class:`MaskedMLPModule`'s state dict as the kit's tensors.

    The names are ``pi.K.*``, ``logits.*``, ``vf.K.*`` and ``value.*``: the ``K``-th ``Linear``
    of each ``nn.Sequential`` is layer ``K``.
    """
    out: dict[str, np.ndarray] = {}
    for prefix in ("pi", "vf"):
        indices = sorted({int(k.split(".")[1]) for k in state if k.startswith(prefix + ".")})
        for k, index in enumerate(indices):  # Linear, activation, Linear, …: the Linears only
            for part in ("weight", "bias"):
                out[f"{prefix}.{k}.{part}"] = np.asarray(
                    state[f"{prefix}.{index}.{part}"], np.float32
                )
    for head in ("logits", "value"):
        for part in ("weight", "bias"):
            out[f"{head}.{part}"] = np.asarray(state[f"{head}.{part}"], np.float32)
    return out


class BotModule(RLModule):
    """A kit agent (``model_config["spec"]``, rules ``model_config["rules"]``) frozen."""

    def setup(self) -> None:
        """Build the agent once per env runner."""
        import agents

        cfg = self.model_config or {}
        self.bot = agents.make(
            str(cfg["spec"]), cfg.get("rules", "us"), seed=int(cfg.get("seed", 0))
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        x = np.asarray(obs["observation"], np.float32)
        # Bots read int8 masks, whatever dtype RLlib batched them in.
        mask = np.asarray(obs["action_mask"]).astype(np.int8)
        return {Columns.ACTIONS: np.asarray(self.bot.act(x, mask), np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            "a bot opponent is never trained (keep it out of policies_to_train)"
        )

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib calls this on torch modules)."""

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """A bot has no weights."""
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        """A bot has no weights."""
