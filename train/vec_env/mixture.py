"""A fixed mixture of frozen agents as a learner's opponents, each call into them attributed.

:func:`frozen_pool` builds an :class:`~train.vec_env.pool.OpponentPool` whose members are
agent specs drawn per game with fixed probabilities (:class:`MixturePool`: a best response's
target, a league's meta-strategy), and wraps every member that runs Python in
:class:`GuardedPolicy`, so that a failing agent stops training with one
:class:`~agents.runtime.failures.AgentFailure` naming it, as in a tournament
(:mod:`agents.specs.guarded`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from train.vec_env.pool import Member, OpponentPool

__all__ = ["GuardedPolicy", "MixturePool", "frozen_pool", "parse_weights"]


def parse_weights(text: str, n: int) -> list[float]:
    """``n`` targets' probabilities from ``text``, numbers joined by commas (normalised; empty:
    uniform). Refused, naming ``weights``, unless there is one finite number >= 0 per target,
    not all 0."""
    if not text.strip():
        return [1.0 / n] * n
    try:
        raw = [float(w) for w in text.split(",")]
    except ValueError:
        raise ValueError(f"weights must be numbers joined by commas, got {text!r}") from None
    if len(raw) != n:
        raise ValueError(f"weights lists {len(raw)} numbers for {n} targets")
    if not all(math.isfinite(w) and w >= 0 for w in raw) or sum(raw) <= 0:
        raise ValueError(f"weights must be >= 0, finite, not all 0; got {text!r}")
    return [w / sum(raw) for w in raw]


class MixturePool(OpponentPool):
    """An opponent pool whose members are drawn per game with fixed probabilities."""

    def __init__(self, members: Sequence[Member], mix: Sequence[float]) -> None:
        super().__init__(members)
        if len(mix) != len(members):
            raise ValueError(f"{len(mix)} weights for {len(members)} opponents")
        self.mix = np.asarray(mix, np.float64) / float(np.sum(mix))

    def weights(self) -> np.ndarray:
        """The fixed probability of each member being drawn for a new game."""
        return self.mix


class GuardedPolicy:
    """A target's policy whose every ``act`` is attributed and checked (agents/specs/guarded)."""

    def __init__(self, policy: Any, spec: str, where: str) -> None:
        self.policy, self.spec, self.where = policy, spec, where

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The wrapped policy's actions; a failure is one AgentFailure naming the agent."""
        from agents.specs.guarded import checked_act

        return checked_act(self.policy, obs, mask, spec=self.spec, where=self.where)


def frozen_pool(
    targets: Sequence[str],
    weights: Sequence[float],
    rules_list: Sequence[Any],
    seed: int,
    where: str,
    *,
    reaction: Any = "human",
    think: Any = None,
) -> MixturePool:
    """The agents ``targets`` as a pool, member ``k`` drawn for a game with ``weights[k]``.

    Each is built (attributed: ``where`` says what is played) per rules group with a seed of
    its own, as :meth:`OpponentPool.from_spec` seeds bots. ``chain`` stays as it is: the env's
    compiled loop plays it itself, never calling into Python. Each member's seat plays at its
    own profile (``@pro`` in its spec) or ``reaction``, moved later by its thinking as the
    plan ``think`` charges it (:func:`agents.think.plan.seat_profile`; ``None``: off, what it
    declares itself), as the tournament harness that scores the learner seats it.
    """
    import agents
    from agents.chain import ChainAgent
    from agents.specs.guarded import calling
    from agents.think.plan import seat_profile
    from speed_env.reaction import make_profile

    default = make_profile(reaction)

    members = []
    for k, spec in enumerate(targets):
        policies: list[Any] = []
        for g, rules in enumerate(rules_list):
            with calling(spec, "building it", where):
                policy = agents.make(spec, rules, seed=(seed * 7919 + 97 * k + g) & 0x7FFFFFFF)
            compiled = type(policy) is ChainAgent  # played by the compiled loop, not called
            policies.append(policy if compiled else GuardedPolicy(policy, spec, where))
            if g == 0:  # one profile for every rules group: what the spec and plan say
                profile = seat_profile(policy, spec, default, think)
        members.append(Member(spec, policies, "bot", profile))
    return MixturePool(members, weights)
