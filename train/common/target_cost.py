"""What a frozen target costs the training that plays it: its ``act`` timed, and the rate left.

:data:`~train.common.budget.NOMINAL_RATE` is the rate the default recipe trains at against a
cheap target (a network, a hand-written bot). Training waits for a target that thinks
(``search``, a rollout search) at every call, so each learner decision costs
``1 / NOMINAL_RATE`` plus the target's ``act`` time at each of its calls. The env calls it only
on the ticks where it has a play (:mod:`train.vec_env.env`): about once a learner decision at
two seats (0.98 measured: a random learner against ``random``, 64 games, 12,800 decisions),
``players - 1`` times at a table of more.

So before a run the target is timed (:func:`time_targets`): a fresh copy, built as the run
builds it, called at batch one on the kit's fixed decision states for the run's rules where it
has a play (:func:`play_states`, from :mod:`agents.think.states`, the states calibration times
an agent on), after :data:`WARMUP` untimed calls, until its timed calls add up to
:data:`TIMING_S` seconds or every state is timed, whichever comes first. Its cost is the
**mean** call (throughput, where a calibration charges the median). A mixture's cost is its
members' mean, weighted by how often each is drawn (:func:`rate`). ``chain`` costs nothing
here: the env's compiled loop plays it, never calling into Python. The evaluations are not
estimated: their time is said by their own lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from train.common.budget import NOMINAL_RATE

__all__ = [
    "STATES",
    "TIMING_S",
    "WARMUP",
    "TargetCost",
    "cost_text",
    "play_states",
    "rate",
    "time_target",
    "time_targets",
]

TIMING_S = 2.0
"""Seconds of timed calls (warm-up excluded) the estimate spends at most on the targets, split
evenly among them."""
STATES = 2048
"""Decision states drawn from the seeded games, before those with a play are kept."""
WARMUP = 4
"""Untimed calls before the timed ones (imports, compilation, caches): fewer than a
calibration's, so that a slow target does not hold the run up before it starts."""


@dataclass(frozen=True)
class TargetCost:
    """One target's time per decision, and what it stands on."""

    spec: str
    ms: float
    """Mean ``act`` time per decision, ms (0 where it is not called: ``chain``)."""
    timed: int
    """Calls timed (warm-up excluded): fewer than ``states`` where the time ran out."""
    states: int
    """Decision states there were to time it on."""
    how: str
    """``timed``; ``compiled`` (played by the env's compiled loop); ``failed`` (its ``act``
    failed while timed: training will say how, and the cost counts as 0)."""


def time_target(
    spec: str, rules: Any, states: tuple[Any, Any], *, budget_s: float = TIMING_S
) -> TargetCost:
    """``spec`` built fresh on ``rules`` and timed at batch one on ``states`` (module doc)."""
    import agents
    from agents.chain import ChainAgent
    from agents.specs.guarded import AgentFailure, calling, checked_act
    from agents.think.calibrate import timed_calls

    total = len(states[0])
    where = "timing it for the estimate"
    with calling(spec, "building it", where):  # a fresh copy: the run's own keeps its draws
        policy = agents.make(spec, rules, seed=0)
    if type(policy) is ChainAgent:
        return TargetCost(spec, 0.0, 0, total, "compiled")

    def act(obs: Any, mask: Any) -> Any:  # attributed and checked, as training calls it
        return checked_act(policy, obs, mask, spec=spec, where=where)

    times: list[float] = []
    try:
        for _, took_ms in timed_calls(act, states, warmup=WARMUP):
            if took_ms is not None:
                times.append(took_ms)
                if sum(times) >= 1000.0 * budget_s:  # the warm-up's time (compiling) not counted
                    break
    except AgentFailure:
        return TargetCost(spec, 0.0, len(times), total, "failed")
    return TargetCost(spec, sum(times) / len(times), len(times), total, "timed")


def time_targets(
    targets: Mapping[str, float], rules: Any, *, budget_s: float = TIMING_S
) -> list[TargetCost]:
    """Each of ``targets`` (spec to weight) timed, :data:`TIMING_S` shared evenly among them."""
    states = play_states(rules)
    share = budget_s / max(1, len(targets))
    return [time_target(spec, rules, states, budget_s=share) for spec in targets]


def play_states(rules: Any) -> tuple[Any, Any]:
    """The kit's fixed decision states where the seat has a play: where a target is called.

    The training env calls the target only on the ticks where it has a play
    (:mod:`train.vec_env.env`), so those are the states its cost is the mean over. They are
    about one in eleven of the seeded games' states: the most of them that fit are drawn
    (:data:`STATES`), then those with a play kept.
    """
    from agents.think import states

    for total in (STATES, STATES // 2, STATES // 4, states.COUNT):
        try:
            obs, mask = states.decision_states(rules, total)
            break
        except ValueError:  # the seeded games hold fewer states under these rules
            continue
    play = mask[:, 1:].any(axis=1)
    if not play.any():  # rules under which the seeded games hold no play: time every state
        return obs, mask
    return obs[play].copy(), mask[play].copy()


def rate(costs: list[TargetCost], weights: Mapping[str, float], seats: int) -> float:
    """Learner decisions a second: ``1 / (1 / NOMINAL_RATE + mean cost * seats)``.

    ``seats``: the target's decisions per learner decision (``players - 1``); the mean is
    the members' costs weighted by ``weights`` (spec to weight).
    """
    total = sum(weights[c.spec] for c in costs) or 1.0
    mean_s = sum(weights[c.spec] * c.ms for c in costs) / total / 1000.0
    return 1.0 / (1.0 / NOMINAL_RATE + mean_s * seats)


def cost_text(costs: list[TargetCost]) -> str:
    """``search takes ~2.6 ms a decision here (timed on 256 states)``: what the estimate says."""
    parts = []
    for c in costs:
        if c.how == "compiled":
            parts.append(f"{c.spec} is played by the env's compiled loop (no cost of its own)")
        elif c.how == "failed":
            parts.append(f"{c.spec} could not be timed (its act failed)")
        else:
            capped = "" if c.timed == c.states else f" of {c.states}, the time cap reached"
            parts.append(
                f"{c.spec} takes ~{_ms(c.ms)} ms a decision here (timed on {c.timed} "
                f"states{capped})"
            )
    return "; ".join(parts)


def _ms(ms: float) -> str:
    """``2.6``, ``0.041``, ``12``: two significant figures, never an exponent."""
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.2g}"
