"""What search is worth once it pays for its thinking: win rate against thinking cost per decision.

The experiment (``speed experiment think``) plays each **budget** (``search`` at several world
counts, and a network, by default ``trained``: on ``japanese`` with the four options, the network
distilled from ``search:wait=0``) against one opponent (``chain``) on paired deals, at several
**levels** of thinking charged to the budget's seat:

============  ==============================================================================
level         the budget's seat plays with
============  ==============================================================================
``off``       no thinking charged (the kit as it was; the opponent is never charged)
``×m``        ``m`` times the budget's calibrated cost added to its reaction latency, every play
``20ms``      a fixed cost, the same for every budget (``costs``)
============  ==============================================================================

Every point plays the same deals (the same seed), so the differences between points are the
budgets and the costs, not the luck of the deal.

**The calibrated cost.** The kit's ``--think calibrated`` charges the median of an agent's
``act`` over fixed decision states (:mod:`agents.think.calibrate`). Most of those states leave one
legal action (wait), where ``search`` does not search: its median is then a few µs at every world
count. This experiment times the agents the same way, at batch one after a warm-up, on the
decision states that hold a **choice** (two or more legal plays, where every search searches;
:func:`choice_states`), and charges that median, the time a decision that matters takes. Both
medians are recorded.

**Statistics.** A point's win rate counts a draw half; its 95% interval is over paired deals
(each deal's two seatings are one sample; normal interval on the deals' mean). Per budget, a
logistic curve of win rate against the cost charged (:func:`agents.reaction_sweep.fit_logistic`)
gives the **break-even cost**, the ms per decision at which the budget is level with the
opponent, with a bootstrap interval over deals (the same draw at every point).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.reaction_sweep.work import plan_chunks
from agents.runtime.jobs import Backend, run_jobs
from agents.think.calibrate import Calibration, calibrate
from agents.think.plan import ThinkError, ThinkPlan
from agents.tournament import realtime
from speed_env.rules import Rules

WORLDS = (1, 4, 16, 64, 256)
"""The world counts ``search`` is played at by default."""
MULTIPLES = (1.0, 2.0, 4.0)
"""The multiples of each budget's calibrated cost charged by default (``off`` is always played)."""
BASIS = "median act at batch one on the fixed decision states with two or more legal plays"
"""What a calibrated cost of this experiment is (the costs file records it)."""
CHOICE_STATES = 128
"""Choice states each agent is timed on (fewer where the seeded games hold fewer)."""


class ThinkSweepError(ValueError):
    """The experiment's settings cannot be played (a bad multiple, world count or costs file)."""


# ----------------------------------------------------------------- settings
def parse_numbers(text: str, flag: str, *, whole: bool = False) -> tuple[float, ...]:
    """``"1,2,4"`` as numbers, each finite and ``>= 0`` (``whole``: integers ``>= 1``), no repeats.

    A bad item is refused in one line naming ``flag``.
    """
    items = [item.strip() for item in str(text).split(",")]
    out: list[float] = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            value = math.nan
        bad = not math.isfinite(value) or value < 0
        if whole:
            bad = bad or value < 1 or value != int(value)
        if bad:
            need = "whole numbers >= 1" if whole else "numbers >= 0"
            raise ThinkSweepError(f"{flag} takes {need} separated by commas, got {item!r}")
        out.append(float(int(value)) if whole else value)
    if len(set(out)) != len(out):
        raise ThinkSweepError(f"{flag} lists a value twice: {text!r}")
    return tuple(out)


def search_spec(base: str, worlds: int) -> str:
    """``base`` (``search`` or ``search:wait=0``) with its world count set to ``worlds``."""
    name, _, arg = base.partition(":")
    items = [item for item in arg.split(",") if item.strip()] if arg else []
    if any(item.strip().startswith("worlds=") or item.strip().isdigit() for item in items):
        raise ThinkSweepError(
            f"--search {base!r} sets its own worlds; give the world counts with --worlds"
        )
    return f"{name}:{','.join([*items, f'worlds={worlds}'])}"


@dataclass(frozen=True)
class Budget:
    """One agent of the sweep: its short label and its spec."""

    label: str
    """``search×16`` or ``network``."""
    spec: str
    worlds: int | None = None
    """The search's world count; ``None`` for the network."""


