"""One league member: a best response trained against a weighted mixture of frozen agents.

:func:`train_member` is the league's one call into training, kept to a small interface (the
opponents and their weights, an optional model to start from, the rules, a budget and a
seed; the path of the model it wrote) so that a test can stand in for it. It is the
exploiter's trainer, :func:`train.exploit.best_response` (the one ``speed exploit`` runs):
the default recipe against the opponents drawn per game by weight
(:mod:`train.vec_env.mixture`), from reward alone or from the previous member.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agents.runtime.interrupts import terminated


@dataclass(frozen=True)
class MemberBudget:
    """How long one member trains: learner decisions, and optionally wall-clock minutes."""

    timesteps: int
    minutes: float | None = None
    """Stop at the first whole rollout past this many minutes (None: no clock)."""


class TrainMember(Protocol):
    """The interface a league trains its members through."""

    def __call__(
        self,
        opponents: Sequence[str],
        weights: Sequence[float],
        init: Path | None,
        rules: str,
        budget: MemberBudget,
        seed: int,
        out: Path,
    ) -> Path:
        """Train a learner against ``opponents`` drawn by ``weights``; its model's path."""
        ...


class MemberInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a member's training: the member is not kept."""


@contextlib.contextmanager
def noting_ctrl_c() -> Iterator[list[int]]:
    """Ctrl-C acts as before and is also noted in the list this yields.

    The recipe keeps going after a Ctrl-C that lands in one of its evaluations (the
    tournament harness keeps the games that finished), so its summary alone cannot say that
    the user asked to stop. Only a Python handler (``KeyboardInterrupt``'s) is wrapped; off the
    main thread, where no handler can be set, nothing is noted.
    """
    noted: list[int] = []
    previous = signal.getsignal(signal.SIGINT) if _main_thread() else None
    if not callable(previous):  # off the main thread, or Ctrl-C ignored or left to the OS
        yield noted
        return

    def note(signum: int, frame: Any) -> None:
        noted.append(signum)
        previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def drawn_opponents(
    opponents: Sequence[str], weights: Sequence[float]
) -> tuple[list[str], list[float]]:
    """The opponents a member trains against and their weights, those of weight 0 left out.

    The exploiter's targets are listed joined by commas, so a spec holding a comma cannot be
    one: refused, naming it.
    """
    if len(opponents) != len(weights):
        raise ValueError(f"{len(opponents)} opponents but {len(weights)} weights")
    kept = [(spec, float(w)) for spec, w in zip(opponents, weights, strict=True) if w > 0]
    for spec, _ in kept:
        if "," in spec:
            raise ValueError(f"league member {spec!r} holds a comma, which an opponent mix splits")
    if not kept:
        raise ValueError("a member needs at least one opponent of positive weight")
    return [spec for spec, _ in kept], [w for _, w in kept]


def member_settings(
    init: Path | None, budget: MemberBudget, recipe: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The exploiter's settings (:class:`train.exploit_settings.ExploitSettings` fields) of a
    member.

    The default recipe, warm-started from ``init`` where given; ``recipe`` overrides fields
    (``n_envs``, ``n_steps`` … for a tiny test run). The exploiter's own evaluation is kept to
    one, at the end, of 100 games against each opponent: the league measures its members
    itself, on paired deals against each other.
    """
    settings: dict[str, Any] = {
        "init_from": str(init) if init is not None else None,
        "eval_every": max(budget.timesteps, 1),
        "eval_games": 100,
        "progress": False,
    }
    return settings | (recipe or {})


def train_member(
    opponents: Sequence[str],
    weights: Sequence[float],
    init: Path | None,
    rules: str,
    budget: MemberBudget,
    seed: int,
    out: Path,
    *,
    recipe: dict[str, Any] | None = None,
    think: Any = None,
) -> Path:
    """Train one member as an exploiter of the mixture into ``out``; its ``model.json``'s path.

    :func:`train.exploit.best_response`, the trainer of ``speed exploit``; what it prints goes
    to ``out/train.log``, and ``out/exploit.json`` records its score against the mixture.

    ``think``: the league's plan charging the opponents' thinking (learned members charged
    nothing; :mod:`train.common.think`), charged in training and in its score alike.

    Raises :class:`MemberInterrupted` where Ctrl-C came while it trained (it saved what it had,
    which the league does not keep), and the trainer's error where it failed.
    """
    from train.common.think import charging_nothing_to
    from train.exploit import best_response

    targets, mix = drawn_opponents(opponents, weights)
    settings = member_settings(init, budget, recipe)
    out.mkdir(parents=True, exist_ok=True)
    # The trainer's own lines (its estimate, its evaluation) go to the member's log: the
    # league's output says what the league does. Its progress bar stays on stderr.
    with (
        (out / "train.log").open("w", encoding="utf-8") as log,
        contextlib.redirect_stdout(log),
        noting_ctrl_c() as ctrl_c,
    ):
        held = best_response(
            targets,
            mix,
            rules=rules,
            timesteps=budget.timesteps,
            minutes=budget.minutes,
            seed=seed,
            out=out,
            charged=charging_nothing_to(think, targets),
            **settings,
        )
    # A SIGTERM (agents.runtime.interrupts) that landed in an evaluation is kept as Ctrl-C is.
    if ctrl_c or held.get("stopped") or terminated():
        raise MemberInterrupted(f"training of {out} was interrupted")
    return out / "model.json"
