"""Play records from bot play, or from a simulated person: any opponent in ``Speed-v1``.

``speed data generate --agents chain,greedy --games N --rules us --minari ID``
plays ``N`` games of the first agent (the recorded seat, ``player_0``)
against the second inside ``Speed-v1``, game ``g`` reset with seed ``seed + g``,
and records each as :mod:`speed_data.records` does a person's (``seat_kind``
``"bot"``, no reaction times: a bot decides at once and the env draws its
latency from its profile). The records replay exactly in ``Speed-v1``
(:func:`speed_data.replay.compare`), like the table's.

With a :class:`~speed_data.person.Person` (``--person PROFILE``) the recorded
seat is that simulated person instead, recorded as the table records a real one
(``seat_kind`` ``"simulated"``, its play landing 1 ms after it is sent) with the
reaction time of each play, drawn from its profile: ``speed data profile`` can
then be checked against a profile that is known.

Every call into an agent goes through the agent guard
(:mod:`agents.specs.guarded`), as a tournament's does: whatever an agent does
wrong (raises, exits, answers a float or a bool) is one
:class:`~agents.specs.guarded.AgentFailure` naming its spec, the call and the game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import agents
from agents.specs.guarded import calling, checked_act, seed_globals
from speed_data.person import Attention, Person, plays_of
from speed_data.recorder import GameRecorder, speed_v1_game_seed
from speed_env.deal import deal_from_seed
from speed_env.reaction import ReactionProfile, fixed
from speed_env.rules import Rules
from speed_env.single import SpeedGymEnv

PERSON_LANDS_MS = 1.0
"""A person's play lands this long after it is sent, as at the table (their reaction already
happened, and is recorded in ``reaction_ms``)."""


class _GuardedOpponent:
    """The opponent inside the env, called through the agent guard, its last action kept."""

    def __init__(self, policy: Any, spec: str) -> None:
        self.policy = policy
        self.spec = spec
        self.where = ""
        """Which game is being played, for a failure's line."""
        self.last = 0

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = checked_act(self.policy, obs, mask, spec=self.spec, where=self.where)
        self.last = int(actions[0])
        return actions


def person_label(person: Person) -> str:
    """The recorded seat's ``agent`` for a simulated person: ``simulated@PROFILE``."""
    return f"simulated@{person.reaction.label()}"


def play_records(
    specs: tuple[str, str],
    rules: Rules,
    games: int,
    *,
    seed: int = 0,
    tick_ms: int = 50,
    reaction: ReactionProfile,
    progress: Callable[[int], None] | None = None,
    person: Person | None = None,
) -> Iterator[dict[str, Any]]:
    """The records of ``games`` games of ``specs[0]`` (recorded) against ``specs[1]``.

    A spec's own profile (``chain@pro``) is its seat's latency, else ``reaction``.
    With ``person``, the recorded seat is that simulated person and ``specs[0]`` is not
    built. ``progress(1)`` is called after each game. An agent's failure is an
    :class:`~agents.specs.guarded.AgentFailure` naming its spec, the call and the game.
    """
    where = [f"{specs[0]} vs {specs[1]}, seat {p}" for p in range(2)]
    # A bot drawing from the global generators plays the same for the same seed, as in
    # a tournament.
    seed_globals(seed)
    me: Any = None
    if person is None:
        with calling(specs[0], "building it", where[0]):
            me = agents.make(specs[0], rules, seed=seed)
            mine = agents.seat_reaction(me, reaction)
    else:
        mine = fixed(PERSON_LANDS_MS)
    with calling(specs[1], "building it", where[1]):
        them = agents.make(specs[1], rules, seed=seed + 1)  # not the recorded seat's stream
        profiles = (mine, agents.seat_reaction(them, reaction))
    opponent = _GuardedOpponent(them, specs[1])
    env = SpeedGymEnv(rules, opponent=opponent, seat=0, tick_ms=tick_ms, reaction=profiles)
    for g in range(games):
        game_seed = seed + g
        here = f"game {g}, seed {game_seed}"
        opponent.where = f"{where[1]}, {here}"
        obs, info = env.reset(seed=game_seed)
        rec = GameRecorder(
            source="generate",
            seat_kind="bot" if person is None else "simulated",
            agent=specs[0] if person is None else person_label(person),
            rules=rules,
            tick_ms=tick_ms,
            reaction=profiles,
            opponent=specs[1],
            seed=game_seed,
            # The deal Speed-v1's reset(seed=game_seed) makes: the env draws the engine's seed
            # from its own generator first, so the deal is not deal_from_seed(game_seed).
            deal=deal_from_seed(rules, speed_v1_game_seed(game_seed)).to_dict(),
        )
        rec.observe(obs, info["action_mask"])
        seat: _BotSeat | _SimulatedSeat = (
            _BotSeat(me, specs[0], f"{where[0]}, {here}")
            if person is None
            else _SimulatedSeat(person, np.random.default_rng(game_seed), tick_ms)
        )
        while True:
            action, reaction_ms = seat.decide(obs, info["action_mask"])
            obs, reward, term, trunc, info = env.step(action)
            rec.step(action, opponent.last, reward, obs, info["action_mask"], reaction_ms)
            if term or trunc:
                break
        yield rec.finish(term, trunc, env.snapshot()["winner"])
        if progress is not None:
            progress(1)


class _BotSeat:
    """A bot in the recorded seat, called through the agent guard."""

    def __init__(self, policy: Any, spec: str, where: str) -> None:
        self.policy, self.spec, self.where = policy, spec, where

    def decide(self, obs: np.ndarray, mask: np.ndarray) -> tuple[int, float | None]:
        """This tick's action (a bot's reaction is the env's to draw: no time)."""
        acts = checked_act(self.policy, obs[None], mask[None], spec=self.spec, where=self.where)
        return int(acts[0]), None


class _SimulatedSeat:
    """One game of a simulated person in the recorded seat, tick by tick.

    A play sent between two ticks is stepped at the later, as at the table, and its reaction
    time is the wait drawn for it (from the tick its chance became legal to its sending).
    """

    def __init__(self, person: Person, rng: np.random.Generator, tick_ms: int) -> None:
        self.attention = Attention(person, rng)
        self.tick_ms = tick_ms
        self.now_ms = 0.0
        self.before: set[int] = set()

    def decide(self, obs: np.ndarray, mask: np.ndarray) -> tuple[int, float | None]:
        """This tick's action and, for a play, its reaction time (ms)."""
        now, self.now_ms = self.now_ms, self.now_ms + self.tick_ms
        legal = plays_of(mask)
        self.attention.look(legal, legal - self.before, now)
        self.before = legal
        due = self.attention.due(now)
        if due is None:
            return 0, None
        self.attention.played()
        return due[0], due[2]


__all__ = ["PERSON_LANDS_MS", "person_label", "play_records"]
