"""Spec strings of both games: :func:`make`, :func:`parse_spec` and :func:`available`.

A ``vintage-…`` spec goes to the vintage registry (:mod:`agents.vintage.registry`), any other
to the real-time one (:mod:`agents.specs.realtime`).
"""

from __future__ import annotations

import os

from agents.errors import AgentSpecError
from agents.specs.realtime import REALTIME
from agents.specs.registry import AgentSpec
from speed_env.policy import Policy
from speed_env.rules import Rules, make_rules


def available() -> dict[str, str]:
    """Real-time agent names and a one-line description of each.

    The vintage ones are :func:`agents.vintage.registry.available`'s.
    """
    return REALTIME.available()


def parse_spec(spec: str) -> AgentSpec:
    """Split ``name[:arg][@reaction]``; refuse unknown names and bad profiles.

    ``@K`` is the budget of a search agent. A vintage spec is parsed by the vintage registry.
    """
    from agents.vintage import registry as vintage_agents

    if vintage_agents.is_vintage(spec):
        return vintage_agents.parse_spec(spec)
    return REALTIME.parse_spec(spec)


def make(
    spec: str, rules: str | os.PathLike[str] | Rules | None = None, seed: int | None = None
) -> Policy:
    """Build the agent a spec string names (its reaction profile is on ``.reaction``).

    A real-time agent plays ``rules`` (a preset name, a rules file or
    :class:`~speed_env.rules.Rules`; ``None``: ``us``). A vintage spec
    (``vintage-greedy`` …) is built by :func:`agents.vintage.registry.make`,
    which needs no rules: giving it real-time rules is refused.

    >>> import speed_env
    >>> bot = make("chain@pro", rules="us", seed=0)
    >>> bot.spec, bot.reaction.name
    ('chain@pro', 'pro')
    >>> obs, infos = speed_env.parallel_env("us").reset(seed=0)
    >>> seat = obs["player_0"]  # act() takes a batch: one row here
    >>> bot.act(seat["observation"][None], seat["action_mask"][None]).shape
    (1,)
    """
    from agents.vintage import registry as vintage_agents

    if vintage_agents.is_vintage(spec):
        if rules is not None:
            raise AgentSpecError(
                f"{spec!r} plays Vintage Speed, not real-time Speed, and takes no rules; "
                f"real-time agents are {', '.join(available())}"
            )
        return vintage_agents.make(spec, seed)
    policy: Policy = REALTIME.make(spec, make_rules("us" if rules is None else rules), seed)
    return policy
