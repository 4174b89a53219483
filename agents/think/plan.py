"""The thinking modes and the reaction profile a seat plays with once its thinking is charged.

``off`` is the kit as it was: nothing is timed, and only an agent's own ``think_ms`` (``search``'s
``ms_per_world``, ``@think=`` in its spec) moves its seat. ``declared`` charges what every agent
declares and refuses an agent that declares nothing. ``calibrated`` charges each agent one
constant timed before play (:mod:`agents.think.calibrate`). ``measured`` charges each decision
its own wall time (:mod:`agents.think.measured`): true of one machine, never repeatable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from speed_env.reaction import ReactionError, ReactionProfile, check_think_ms, delayed

MODES = ("off", "declared", "calibrated", "measured")
"""The values of ``--think``; ``off`` is the default."""


class ThinkError(ValueError):
    """Thinking time that cannot be charged: a bad declaration, calibration or file."""


@dataclass(frozen=True)
class ThinkPlan:
    """How a run charges thinking: its mode and, when calibrated, each agent's constant."""

    mode: str
    costs: tuple[tuple[str, float], ...] = ()
    """``(spec, ms)`` per agent: the constant charged to every play (``calibrated``), or what
    each declares (``declared``, recorded; the agent's own ``think_ms`` is what is charged)."""
    record: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    """The calibration the costs come from (machine facts included); measured: the machine."""

    def __post_init__(self) -> None:
        if self.mode not in MODES[1:]:
            raise ThinkError(f"thinking mode must be one of {', '.join(MODES)}, got {self.mode!r}")

    def cost(self, spec: str) -> float:
        """The constant charged to ``spec``'s plays (``calibrated``)."""
        for name, ms in self.costs:
            if name == spec:
                return ms
        raise ThinkError(f"no thinking cost was calibrated for agent {spec!r}")

    @property
    def repeatable(self) -> bool:
        """Whether the run repeats from its results (every mode but ``measured``)."""
        return self.mode != "measured"

    def to_dict(self) -> dict[str, Any]:
        """The ``think`` entry of a run's settings."""
        out: dict[str, Any] = {"mode": self.mode, "repeatable": self.repeatable}
        if self.costs:
            out["charged_ms"] = dict(self.costs)
        if self.record is not None:  # what the costs stand on, or the machine that measured
            out["calibration" if self.mode == "calibrated" else "machine"] = dict(self.record)
        return out


def declared_ms(policy: Any, spec: str) -> float:
    """The thinking cost ``policy`` declares (its ``think_ms``, 0 when it has none), checked."""
    value = getattr(policy, "think_ms", 0.0)
    if value is None:
        return 0.0
    try:
        return check_think_ms(value, f"agent {spec!r} declares think_ms, which")
    except ReactionError as exc:
        raise ThinkError(str(exc)) from None


def seat_profile(
    policy: Any, spec: str, default: ReactionProfile, plan: ThinkPlan | None = None
) -> ReactionProfile:
    """The reaction profile ``policy``'s seat plays with, its thinking charged as ``plan`` says.

    The profile is the policy's own (``@`` in its spec) or ``default``; ``plan=None`` is ``off``.
    ``measured`` charges nothing here: each decision moves its game's seat as it is timed.
    """
    base = getattr(policy, "reaction", None) or default
    if plan is None or plan.mode == "declared":
        return delayed(base, declared_ms(policy, spec))
    if plan.mode == "calibrated":
        return delayed(base, plan.cost(spec))
    return base


def check_agent(policy: Any, spec: str, mode: str, declared_in_spec: bool) -> None:
    """Refuse an agent its mode cannot charge honestly, naming it.

    ``declared`` needs a declaration (``@think=MS`` or ``think_ms``); ``calibrated`` and
    ``measured`` time every agent, so a declared cost would be a second, contradicting one.
    """
    declared = declared_ms(policy, spec)
    if mode == "declared" and not (declared_in_spec or hasattr(policy, "think_ms")):
        raise ThinkError(
            f"--think declared: agent {spec!r} declares no thinking cost; give it one "
            f"({spec}@think=MS, 0 for free) or use --think calibrated"
        )
    if mode in ("calibrated", "measured") and (declared_in_spec or declared > 0):
        raise ThinkError(
            f"--think {mode} times every agent, but {spec!r} declares its own cost "
            f"({declared:g} ms): drop the declaration or use --think declared"
        )
