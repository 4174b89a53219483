"""What both training recipes share: MaskablePPO's settings, their checks, the model and the progress bar.

``train/ppo.py`` (real-time Speed) and ``train/vintage_ppo.py`` (the 1930s
game) each declare a ``Config`` dataclass that extends
:class:`PPOHyperparams` with its own environment and evaluation fields, and
re-declares only the PPO fields whose default differs for its game.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import sys
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class PPOHyperparams:
    """MaskablePPO's settings (defaults: the real-time recipe's)."""

    n_steps: int = 64
    """Steps per env per rollout (rollout = n_steps * n_envs decisions)."""
    batch_size: int = 4096
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size at the start."""
    anneal_lr: bool = True
    """Decay the step size linearly to 10% of its start by the last timestep."""
    gamma: float = 1.0
    """Discount per decision. A game is ~20-35 decisions with the reward at its end; any discount
    would make a postponed loss look better than a quick one (an incentive to stall)."""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off."""
    clip_range: float = 0.2
    """PPO's policy ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    target_kl: float | None = None
    """Stop an update's epochs early past this KL (None: never)."""
    net_arch: str = "256,256"
    """Hidden layer sizes of the actor and of the critic (separate networks)."""
    activation: str = "relu"
    """Hidden activation: ``tanh`` or ``relu``."""
    torch_threads: int = 1
    """Torch intra-op threads (1 is fastest on a small shared CPU)."""


def field_help(cls: type) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body), a subclass's over its bases'."""
    out: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if k is not object]):
        body = ast.parse(inspect.getsource(klass)).body[0].body  # type: ignore[attr-defined]
        for node, nxt in itertools.pairwise(body):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
            ):
                out[node.target.id] = " ".join(str(nxt.value.value).split())  # type: ignore[union-attr]
    return out


def hidden(cfg: Any) -> list[int]:
    """``cfg.net_arch`` (comma-separated; any recipe's config) as a list of layer sizes."""
    try:
        sizes = [int(x) for x in cfg.net_arch.split(",") if x.strip()]
    except ValueError:
        raise ValueError(
            f"net_arch must be comma-separated layer sizes, got {cfg.net_arch!r}"
        ) from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"net_arch must list at least one layer size >= 1, got {cfg.net_arch!r}")
    return sizes


def check_ppo(cfg: Any, positive: tuple[str, ...] = ()) -> None:
    """Refuse PPO settings that cannot work (and any ``positive`` field below 1), naming the field.

    ``cfg`` is a :class:`PPOHyperparams` with an ``n_envs`` field.
    """
    for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "torch_threads", *positive):
        if getattr(cfg, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(cfg, name)!r}")
    if cfg.activation not in ("tanh", "relu"):
        raise ValueError(f"activation must be tanh or relu, got {cfg.activation!r}")
    if not 0 < cfg.gamma <= 1 or not 0 <= cfg.gae_lambda <= 1:
        raise ValueError("gamma must lie in (0, 1] and gae_lambda in [0, 1]")
    if cfg.batch_size > cfg.n_steps * cfg.n_envs:
        raise ValueError(
            f"batch_size {cfg.batch_size} exceeds a rollout (n_steps * n_envs = {cfg.n_steps * cfg.n_envs})"
        )
    hidden(cfg)


def linear_lr(start: float) -> Any:
    """SB3 learning-rate schedule: ``start`` decaying linearly to 10% of it by the last timestep."""

    def schedule(progress_remaining: float) -> float:
        # The last rollout can overshoot the target (progress < 0): never below 10%, never negative.
        return start * (0.1 + 0.9 * min(1.0, max(0.0, progress_remaining)))

    return schedule


def make_model(cfg: Any, env: Any) -> Any:
    """A MaskablePPO on ``env`` with ``cfg``'s settings (separate actor and critic MLPs, on the CPU).

    ``cfg`` is a :class:`PPOHyperparams` with a ``seed`` field.
    """
    import torch
    from sb3_contrib import MaskablePPO

    sizes = hidden(cfg)
    act_fn = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=linear_lr(cfg.learning_rate) if cfg.anneal_lr else cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl,
        policy_kwargs={"net_arch": {"pi": sizes, "vf": sizes}, "activation_fn": act_fn},
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )


class ProgressBar:
    """A one-line bar on stderr: timesteps, rate, time left, a note (the latest evaluation)."""

    def __init__(self, total: int, enabled: bool, start: int = 0) -> None:
        self.total, self.start_steps, self.enabled = total, start, enabled
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.note = ""

    def update(self, steps: int, force: bool = False) -> None:
        """Redraw (at most twice a second unless ``force``)."""
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < 0.5):
            return
        self.last = now
        done = min(1.0, steps / self.total)
        rate = (steps - self.start_steps) / max(now - self.t0, 1e-9)
        eta = max(0.0, (self.total - steps) / rate) if rate > 0 else None
        eta_s = f"{int(eta // 60)}m{int(eta % 60):02d}s" if eta is not None else "?"
        bar = "#" * int(30 * done) + "." * (30 - int(30 * done))
        sys.stderr.write(
            f"\r\033[Ktrain [{bar}] {steps:,}/{self.total:,} {rate:,.0f} steps/s eta {eta_s} {self.note}"
        )
        sys.stderr.flush()

    def print(self, line: str) -> None:
        """A line of output above the bar."""
        if self.enabled:
            sys.stderr.write("\r\033[K")
        print(line, flush=True)
        self.last = 0.0

    def close(self, steps: int) -> None:
        """Final redraw and a newline."""
        if self.enabled:
            self.update(steps, force=True)
            sys.stderr.write("\n")
