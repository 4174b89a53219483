"""The training recipe's speed-only changes change nothing a run computes.

:class:`train.policy.masked_policy.OnceMaskedCategorical` computes sb3-contrib's masked
categorical once a batch instead of building two torch distributions: the same
samples, log-probabilities, entropy and gradients, so a run learns exactly the
same weights.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

from train.policy.masked_policy import OnceMaskedCategorical, OnceMaskedPolicy
from train.vec_env.env import SpeedVecEnv


def _both(raw, masks):
    """sb3-contrib's distribution and the once-masked one over the same logits and masks."""
    theirs, ours = MaskableCategoricalDistribution(27), OnceMaskedCategorical(27)
    for dist in (theirs, ours):
        dist.proba_distribution(raw)
        dist.apply_masking(masks)
    return theirs, ours


def test_the_once_masked_categorical_samples_and_scores_as_sb3_contribs():
    gen = torch.Generator().manual_seed(0)
    raw = torch.randn(512, 27, generator=gen, requires_grad=True)
    masks = (torch.rand(512, 27, generator=gen) < 0.3).numpy().astype(np.int8)
    masks[:, 0] = 1  # waiting is always legal
    masks[:100, 1:] = 0  # rows that can only wait
    theirs, ours = _both(raw, masks)
    torch.manual_seed(5)
    drawn = theirs.sample()
    torch.manual_seed(5)
    assert torch.equal(ours.sample(), drawn)
    assert masks[np.arange(512), drawn.numpy()].all()  # only legal actions are drawn
    assert torch.equal(ours.mode(), theirs.mode())
    assert torch.equal(ours.log_prob(drawn), theirs.log_prob(drawn))
    assert torch.equal(ours.entropy(), theirs.entropy())
    # the same gradients flow back to the logits
    grads = []
    for dist in (theirs, ours):
        raw.grad = None
        (dist.log_prob(drawn).sum() + 0.01 * dist.entropy().sum()).backward(retain_graph=True)
        grads.append(raw.grad.clone())
    assert torch.equal(grads[0], grads[1])
    # without a mask, and reading .distribution as code written for sb3-contrib's class does
    theirs, ours = _both(raw, None)
    assert torch.equal(ours.entropy(), theirs.entropy())
    assert torch.equal(ours.log_prob(drawn), theirs.log_prob(drawn))
    assert torch.equal(ours.distribution.logits, theirs.distribution.logits)


def _learned(policy):
    env = SpeedVecEnv(16, "us,japanese", opponent="greedy", seed=2)
    model = MaskablePPO(
        policy,
        env,
        n_steps=32,
        batch_size=128,
        n_epochs=2,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}},
    )
    model.learn(3 * 32 * 16)
    return model.policy.state_dict()


def test_a_run_with_the_once_masked_policy_learns_the_same_weights():
    theirs, ours = _learned("MlpPolicy"), _learned(OnceMaskedPolicy)
    assert theirs.keys() == ours.keys()
    for name, tensor in theirs.items():
        assert torch.equal(ours[name], tensor), name


def test_the_mixin_gives_a_policy_subclass_with_its_own_build_the_once_masked_categorical():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from train.policy.masked_policy import OnceMasked

    class OwnHead(MaskableActorCriticPolicy):
        def _build(self, lr_schedule):
            super()._build(lr_schedule)
            self.own_head = True  # e.g. a policy replacing action_net after the build

    class Fast(OnceMasked, OwnHead):
        pass

    env = SpeedVecEnv(4, "us", opponent="greedy", seed=0)
    policy = MaskablePPO(Fast, env, n_steps=8, batch_size=32, device="cpu").policy
    assert isinstance(policy.action_dist, OnceMaskedCategorical) and policy.own_head
    obs = env.reset()
    actions, _ = policy.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[np.arange(4), actions].all()  # legal, through the new distribution
