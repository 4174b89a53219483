"""The rank-relative network (:mod:`agents.model_io.rankwise`) as an sb3-contrib MaskablePPO policy.

``speed train --policy rankwise`` trains it. :class:`RankwisePolicy`
subclasses ``MaskableActorCriticPolicy`` and replaces only its networks
(``_build_mlp_extractor``): the actor is :class:`RankwiseActor`, the gather of
:func:`agents.model_io.rankwise_gather.action_features` followed by one MLP shared by every
play action (26 at two seats, 13 per pile at three or four: the seat count is read from the
observation's length; ``net_arch["pi"]`` its hidden sizes; its first layer run as one
matmul over the observation, :class:`agents.model_io.rankwise.FirstLayerPlan`) and a wait
head over the actions' pooled hidden vectors; its output *is* the logits (wait, then the
plays), so the usual linear ``action_net`` is an identity. The critic is the usual MLP over the
observation (``net_arch["vf"]``). Everything else (masking, the distribution,
``evaluate_actions``, saving) is sb3-contrib's, the distribution computed once a
batch as for the MLP (:class:`train.policy.masked_policy.OnceMasked`).

:func:`parameters_by_name` names its weights as the kit's tensors
(:func:`rankwise_tensors` reads them; :mod:`train.policy.checkpoint` writes them),
so the saved model plays in numpy (:class:`agents.model_io.rankwise.RankwisePolicy`,
no torch).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from agents.model_io.rankwise import first_layer_plan
from agents.model_io.rankwise_gather import action_features
from train.policy.masked_policy import OnceMasked

_ACTIVATIONS = {nn.Tanh: "tanh", nn.ReLU: "relu"}


class RankwiseActor(nn.Module):
    """Observation ``(B, obs_dim)`` to the logits: wait, then the ``P`` plays.

    One shared MLP scores each play action's rank-relative features; the wait logit reads their
    hidden vectors' mean and max.
    """

    used: torch.Tensor
    slot: torch.Tensor
    varying: torch.Tensor
    shared: torch.Tensor
    shared_entries: torch.Tensor

    def __init__(self, obs_dim: int, hidden: list[int], activation_fn: type[nn.Module]) -> None:
        super().__init__()
        plan = first_layer_plan(obs_dim)
        for name, array in plan._asdict().items():  # copies: the plan's arrays are read-only
            # Not persistent: rebuilt from obs_dim, so the state dict holds only weights.
            self.register_buffer(
                name, torch.from_numpy(np.array(array)).flatten(), persistent=False
            )
        self.n_plays = int(plan.slot.shape[0])
        dims = [int(action_features(obs_dim).shape[1]), *hidden]
        self.act = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(dims))
        self.activation = activation_fn()
        self.score = nn.Linear(dims[-1], 1)
        self.wait = nn.Linear(2 * dims[-1], 1)

    def first_layer(self, padded: torch.Tensor) -> torch.Tensor:
        """Every play's first hidden layer before its activation ``(B, P, H)``.

        The layer of the gathered features is computed as one matmul over the padded
        observation (:class:`agents.model_io.rankwise.FirstLayerPlan`). Its weight is folded
        afresh each call, so the gradient reaches ``act.0.weight`` as the gather's does.
        """
        layer = self.act[0]
        assert isinstance(layer, nn.Linear)
        wt = layer.weight.t()  # (F, H)
        hidden = wt.shape[1]
        src = wt.index_select(0, self.varying).expand(self.n_plays, -1, -1)
        folded = wt.new_zeros(self.used.numel() * self.n_plays, hidden)
        # index_add, out of place: features of one play that read one entry must sum,
        # and autograd follows the fold back to act.0.weight.
        folded = folded.index_add(0, self.slot, src.reshape(-1, hidden))
        h = padded.index_select(1, self.used) @ folded.view(self.used.numel(), -1)
        shared = padded.index_select(1, self.shared_entries) @ wt.index_select(0, self.shared)
        return h.view(padded.shape[0], self.n_plays, hidden) + (shared + layer.bias).unsqueeze(1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The logits ``(B, 1 + P)``: wait, then rank ``r`` on pile ``p`` at ``1 + n r + p``
        (``n`` piles)."""
        # The two constant entries the gather reads, 0 then 1, as model_io.rankwise.pad.
        pad = obs.new_zeros(obs.shape[0], 2)
        pad[:, 1] = 1.0
        h = self.activation(self.first_layer(torch.cat([obs, pad], dim=1)))
        for layer in self.act[1:]:
            h = self.activation(layer(h))
        plays = self.score(h).squeeze(-1)
        # Mean and max over the plays: the wait logit does not depend on their order.
        pooled = torch.cat([h.mean(dim=1), h.amax(dim=1)], dim=1)
        return torch.cat([self.wait(pooled), plays], dim=1)


