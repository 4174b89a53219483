"""Register the kit's envs with PettingZoo's and Gymnasium's registries on ``import speed_env``.

======================================  ============================================================
call                                    env
======================================  ============================================================
``pettingzoo.make("parallel",           :func:`speed_env.parallel_env` (kwargs passed through:
"speed_env/speed_v1", **kw)``           ``rules``, ``obs_format``, ``max_cycles`` …)
``pettingzoo.make("aec",                :func:`speed_env.env`
"speed_env/speed_v1", **kw)``
``pettingzoo.make("aec",                :func:`speed_env.vintage.env` (``num_players=N`` …)
"speed_env/vintage_speed_v0", **kw)``
``gymnasium.make("speed_env/Speed-v1",  :class:`speed_env.SpeedGymEnv` (one seat; ``opponent``
rules=..., opponent=...)``              any :class:`~speed_env.policy.Policy`)
``gymnasium.make_vec(                   :class:`speed_env.vector.SpeedVectorEnv` (``N`` games of
"speed_env/Speed-v1", num_envs=N,       ``Speed-v1`` on the batch engine; ``autoreset_mode``;
**kw)``                                 ``vectorization_mode="sync"`` gives ``SyncVectorEnv``)
``gymnasium.make_vec(                   :class:`speed_env.vector.SpeedSelfPlayVectorEnv` (row
"speed_env/SpeedSelfPlay-v1",           ``2g + s`` is seat ``s`` of game ``g``; vector only:
num_envs=2 * G, **kw)``                 ``gymnasium.make`` of it raises, naming ``make_vec``)
``gymnasium.make(                       :class:`speed_env.vintage.single.VintageSingleEnv`
"speed_env/VintageSpeed-v0", ...)``     (one seat; ``num_players``, ``opponents``)
``pettingzoo.make("parallel",           :class:`speed_env.party.PartyParallelEnv` (Party Speed:
"speed_env/speed_party_v0",             ``players=3`` or ``4``, required; two players are refused,
players=3, **kw)``                      naming ``speed_v1``)
``pettingzoo.make("aec",                :func:`speed_env.party.env` (the AEC env over it)
"speed_env/speed_party_v0", ...)``
``gymnasium.make(                       :class:`speed_env.party_single.PartyGymEnv` (one seat of
"speed_env/SpeedParty-v0",              Party Speed; ``opponents`` one Policy or a list of
players=4, ...)``                       ``players - 1``; two players refused, naming ``Speed-v1``)
``gymnasium.make_vec(                   :class:`speed_env.vector.PartyVectorEnv` (``N`` games of
"speed_env/SpeedParty-v0", num_envs=N,  ``SpeedParty-v0`` on the batch engine; each opponent seat
players=3, **kw)``                      asked once a step for every game; ``autoreset_mode``)
======================================  ============================================================

Party Speed's ids are new ids, not new versions of the two-seat ones: their
observation and action spaces differ from ``speed_v1``'s (PettingZoo's rule),
and a result must say which game it was measured on. One id per game, not
per seat count: as under ``speed_v1``, the spaces follow the rules (here
``players``, as there ``jokers``), and model and result files record the
rules beside the id. They live in tables of their own (:data:`PARTY_PETTINGZOO_ENVS`,
:data:`PARTY_GYMNASIUM_ENVS`), so the two-seat tables (what two-player files
and report cards list) are as they were.

Versions follow PettingZoo's convention: a change to a game's rules, its
observation or its action space bumps its env version. The real-time env's
outdated ids (:data:`OUTDATED`: ``speed_env/speed_v0``, ``speed_env/Speed-v0``)
stay registered only so that asking for them raises :class:`OutdatedEnvError`
naming the current id and what changed (Gymnasium's convention for an
outdated version; Gymnasium's own "is out of date" warning for these ids is
filtered, so even under ``-W error`` the kit's error is the one shown);
nothing maps an old id to the new env.

Entry points are ``"module:name"`` strings, so registering imports nothing
beyond the registries themselves, which ``speed_env`` loads anyway (its envs
subclass PettingZoo's and Gymnasium's). PettingZoo releases before 1.27 have
no registry; there only the PettingZoo entries are skipped. Registering
twice (a reload) leaves the entries as they are.

The other games' packages are listed here too (:data:`GAME_PACKAGES`): ``import speed_env``
imports each through this module, so that ``speed_env.vintage.env(...)`` works after it.
"""

from __future__ import annotations

import re
import warnings
from types import ModuleType
from typing import Any, NoReturn

import gymnasium
from gymnasium.error import DeprecatedEnv

from speed_env import vintage
from speed_env._version import __version__

REALTIME_ID = "speed_env/speed_v1"
"""The real-time game's current PettingZoo id (parallel and AEC)."""

