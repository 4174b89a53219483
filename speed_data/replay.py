"""Replaying a play record in ``Speed-v1``: the same deal, the recorded actions, step by step.

A record replays in :class:`~speed_env.SpeedGymEnv` with ``seat=0``, the
recorded rules, tick and both seats' latency profiles, the opponent a
:class:`ScriptedOpponent` that plays the recorded ``opponent_actions``, and
``reset(seed=record["seed"], options={"deal": record["deal"]})``.
:func:`compare` walks the game and returns every difference from the record
(observations, masks, rewards and flags); an exact record gives none. The
Minari export (:mod:`speed_data.minari_export`) and its test rely on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from speed_data import records
from speed_data.records import rules_from
from speed_env.rules import Rules
from speed_env.single import SpeedGymEnv


class ScriptedOpponent:
    """A :class:`~speed_env.policy.Policy` that plays a fixed list of actions, one per call."""

    def __init__(self, actions: list[int] | np.ndarray) -> None:
        self.actions = [int(a) for a in actions]
        self.i = 0

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The next recorded action (a wait once the list is used up)."""
        a = self.actions[self.i] if self.i < len(self.actions) else 0
        self.i += 1
        return np.array([a], np.int64)


def rules_of(record: dict[str, Any]) -> Rules:
    """The record's :class:`~speed_env.rules.Rules` (every option as recorded, inline).

    A ``preset`` that is not a preset name (a path, say) is refused, never read.
    """
    return rules_from(record["rules"], "record")


def replay_env(record: dict[str, Any], opponent: Any = None) -> SpeedGymEnv:
    """The ``Speed-v1`` env a record was played in.

    The opponent replays the recorded actions unless ``opponent``, a Policy, is given.
    """
    reaction = tuple(records.profile_of(p) for p in record["reaction"])
    return SpeedGymEnv(
        rules_of(record),
        opponent=opponent if opponent is not None else ScriptedOpponent(record["opponent_actions"]),
        seat=0,
        tick_ms=record["tick_ms"],
        reaction=reaction,
    )


def reset_kwargs(record: dict[str, Any]) -> dict[str, Any]:
    """``reset(**reset_kwargs(record))`` deals the record's game."""
    return {"seed": record["seed"], "options": {"deal": record["deal"]}}


def compare(record: dict[str, Any]) -> list[str]:
    """Differences between a record and its replay in ``Speed-v1`` (none when exact)."""
    data = records.arrays(record)
    env = replay_env(record)
    obs, info = env.reset(**reset_kwargs(record))
    problems: list[str] = []

    def same(t: int, obs: np.ndarray, mask: np.ndarray) -> None:
        if not np.array_equal(obs, data["observations"][t]):
            problems.append(f"step {t}: observation differs")
        if not np.array_equal(mask, data["masks"][t]):
            problems.append(f"step {t}: mask differs")

    same(0, obs, info["action_mask"])
    n = record["n_decisions"]
    for t in range(n):
        obs, reward, term, trunc, info = env.step(int(data["actions"][t]))
        same(t + 1, obs, info["action_mask"])
        if reward != data["rewards"][t]:
            problems.append(f"step {t}: reward {reward} != recorded {data['rewards'][t]}")
        last = t == n - 1
        want = (record["terminated"], record["truncated"]) if last else (False, False)
        if (term, trunc) != want:
            problems.append(f"step {t}: flags {(term, trunc)} != recorded {want}")
        if problems:
            break  # one step apart, every later step differs too: the first is the news
    return problems


__all__ = ["ScriptedOpponent", "compare", "replay_env", "reset_kwargs", "rules_of"]
