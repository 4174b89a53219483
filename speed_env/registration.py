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
``gymnasium.make_vec(                   :class:`speed_env.vector.SpeedSelfPlayVectorEnv` at three
"speed_env/SpeedPartySelfPlay-v0",      or four seats (row ``N g + s`` is seat ``s`` of game
num_envs=N * G, players=N, **kw)``      ``g``; vector only; two players refused)
======================================  ============================================================

The two-seat ids seat two: ``speed_v1`` (parallel and AEC), ``Speed-v1`` (and its
``make_vec``) and ``SpeedSelfPlay-v1`` refuse ``players=3`` or ``4`` in one line naming the
party id to ask for (:data:`TWO_SEAT_ENTRIES`), while the convenience functions
``speed_env.parallel_env(rules, players=n)`` and ``speed_env.env(...)`` build whichever game
the seat count asks for.

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
from gymnasium.error import DeprecatedEnv, Error

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

PARTY_SELF_PLAY_ID = "speed_env/SpeedPartySelfPlay-v0"
"""Party Speed's self-play rows env (vector only): row ``N g + s`` is seat ``s`` of game ``g``."""

PARTY_GYMNASIUM_VECTOR_ENVS: dict[str, str] = {
    PARTY_GYM_ID: "speed_env.vector:PartyVectorEnv",
    PARTY_SELF_PLAY_ID: "speed_env.registration:party_self_play_v0",
}
"""Party Speed's Gymnasium ``vector_entry_point`` by id (beside the two-seat table, unchanged)."""

VECTOR_ONLY_ENTRY = "speed_env.vector:self_play_single"
"""The ``entry_point`` of the vector-only ids: an error that says to use ``make_vec``."""

PARTY_VECTOR_ONLY_ENTRY = "speed_env.registration:party_self_play_single"
"""The ``entry_point`` of :data:`PARTY_SELF_PLAY_ID`: an error that says to use ``make_vec``."""

SELF_PLAY_V1_ID = "speed_env/SpeedSelfPlay-v1"
"""The two-seat self-play rows env's id (:mod:`speed_env.vector.selfplay`)."""

TWO_SEAT_ENTRIES: dict[tuple[str, str], str] = {
    ("parallel", REALTIME_ID): "speed_env.registration:speed_v1_parallel",
    ("aec", REALTIME_ID): "speed_env.registration:speed_v1_aec",
    ("vector", SELF_PLAY_V1_ID): "speed_env.registration:speed_self_play_v1",
}
"""What the registries call for the two-seat ids whose builder also seats three or four:
``(env type, id) -> entry point``, each the table's builder behind a seat-count check.

``speed_env.parallel_env(players=3)`` builds Party Speed (a convenience of one function for
every seat count), but an id names one game with one set of spaces (PettingZoo's versioned-id
rule): ``pettingzoo.make("parallel", "speed_env/speed_v1", players=3)`` must not quietly hand
back ``speed_party_v0``'s env. The tables above keep naming the builders (what the two-seat
fingerprint and the env pages read); registering swaps in these guards
(``gymnasium.make("speed_env/Speed-v1")`` and its ``make_vec`` refuse other seat counts
themselves)."""

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


def _seats_asked(rules: Any, options: dict[str, Any]) -> int:
    """The seat count a registry call's ``rules`` and rule options ask for (other keywords,
    such as ``tick_ms``, left out); 2 where they cannot be read, so the env names the fault."""
    from dataclasses import fields

    from speed_env.party_games import seats_asked
    from speed_env.rules import Rules

    rule_keys = {f.name for f in fields(Rules)}
    return seats_asked(rules, {k: v for k, v in options.items() if k in rule_keys})