VINTAGE_ID = "speed_env/vintage_speed_v0"
"""The vintage game's current PettingZoo id (AEC)."""

PARTY_ID = "speed_env/speed_party_v0"
"""Party Speed's (three or four players) PettingZoo id (parallel and AEC): what files of party
games record."""

PARTY_GYM_ID = "speed_env/SpeedParty-v0"
"""Party Speed's single-seat Gymnasium id."""

GAME_PACKAGES: dict[str, ModuleType] = {"vintage": vintage}
"""The other games' packages, by their name in ``speed_env``: ``import speed_env`` imports each
(importing this module does); ``speed_env.__all__`` names each as a string, for tools that read
it without running it."""

ENV_IDS = {"realtime": REALTIME_ID, "vintage": VINTAGE_ID}
"""Game -> the id of its env's current version, which model and result files record."""

PETTINGZOO_ENVS: dict[str, dict[str, str]] = {
    "parallel": {
        REALTIME_ID: "speed_env.parallel:parallel_env",
        "speed_env/speed_v0": "speed_env.registration:outdated_speed_v0",
    },
    "aec": {
        REALTIME_ID: "speed_env.parallel:env",
        "speed_env/speed_v0": "speed_env.registration:outdated_speed_v0",
        VINTAGE_ID: "speed_env.vintage.aec:env",
    },
}
"""PettingZoo registry entries: env type -> {id: entry point} (outdated ids raise)."""

GYMNASIUM_ENVS: dict[str, str] = {
    "speed_env/Speed-v1": "speed_env.single:SpeedGymEnv",
    "speed_env/Speed-v0": "speed_env.registration:outdated_speed_gym_v0",
    "speed_env/VintageSpeed-v0": "speed_env.vintage.single:VintageSingleEnv",
}
"""Gymnasium registry entries of single envs: id -> entry point (outdated ids raise). Model and
result files record these ids (with PettingZoo's) as what their games were played on."""

GYMNASIUM_VECTOR_ENVS: dict[str, str] = {
    "speed_env/Speed-v1": "speed_env.vector:SpeedVectorEnv",
    "speed_env/SpeedSelfPlay-v1": "speed_env.vector:SpeedSelfPlayVectorEnv",
}
"""Gymnasium ``vector_entry_point`` by id: what ``gymnasium.make_vec`` builds by default.

An id here but not in :data:`GYMNASIUM_ENVS` is vector only: its ``entry_point``
(what ``gymnasium.make`` calls) refuses, naming ``make_vec``
(:func:`speed_env.vector.self_play_single`)."""

PARTY_PETTINGZOO_ENVS: dict[str, dict[str, str]] = {
    "parallel": {PARTY_ID: "speed_env.party:PartyParallelEnv"},
    "aec": {PARTY_ID: "speed_env.party:env"},
}
"""Party Speed's PettingZoo entries: env type -> {id: entry point}."""

PARTY_GYMNASIUM_ENVS: dict[str, str] = {PARTY_GYM_ID: "speed_env.party_single:PartyGymEnv"}
"""Party Speed's Gymnasium single-env entries: id -> entry point."""

PARTY_GYMNASIUM_VECTOR_ENVS: dict[str, str] = {PARTY_GYM_ID: "speed_env.vector:PartyVectorEnv"}
"""Party Speed's Gymnasium ``vector_entry_point`` by id (beside the two-seat table, unchanged)."""

VECTOR_ONLY_ENTRY = "speed_env.vector:self_play_single"
"""The ``entry_point`` of the vector-only ids: an error that says to use ``make_vec``."""

SPEED_V0_CHANGES = (
    "The real-time env changed its game and its observation while named v0 (speed_v0, "
    "Speed-v0), so a result reported on v0 does not say which game it was measured on. "
    "Since v0's first "
    "release: the idle rule (rule option idle_flip_ms, default 5000 ms: when no card has "
    "been put on a centre pile for that long, the table counts down and flips as when "
    "stuck, so a seat that only waits loses), match points in infos at the end of a "
    "us/pagat game, and the observation grew from 128 to 138 floats (the 'rules' field) "
    "and then to 193 (five fields for rebuilding worlds from one seat's view; 136 -> 146 "
    "-> 205 with jokers). v1 is that game and observation, unchanged since."
)
"""What changed between ``speed_v0`` as first released and ``speed_v1`` (the errors say it)."""

OUTDATED: dict[str, tuple[str, str]] = {
    "speed_env/speed_v0": ("speed_env/speed_v1", SPEED_V0_CHANGES),
    "speed_env/Speed-v0": ("speed_env/Speed-v1", SPEED_V0_CHANGES),
}
"""Outdated id -> (the current id, what changed)."""


