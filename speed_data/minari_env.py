"""The env a Speed Minari dataset recovers: ``Speed-v1`` with its recorded rules and opponent.

Minari rebuilds a dataset's env with ``gymnasium.make(env_spec)``, and the
spec's arguments must be JSON. ``Speed-v1``'s ``opponent`` is a Policy
object, so a dataset's spec keeps the id ``speed_env/Speed-v1`` and points its
entry point here: :func:`make_env` builds the opponent from its agent spec
(``agents.make``) and the latency profiles from plain dicts, then returns the
ordinary :class:`~speed_env.SpeedGymEnv`.
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import EnvSpec

from speed_data import records
from speed_data.recorder import ENV_ID
from speed_env.rules import make_rules
from speed_env.single import SpeedGymEnv

ENTRY_POINT = "speed_data.minari_env:make_env"


def make_env(
    *,
    rules: dict[str, Any],
    opponent: str,
    reaction: list[dict[str, Any]],
    tick_ms: int = 50,
    seat: int = 0,
    seed: int | None = None,
    **kwargs: Any,
) -> SpeedGymEnv:
    """``Speed-v1`` with the recorded rules, opponent and profiles.

    - ``rules``: every option, as a record holds them.
    - ``opponent``: the agent, as a spec.
    - ``reaction``: both seats' profiles.
    - other keyword arguments go to :class:`~speed_env.SpeedGymEnv`.
    """
    import agents

    options = dict(rules)
    built = make_rules(options.pop("preset"), **options)
    profiles = tuple(records.profile_of(p) for p in reaction)
    return SpeedGymEnv(
        built,
        opponent=agents.make(opponent, built, seed=seed),
        seat=seat,
        tick_ms=tick_ms,
        reaction=profiles,
        **kwargs,
    )


def env_spec(record: dict[str, Any]) -> EnvSpec:
    """The spec of ``Speed-v1`` as ``record`` was played: its rules, tick, profiles and opponent."""
    return EnvSpec(
        id=ENV_ID,
        entry_point=ENTRY_POINT,
        kwargs={
            "rules": record["rules"],
            "opponent": record["opponent"]["spec"],
            "reaction": record["reaction"],
            "tick_ms": record["tick_ms"],
            "seat": 0,
        },
    )


def spec_key(record: dict[str, Any]) -> str:
    """What must agree for two records to share one dataset's env (as text)."""
    import json

    return json.dumps(env_spec(record).kwargs, sort_keys=True)  # a dict's order is no difference


__all__ = ["ENTRY_POINT", "env_spec", "make_env", "spec_key"]
