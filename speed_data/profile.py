"""A person's reaction profile from their play records.

The profile is an ex-Gaussian fitted by maximum likelihood. The kit's latency model
(:mod:`speed_env.reaction`) is an ex-Gaussian with a floor:
``max(floor, mu + sigma * N(0, 1) + tau * Exp(1))``. :func:`fit` finds
``mu``, ``sigma`` and ``tau`` that maximise the likelihood of the measured
reaction times, whose log density is::

    log f(x) = -log tau + (mu - x) / tau + sigma² / (2 tau²) + log Phi(z),
    z = (x - mu) / sigma - sigma / tau

starting from the method-of-moments fit (:func:`speed_env.latency_fit.fit_exgauss`)
and searching ``(mu, log sigma, log tau)`` with Nelder-Mead: SciPy's when it
is installed, else the small NumPy one here (same answer to well under a
millisecond on the tests' data). Intervals are percentile bootstraps (the
fit repeated on resampled times). The floor is the fastest time kept. As at the
table, times over :data:`~speed_env.latency_fit.OUTLIER_MS` are not reactions
and are left out.

The profile file (:func:`write_profile`) is what ``--reaction profile:FILE``
and ``chain@profile:FILE`` read (:func:`speed_env.reaction.load_profile`): the
four parameters, plus the fit's intervals, sample size and log-likelihood for
the reader.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speed_env import latency_fit
from speed_env.reaction import PROFILE_FORMAT, PROFILE_VERSION

PARAMS = ("mu", "sigma", "tau")
MIN_TIMES = 20
"""Fewest reaction times a profile is fitted from (fewer give intervals wider than the values)."""


def _log_ndtr(z: np.ndarray) -> np.ndarray:
    """``log Phi(z)``, accurate in the far left tail too."""
    try:
        from scipy.special import log_ndtr

        return np.asarray(log_ndtr(z), np.float64)
    except ImportError:
        pass
    z = np.asarray(z, np.float64)
    out = np.empty_like(z)
    # log(erfc) underflows to -inf in the far left tail (below about -38); the asymptotic
    # series below is accurate well before that.
    far = z < -20
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    out[~far] = np.log(0.5 * erfc(-z[~far] / math.sqrt(2.0)))
    zf = z[far]  # Mills ratio: Phi(z) ~ phi(z) / -z (1 - 1/z² + 3/z⁴)
    out[far] = (
        -0.5 * zf**2 - np.log(-zf) - 0.5 * math.log(2 * math.pi) + np.log1p(-1 / zf**2 + 3 / zf**4)
    )
    return out


def log_likelihood(x: np.ndarray, mu: float, sigma: float, tau: float) -> float:
    """Sum of the ex-Gaussian log density of the times ``x`` (ms)."""
    z = (x - mu) / sigma - sigma / tau
    return float(np.sum(-math.log(tau) + (mu - x) / tau + sigma**2 / (2 * tau**2) + _log_ndtr(z)))


def nelder_mead(
    f: Callable[[np.ndarray], float], x0: np.ndarray, step: np.ndarray, iters: int = 2000
) -> np.ndarray:
    """Minimise ``f`` from ``x0`` by Nelder-Mead (standard coefficients); the best point."""
    n = len(x0)
    simplex = np.vstack([x0] + [x0 + step[i] * np.eye(n)[i] for i in range(n)])
    values = np.array([f(p) for p in simplex])
    for _ in range(iters):
        order = np.argsort(values)
        simplex, values = simplex[order], values[order]
        if (
            values[-1] - values[0] < 1e-10 * (1 + abs(values[0]))
            and np.ptp(simplex, 0).max() < 1e-8
        ):
            break
        centre = simplex[:-1].mean(axis=0)
        reflected = centre + (centre - simplex[-1])
        fr = f(reflected)
        if fr < values[0]:
            expanded = centre + 2 * (centre - simplex[-1])
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            inside = fr >= values[-1]
            contracted = centre + 0.5 * ((simplex[-1] if inside else reflected) - centre)
            fc = f(contracted)
            if fc < min(fr, values[-1]):
                simplex[-1], values[-1] = contracted, fc
            else:  # shrink towards the best point
                simplex[1:] = simplex[0] + 0.5 * (simplex[1:] - simplex[0])
                values[1:] = [f(p) for p in simplex[1:]]
    return simplex[int(np.argmin(values))]


def mle(
    x: np.ndarray, use_scipy: bool = True, start: tuple[float, float, float] | None = None
) -> tuple[float, float, float]:
    """Maximum-likelihood ``(mu, sigma, tau)`` of the times ``x``, in ms.

    The search starts from ``start``; by default, the method-of-moments fit.
    """
    sd = float(np.std(x)) or 1.0  # equal times: a unit scale, so the first simplex is not flat
    if start is None:
        moments = latency_fit.fit_exgauss(x.tolist()) or {}
        start = (
            float(moments.get("mu", x.mean())),
            float(moments.get("sigma", 0.0)),
            float(moments.get("tau", 0.0)),
        )
    # Searched in log sigma and log tau, which need positive starts: a moments fit of 0 (all
    # spread put on one side) starts at a tenth of the spread instead.
    mu0, sigma0, tau0 = start[0], max(start[1], sd / 10), max(start[2], sd / 10)
    x0 = np.array([mu0, math.log(sigma0), math.log(tau0)])

    def nll(p: np.ndarray) -> float:
        # exp(20) ms is no reaction time, and exp(-20) no spread: out of bounds, and exp() of
        # the search's wild steps stays finite.
        if not np.isfinite(p).all() or abs(p[1]) > 20 or abs(p[2]) > 20:
            return math.inf
        value = -log_likelihood(x, p[0], math.exp(p[1]), math.exp(p[2]))
        return value if math.isfinite(value) else math.inf

    best: np.ndarray | None = None
    if use_scipy:
        try:
            from scipy.optimize import minimize
        except ImportError:
            pass
        else:
            best = minimize(
                nll,
                x0,
                method="Nelder-Mead",
                options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 4000},
            ).x
    if best is None:
        best = nelder_mead(nll, x0, np.array([sd / 5, 0.3, 0.3]))
    return float(best[0]), math.exp(best[1]), math.exp(best[2])


def fit(
    latencies: Sequence[float | None],
    *,
    n_boot: int = 200,
    level: float = 0.95,
    seed: int = 0,
    use_scipy: bool = True,
) -> dict[str, Any]:
    """The profile of ``latencies``, in ms, with bootstrap intervals.

    ``None`` and outliers are dropped. Returns ``mu``, ``sigma``, ``tau``, ``floor``, ``n``,
    ``log_likelihood``, and ``intervals`` (``{param: [low, high]}`` at ``level``, from
    ``n_boot`` resamples).
    Raises ``ValueError`` with fewer than :data:`MIN_TIMES` times, and when the fit is no
    profile the kit can read (:func:`check_fit`).
    """
    x = np.asarray(
        [
            v
            for v in latencies
            if v is not None and math.isfinite(v) and v <= latency_fit.OUTLIER_MS
        ],
        np.float64,
    )
    if x.size < MIN_TIMES:
        raise ValueError(
            f"need at least {MIN_TIMES} timed plays to fit a reaction profile, have {x.size}"
        )
    mu, sigma, tau = mle(x, use_scipy)
    floor = max(1.0, float(np.floor(x.min())))
    check_fit(x, mu, sigma, tau, floor)
    rng = np.random.default_rng(seed)
    # Each resample's search starts at the whole sample's fit, which it is close to.
    boots = np.array(
        [mle(rng.choice(x, x.size), use_scipy, (mu, sigma, tau)) for _ in range(n_boot)]
    )
    alpha = (1 - level) / 2
    low, high = (
        np.quantile(boots, [alpha, 1 - alpha], axis=0)
        if n_boot
        else (
            np.full(3, np.nan),
            np.full(3, np.nan),
        )
    )
    return {
        "mu": mu,
        "sigma": sigma,
        "tau": tau,
        "floor": floor,
        "n": int(x.size),
        "log_likelihood": log_likelihood(x, mu, sigma, tau),
        "level": level,
        "n_boot": n_boot,
        "intervals": {p: [float(low[i]), float(high[i])] for i, p in enumerate(PARAMS)},
    }


def check_fit(x: np.ndarray, mu: float, sigma: float, tau: float, floor: float) -> None:
    """Refuse a fit :func:`speed_env.reaction.load_profile` would refuse, saying why.

    A profile's parameters are ms in ``0..MAX_REACTION_MS``; times at or near 0 ms (no
    reaction a person makes) can fit a ``mu`` just under 0, whose profile file every
    ``--reaction profile:FILE`` would then refuse. Raises ``ValueError``.
    """
    from speed_env.reaction import ReactionError, ReactionProfile

    try:
        ReactionProfile(mu, sigma, tau, floor)
    except ReactionError as exc:
        raise ValueError(
            f"the fit to {x.size} reaction times ({x.min():g} to {x.max():g} ms) is no "
            f"reaction profile (mu {mu:.3g}, sigma {sigma:.3g}, tau {tau:.3g} ms): {exc}"
        ) from None


def quantiles(
    fitted: dict[str, Any], probs: np.ndarray, draws: int = 200_000, seed: int = 0
) -> np.ndarray:
    """The fitted ex-Gaussian's quantiles at ``probs`` (from ``draws`` seeded draws)."""
    rng = np.random.default_rng(seed)
    sample = (
        fitted["mu"]
        + fitted["sigma"] * rng.standard_normal(draws)
        + fitted["tau"] * rng.exponential(size=draws)
    )
    return np.quantile(sample, probs)


