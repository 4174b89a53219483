"""sb3-contrib's masked categorical with its numbers computed once a batch (training speed only).

sb3-contrib's ``MaskableCategoricalDistribution`` builds a torch ``Categorical``
from the logits and then, to mask them, a second one from the masked logits
(``MaskableCategorical.apply_masking``; unmasked, a second one of the same
logits): each build normalises, broadcasts and checks its arguments. In a
rollout step of 256 real-time games that is about a seventh of the policy's
forward pass (docs/research/training-throughput.md); each minibatch of the update
(``evaluate_actions``) builds it the same way.

:class:`OnceMaskedCategorical` keeps the same numbers and does the same tensor
operations in the same order -- normalise the logits, put ``-1e8`` where the
mask is 0 (if there is a mask), normalise again, softmax for the probabilities, ``multinomial`` to
sample, the masked entropy -- on plain tensors, so a run draws the same
actions and computes the same losses and gradients as with sb3-contrib's own
class (``tests/train/test_training_speed.py`` compares them). :class:`OnceMasked` is a
mixin that gives any ``MaskableActorCriticPolicy`` (a subclass with its own
networks too) this distribution; :class:`OnceMaskedPolicy` is the MLP policy
with it, which :func:`train.common.settings.make_model` uses. Its ``sample`` serves the stock
rollout loop (``--rollout sb3``); the default lean loop (:mod:`train.policy.rollout`) draws its
own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

__all__ = ["HUGE_NEG", "OnceMasked", "OnceMaskedCategorical", "OnceMaskedPolicy"]

# sb3-contrib's own mask value: exp of it is exactly 0, and unlike -inf it never
# makes 0 * -inf = NaN in a sum.
HUGE_NEG = -1e8
"""What sb3-contrib puts on a masked action's logit (the lean rollout loop uses it too)."""


def _normalised(logits: torch.Tensor) -> torch.Tensor:
    """Log-probabilities, as ``torch.distributions.Categorical`` normalises its logits."""
    return logits - logits.logsumexp(dim=-1, keepdim=True)


class OnceMaskedCategorical(MaskableCategoricalDistribution):
    """``MaskableCategoricalDistribution`` without the two torch ``Categorical`` builds per batch.

    The same log-probabilities, samples, entropy and gradients.
    """

    def __init__(self, action_dim: int) -> None:
        super().__init__(action_dim)
        self.raw: torch.Tensor | None = None
        self.base: torch.Tensor | None = None
        self.logits: torch.Tensor | None = None
        """The (masked) log-probabilities, ``(batch, action_dim)``."""
        self.masks: torch.Tensor | None = None
        self._probs: torch.Tensor | None = None

    @property  # type: ignore[override]
    def distribution(self) -> MaskableCategorical:
        """sb3-contrib's distribution of the same logits and mask, built on request.

        For code that reads ``.distribution``; this class's own methods never build it.
        """
        return MaskableCategorical(logits=self.raw, masks=self.masks)

    @distribution.setter
    def distribution(self, value: Any) -> None:
        if value is not None:  # SB3's Distribution.__init__ may set None; nothing else is kept
            raise AttributeError("OnceMaskedCategorical builds its distribution from its logits")

    def proba_distribution(self, action_logits: torch.Tensor) -> OnceMaskedCategorical:  # type: ignore[override]
        """Take a batch of raw logits (unmasked)."""
        self.raw = action_logits.view(-1, self.action_dim)
        self.base = _normalised(self.raw)
        self.logits = _normalised(self.base)  # sb3-contrib's unmasked build normalises twice
        self.masks, self._probs = None, None
        return self

    def apply_masking(self, masks: torch.Tensor | np.ndarray | None) -> None:
        """Mask the logits (``masks`` 0 or False: never drawn); None restores them."""
        base = self.base
        assert base is not None, "proba_distribution comes first"
        self._probs = None
        if masks is None:
            self.masks, self.logits = None, _normalised(base)
            return
        self.masks = torch.as_tensor(masks, dtype=torch.bool, device=base.device).reshape(
            base.shape
        )
        huge_neg = torch.tensor(HUGE_NEG, dtype=base.dtype, device=base.device)
        self.logits = _normalised(torch.where(self.masks, base, huge_neg))

    @property
    def probs(self) -> torch.Tensor:
        """The softmax of the logits (computed once)."""
        if self._probs is None:
            assert self.logits is not None, "proba_distribution comes first"
            self._probs = torch.softmax(self.logits, dim=-1)
        return self._probs

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of each row's action."""
        assert self.logits is not None, "proba_distribution comes first"
        return self.logits.gather(-1, actions.long().view(-1, 1)).view(-1)

    def entropy(self) -> torch.Tensor:
        """Entropy per row; masked actions contribute nothing (as sb3-contrib's)."""
        assert self.logits is not None, "proba_distribution comes first"
        if self.masks is None:
            # The clamp torch's Categorical.entropy applies: the same numbers.
            logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
            return -(logits * self.probs).sum(-1)
        # Masked actions are left out of the sum, as sb3-contrib's entropy does.
        p_log_p = self.logits * self.probs
        zero = torch.tensor(0.0, device=p_log_p.device)
        return -torch.where(self.masks, p_log_p, zero).sum(-1)

    def sample(self) -> torch.Tensor:
        """One action per row, drawn as ``Categorical.sample`` draws it."""
        # The call Categorical.sample makes: the same draws from the same generator.
        return torch.multinomial(self.probs, 1, True).view(-1)

    def mode(self) -> torch.Tensor:
        """The most likely action per row."""
        return torch.argmax(self.probs, dim=1)


class OnceMasked:
    """Mixin: a policy's discrete action distribution becomes :class:`OnceMaskedCategorical`.

    List it before ``MaskableActorCriticPolicy``, or a subclass of it, in the policy's bases.
    The action head is built as before: the same layer, the same initial weights.
    """

    action_dist: Any

    def _build(self, lr_schedule: Any) -> None:
        # type, not isinstance: a subclass someone chose is left alone.
        if type(self.action_dist) is MaskableCategoricalDistribution:
            self.action_dist = OnceMaskedCategorical(self.action_dist.action_dim)
        super()._build(lr_schedule)  # type: ignore[misc]


class OnceMaskedPolicy(OnceMasked, MaskableActorCriticPolicy):
    """sb3-contrib's ``MlpPolicy`` with :class:`OnceMaskedCategorical`.

    That policy is ``MaskableActorCriticPolicy``.
    """