@dataclass(frozen=True)
class ThinkSweepSettings:
    """What the experiment plays; everything its results depend on but the calibrated costs."""

    search: str = "search:wait=0"
    """The search spec the world counts are set on (``search:wait=0`` is the one distilled)."""
    worlds: tuple[int, ...] = WORLDS
    network: str | None = "trained"
    """The network's spec (``trained``, ``ppo:FILE``); ``None``: search only."""
    opponent: str = "chain"
    multiples: tuple[float, ...] = MULTIPLES
    costs: tuple[float, ...] = ()
    """Fixed costs (ms a play) charged to every budget besides the multiples: they put a cheap
    network on the same axis as a dear search."""
    games: int = 2000
    """Games per point: ``games / 2`` deals, each played with both seatings."""
    rules: Rules = field(default_factory=Rules)
    tick_ms: int = 50
    seed: int = 0
    bootstrap: int = 1000
    """Bootstrap resamples of each budget's break-even interval (0: none)."""

    def __post_init__(self) -> None:
        if self.games < 2:
            raise ThinkSweepError(f"--games must be at least 2 (each deal twice), got {self.games}")
        if not self.worlds and self.network is None:
            raise ThinkSweepError("the sweep needs a budget: give --worlds or --network")
        for flag, values in (("--multiples", self.multiples), ("--costs", self.costs)):
            if any(v < 0 or not math.isfinite(v) for v in values):
                raise ThinkSweepError(f"{flag} must be numbers >= 0, got {list(values)}")
        if self.bootstrap < 0:
            raise ThinkSweepError(f"--bootstrap must be 0 or more, got {self.bootstrap}")
        for who, spec in (("--search", self.search), ("--network", self.network or "")):
            if "@" in spec:
                raise ThinkSweepError(
                    f"{who} {spec!r} carries a reaction or a cost; give the spec without @"
                )

    def budgets(self) -> list[Budget]:
        """The agents the sweep charges, in the order of the table."""
        out = [Budget(f"search×{w}", search_spec(self.search, w), w) for w in self.worlds]
        if self.network is not None:
            out.append(Budget("network", self.network))
        return out

    def levels(self) -> list[Level]:
        """Off, then each multiple, then each fixed cost."""
        return [
            Level("off"),
            *(Level(f"×{m:g}", multiple=m) for m in self.multiples),
            *(Level(f"{ms:g}ms", fixed_ms=ms) for ms in self.costs),
        ]

    def tournament_settings(self, spec: str, ms: float | None) -> realtime.Settings:
        """The two-agent tournament of one point: ``spec`` charged ``ms`` a play (``None``: off)."""
        think = None
        if ms is not None:
            # The opponent is charged nothing at every level: only the budget's cost moves.
            think = ThinkPlan("calibrated", ((spec, ms), (self.opponent, 0.0)))
        return realtime.Settings(
            agents=(spec, self.opponent),
            games=self.games,
            rules=self.rules,
            tick_ms=self.tick_ms,
            seed=self.seed,
            think=think,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "search": self.search,
            "worlds": list(self.worlds),
            "network": self.network,
            "opponent": self.opponent,
            "multiples": list(self.multiples),
            "costs_ms": list(self.costs),
            "games_per_point": 2 * max(1, self.games // 2),
            "rules": self.rules.to_dict(),
            "tick_ms": self.tick_ms,
            "seed": self.seed,
            "bootstrap": self.bootstrap,
            "paired_deals": True,
            "same_deals_every_point": True,
            "opponent_charged": "nothing",
        }


# ------------------------------------------------------------- calibration
def choice_states(rules: Rules, count: int = CHOICE_STATES) -> tuple[np.ndarray, np.ndarray]:
    """Up to ``count`` of the kit's fixed decision states that hold two or more legal plays."""
    from agents.think import states

    # The seeded games hold a few thousand states, how many depends on the rules: ask for the
    # most that fit, then keep those with a choice, evenly spread.
    for total in (2048, 1024, 512, states.COUNT):
        try:
            obs, mask = states.decision_states(rules, total)
            break
        except ValueError:
            continue
    # Two plays, not two actions: search:wait=0 never weighs a play against waiting, so a state
    # of one play or a wait is no choice for it, and it answers there as fast as chain.
    choice = np.flatnonzero(mask[:, 1:].sum(axis=1) >= 2)
    if len(choice) < 8:
        raise ThinkSweepError(
            f"the fixed decision states hold {len(choice)} with a choice under these rules; "
            "too few to time an agent on"
        )
    pick = choice[np.linspace(0, len(choice) - 1, min(count, len(choice))).round().astype(int)]
    return obs[pick].copy(), mask[pick].copy()


def calibrate_budgets(
    specs: Sequence[str], rules: Rules, say: Callable[[str], None] = print
) -> dict[str, Any]:
    """Time every spec on the choice states and on all the fixed states; the costs file.

    The document is the kit's calibration file (:func:`agents.think.record.make_record`) holding
    the choice-state medians as ``think_ms``, with the all-states medians beside them
    (``all_states_ms``) and :data:`BASIS`.
    """
    from agents.specs.guarded import calling, checked_act
    from agents.specs.realtime import REALTIME
    from agents.think import record, states

    choice = choice_states(rules)
    every = states.decision_states(rules)
    done: dict[str, Calibration] = {}
    kit: dict[str, float] = {}
    for spec in specs:
        with calling(spec, "building it", "calibrating its thinking"):
            bot = REALTIME.make(spec, rules, 0)

        def act(obs: Any, mask: Any, bot: Any = bot, spec: str = spec) -> Any:
            return checked_act(bot, obs, mask, spec=spec, where="calibrating its thinking")

        done[spec] = calibrate(spec, act, choice)
        kit[spec] = calibrate(spec, act, every).think_ms
        say(
            f"thinking: {spec} {done[spec].think_ms:g} ms a choice (median of "
            f"{done[spec].decisions}, p90 {done[spec].p90_ms:g} ms); {kit[spec]:g} ms over all "
            "the kit's states"
        )
    doc = record.make_record(done, rules)
    doc["basis"] = BASIS
    doc["states"]["choice_states"] = len(choice[0])
    for spec in specs:
        doc["agents"][spec]["all_states_ms"] = kit[spec]
    return doc


def read_costs(path: str, specs: Sequence[str], rules: Rules) -> dict[str, Any]:
    """A costs file an earlier run of this experiment wrote, checked for these agents and rules."""
    from agents.think import record

    try:
        data = record.read(path, specs, rules)
    except ThinkError as exc:
        raise ThinkSweepError(f"--think-file: {exc}") from None
    if data.get("basis") != BASIS:
        raise ThinkSweepError(
            f"--think-file {path!r} is not this experiment's costs file (its costs are not "
            "medians over choice states): give an earlier run's think_costs.json"
        )
    return data


def costs_of(record: Mapping[str, Any], specs: Sequence[str]) -> dict[str, float]:
    """Each spec's calibrated cost (ms a decision) in a costs file."""
    return {spec: float(record["agents"][spec]["think_ms"]) for spec in specs}


# ------------------------------------------------------------------ playing
@dataclass(frozen=True)
class Level:
    """How much thinking a point charges: none, a multiple of the calibrated cost, or fixed ms."""

    label: str
    """``off``, ``×2`` or ``20ms``."""
    multiple: float | None = None
    fixed_ms: float | None = None

    def cost_ms(self, calibrated_ms: float) -> float | None:
        """The ms charged to each play of an agent calibrated at ``calibrated_ms``; None: off."""
        if self.multiple is not None:
            return round(self.multiple * calibrated_ms, 6)
        return self.fixed_ms


@dataclass(frozen=True)
class Point:
    """One point of the sweep: a budget at a level, and the ms charged."""

    budget: Budget
    level: str
    charged_ms: float | None
    """The ms charged to every play; ``None``: thinking off."""

    @property
    def cost_ms(self) -> float:
        """Where the point sits on the cost axis (off at 0)."""
        return 0.0 if self.charged_ms is None else self.charged_ms


def plan_points(settings: ThinkSweepSettings, costs: Mapping[str, float]) -> list[Point]:
    """Every point: budgets in order, each at every level."""
    return [
        Point(b, level.label, level.cost_ms(costs[b.spec]))
        for b in settings.budgets()
        for level in settings.levels()
    ]


def _run_job(job: tuple[int, realtime.Settings, realtime.Chunk]) -> tuple[int, Any]:
    k, ts, chunk = job
    return k, realtime.run_chunk(ts, chunk)


def run_sweep(
    settings: ThinkSweepSettings,
    points: Sequence[Point],
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[dict[int, np.ndarray], bool]:
    """Play every point; per point index its outcomes (deal order), whether all ended.

    Outcomes are +1 the budget won, -1 it lost, 0 a draw. The same for any number of workers;
    Ctrl-C returns what finished (a point keeps its finished chunks).
    """
    jobs = []
    # The largest searches first, so the pool's last jobs are short ones; results are keyed by
    # point and chunk, so the order changes nothing but the wall time.
    for k in sorted(range(len(points)), key=lambda k: -(points[k].budget.worlds or 0)):
        ts = settings.tournament_settings(points[k].budget.spec, points[k].charged_ms)
        jobs += [(k, ts, chunk) for chunk in plan_chunks(ts)]
    finished, complete = run_jobs(_run_job, jobs, workers, progress, backend)
    done = {(r[0], r[1].chunk.index): r[1] for r in finished if r is not None}
    out: dict[int, np.ndarray] = {}
    for k in range(len(points)):
        chunks = [done[key] for key in sorted(done) if key[0] == k]
        outcomes = np.array([o for c in chunks for o in c.outcomes], dtype=np.int8)
        if outcomes.size:  # a point with no finished chunk is left out, not shown as 0 games
            out[k] = outcomes
    return out, complete