def qq_plot(
    latencies: Sequence[float], fitted: dict[str, Any], path: str | os.PathLike[str]
) -> Path:
    """A Q-Q plot PNG of the measured times against the fitted ex-Gaussian; its path."""
    import matplotlib

    matplotlib.use("Agg")  # a file, not a window: works with no display
    import matplotlib.pyplot as plt

    x = np.sort(np.asarray([v for v in latencies if v is not None and v <= latency_fit.OUTLIER_MS]))
    probs = (np.arange(1, x.size + 1) - 0.5) / x.size
    model = quantiles(fitted, probs)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(model, x, s=10)
    lim = [min(model.min(), x.min()), max(model.max(), x.max())]
    ax.plot(lim, lim, color="grey", linewidth=1)
    ax.set_xlabel("fitted ex-Gaussian quantile (ms)")
    ax.set_ylabel("measured reaction time (ms)")
    mu, sigma, tau = (fitted[p] for p in PARAMS)
    ax.set_title(f"mu {mu:.0f}, sigma {sigma:.0f}, tau {tau:.0f} ms (n = {x.size})")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_profile(path: str | os.PathLike[str], fitted: dict[str, Any], source: str = "") -> Path:
    """Write the profile file ``--reaction profile:FILE`` reads (atomically); its path."""
    path = Path(path)
    data = {"format": PROFILE_FORMAT, "version": PROFILE_VERSION, **fitted, "source": source}
    # JSON has no NaN (the kit reads profiles as strict JSON): an interval not computed
    # (no bootstrap) is written as null.
    data["intervals"] = {
        p: [v if math.isfinite(v) else None for v in bounds]
        for p, bounds in fitted["intervals"].items()
    }
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def describe(fitted: dict[str, Any]) -> str:
    """The fit in lines: each parameter with its interval, the floor, the sample size."""
    pct = round(100 * fitted["level"])
    lines = [f"ex-Gaussian fitted by maximum likelihood to {fitted['n']} reaction times:"]
    for p in PARAMS:
        lo, hi = fitted["intervals"][p]
        lines.append(f"  {p:5s} {fitted[p]:7.1f} ms   {pct}% interval [{lo:.1f}, {hi:.1f}]")
    lines.append(f"  floor {fitted['floor']:7.1f} ms   (the fastest time kept)")
    lines.append(f"  log-likelihood {fitted['log_likelihood']:.1f}")
    return "\n".join(lines)


__all__ = [
    "MIN_TIMES",
    "check_fit",
    "describe",
    "fit",
    "log_likelihood",
    "mle",
    "nelder_mead",
    "qq_plot",
    "write_profile",
]
