"""One league member: a best response trained against a weighted mixture of frozen agents.

:func:`train_member` is the league's one call into training, kept to a small interface so
another trainer (an exploiter's, say) can stand in for it: it takes the opponents and their
weights, an optional model to start from, the rules, a budget and a seed, and returns the
path of the model it wrote. This one runs the kit's default recipe (:mod:`train.ppo`) with
the opponents as its pool (``ppo:a.json*0.6,chain*0.4``: drawn per game by weight,
:mod:`train.vec_env.pool`), from reward alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


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


def opponent_spec(opponents: Sequence[str], weights: Sequence[float]) -> str:
    """The pool spec that draws ``opponents`` per game by ``weights`` (zero weights left out).

    An opponent spec holding a comma cannot be listed in a pool (the comma splits the list):
    refused, naming it.
    """
    if len(opponents) != len(weights):
        raise ValueError(f"{len(opponents)} opponents but {len(weights)} weights")
    parts = []
    for spec, weight in zip(opponents, weights, strict=True):
        if "," in spec:
            raise ValueError(f"league member {spec!r} holds a comma, which an opponent mix splits")
        if weight > 0:
            parts.append(f"{spec}*{weight!r}")
    if not parts:
        raise ValueError("a member needs at least one opponent of positive weight")
    return ",".join(parts)


def recipe_config(
    opponents: Sequence[str],
    weights: Sequence[float],
    init: Path | None,
    rules: str,
    budget: MemberBudget,
    seed: int,
    out: Path,
    recipe: dict[str, Any] | None = None,
) -> Any:
    """The :class:`train.ppo.Config` of one member: the default recipe, against the mixture.

    ``recipe`` overrides fields (``n_envs``, ``n_steps`` … for a tiny test run). The recipe's
    own evaluations are kept to one, at the end, against ``chain``: the league measures its
    members itself, on paired deals against each other.
    """
    from train.ppo import Config

    cfg = Config(
        rules=rules,
        opponent=opponent_spec(opponents, weights),
        init_from=str(init) if init is not None else None,
        timesteps=budget.timesteps,
        minutes=budget.minutes,
        seed=seed,
        out=str(out),
        eval_every=max(budget.timesteps, 1),
        eval_games=100,
        eval_opponents="chain",
        progress=False,
    )
    return dataclasses.replace(cfg, **(recipe or {}))


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
) -> Path:
    """Train one member with :mod:`train.ppo` into ``out``; the path of its ``model.json``.

    What the recipe prints goes to ``out/train.log``.

    Raises :class:`MemberInterrupted` where Ctrl-C came while it trained (the recipe saved what
    it had, which the league does not keep), and the recipe's error where it failed.
    """
    from train.ppo import train

    out.mkdir(parents=True, exist_ok=True)
    # The recipe's own lines (its evaluation, "next, pit it against ...") go to the member's
    # log: the league's output says what the league does. Its progress bar stays on stderr.
    cfg = recipe_config(opponents, weights, init, rules, budget, seed, out, recipe)
    with (
        (out / "train.log").open("w", encoding="utf-8") as log,
        contextlib.redirect_stdout(log),
        noting_ctrl_c() as ctrl_c,
    ):
        summary = train(cfg)
    if ctrl_c or summary.get("stopped"):
        raise MemberInterrupted(f"training of {out} was interrupted")
    return out / "model.json"
