"""An agent's ``act`` timed at batch one on the fixed decision states, and the machine's facts.

The first :data:`WARMUP` calls are not timed (imports, compilation, caches), then each of the
:data:`~agents.think.states.COUNT` states is one timed call. The cost charged is the
**median** (:data:`QUANTILE`) of those times, rounded to the microsecond: the typical
decision, not moved by the odd pause a shared machine takes (the p90 is recorded beside it).
An agent that takes more than :data:`LIMIT_S` seconds over the whole calibration is refused,
named, with the time it took.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.think.plan import ThinkError

WARMUP = 16
"""Calls before the timed ones, not timed."""
QUANTILE = 0.5
"""The quantile of the timed calls charged: the median."""
LIMIT_S = 60.0
"""Seconds a calibration may take, warm-up included, before the agent is refused as too slow."""


@dataclass(frozen=True)
class Calibration:
    """One agent's calibration: the constant charged and what it stands on."""

    think_ms: float
    """The median decision, ms, rounded to the microsecond: the constant charged."""
    p90_ms: float
    decisions: int
    """Timed calls (warm-up excluded)."""
    seconds: float
    """Wall time of the whole calibration, warm-up included."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as the calibration file holds it."""
        return {
            "think_ms": self.think_ms,
            "p90_ms": self.p90_ms,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
        }


def calibrate(
    name: str,
    act: Callable[[np.ndarray, np.ndarray], Any],
    states: tuple[np.ndarray, np.ndarray],
    *,
    warmup: int = WARMUP,
    limit_s: float = LIMIT_S,
) -> Calibration:
    """Time ``act`` (agent ``name``'s) at batch one on ``states``; warm-up on their first rows."""
    start = time.perf_counter()
    times = []
    calls = min(warmup, len(states[0])) + len(states[0])
    for k, (elapsed, took_ms) in enumerate(timed_calls(act, states, warmup=warmup)):
        if took_ms is not None:
            times.append(took_ms)
        if elapsed > limit_s:
            raise ThinkError(
                f"agent {name!r} is too slow to calibrate: {k + 1} of {calls} calls took "
                f"{elapsed:.1f} s, over the {limit_s:g} s limit"
            )
    ms = np.asarray(times)
    return Calibration(
        think_ms=round(float(np.quantile(ms, QUANTILE)), 3),
        p90_ms=round(float(np.quantile(ms, 0.9)), 3),
        decisions=len(times),
        seconds=time.perf_counter() - start,
    )


def timed_calls(
    act: Callable[[np.ndarray, np.ndarray], Any],
    states: tuple[np.ndarray, np.ndarray],
    *,
    warmup: int = WARMUP,
) -> Iterator[tuple[float, float | None]]:
    """Call ``act`` at batch one on ``states``' first ``warmup`` rows, then on every row.

    Yields, after each call, the seconds since the first call began and the call's own time in
    ms (``None`` for a warm-up call, which is not timed). The caller stops when it has enough.
    """
    obs, mask = states
    start = time.perf_counter()
    warm = min(warmup, len(obs))
    for k, i in enumerate([*range(warm), *range(len(obs))]):
        before = time.perf_counter()
        act(obs[i : i + 1], mask[i : i + 1])
        after = time.perf_counter()
        yield after - start, (after - before) * 1000.0 if k >= warm else None


def machine_facts() -> dict[str, Any]:
    """The machine a calibration ran on: CPU model, cores, load then, Python, kit version."""
    from speed_env import __version__

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "load_1min": None if load is None else round(load, 2),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "kit_version": __version__,
    }


def _cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else ``platform``'s word for it)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