class OutdatedEnvError(DeprecatedEnv):
    """An outdated env id was asked for; the message names the current id and what changed.

    A subclass of Gymnasium's ``DeprecatedEnv`` (what ``gymnasium.make`` raises for an
    outdated version it knows nothing more about), raised by both registries.
    """


def outdated_error(env_id: str) -> OutdatedEnvError:
    """The error for outdated ``env_id`` (a key of :data:`OUTDATED`)."""
    new_id, changes = OUTDATED[env_id]
    return OutdatedEnvError(
        f"{env_id} is out of date: use {new_id} instead. {changes} "
        f"Nothing maps {env_id} to {new_id}: ask for {new_id} (or build the env with "
        "speed_env.parallel_env / speed_env.env / speed_env.SpeedGymEnv)."
    )


def outdated_speed_v0(*args: Any, **kwargs: Any) -> NoReturn:
    """Entry point of PettingZoo's ``speed_env/speed_v0``: raises :class:`OutdatedEnvError`."""
    raise outdated_error("speed_env/speed_v0")


def outdated_speed_gym_v0(*args: Any, **kwargs: Any) -> NoReturn:
    """Entry point of Gymnasium's ``speed_env/Speed-v0``: raises :class:`OutdatedEnvError`."""
    raise outdated_error("speed_env/Speed-v0")


def made_with(game: str = "realtime", *, players: int = 2) -> dict[str, str]:
    """``{"env_id", "kit_version"}``: what a model or result file of ``game`` records it was
    made with (``game``: ``"realtime"`` or ``"vintage"``).

    ``players`` is the real-time game's seat count (``rules.players``): three or four seats
    are Party Speed, another env with other spaces, so its files record :data:`PARTY_ID`.

    >>> made_with("vintage")["env_id"]
    'speed_env/vintage_speed_v0'
    >>> made_with("realtime", players=4)["env_id"]
    'speed_env/speed_party_v0'
    """
    if game not in ENV_IDS:
        raise ValueError(f"game must be one of {', '.join(ENV_IDS)}, got {game!r}")
    env_id = ENV_IDS[game]
    if game == "realtime" and players != 2:
        env_id = PARTY_ID
    return {"env_id": env_id, "kit_version": __version__}


def register_pettingzoo(pettingzoo: ModuleType) -> bool:
    """Add :data:`PETTINGZOO_ENVS` and :data:`PARTY_PETTINGZOO_ENVS` to ``pettingzoo``'s registry;
    False (no-op) if it has none."""
    register = getattr(pettingzoo, "register", None)
    registries: dict[str, Any] = {
        "parallel": getattr(pettingzoo, "parallel_registry", None),
        "aec": getattr(pettingzoo, "aec_registry", None),
    }
    if not callable(register) or any(r is None for r in registries.values()):
        return False
    for table in (PETTINGZOO_ENVS, PARTY_PETTINGZOO_ENVS):
        for env_type, envs in table.items():
            for env_id, entry_point in envs.items():
                # PettingZoo stores ids normalised (speed_v1 -> speed-v1) and warns on
                # re-registering.
                if re.sub(r"_v(?=\d+$)", "-v", env_id) not in registries[env_type]:
                    register(env_type, env_id, entry_point=entry_point)
    return True


def register_gymnasium() -> None:
    """Add :data:`GYMNASIUM_ENVS` and :data:`PARTY_GYMNASIUM_ENVS` (with
    :data:`GYMNASIUM_VECTOR_ENVS` and :data:`PARTY_GYMNASIUM_VECTOR_ENVS`) to Gymnasium's
    registry.

    Gymnasium's ``make`` warns that an outdated id "is out of date" before it
    calls the entry point, so under ``-W error`` that warning would stop the
    call before :class:`OutdatedEnvError` could say what changed; a filter
    for exactly those ids' warning lets the kit's error be the one shown.
    """
    singles = {**GYMNASIUM_ENVS, **PARTY_GYMNASIUM_ENVS}
    vectors = {**GYMNASIUM_VECTOR_ENVS, **PARTY_GYMNASIUM_VECTOR_ENVS}
    for env_id in {**singles, **vectors}:
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point=singles.get(env_id, VECTOR_ONLY_ENTRY),
                vector_entry_point=vectors.get(env_id),
            )
    for env_id in OUTDATED:
        warnings.filterwarnings(
            "ignore",
            message=f".*The environment {re.escape(env_id)} is out of date",  # after a colour code
            category=DeprecationWarning,
        )


def register_all() -> None:
    """Register every env with the registries this environment's PettingZoo and Gymnasium have."""
    import pettingzoo

    register_pettingzoo(pettingzoo)
    register_gymnasium()
