"""``TableSettings``: what every real-time Speed env is built from, checked once.

Each env takes the same four settings (``rules`` with single-rule
``**options``, ``tick_ms``, ``reaction`` and ``illegal_action``) in its
public signature. They are turned into one frozen :class:`TableSettings` by
:func:`table_settings`, the one place that checks them, and the envs hand
that value to :class:`speed_env.game.Games`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from speed_env.reaction import ReactionProfile, make_pair
from speed_env.rules import Rules, RulesError, check_ms, make_rules

ILLEGAL_POLICIES = ("wait", "raise")
"""What an in-space action that is illegal now does: taken as a wait, or raise ``ActionError``."""


@dataclass(frozen=True)
class TableSettings:
    """The settings of a real-time Speed table (checked: build it with :func:`table_settings`)."""

    rules: Rules
    """The rules, single-rule options applied."""
    tick_ms: int
    """Length of one env step in ms."""
    reactions: tuple[ReactionProfile, ReactionProfile]
    """Seat 0's and seat 1's reaction profile."""
    illegal_action: str
    """One of :data:`ILLEGAL_POLICIES`."""


def table_settings(
    rules: str | os.PathLike[str] | Rules | TableSettings = "us",
    *,
    tick_ms: int = 50,
    reaction: Any = None,
    illegal_action: str = "wait",
    **options: Any,
) -> TableSettings:
    """The envs' ``(rules, tick_ms, reaction, illegal_action, **options)`` as one checked value.

    ``rules`` is a preset name, a ``Rules`` or a TOML path, ``options``
    override single rules (a :class:`~speed_env.rules.RulesError` names an
    unknown or bad one); ``reaction`` is ms, a profile name/object or a pair
    of them (:func:`speed_env.reaction.make_pair`). A ``TableSettings`` passes
    through unchanged when nothing else is given.
    """
    if isinstance(rules, TableSettings):
        if options or (tick_ms, reaction, illegal_action) != (50, None, "wait"):
            raise TypeError("pass either a TableSettings or the settings one by one, not both")
        return rules
    if illegal_action not in ILLEGAL_POLICIES:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_POLICIES}, got {illegal_action!r}"
        )
    try:
        checked = make_rules(rules, **options)
    except TypeError as exc:  # pragma: no cover - make_rules names keys itself
        raise RulesError(str(exc)) from None
    if checked.players != 2:
        # Three and four seats are Party Speed, with spaces of their own (speed_env.party,
        # speed_env.party_single): a two-seat env over them would be wrong, not slow.
        n = checked.players
        raise RulesError(
            f"players={n}: this env seats 2 players; {n} players are Party Speed, other "
            f"spaces under other ids: speed_env/speed_party_v0 (speed_env.parallel_env(..., "
            f"players={n})) or, one seat, speed_env/SpeedParty-v0 (speed_env.PartyGymEnv)"
        )
    return TableSettings(
        rules=checked,
        tick_ms=check_ms("tick_ms", tick_ms, low=1),
        reactions=make_pair(reaction),
        illegal_action=illegal_action,
    )
