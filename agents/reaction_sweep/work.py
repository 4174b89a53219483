"""A latency (reaction) sweep's settings, its work and its points' games, as plain data.

A sweep plays one agent against one opponent at several reaction latencies (or
a grid of both players' latencies): every point (an agent latency and an
opponent latency) is a two-agent tournament (:mod:`agents.tournament.realtime`) between
``AGENT@LATENCY`` and ``OPPONENT@OPPONENT_LATENCY`` on the same seed, so every
point plays the same deals (common random numbers). ``SweepSettings.points``
and ``plan_chunks`` are the work; :class:`PointResult` is one point's games.
:mod:`agents.reaction_sweep.summary` summarises them (the logistic fit:
:mod:`agents.reaction_sweep.fit`); the evaluation card's break-even latency
(:mod:`agents.evaluate.make_card`) and ``speed experiment reaction``
(:mod:`agents.reaction_sweep`, which plays a sweep and draws it) both use them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.reaction_sweep.crowd import TableSettings
from agents.think.plan import ThinkPlan
from agents.tournament import realtime
from speed_env.reaction import PROFILE_PREFIX, ReactionProfile, make_profile
from speed_env.rules import Rules

CHUNK_DEALS = 500
"""Deals per unit of work. A batch runs until its longest game ends (games last 3 to 40 s), so
bigger batches waste fewer steps on a few last games: 500-deal chunks play a chain-vs-greedy point
about twice as fast as the tournament's 250, and still split a 5-point sweep evenly over 2
workers."""


class SweepError(ValueError):
    """A sweep's settings are not valid (bad latency list, agent spec with a latency, …)."""


# ----------------------------------------------------------------- settings
def parse_latencies(text: str, what: str = "--latencies") -> tuple[str, ...]:
    """``"150,200,human"`` → ``("150", "200", "human")``, each checked as a reaction profile.

    Numbers are fixed latencies in ms (at least 1); names are the jittered
    presets; ``profile:FILE`` is a profile file (``speed data profile``). Empty items,
    unknown names and repeated values are refused.
    """
    items = [item.strip() for item in str(text).split(",")]
    if not text or not str(text).strip() or any(not item for item in items):
        raise SweepError(
            f"{what} takes latencies in ms or profile names separated by commas "
            f"(e.g. 150,200,250), got {text!r}"
        )
    out = []
    for item in items:
        try:
            profile = make_profile(item)
        except ValueError as exc:
            raise SweepError(f"{what}: {exc}") from None
        if item.startswith(PROFILE_PREFIX):  # a person's fitted profile file, kept as named
            out.append(item)
        else:
            # One spelling per latency ("150.0" is "150"), so the repeat check below sees it.
            out.append(item.lower() if profile.name else f"{profile.mu:g}")
    if len(set(out)) != len(out):
        raise SweepError(f"{what} lists a latency twice: {text!r}")
    return tuple(out)


JITTER_AT = ("median", "mu")
"""What a numeric latency ``L`` of a jittered sweep names: the shaped profile's median (the
latency axis, the table and the plot all read medians), or its Gaussian centre ``mu`` (what
protocol 1 of ``speed evaluate`` fixed, as ``agent_means_ms``; the profile's median is then
``mu`` plus the shape's median offset, 64 ms for ``human``)."""


def shifted_profile(ms: float, preset: str = "human", at: str = "median") -> ReactionProfile:
    """The preset's ex-Gaussian shape moved so that its median or its centre is ``ms``.

    ``at``
        ``"median"``: the median is ``ms``; ``"mu"``: the Gaussian centre ``mu`` is.

    The floor moves too, so every quantile moves by the same ms. The median is the one
    :meth:`ReactionProfile.median_ms` measures, so a shaped latency ``L`` sits on the latency
    axis at exactly ``L``.
    """
    base = make_profile(preset)
    if base.is_fixed or not base.name:
        raise SweepError(
            f"jitter takes a jittered preset name (superhuman, pro, human, casual), got {preset!r}"
        )
    if at not in JITTER_AT:
        raise SweepError(f"jitter_at must be one of {', '.join(JITTER_AT)}, got {at!r}")
    anchor = base.median_ms() if at == "median" else base.mu
    shift = float(ms) - anchor
    if base.floor + shift < 1:
        raise SweepError(
            f"latency {ms:g} is too fast for the {preset} shape (its floor would be "
            f"{base.floor + shift:g} ms); give at least {anchor - base.floor + 1:g}"
        )
    return ReactionProfile(base.mu + shift, base.sigma, base.tau, base.floor + shift)


