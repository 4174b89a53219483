"""The env a Speed Minari dataset recovers: ``Speed-v1`` with its recorded rules and profiles.

Minari rebuilds a dataset's env with ``gymnasium.make(env_spec)``, and the
spec's arguments must be JSON. A dataset's spec keeps the id ``speed_env/Speed-v1``
and points its entry point here: :func:`make_env` builds the rules from their
inline options and the latency profiles from plain dicts, then returns
``Speed-v1``.

The data never names code: the recorded ``opponent`` spec is provenance and
:func:`make_env` builds no agent from it (nor from a ``rules.preset`` that is a
path). The opponent is either

- the recorded one, replayed: ``reset(options={"opponent_actions": [...]})`` plays
  that episode's recorded opponent actions (:func:`episode_reset`), exact for it; or
- a kit bot the user names: ``dataset.recover_environment(bot="chain")``, one of
  :data:`KIT_BOTS` (a bot the kit ships, never a file).

:func:`recover` does the same for a dataset without running the dataset's own entry point
(``recover_environment`` calls whatever entry point a dataset's spec names).
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import EnvSpec

from speed_data import records
from speed_data.recorder import ENV_ID
from speed_data.records import rules_from
from speed_data.replay import ScriptedOpponent
from speed_env.single import SpeedGymEnv

ENTRY_POINT = "speed_data.minari_env:make_env"
KIT_BOTS = ("random", "greedy", "chain", "search", "trained", "selfplay")
"""The bots a recovered env may play: the kit's own, built from no file (``@PROFILE`` allowed)."""


class ReplayedOpponent(ScriptedOpponent):
    """The recorded opponent: plays the actions given at each reset, then waits."""

    def __init__(self) -> None:
        super().__init__([])
        self.loaded = False

    def load(self, actions: Any) -> None:
        """Play ``actions`` from the next step on."""
        self.actions = [int(a) for a in np.asarray(actions).reshape(-1)]
        self.i = 0
        self.loaded = True


class RecordedOpponentEnv(gymnasium.Wrapper):  # type: ignore[type-arg]
    """``Speed-v1`` whose opponent replays the actions passed at reset (``opponent_actions``)."""

    def __init__(self, env: SpeedGymEnv, opponent: ReplayedOpponent) -> None:
        super().__init__(env)
        self.opponent = opponent

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset with ``options["opponent_actions"]`` (the episode's); other options as Speed-v1."""
        options = dict(options or {})
        if "opponent_actions" not in options:
            raise ValueError(
                "this env replays the recorded opponent: reset it with "
                "options={'opponent_actions': ...} (speed_data.minari_env.episode_reset gives "
                "an episode's), or recover it with a kit bot: recover_environment(bot='chain')"
            )
        self.opponent.load(options.pop("opponent_actions"))
        return self.env.reset(seed=seed, options=options or None)


def _bot(spec: Any, rules: Any, seed: int | None) -> Any:
    import agents

    name = spec.strip().partition("@")[0].partition(":")[0] if isinstance(spec, str) else None
    if name not in KIT_BOTS:
        raise ValueError(
            f"bot {spec!r}: a recovered env plays one of the kit's bots ({', '.join(KIT_BOTS)}); "
            "for another agent build speed_env.SpeedGymEnv yourself"
        )
    return agents.make(spec, rules, seed=seed)


def make_env(
    *,
    rules: dict[str, Any],
    reaction: list[dict[str, Any]],
    tick_ms: int = 50,
    seat: int = 0,
    opponent: Any = None,
    bot: str | None = None,
    seed: int | None = None,
    **kwargs: Any,
) -> Any:
    """``Speed-v1`` with the recorded rules and profiles.

    - ``rules``: every option, inline, as a record holds them.
    - ``reaction``: both seats' profiles.
    - ``opponent``: the recorded opponent's spec: provenance, never built.
    - ``bot``: a kit bot to play against (:data:`KIT_BOTS`); without one the opponent
      replays the actions given at reset (:class:`RecordedOpponentEnv`).
    - other keyword arguments go to :class:`~speed_env.SpeedGymEnv`.
    """
    del opponent  # provenance: a file named by the data is never run
    built = rules_from(rules, "the dataset's env spec")
    profiles = tuple(records.profile_of(p) for p in reaction)
    if bot is not None:
        return SpeedGymEnv(
            built,
            opponent=_bot(bot, built, seed),
            seat=seat,
            tick_ms=tick_ms,
            reaction=profiles,
            **kwargs,
        )
    replayed = ReplayedOpponent()
    env = SpeedGymEnv(
        built, opponent=replayed, seat=seat, tick_ms=tick_ms, reaction=profiles, **kwargs
    )
    return RecordedOpponentEnv(env, replayed)


def episode_reset(dataset: Any, episode: Any) -> dict[str, Any]:
    """``env.reset(**episode_reset(dataset, episode))`` replays that episode in the recovered env.

    Its seed, deal and recorded opponent actions (``infos["opponent_action"]`` after the
    reset's row).
    """
    (meta,) = dataset.storage.get_episode_metadata([episode.id])
    deal = meta["options"]["deal"]
    return {
        "seed": int(meta["seed"]),
        "options": {
            "deal": json.loads(deal) if isinstance(deal, str) else deal,
            "opponent_actions": np.asarray(episode.infos["opponent_action"])[1:].tolist(),
        },
    }


def recover(dataset: Any, bot: str | None = None) -> Any:
    """A Speed dataset's env, built here rather than by the entry point its spec names.

    Refuses a dataset whose spec is not this module's; ``bot`` as for :func:`make_env`.
    """
    spec = dataset.spec.env_spec
    if spec is None or spec.entry_point != ENTRY_POINT:
        raise ValueError(
            f"dataset {dataset.spec.dataset_id!r} was not written by the Speed kit (its env's "
            f"entry point is {None if spec is None else spec.entry_point!r})"
        )
    kwargs = dict(spec.kwargs)
    if bot is not None:
        kwargs["bot"] = bot
    return make_env(**kwargs)


def env_spec(record: dict[str, Any]) -> EnvSpec:
    """The spec of ``Speed-v1`` as ``record`` was played: its rules, tick, profiles and opponent.

    The opponent's spec rides along as provenance (:func:`make_env` never builds it).
    """
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
    return json.dumps(env_spec(record).kwargs, sort_keys=True)  # a dict's order is no difference


__all__ = [
    "ENTRY_POINT",
    "KIT_BOTS",
    "RecordedOpponentEnv",
    "ReplayedOpponent",
    "env_spec",
    "episode_reset",
    "make_env",
    "recover",
    "spec_key",
]
