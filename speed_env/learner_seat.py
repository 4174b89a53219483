"""What the single-seat envs share: the learner in one seat, every other seat played inside.

:class:`~speed_env.single.SpeedGymEnv` (two seats, ``Speed-v1``) and
:class:`~speed_env.party_single.PartyGymEnv` (three or four, ``SpeedParty-v0``)
check their seat and opponents, the learner's action and each opponent's
answer, charge the opponents' thinking and make a reset's random draws through
these functions, so that every seat count does each of them one way, with
the same errors. The other seats are counted from the learner's: the ``i``-th
opponent plays the ``i``-th seat after the learner's in seat order (with two
seats, the one opponent plays the other seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from speed_env.game import ActionError, check_action
from speed_env.policy import Policy
from speed_env.reaction import ReactionProfile, delayed
from speed_env.shown import shown


def check_seat(seat: object, players: int) -> None:
    """Refuse a ``seat`` other than ``0`` … ``players - 1`` or ``"random"``, naming them."""
    if seat != "random" and (
        isinstance(seat, bool)
        or not isinstance(seat, int | np.integer)
        or seat not in range(players)
    ):
        seats = ", ".join(str(s) for s in range(players))
        raise ValueError(f"seat must be {seats} or 'random', got {shown(seat)}")


def check_policy(policy: object, name: str, call: str) -> None:
    """Refuse ``policy`` unless it is a :class:`~speed_env.policy.Policy`, naming the argument
    ``name``; ``call`` shows how to pass a bot (``{}`` for the ``agents.make(...)``
    expression), for the error that meets an agent spec string."""
    if isinstance(policy, str):
        # speed_env never imports agents (agents depends on speed_env): the bot is built by
        # the caller, from the same spec.
        made = f"agents.make({shown(policy)})"
        raise TypeError(
            f"{name}={shown(policy)} is an agent spec, not a Policy; build the bot with the "
            f"agents package: import agents; {call.format(made)}"
        )
    if not isinstance(policy, Policy):
        raise TypeError(
            f"{name} must have act(obs, mask) -> actions (a Policy), got {type(policy).__name__}"
        )


def charged(
    reactions: Sequence[ReactionProfile], learner: int, think_ms: Sequence[float]
) -> tuple[ReactionProfile, ...]:
    """Every seat's profile, the ``i``-th seat after ``learner``'s moved ``think_ms[i]`` later
    (:func:`speed_env.reaction.delayed`: its thinking charged before each play lands)."""
    out = list(reactions)
    for i, ms in enumerate(think_ms):
        seat = (learner + 1 + i) % len(out)
        out[seat] = delayed(out[seat], ms)
    return tuple(out)


def draw_reset(
    rng: np.random.Generator,
    seat: int | str,
    players: int,
    opponents: Sequence[object],
    seeded: bool,
) -> tuple[int, int]:
    """A reset's draws from the env's generator ``rng``: ``(the learner's seat, the game's
    seed)``.

    In this order: the seat (only for ``seat="random"``), the game's seed, then, at a
    ``seeded`` reset, one seed for each opponent with a ``reseed(seed)`` method, in the
    order given (one draw each, so each seat's generator is its own).
    """
    learner = int(rng.integers(players)) if seat == "random" else int(seat)
    game_seed = int(rng.integers(2**63))
    if seeded:
        for opponent in opponents:
            reseed = getattr(opponent, "reseed", None)
            if callable(reseed):
                reseed(int(rng.integers(2**63)))
    return learner, game_seed


def checked_action(
    action: Any, mask: np.ndarray, illegal_action: str, who: str
) -> tuple[int, bool]:
    """``(action, illegal now)`` of ``who`` against its ``mask`` row: anything but an integer
    in the space is an :class:`~speed_env.ActionError`; an illegal one too under
    ``illegal_action="raise"``, naming the legal ones (else it is taken as a wait)."""
    value = check_action(action, len(mask), who)
    illegal = bool(mask[value] == 0)
    if illegal and illegal_action == "raise":
        legal = np.flatnonzero(mask).tolist()
        raise ActionError(f"action {value} of {who} is illegal now; legal: {legal}")
    return value, illegal


def policy_action(policy: Policy, obs: np.ndarray, mask: np.ndarray, who: str) -> int:
    """``policy``'s action for one seat, given its observation and mask as batches of one row;
    an answer that is not one integer in the space is an :class:`~speed_env.ActionError`
    naming ``who``."""
    actions = np.asarray(policy.act(obs, mask))
    if actions.shape not in ((1,), ()):
        raise ActionError(
            f"{who} returned actions of shape {actions.shape}; act(obs, mask) must return "
            "one action per row of obs: an integer array of shape (1,) here"
        )
    return check_action(actions.reshape(()), mask.shape[-1], who)