def profile_for(latency: str, jitter: str | None = None, at: str = "median") -> ReactionProfile:
    """The reaction profile a latency string stands for.

    With ``jitter``, a number is that preset's shape placed by ``at``: :func:`shifted_profile`.
    """
    profile = make_profile(latency)
    if jitter and profile.is_fixed:
        return shifted_profile(profile.mu, jitter, at)
    return profile


def latency_axis_ms(latency: str, jitter: str | None = None, at: str = "median") -> float:
    """Where a latency sits on the ms axis: its median.

    A fixed latency sits at itself, a jittered profile at its measured median; so a shaped
    ``L`` placed by its median sits at ``L``.
    """
    profile = profile_for(latency, jitter, at)
    return float(profile.mu) if profile.is_fixed else profile.median_ms()


@dataclass(frozen=True)
class SweepSettings:
    """What a reaction sweep plays; everything its results depend on."""

    agent: str
    """Spec of the agent whose latency varies, without ``@`` (``chain``, ``ppo:model.json`` …)."""
    opponent: str
    """Spec of its opponent, without ``@``."""
    latencies: tuple[str, ...]
    """The agent's latencies: ms (``"150"``) or profile names (``"human"``)."""
    opponent_latencies: tuple[str, ...] = ("250",)
    """The opponent's latencies; more than one makes a grid (every pair is played)."""
    games: int = 2000
    """Games per point: ``games / 2`` deals, each played with both seatings; at a table of
    ``rules.players`` (3 or 4), ``games / players`` deals, each with the agent in every seat."""
    rules: Rules = field(default_factory=Rules)
    """The rules; ``rules.players`` seats the agent against that many less one opponents."""
    tick_ms: int = 50
    seed: int = 0
    """Seed of the deals; the same deals at every point."""
    jitter: str | None = None
    """A jittered preset: the agent's numeric latencies ``L`` become that shape.

    Each is moved so that its median is ``L``, or as ``jitter_at`` says.
    """
    jitter_at: str = "median"
    """What a shaped latency ``L`` is, one of :data:`JITTER_AT`.

    The profile's ``median``, in every sweep the kit runs but one, or its Gaussian centre
    ``mu``, in protocol 1's latency sweep.
    """

    think: ThinkPlan | None = None
    """How both agents' thinking is charged at every point (``--think``); ``None``: off.

    A calibrated plan's costs are the bare specs' (``agent``, ``opponent``)."""

    def __post_init__(self) -> None:
        if self.jitter is not None:
            for lat in self.latencies:
                # refuses a bad preset, a bad jitter_at, or a latency below the shape's floor
                profile_for(lat, self.jitter, self.jitter_at)
        for who, spec in (("agent", self.agent), ("opponent", self.opponent)):
            if "@" in spec:
                raise SweepError(
                    f"the {who} spec {spec!r} carries a latency; give the spec without @ "
                    f"and the latencies with --latencies / --opponent-latency"
                )
        if not self.latencies or not self.opponent_latencies:
            raise SweepError("a sweep needs at least one agent latency and one opponent latency")
        if self.games < self.players:
            raise SweepError(
                f"games per point must be at least {self.players} (each deal is played "
                f"{'twice' if self.players == 2 else f'{self.players} times'}), got {self.games}"
            )

    @property
    def players(self) -> int:
        """Seats at each table: the agent and ``players - 1`` opponents (the field)."""
        return self.rules.players

    @property
    def fair_share(self) -> float:
        """The win share of a seat no better than the others: ``1 / players``."""
        return 1.0 / self.players

    @property
    def games_per_point(self) -> int:
        """Games played per point: whole deals, each once per seat of the agent."""
        return self.players * max(1, self.games // self.players)

    @property
    def is_grid(self) -> bool:
        """True when the opponent's latency varies too."""
        return len(self.opponent_latencies) > 1

    def points(self) -> list[tuple[str, str]]:
        """``(agent latency, opponent latency)`` of every point, the opponent's varying fastest."""
        return [(lat, opp) for lat in self.latencies for opp in self.opponent_latencies]

    def tournament_settings(self, point: tuple[str, str]) -> realtime.Settings:
        """The two-agent tournament that plays one point."""
        lat, opp = point
        profile = profile_for(lat, self.jitter, self.jitter_at)
        if (
            self.jitter and not profile.name
        ):  # a shifted shape has no spec string: it rides on Settings
            seats = (self.agent, f"{self.opponent}@{opp}")
            return realtime.Settings(
                agents=seats,
                games=self.games,
                rules=self.rules,
                reaction=profile,
                tick_ms=self.tick_ms,
                seed=self.seed,
                think=self._seated_think(seats),
            )
        seats = (f"{self.agent}@{lat}", f"{self.opponent}@{opp}")
        return realtime.Settings(
            agents=seats,
            games=self.games,
            rules=self.rules,
            tick_ms=self.tick_ms,
            seed=self.seed,
            think=self._seated_think(seats),
        )

    def table_settings(self, point: tuple[str, str]) -> TableSettings:
        """The table of three or four that plays one point: the agent, the opponent in the rest.

        Seated as :meth:`tournament_settings` seats the two-player point (the same specs, the
        same jitter shape, the same thinking charged).
        """
        ts = self.tournament_settings(point)
        return TableSettings(
            agent=ts.agents[0],
            opponent=ts.agents[1],
            games=self.games,
            rules=self.rules,
            reaction=ts.reaction,
            tick_ms=self.tick_ms,
            seed=self.seed,
            think=ts.think,
        )

    def _seated_think(self, seats: tuple[str, str]) -> ThinkPlan | None:
        """The plan with each bare spec's cost under the spec it is seated as at a point."""
        if self.think is None or not self.think.costs:
            return self.think
        bare = (self.think.cost(self.agent), self.think.cost(self.opponent))
        costs = tuple(zip(seats, bare, strict=True))
        return ThinkPlan(self.think.mode, costs, self.think.record)

    def agent_label(self, latency: str) -> str:
        """The agent at one latency, as text (a shifted shape by its parameters)."""
        profile = profile_for(latency, self.jitter, self.jitter_at)
        text = latency if profile.is_fixed or profile.name else profile.label()
        return f"{self.agent}@{text}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        doc = {
            "agent": self.agent,
            "opponent": self.opponent,
            "latencies": list(self.latencies),
            "opponent_latencies": list(self.opponent_latencies),
            "grid": self.is_grid,
            "games_per_point": 2 * max(1, self.games // 2),  # as played: whole deals
            "rules": self.rules.to_dict(),
            "tick_ms": self.tick_ms,
            "seed": self.seed,
            "paired_deals": True,
            "same_deals_every_point": True,
            "jitter": self.jitter,
            "jitter_at": self.jitter_at if self.jitter else None,
            "latency_axis": "medians: fixed latencies at their value, jittered profiles at their "
            "median",
        } | self._crowd_dict()
        return doc | ({} if self.think is None else {"think": self.think.to_dict()})

    def _crowd_dict(self) -> dict[str, Any]:
        """The keys a table of three or four adds to :meth:`to_dict` (two players: none)."""
        if self.players == 2:
            return {}
        return {
            "games_per_point": self.games_per_point,
            "players": self.players,
            "fair_share": self.fair_share,
            "field": f"{self.opponent} in each of the other {self.players - 1} seats",
            "seat_rotation": True,
        }


# ------------------------------------------------------------------ results
@dataclass
class PointResult:
    """The games of one point, from the agent's side."""

    latency: str
    opponent_latency: str
    outcomes: np.ndarray
    """Per game, deal order then seating: +1 the agent won, -1 it lost, 0 a draw or truncation."""

    @property
    def games(self) -> int:
        """Games played."""
        return int(self.outcomes.size)

    @property
    def wins(self) -> int:
        """Games the agent won."""
        return int((self.outcomes == 1).sum())

    @property
    def losses(self) -> int:
        """Games the agent lost."""
        return int((self.outcomes == -1).sum())

    @property
    def draws(self) -> int:
        """Drawn (or truncated) games."""
        return int((self.outcomes == 0).sum())


def plan_chunks(settings: realtime.Settings | TableSettings) -> list[realtime.Chunk]:
    """The chunks of a point (``CHUNK_DEALS`` deals each), in deal order: its two-agent
    tournament's, or its table of three or four's."""
    return [
        # Line-up 0: a point's tournament is one pairing.
        realtime.Chunk(i, 0, start, min(CHUNK_DEALS, settings.deals - start))
        for i, start in enumerate(range(0, settings.deals, CHUNK_DEALS))
    ]
