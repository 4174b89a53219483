"""A simulated person: known reaction times and a habit, so human-data tools run without one.

The person answers each *new* chance, a play that was not legal at the tick
before, after a wait drawn from its ex-Gaussian reaction profile
(``max(floor, mu + sigma * N(0, 1) + tau * Exp(1))``, as
:mod:`speed_env.reaction`'s), and picks which by habit: with probability
``habit`` the first in habit order (the left pile, then the lowest rank),
otherwise any of the new ones. A wait whose chance goes away first is kept for
the next chance rather than redrawn, so the times it plays are its draws in
order, unselected by their values: a fit of the plays' reaction times recovers
the profile (``speed data profile``; docs/human-data.md).

- :class:`Person`: the profile and the habit.
- :class:`Attention`: one game of it: the chance it is answering and its next wait.
  Its host says what is legal and new each tick and plays what comes due: the
  table's game logic on a fake clock (the data tests), a ``Speed-v1`` game
  (``speed data generate --person``, :mod:`speed_data.generate`), or
  ``parallel_env`` (``speed_lab.clone_sample_size``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import numpy as np

from speed_env.reaction import ReactionError, ReactionProfile, make_profile

DEFAULT_REACTION = ReactionProfile(300.0, 40.0, 100.0, 20.0)
"""The tests' person: mu 300, sigma 40, tau 100 ms, never under 20 ms."""


def habit_key(action: int) -> tuple[int, int]:
    """A play action's place in habit order: pile 0 before pile 1, then the lower rank.

    A play is ``1 + 2 * rank + pile``.
    """
    rank, pile = divmod(action - 1, 2)
    return pile, rank


@dataclass(frozen=True)
class Person:
    """A simulated person: its reaction profile and how often its habit decides."""

    reaction: ReactionProfile = DEFAULT_REACTION
    """Its waits, ms: an ex-Gaussian with a floor (a fixed profile waits exactly ``mu``)."""
    habit: float = 0.8
    """The chance that it answers the first new chance in habit order."""

    def __post_init__(self) -> None:
        if isinstance(self.habit, bool) or not 0.0 <= self.habit <= 1.0:
            raise ValueError(f"a person's habit is a probability in 0..1, got {self.habit!r}")

    def wait_ms(self, rng: np.random.Generator) -> float:
        """One reaction time (ms), at least the profile's floor."""
        p = self.reaction
        return max(p.floor, p.mu + p.sigma * rng.standard_normal() + p.tau * rng.exponential())

    def pick(self, new: Iterable[int], rng: np.random.Generator) -> int:
        """Which of the ``new`` play actions to answer (one draw of ``rng``)."""
        ordered = sorted(new, key=habit_key)
        u = rng.random()
        if u < self.habit:
            return ordered[0]
        return ordered[
            min(int((u - self.habit) / (1.0 - self.habit) * len(ordered)), len(ordered) - 1)
        ]


def person_of(spec: str, habit: float = 0.8) -> Person:
    """The person of ``--person``: a profile name (``human``), ``profile:FILE`` or ms.

    Raises :class:`~speed_env.reaction.ReactionError` naming what is wrong.
    """
    reaction = make_profile(spec)
    if reaction.is_fixed:
        raise ReactionError(
            f"{spec!r} is a fixed {reaction.mu:g} ms: a person's reaction times vary; "
            "give a profile name or profile:FILE (speed data profile writes one)"
        )
    return Person(reaction, habit)


@dataclass
class Attention:
    """One game of a :class:`Person`: the chance it is answering and its next wait.

    Each tick the host calls :meth:`look` with what is legal and what is new, then
    :meth:`due` for a play whose time has come; it reports what became of that play with
    :meth:`played` or :meth:`missed`.
    """

    person: Person
    rng: np.random.Generator
    wait: float = field(init=False)
    """The next reaction time, ms: drawn when the last one was played."""
    plan: tuple[int, float] | None = field(init=False, default=None)
    """The chance being answered and when its play is sent (ms), or None."""

    def __post_init__(self) -> None:
        self.wait = self.person.wait_ms(self.rng)

    def look(self, legal: Collection[int], new: Iterable[int], now_ms: float) -> None:
        """The plays ``legal`` now, of which ``new`` were not legal the tick before."""
        if self.plan is not None and self.plan[0] not in legal:
            self.plan = None  # the chance went away: the wait is kept for the next one
        fresh = list(new)
        if self.plan is None and fresh:
            self.plan = (self.person.pick(fresh, self.rng), now_ms + self.wait)

    def due(self, by_ms: float) -> tuple[int, float, float] | None:
        """``(action, sent_ms, reaction_ms)`` of the play sent by ``by_ms``, or None."""
        if self.plan is None or self.plan[1] > by_ms:
            return None
        return self.plan[0], self.plan[1], self.wait

    def played(self) -> None:
        """The due play was made: the next chance gets a new wait."""
        self.plan = None
        self.wait = self.person.wait_ms(self.rng)

    def missed(self) -> None:
        """The due play could not be made: its wait is kept for the next chance."""
        self.plan = None


def plays_of(mask: np.ndarray) -> set[int]:
    """The play actions (not the wait, 0) a mask row allows."""
    return {int(a) for a in np.flatnonzero(mask[1:]) + 1}


__all__ = [
    "DEFAULT_REACTION",
    "Attention",
    "Person",
    "habit_key",
    "person_of",
    "plays_of",
]