def _two_seats_only(env_id: str, party: str, rules: Any, options: dict[str, Any]) -> None:
    """Refuse a seat count other than two for the two-seat ``env_id``, naming ``party``."""
    from speed_env.rules import RulesError

    seats = _seats_asked(rules, options)
    if seats != 2:
        raise RulesError(
            f"{env_id} seats 2 players; players={seats} is Party Speed, another env with other "
            f"spaces: ask for {party} with players={seats}"
        )


def speed_v1_parallel(rules: Any = "us", **kwargs: Any) -> Any:
    """Entry point of PettingZoo's parallel ``speed_env/speed_v1``: two seats only (other seat
    counts refused, naming :data:`PARTY_ID`), else :func:`speed_env.parallel_env`."""
    _two_seats_only(REALTIME_ID, f'pettingzoo.make("parallel", "{PARTY_ID}")', rules, kwargs)
    from speed_env.parallel import parallel_env

    return parallel_env(rules, **kwargs)


def speed_v1_aec(rules: Any = "us", **kwargs: Any) -> Any:
    """Entry point of PettingZoo's AEC ``speed_env/speed_v1``: two seats only (other seat
    counts refused, naming :data:`PARTY_ID`), else :func:`speed_env.env`."""
    _two_seats_only(REALTIME_ID, f'pettingzoo.make("aec", "{PARTY_ID}")', rules, kwargs)
    from speed_env.parallel import env

    return env(rules, **kwargs)


def speed_self_play_v1(num_envs: int = 2, rules: Any = "us", **kwargs: Any) -> Any:
    """``vector_entry_point`` of ``speed_env/SpeedSelfPlay-v1``: two seats only (other seat
    counts refused, naming :data:`PARTY_SELF_PLAY_ID`), else the rows env."""
    hint = f'gymnasium.make_vec("{PARTY_SELF_PLAY_ID}", num_envs=players * games)'
    _two_seats_only(SELF_PLAY_V1_ID, hint, rules, kwargs)
    from speed_env.vector import SpeedSelfPlayVectorEnv

    return SpeedSelfPlayVectorEnv(num_envs, rules, **kwargs)


def party_self_play_v0(num_envs: int = 3, rules: Any = "us", **kwargs: Any) -> Any:
    """``vector_entry_point`` of :data:`PARTY_SELF_PLAY_ID`: the rows env of three or four
    seats (``players`` required; two refused, naming ``SpeedSelfPlay-v1``)."""
    from speed_env.rules import RulesError

    if _seats_asked(rules, kwargs) == 2:
        raise RulesError(
            f"{PARTY_SELF_PLAY_ID} seats 3 or 4 players (rule option players=3 or players=4); "
            f"two players' rows are {SELF_PLAY_V1_ID}"
        )
    from speed_env.vector import SpeedSelfPlayVectorEnv

    return SpeedSelfPlayVectorEnv(num_envs, rules, **kwargs)


def party_self_play_single(*args: Any, **kwargs: Any) -> NoReturn:
    """Entry point of ``gymnasium.make`` for :data:`PARTY_SELF_PLAY_ID`: refused, naming
    ``make_vec``."""
    raise Error(
        f"{PARTY_SELF_PLAY_ID} is a vector env only (its rows are every seat of each game): use "
        f"gymnasium.make_vec({PARTY_SELF_PLAY_ID!r}, num_envs=players * games, players=3 or 4); "
        f"for one game's seats use speed_env.parallel_env(players=...), for one seat "
        f"gymnasium.make({PARTY_GYM_ID!r})"
    )


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
                    entry = TWO_SEAT_ENTRIES.get((env_type, env_id), entry_point)
                    register(env_type, env_id, entry_point=entry)
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
    vector_only = {PARTY_SELF_PLAY_ID: PARTY_VECTOR_ONLY_ENTRY}
    for env_id in {**singles, **vectors}:
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point=singles.get(env_id, vector_only.get(env_id, VECTOR_ONLY_ENTRY)),
                vector_entry_point=TWO_SEAT_ENTRIES.get(("vector", env_id), vectors.get(env_id)),
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