class RankwiseExtractor(nn.Module):
    """SB3's ``mlp_extractor`` slot.

    The actor's "latent" is already the logits; the critic's is a plain MLP's last hidden layer.
    """

    def __init__(
        self, obs_dim: int, pi: list[int], vf: list[int], activation_fn: type[nn.Module]
    ) -> None:
        super().__init__()
        self.actor = RankwiseActor(obs_dim, pi, activation_fn)
        layers: list[nn.Module] = []
        for a, b in itertools.pairwise([obs_dim, *vf]):
            layers += [nn.Linear(a, b), activation_fn()]
        self.value_net = nn.Sequential(*layers)
        # The actor's latent is already the logits: wait, then 13 ranks x one pile per seat.
        self.latent_dim_pi = 1 + self.actor.n_plays
        self.latent_dim_vf = vf[-1] if vf else obs_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Actor logits and critic latent."""
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The logits: wait, then the plays."""
        return self.actor(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The critic's last hidden layer."""
        return self.value_net(features)


class RankwisePolicy(OnceMasked, MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with the rank-relative actor (module docstring).

    ``net_arch`` must be ``{"pi": [...], "vf": [...]}``: the shared scorer's and the
    critic's hidden sizes."""

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, dict):
            raise ValueError(f"RankwisePolicy needs net_arch={{'pi': ..., 'vf': ...}}, got {arch}")
        obs_dim = int(self.observation_space.shape[0])  # type: ignore[index]
        self.mlp_extractor = RankwiseExtractor(  # type: ignore[assignment]
            obs_dim, list(arch["pi"]), list(arch["vf"]), self.activation_fn
        ).to(self.device)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # The actor's output is the logits: no linear layer after it.
        self.action_net = nn.Identity()
        actor = self.extractor.actor
        if self.ortho_init:  # small output layers, as SB3 gives its action_net: near uniform
            for head in (actor.score, actor.wait):
                head.apply(lambda m: self.init_weights(m, gain=0.01))
        # Made again: the parent built it before action_net was replaced, over
        # parameters the policy no longer has.
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]
            **self.optimizer_kwargs,
        )

    @property
    def extractor(self) -> RankwiseExtractor:
        """The networks (SB3's ``mlp_extractor`` slot), typed."""
        ext = self.mlp_extractor
        assert isinstance(ext, RankwiseExtractor)
        return ext


def parameters_by_name(policy: RankwisePolicy) -> dict[str, torch.Tensor]:
    """Kit tensor name -> the policy's parameter."""
    ext = policy.extractor
    actor = ext.actor
    out: dict[str, torch.Tensor] = {}
    layer: Any
    for k, layer in enumerate(actor.act):
        out[f"act.{k}.weight"], out[f"act.{k}.bias"] = layer.weight, layer.bias
    out["score.weight"], out["score.bias"] = actor.score.weight, actor.score.bias
    out["wait.weight"], out["wait.bias"] = actor.wait.weight, actor.wait.bias
    linears = [m for m in ext.value_net if isinstance(m, nn.Linear)]
    for k, layer in enumerate(linears):
        out[f"vf.{k}.weight"], out[f"vf.{k}.bias"] = layer.weight, layer.bias
    out["value.weight"], out["value.bias"] = policy.value_net.weight, policy.value_net.bias
    return out


def rankwise_tensors(policy: RankwisePolicy) -> tuple[dict[str, np.ndarray], list[int], str]:
    """The kit tensors (actor and critic), the scorer's hidden sizes and the activation."""
    # Copies: numpy views of the parameters would change as training goes on.
    tensors = {k: v.detach().cpu().numpy().copy() for k, v in parameters_by_name(policy).items()}
    actor = policy.extractor.actor
    hidden = [lin.out_features for lin in actor.act if isinstance(lin, nn.Linear)]
    return tensors, hidden, _ACTIVATIONS[type(actor.activation)]
