"""A thinking cost declared in an agent's spec: ``chain@think=5ms``, ``greedy@pro@think=0.2``.

The items after ``@`` are a reaction profile and at most one ``think=MS``, in any order. The
cost is set on the built agent as its ``think_ms`` (the attribute a bot of one's own may carry
itself; ``search`` computes its own from ``ms_per_world``).
"""

from __future__ import annotations

import math

from agents.errors import AgentSpecError

PREFIX = "think="
"""The spec item that declares a cost."""


def split_think(spec: str, tail: str) -> tuple[str, float | None]:
    """``tail`` (what follows the first ``@`` of ``spec``) without its ``think=``, and the ms.

    >>> split_think("chain@pro@think=5ms", "pro@think=5ms")
    ('pro', 5.0)
    >>> split_think("chain@pro", "pro")
    ('pro', None)
    """
    items = tail.split("@") if tail else []
    thinks = [item for item in items if item.strip().lower().startswith(PREFIX)]
    if not thinks:
        return tail, None
    if len(thinks) > 1:
        raise AgentSpecError(f"agent spec {spec!r} declares its thinking cost twice")
    rest = "@".join(item for item in items if item not in thinks)
    return rest, parse_ms(spec, thinks[0].strip()[len(PREFIX) :])


def parse_ms(spec: str, text: str) -> float:
    """``5``, ``5ms`` or ``0.2ms`` as ms; a negative or non-number is refused, naming the spec."""
    try:
        value = float(text.strip().lower().removesuffix("ms"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise AgentSpecError(
            f"bad thinking cost in agent spec {spec!r}: think={text} must be a number of ms "
            ">= 0 (think=5ms)"
        )
    return value
