"""Reaction-delay experiments: how many milliseconds of reaction is a strategy worth?

A sweep plays one agent against one opponent at several reaction latencies
(or a grid of both players' latencies) on paired deals, through the
tournament harness (``agents.tournament``): each point is a two-agent
tournament between ``AGENT@LATENCY`` and ``OPPONENT@OPPONENT_LATENCY``. Every
point uses the same seed, so every point plays the same deals (common random
numbers): the differences between points are the latencies, not the luck of
the deal.

The win rate (a draw counts half, as in the tournament) is then fitted by a
logistic curve of the latency difference ``d = agent - opponent`` (ms),
``P(win) = 1 / (1 + exp(-(a + b d)))``, by maximum likelihood on the game
counts. Two numbers summarise it:

- the **break-even difference** ``-a / b``: how many ms slower than its
  opponent the agent can be and still win half its games (negative when it
  must be faster);
- the **ms per ten points** ``ln(1.5) / |b|``: the latency change that moves
  the win rate from 50% to 60% on the fitted curve (its slope at the middle).

Their 95% intervals come from a bootstrap over deals: a resample draws deals
(both seatings of a deal together) with replacement, the same deals at every
point, since the points share their deals, and refits the curve.

Latencies are fixed milliseconds (``250``) or reaction-profile names
(``human``, ``pro`` …; see ``speed_env/reaction.py``), the jittered
ex-Gaussian profiles: a named profile enters a spec as ``chain@human``.
With ``jitter`` set to a preset name, each of the agent's numeric latencies
``L`` is that preset's shape moved so that its Gaussian mean is ``L``
(``shifted_profile``): every quantile moves by the same amount, so latency
differences between such profiles are the same at the median, the mean or
any percentile. The tournament gives that profile to the agent through its
``Settings.reaction`` (the profile of a spec without ``@``), which it holds
once per match: the opponent's latencies stay fixed ms or preset names.
On the latency axis a fixed latency sits at its value and a jittered profile
at its median (for ``human``, 304 ms, 64 ms above its ``mu``). Mixing fixed
and jittered players in one sweep is allowed but puts two kinds of player
on one curve.

With fixed latencies both players act on the same ticks and the faster card
always lands first, so the win rate is a step at ``d = 0`` (1 ms faster wins
as often as 100 ms faster) and no logistic curve fits it; the fit's deviance
test (``LogisticFit.fit_p_value``) flags that, and ``headline`` says to read
the points instead. Jittered profiles give smooth, logistic curves.

Pure functions over plain data: ``SweepSettings.points`` and ``plan_chunks``
(the work), ``run_sweep`` (the games),
``summarise`` (counts and the fit), ``fit_logistic`` and ``bootstrap_fit``
(the statistics), ``curve_png`` and ``grid_png`` (the figures; matplotlib is
imported only inside them), ``write_outputs`` (the files).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import tournament
from agents.jobs import Backend, run_jobs
from speed_env.reaction import ReactionProfile, make_profile
from speed_env.rules import Rules

CSV_COLUMNS = (
    "latency_ms",
    "opponent_latency_ms",
    "games",
    "wins",
    "losses",
    "draws",
    "win_rate",
    "ci_low",
    "ci_high",
)
LN_1_5 = math.log(1.5)
"""logit(0.6) - logit(0.5): the log-odds of ten points of win rate above even."""
FILES = {
    "csv": "reaction.csv",
    "json": "reaction.json",
    "curve": "winrate_vs_latency.png",
    "grid": "latency_grid.png",
}
"""Names of the files a sweep writes in its output folder (the grid only for a grid sweep)."""
CHUNK_DEALS = 500
"""Deals per unit of work. A batch runs until its longest game ends (games last 3 to 40 s), so
bigger batches waste fewer steps on a few last games: 500-deal chunks play a chain-vs-greedy point
about twice as fast as the tournament's 250, and still split a 5-point sweep evenly over 2 workers."""


class SweepError(ValueError):
    """A sweep's settings are not valid (bad latency list, agent spec with a latency, …)."""


