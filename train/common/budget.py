"""The numbers a training run uses, and the line that says so when they are not the ones asked.

PPO learns in whole rollouts (``n_steps`` steps of ``n_envs`` games: ``n_steps * n_envs``
learner decisions), and a run checks whether an evaluation is due at the end of a rollout.
So ``--timesteps 200000`` with rollouts of 16,384 trains 212,992 (the 13th rollout is the
first to reach the budget) and ``--eval-every 100000`` evaluates every 114,688. Rather than
stopping a rollout part-way (PPO's update needs the whole of it), the run rounds both up to
whole rollouts, says so in one line before it starts, and records the requested and the used
numbers in ``state.json`` and ``summary.json`` (:func:`plan`, :func:`describe`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["NOMINAL_RATE", "Budget", "describe", "plan", "rough_time", "whole_rollouts"]

NOMINAL_RATE = 1_500
"""Learner decisions a second the default recipe trains at on one core of a busy two-core
machine (docs/training.md); only for the rough time said before a run (an exploiter's, a
league's)."""


def rough_time(seconds: float) -> str:
    """``87 s``, ``22 min`` or ``1 h 45 min``: a rough time as the estimates before a run say it."""
    minutes = round(seconds / 60)
    if minutes >= 60:
        return f"{minutes // 60} h {minutes % 60} min"
    return f"{minutes} min" if seconds >= 90 else f"{max(1.0, seconds):.0f} s"


def whole_rollouts(steps: int, rollout: int) -> int:
    """``steps`` rounded up to a whole number of rollouts of ``rollout`` decisions."""
    return -(-steps // rollout) * rollout


@dataclass(frozen=True)
class Budget:
    """What a run was asked for and what it will do: its length and its evaluation interval."""

    rollout: int
    """Learner decisions a rollout (``n_steps * n_envs``)."""
    start: int
    """Timesteps already trained (a resumed run's checkpoint; 0 for a new run)."""
    timesteps_requested: int
    """``--timesteps`` as given (or the run's own saved budget when resuming without it)."""
    timesteps_used: int
    """Where training stops: the first rollout end at or past the request."""
    eval_every_requested: int
    """``--eval-every`` as given."""
    eval_every_used: int
    """The interval between evaluations: the request in whole rollouts."""

    def record(self) -> dict[str, Any]:
        """The budget as ``state.json`` and ``summary.json`` keep it (requested vs used)."""
        return {
            "rollout": self.rollout,
            "start": self.start,
            "timesteps": {"requested": self.timesteps_requested, "used": self.timesteps_used},
            "eval_every": {
                "requested": self.eval_every_requested,
                "used": self.eval_every_used,
            },
        }


def plan(timesteps: int, eval_every: int, n_steps: int, n_envs: int, start: int = 0) -> Budget:
    """The budget of a run asked for ``timesteps`` and ``eval_every``.

    Rollouts are ``n_steps * n_envs``; a resumed run starts at ``start`` timesteps. Training
    goes from ``start`` in whole rollouts until it reaches ``timesteps``, as SB3's loop does,
    so it stops at ``start`` plus the remainder rounded up; a run already there trains no
    further.
    """
    rollout = n_steps * n_envs
    # A resumed run already past its budget trains no further, never a negative count.
    used = start + whole_rollouts(max(timesteps - start, 0), rollout)
    # Evaluations fall between rollouts, so their interval is rounded the same way.
    return Budget(rollout, start, timesteps, used, eval_every, whole_rollouts(eval_every, rollout))


def describe(budget: Budget) -> str | None:
    """One line saying which numbers were rounded and why, or None when each is as asked."""
    changed = [
        f"--{flag} {asked:,} -> {used:,}"
        for flag, asked, used in (
            ("timesteps", budget.timesteps_requested, budget.timesteps_used),
            ("eval-every", budget.eval_every_requested, budget.eval_every_used),
        )
        if used > asked
        # A figure a resumed run had already passed was not rounded by it.
        and budget.start < asked
        # an interval the run never reaches changes nothing it does
        and not (flag == "eval-every" and asked >= budget.timesteps_used)
    ]
    if not changed:
        return None
    return (
        f"rounded up to whole rollouts of {budget.rollout:,} decisions (n_steps x n_envs; PPO "
        f"updates on whole rollouts): {', '.join(changed)}"
    )


def budget_line(default_budget: bool, source: str, minutes: float | None) -> str | None:
    """What a new run says of a budget it was not given in timesteps; ``None``: nothing to say.

    ``default_budget``: no ``--timesteps`` was given, so the run took ``source`` (the recipe's
    default, in words). Where ``minutes`` end it (``--minutes``, a card's ``--exploit-minutes``)
    the minutes are the budget and the default only its cap: "training the default budget" there
    promised hours of training to a run stopped in one minute.
    """
    if not default_budget:
        return None
    if minutes is not None:
        return (
            f"training for {minutes:g} minute(s): the first whole rollout past them ends it "
            f"(at most {source} timesteps)"
        )
    return f"no --timesteps given: training {source}"