# ----------------------------------------------------------------- settings
def parse_latencies(text: str, what: str = "--latencies") -> tuple[str, ...]:
    """``"150,200,human"`` → ``("150", "200", "human")``, each checked as a reaction profile.

    Numbers are fixed latencies in ms (at least 1); names are the jittered
    presets. Empty items, unknown names and repeated values are refused.
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
        out.append(item.lower() if profile.name else f"{profile.mu:g}")
    if len(set(out)) != len(out):
        raise SweepError(f"{what} lists a latency twice: {text!r}")
    return tuple(out)


def shifted_profile(mu: float, preset: str = "human") -> ReactionProfile:
    """The preset's ex-Gaussian shape moved so that its Gaussian mean is ``mu`` (its floor moves with it)."""
    base = make_profile(preset)
    if base.is_fixed or not base.name:
        raise SweepError(
            f"jitter takes a jittered preset name (superhuman, pro, human, casual), got {preset!r}"
        )
    shift = float(mu) - base.mu
    if base.floor + shift < 1:
        raise SweepError(
            f"latency {mu:g} is too fast for the {preset} shape (its floor would be "
            f"{base.floor + shift:g} ms); give at least {base.mu - base.floor + 1:g}"
        )
    return ReactionProfile(float(mu), base.sigma, base.tau, base.floor + shift)


def profile_for(latency: str, jitter: str | None = None) -> ReactionProfile:
    """The reaction profile a latency string stands for (a number is shifted ``jitter`` when given)."""
    profile = make_profile(latency)
    if jitter and profile.is_fixed:
        return shifted_profile(profile.mu, jitter)
    return profile


def latency_axis_ms(latency: str, jitter: str | None = None) -> float:
    """Where a latency sits on the ms axis: a fixed latency itself, a jittered profile's median."""
    profile = profile_for(latency, jitter)
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
    """Games per point: ``games / 2`` deals, each played with both seatings."""
    rules: Rules = field(default_factory=Rules)
    tick_ms: int = 50
    seed: int = 0
    """Seed of the deals; the same deals at every point."""
    jitter: str | None = None
    """A jittered preset name: the agent's numeric latencies become that shape moved to mean ``L``."""

    def __post_init__(self) -> None:
        if self.jitter is not None:
            for lat in self.latencies:
                profile_for(
                    lat, self.jitter
                )  # refuses a bad preset or a latency below the shape's floor
        for who, spec in (("agent", self.agent), ("opponent", self.opponent)):
            if "@" in spec:
                raise SweepError(
                    f"the {who} spec {spec!r} carries a latency; give the spec without @ "
                    f"and the latencies with --latencies / --opponent-latency"
                )
        if not self.latencies or not self.opponent_latencies:
            raise SweepError("a sweep needs at least one agent latency and one opponent latency")
        if self.games < 2:
            raise SweepError(
                f"games per point must be at least 2 (each deal is played twice), got {self.games}"
            )

    @property
    def is_grid(self) -> bool:
        """True when the opponent's latency varies too."""
        return len(self.opponent_latencies) > 1

    def points(self) -> list[tuple[str, str]]:
        """``(agent latency, opponent latency)`` of every point, opponent latency varying fastest."""
        return [(lat, opp) for lat in self.latencies for opp in self.opponent_latencies]

    def tournament_settings(self, point: tuple[str, str]) -> tournament.Settings:
        """The two-agent tournament that plays one point."""
        lat, opp = point
        profile = profile_for(lat, self.jitter)
        if (
            self.jitter and not profile.name
        ):  # a shifted shape has no spec string: it rides on Settings
            return tournament.Settings(
                agents=(self.agent, f"{self.opponent}@{opp}"),
                games=self.games,
                rules=self.rules,
                reaction=profile,
                tick_ms=self.tick_ms,
                seed=self.seed,
            )
        return tournament.Settings(
            agents=(f"{self.agent}@{lat}", f"{self.opponent}@{opp}"),
            games=self.games,
            rules=self.rules,
            tick_ms=self.tick_ms,
            seed=self.seed,
        )

    def agent_label(self, latency: str) -> str:
        """The agent at one latency, as text (a shifted shape by its parameters)."""
        profile = profile_for(latency, self.jitter)
        text = latency if profile.is_fixed or profile.name else profile.label()
        return f"{self.agent}@{text}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "latencies": list(self.latencies),
            "opponent_latencies": list(self.opponent_latencies),
            "grid": self.is_grid,
            "games_per_point": 2 * max(1, self.games // 2),
            "rules": self.rules.to_dict(),
            "tick_ms": self.tick_ms,
            "seed": self.seed,
            "paired_deals": True,
            "same_deals_every_point": True,
            "jitter": self.jitter,
            "latency_axis": "fixed latencies at their value, jittered profiles at their median",
        }


# -------------------------------------------------------------------- games
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


def plan_chunks(settings: tournament.Settings) -> list[tournament.Chunk]:
    """The chunks of one point's two-agent tournament (``CHUNK_DEALS`` deals each), in deal order."""
    return [
        tournament.Chunk(i, 0, start, min(CHUNK_DEALS, settings.deals - start))
        for i, start in enumerate(range(0, settings.deals, CHUNK_DEALS))
    ]


def _run_job(
    job: tuple[int, tournament.Settings, tournament.Chunk],
) -> tuple[int, tournament.ChunkResult]:
    point, settings, chunk = job
    return point, tournament.run_chunk(settings, chunk)


def run_sweep(
    settings: SweepSettings,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[list[PointResult], bool]:
    """Play every point; returns the points with games, in ``settings.points()`` order, and whether all finished.

    The work is every point's chunks (``plan_chunks``, each played by the
    tournament harness's ``run_chunk``) in one pool, so the results are the
    same for any number of workers and on either ``backend`` (``agents.jobs``). Ctrl-C stops the
    run and returns what finished (a point keeps its finished chunks).
    """
    points = settings.points()
    jobs = []
    for k, point in enumerate(points):
        ts = settings.tournament_settings(point)
        jobs += [(k, ts, chunk) for chunk in plan_chunks(ts)]
    finished, complete = run_jobs(_run_job, jobs, workers, progress, backend)
    done = {(r[0], r[1].chunk.index): r[1] for r in finished if r is not None}
    results = []
    for k, (lat, opp) in enumerate(points):
        chunks = [done[key] for key in sorted(done) if key[0] == k]
        outcomes = np.array([o for c in chunks for o in c.outcomes], dtype=np.int8)
        if outcomes.size:
            results.append(PointResult(lat, opp, outcomes))
    return results, complete


# --------------------------------------------------------------- statistics
@dataclass(frozen=True)
class LogisticFit:
    """``P(win) = 1 / (1 + exp(-(intercept + slope * d)))`` with ``d`` the latency difference in ms."""

    intercept: float
    slope: float
    """Log-odds per ms; negative when being slower loses games."""
    converged: bool
    log_likelihood: float
    deviance: float
    """Twice the log-likelihood gap to the saturated model; about ``dof`` when the curve fits."""
    dof: int

    def win_rate(self, diff: np.ndarray | float) -> np.ndarray:
        """The fitted win rate at latency difference(s) ``diff`` (ms)."""
        return 1.0 / (
            1.0 + np.exp(-(self.intercept + self.slope * np.asarray(diff, dtype=np.float64)))
        )

    @property
    def break_even_ms(self) -> float:
        """The latency difference (agent - opponent, ms) at which the agent wins half its games."""
        return -self.intercept / self.slope if self.slope != 0 else math.nan

    @property
    def ms_per_ten_points(self) -> float:
        """The latency change that moves the win rate from 50% to 60% on the fitted curve."""
        return LN_1_5 / abs(self.slope) if self.slope != 0 else math.inf

    @property
    def fit_p_value(self) -> float:
        """Chance of a deviance this large if the curve were right (chi-square, Wilson–Hilferty); nan with no dof.

        Approximate: paired deals make games a little dependent. A tiny value
        says the win rate is not logistic in the latency difference (a fixed
        latency, for one, makes it a step: only who is faster matters).
        """
        k = self.dof
        if k <= 0:
            return math.nan
        z = ((self.deviance / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
        return 0.5 * math.erfc(z / math.sqrt(2))


def _log_lik(eta: np.ndarray, games: np.ndarray, score: np.ndarray) -> np.ndarray:
    # log(1 + e^eta) computed stably for large |eta|; one value per row.
    return (score * eta - games * np.logaddexp(0.0, eta)).sum(axis=-1)


def _check(d: np.ndarray, n: np.ndarray, s: np.ndarray) -> None:
    if d.ndim != 1 or n.shape != d.shape or s.shape[-1:] != d.shape:
        raise ValueError("diff, games and score must be 1-d arrays of the same length")
    if np.any(n <= 0) or np.any(s < 0) or np.any(s > n):
        raise ValueError("each point needs games > 0 and 0 <= score <= games")
    if len(np.unique(d)) < 2:
        raise ValueError("a logistic fit needs at least two different latency differences")


def _fit_many(
    d: np.ndarray, n: np.ndarray, scores: np.ndarray, max_iter: int = 100
) -> tuple[np.ndarray, ...]:
    """Maximum-likelihood ``(intercept, slope, converged, log_likelihood)`` for each row of ``scores``.

    Newton's method on all rows at once, with step halving per row, on a
    centred and scaled difference (for conditioning). A row whose data
    separate perfectly has no finite maximum: it ends unconverged.
    """
    centre = float(np.average(d, weights=n))
    scale = float(np.sqrt(np.average((d - centre) ** 2, weights=n))) or 1.0
    x = (d - centre) / scale
    rows = scores.shape[0]
    beta = np.zeros((rows, 2))
    eta = np.zeros_like(scores)
    ll = _log_lik(eta, n, scores)
    converged = np.zeros(rows, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            p = 1.0 / (1.0 + np.exp(-eta))
            resid = scores - n * p
            w = n * p * (1 - p)
            g0, g1 = resid.sum(axis=1), (resid * x).sum(axis=1)
            h00, h01, h11 = w.sum(axis=1), (w * x).sum(axis=1), (w * x * x).sum(axis=1)
            det = h00 * h11 - h01 * h01
            step = np.stack([(h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det], axis=1)
            step[~np.isfinite(step).all(axis=1) | converged] = 0.0
            t = np.ones(rows)
            for _ in range(30):
                new = beta + t[:, None] * step
                new_eta = new[:, :1] + new[:, 1:] * x
                new_ll = _log_lik(new_eta, n, scores)
                worse = new_ll < ll - 1e-12
                if not worse.any():
                    break
                t = np.where(worse, t / 2, t)
            beta, eta, gain, ll = new, new_eta, new_ll - ll, new_ll
            converged |= (np.abs(t[:, None] * step).max(axis=1) < 1e-10) | (np.abs(gain) < 1e-13)
            if converged.all():
                break
    converged &= (
        np.abs(beta[:, 1]) <= 30
    )  # the curve has become a step: separated data, no finite slope
    slope = beta[:, 1] / scale
    return beta[:, 0] - slope * centre, slope, converged, ll


def fit_logistic(
    diff: Sequence[float] | np.ndarray,
    games: Sequence[float] | np.ndarray,
    score: Sequence[float] | np.ndarray,
    max_iter: int = 100,
) -> LogisticFit:
    """Maximum-likelihood logistic fit of win rate against latency difference.

    ``diff[i]`` is point ``i``'s latency difference (ms), ``games[i]`` its
    games and ``score[i]`` its wins plus half its draws. ``converged`` is
    false when the data separate perfectly (every game on one side of some
    difference won, every game on the other lost), where no finite maximum
    exists.
    """
    d = np.asarray(diff, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    _check(d, n, s)
    intercept, slope, converged, ll = _fit_many(d, n, s[None, :], max_iter)
    # The saturated model fits each point's own win rate (0 log 0 = 0).
    with np.errstate(divide="ignore", invalid="ignore"):
        q = s / n
        sat = np.where(s > 0, s * np.log(q), 0.0) + np.where(n - s > 0, (n - s) * np.log1p(-q), 0.0)
    deviance = float(2 * (sat.sum() - ll[0]))
    return LogisticFit(
        float(intercept[0]),
        float(slope[0]),
        bool(converged[0]),
        float(ll[0]),
        max(0.0, deviance),
        len(d) - 2,
    )


def deal_scores(outcomes: np.ndarray) -> np.ndarray:
    """Per deal, the agent's points from both seatings (win 1, draw 0.5): ``outcomes`` in deal-then-seating order."""
    o = np.asarray(outcomes, dtype=np.float64)
    per_game = (o + 1.0) / 2.0
    if o.size % 2:  # a lone game (odd count) is its own deal
        return np.concatenate([per_game[:-1].reshape(-1, 2).sum(axis=1), per_game[-1:]])
    return per_game.reshape(-1, 2).sum(axis=1)


@dataclass(frozen=True)
class Bootstrap:
    """95% percentile intervals of the fitted quantities from a bootstrap over deals."""

    break_even_ms: tuple[float, float]
    ms_per_ten_points: tuple[float, float]
    slope: tuple[float, float]
    samples: int
    """Resamples whose fit converged with a negative slope (the intervals use these)."""
    dropped: int
    """Resamples left out: the fit did not converge, or being slower did not lose games."""
    joint: bool
    """True when every point shares its deals and a resample draws the same deals at every point."""


def bootstrap_fit(
    diff: Sequence[float] | np.ndarray,
    outcomes: Sequence[np.ndarray],
    samples: int = 1000,
    seed: int = 0,
) -> Bootstrap:
    """Bootstrap intervals of the break-even difference, ms per ten points and slope.

    ``outcomes[i]`` holds point ``i``'s games (+1/0/-1, deal order then
    seating). A resample draws deals with replacement; when every point has
    the same number of deals (a sweep plays the same deals at every point)
    the same draw serves every point, keeping the correlation the shared
    deals create.
    """
    if samples < 1:
        raise ValueError(f"bootstrap samples must be at least 1, got {samples}")
    d = np.asarray(diff, dtype=np.float64)
    per_deal = [deal_scores(o) for o in outcomes]
    games = np.array([len(o) for o in outcomes], dtype=np.float64)
    sizes = {len(s) for s in per_deal}
    joint = len(sizes) == 1 and all(len(o) % 2 == 0 for o in outcomes)
    rng = np.random.default_rng(seed)
    if joint:
        deals = sizes.pop()
        counts = rng.multinomial(
            deals, np.full(deals, 1.0 / deals), size=samples
        )  # (samples, deals)
        scores = counts @ np.stack(per_deal).T  # (samples, points)
    else:
        scores = np.empty((samples, len(per_deal)))
        for i, s in enumerate(per_deal):
            counts = rng.multinomial(len(s), np.full(len(s), 1.0 / len(s)), size=samples)
            scores[:, i] = counts @ s
    _check(d, games, scores)
    intercept, slope, converged, _ = _fit_many(d, games, scores)
    used = converged & (slope < 0)

    def interval(values: np.ndarray) -> tuple[float, float]:
        if not values.size:
            return (math.nan, math.nan)
        lo, hi = np.percentile(values, [2.5, 97.5])
        return (float(lo), float(hi))

    sl = slope[used]
    return Bootstrap(
        interval(-intercept[used] / sl),
        interval(LN_1_5 / np.abs(sl)),
        interval(sl),
        int(used.sum()),
        int(samples - used.sum()),
        joint,
    )


# -------------------------------------------------------------- summaries
def summarise(
    settings: SweepSettings, results: Sequence[PointResult], bootstrap: int = 1000
) -> dict[str, Any]:
    """The ``reaction.json`` document: settings, one row per point, and the fit with its intervals."""
    from agents.ratings import wilson_interval

    axis = {lat: latency_axis_ms(lat, settings.jitter) for lat in settings.latencies}
    opp_axis = {lat: latency_axis_ms(lat) for lat in settings.opponent_latencies}
    rows: list[dict[str, Any]] = []
    for r in results:
        score = r.wins + r.draws / 2
        lo, hi = wilson_interval(score, r.games)
        rows.append(
            {
                "latency_ms": axis[r.latency],
                "opponent_latency_ms": opp_axis[r.opponent_latency],
                "games": r.games,
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "win_rate": score / r.games,
                "ci_low": lo,
                "ci_high": hi,
                "agent": settings.agent_label(r.latency),
                "opponent": f"{settings.opponent}@{r.opponent_latency}",
            }
        )
    doc: dict[str, Any] = {"settings": settings.to_dict(), "points": rows, "fit": None}
    diffs = np.array([row["latency_ms"] - row["opponent_latency_ms"] for row in rows])
    if len(np.unique(diffs)) < 2:
        doc["fit_note"] = "no fit: it needs at least two different latency differences"
        return doc
    fit = fit_logistic(diffs, [r.games for r in results], [r.wins + r.draws / 2 for r in results])
    out: dict[str, Any] = {
        "model": "P(win) = 1 / (1 + exp(-(intercept + slope * d))), d = latency_ms - opponent_latency_ms",
        "intercept": fit.intercept,
        "slope_per_ms": fit.slope,
        "converged": fit.converged,
        "log_likelihood": fit.log_likelihood,
        "deviance": fit.deviance,
        "dof": fit.dof,
        "fit_p_value": fit.fit_p_value,
        "win_rate_at_equal_latency": float(fit.win_rate(0.0)),
        "break_even_ms": fit.break_even_ms,
        "ms_per_ten_points": fit.ms_per_ten_points,
    }
    if bootstrap > 0:
        boot = bootstrap_fit(
            diffs, [r.outcomes for r in results], samples=bootstrap, seed=settings.seed
        )
        out |= {
            "break_even_ci": list(boot.break_even_ms),
            "ms_per_ten_points_ci": list(boot.ms_per_ten_points),
            "slope_ci": list(boot.slope),
            "bootstrap": {
                "samples": bootstrap,
                "used": boot.samples,
                "dropped": boot.dropped,
                "resampling": "deals, the same draw at every point"
                if boot.joint
                else "deals, per point",
            },
        }
    opponent_ms = {row["opponent_latency_ms"] for row in rows}
    if len(opponent_ms) == 1:  # one opponent latency: break-even as an absolute latency too
        base = opponent_ms.pop()
        out["break_even_latency_ms"] = base + fit.break_even_ms
        if "break_even_ci" in out:
            out["break_even_latency_ci"] = [base + v for v in out["break_even_ci"]]
    doc["fit"] = out
    return doc


def rows_csv(doc: dict[str, Any]) -> str:
    """The points as CSV with exactly the columns of ``CSV_COLUMNS``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for row in doc["points"]:
        w.writerow(
            [
                f"{row['latency_ms']:g}",
                f"{row['opponent_latency_ms']:g}",
                row["games"],
                row["wins"],
                row["losses"],
                row["draws"],
                f"{row['win_rate']:.6f}",
                f"{row['ci_low']:.6f}",
                f"{row['ci_high']:.6f}",
            ]
        )
    return buf.getvalue()


def headline(doc: dict[str, Any]) -> str:
    """One paragraph of the fitted numbers, for the terminal and the notebook."""
    fit = doc["fit"]
    if fit is None:
        return doc.get("fit_note", "no fit")

    def ci(key: str) -> str:
        if key not in fit:
            return ""
        lo, hi = fit[key]
        return f" [95% CI {lo:.1f}, {hi:.1f}]"

    be = fit["break_even_ms"]
    text = (
        f"{_label(doc)}: break-even at {be:+.1f} ms{ci('break_even_ci')} "
        f"(the agent wins half its games when {abs(be):.1f} ms {'slower' if be >= 0 else 'faster'} "
        f"than its opponent); {fit['ms_per_ten_points']:.1f} ms{ci('ms_per_ten_points_ci')} "
        f"of reaction = 10 points of win rate; at equal latency it wins "
        f"{100 * fit['win_rate_at_equal_latency']:.1f}%"
    )
    if "break_even_latency_ms" in fit:
        text += f"; break-even latency {fit['break_even_latency_ms']:.1f} ms"
    if not fit["converged"]:
        text += " (WARNING: the fit did not converge; the data may be separated)"
    elif fit.get("fit_p_value", 1.0) < 1e-3:  # nan compares false: no warning without dof
        text += (
            f" (WARNING: the points are far from a logistic curve, deviance {fit['deviance']:.0f} on "
            f"{fit['dof']} dof; read the points, not the fit)"
        )
    return text


# ------------------------------------------------------------------ figures
def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    return buf.getvalue()


def _label(doc: dict[str, Any]) -> str:
    s = doc["settings"]
    opp = s["opponent_latencies"]
    opp_text = f"@{opp[0]}" if len(opp) == 1 else "@grid"
    agent = f"{s['agent']} ({s['jitter']}-shaped)" if s.get("jitter") else s["agent"]
    fixed = (
        all(make_profile(v).is_fixed for v in s["opponent_latencies"])
        and not s.get("jitter")
        and all(make_profile(v).is_fixed for v in s["latencies"])
    )
    return f"{agent} vs {s['opponent']}{opp_text}" + (" (fixed latencies)" if fixed else "")


def curve_png(
    docs: Sequence[dict[str, Any]], labels: Sequence[str] | None = None, title: str | None = None
) -> bytes:
    """Win rate against latency difference for one or more sweeps.

    Each sweep's points carry their Wilson 95% intervals (a shaded band when
    each difference appears once, error bars otherwise); the fitted logistic
    is a line, and the break-even difference a marker at 50% with its
    bootstrap interval.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(labels) if labels is not None else [_label(d) for d in docs]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lo_x, hi_x = math.inf, -math.inf
    for i, (doc, label) in enumerate(zip(docs, labels, strict=True)):
        colour = f"C{i}"
        rows = sorted(doc["points"], key=lambda r: r["latency_ms"] - r["opponent_latency_ms"])
        x = np.array([r["latency_ms"] - r["opponent_latency_ms"] for r in rows])
        y = np.array([r["win_rate"] for r in rows])
        lo = np.array([r["ci_low"] for r in rows])
        hi = np.array([r["ci_high"] for r in rows])
        if len(x):
            lo_x, hi_x = min(lo_x, x.min()), max(hi_x, x.max())
        if len(np.unique(x)) == len(x) and len(x) > 1:
            ax.fill_between(x, lo, hi, color=colour, alpha=0.18, linewidth=0)
            ax.plot(x, y, "o", color=colour, label=label)
        else:
            ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o", color=colour, capsize=3, label=label)
        fit = doc.get("fit")
        if fit and len(x):
            xs = np.linspace(x.min() - 20, x.max() + 20, 200)
            ys = 1 / (1 + np.exp(-(fit["intercept"] + fit["slope_per_ms"] * xs)))
            ax.plot(xs, ys, "-", color=colour, alpha=0.8)
            be = fit["break_even_ms"]
            if math.isfinite(be) and x.min() - 100 <= be <= x.max() + 100:
                ci = fit.get("break_even_ci")
                xerr = [[be - ci[0]], [ci[1] - be]] if ci and all(map(math.isfinite, ci)) else None
                ax.errorbar(
                    [be],
                    [0.5],
                    xerr=xerr,
                    fmt="D",
                    color=colour,
                    markersize=6,
                    capsize=4,
                    markeredgecolor="black",
                )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_ylim(0, 1)
    ax.set_xlabel("latency difference, agent − opponent (ms; > 0: the agent is slower)")
    ax.set_ylabel("agent's win rate (draws count half)")
    ax.set_title(title or "win rate against reaction latency (paired deals, Wilson 95% bands)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    data = _png(fig)
    plt.close(fig)
    return data


def grid_png(doc: dict[str, Any], title: str | None = None) -> bytes:
    """Heatmap of the agent's win rate over its latency (rows) and the opponent's (columns)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = doc["points"]
    ys = sorted({r["latency_ms"] for r in rows})
    xs = sorted({r["opponent_latency_ms"] for r in rows})
    grid = np.full((len(ys), len(xs)), np.nan)
    for r in rows:
        grid[ys.index(r["latency_ms"]), xs.index(r["opponent_latency_ms"])] = r["win_rate"]
    fig, ax = plt.subplots(figsize=(1.6 + 0.9 * len(xs), 1.2 + 0.7 * len(ys)))
    im = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0, origin="lower")
    ax.set_xticks(range(len(xs)), [f"{v:g}" for v in xs])
    ax.set_yticks(range(len(ys)), [f"{v:g}" for v in ys])
    for i in range(len(ys)):
        for j in range(len(xs)):
            if not np.isnan(grid[i, j]):
                dark = abs(grid[i, j] - 0.5) > 0.3  # white text on the deep colours
                ax.text(
                    j,
                    i,
                    f"{100 * grid[i, j]:.0f}%",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                )
    s = doc["settings"]
    ax.set_xlabel(f"opponent ({s['opponent']}) latency, ms")
    ax.set_ylabel(f"agent ({s['agent']}) latency, ms")
    ax.set_title(title or f"{s['agent']}'s win rate against {s['opponent']}")
    fig.colorbar(im, ax=ax, shrink=0.8, label="win rate")
    data = _png(fig)
    plt.close(fig)
    return data


# -------------------------------------------------------------------- files
def load(folder: str | Path) -> dict[str, Any]:
    """The ``reaction.json`` document of an earlier sweep's output folder."""
    path = Path(folder) / FILES["json"]
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SweepError(
            f"cannot read an earlier sweep from {str(path)!r}: {exc.strerror or exc}"
        ) from None
    except json.JSONDecodeError:
        raise SweepError(f"{str(path)!r} is not a sweep's JSON") from None
    if not isinstance(doc, dict) or "points" not in doc or "settings" not in doc:
        raise SweepError(f"{str(path)!r} is not a sweep's JSON (no 'points' or 'settings')")
    return doc


def write_outputs(
    out: Path, doc: dict[str, Any], compare: Sequence[dict[str, Any]] = ()
) -> list[Path]:
    """Write the CSV, the JSON and the figures of a sweep into ``out`` (atomically); return their paths.

    ``compare`` holds earlier sweeps' documents drawn beside this one on the curve.
    """
    from agents.report import write_atomic

    files = {
        FILES["csv"]: rows_csv(doc).encode(),
        FILES["json"]: json.dumps(doc, indent=2).encode(),
        FILES["curve"]: curve_png([*compare, doc]),
    }
    if doc["settings"]["grid"]:
        files[FILES["grid"]] = grid_png(doc)
    paths = []
    for name, data in files.items():
        write_atomic(out / name, data)
        paths.append(out / name)
    return paths


def table(doc: dict[str, Any]) -> str:
    """The points as a fixed-width table for the terminal."""
    lines = [
        f"{'latency':>8} {'opponent':>8} {'games':>6} {'wins':>6} {'losses':>6} {'draws':>5} "
        f"{'win %':>6}  95% CI"
    ]
    for r in doc["points"]:
        lines.append(
            f"{r['latency_ms']:>8g} {r['opponent_latency_ms']:>8g} {r['games']:>6} {r['wins']:>6} "
            f"{r['losses']:>6} {r['draws']:>5} {100 * r['win_rate']:>6.1f}  "
            f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        )
    return "\n".join(lines)
