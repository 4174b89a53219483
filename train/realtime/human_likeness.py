"""The card's human-likeness: how often an agent makes a person's recorded plays, and how far
its reaction times lie from the person's.

``speed evaluate SPEC --human DIR_OR_MINARI_ID`` adds the section :func:`measure` makes
to the card (key ``human_likeness``). The decisions are read as ``speed train bc --data``
reads them (:func:`train.bc_data.load`), and compared the same way: on the ticks where the
person *played* a card and had more than one legal play, the agent is shown the recorded
observation and the mask with the wait left out, and agrees when it picks the person's play.
Chance is a uniformly random legal play on the same decisions
(:func:`train.bc_data.chance_agreement`).

The reaction-time distance is the Wasserstein-1 distance (ms) between the person's measured
reaction times and draws from the agent's seat profile (:func:`agents.seat_reaction`, the
protocol's reaction unless the spec names one), drawn with numpy from the card's deal seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

DECISIONS = "plays where the person had more than one legal play (the wait left out)"
"""Which recorded decisions the agreement is measured on (the section's ``decisions``)."""
# Enough draws that the agent's median and distance barely move with the seed.
SAMPLES = 20_000
"""Draws from the agent's reaction profile."""


def wasserstein_1(a: np.ndarray, b: np.ndarray) -> float:
    """Wasserstein-1 distance between the empirical distributions of ``a`` and ``b``.

    The area between their distribution functions.
    """
    a, b = np.sort(np.asarray(a, np.float64)), np.sort(np.asarray(b, np.float64))
    grid = np.concatenate([a, b])
    grid.sort()
    # Both CDFs are flat between grid points, so the integral is an exact sum.
    cdf_a = np.searchsorted(a, grid[:-1], side="right") / len(a)
    cdf_b = np.searchsorted(b, grid[:-1], side="right") / len(b)
    return float(np.sum(np.abs(cdf_a - cdf_b) * np.diff(grid)))


def draw_reaction_ms(profile: Any, n: int, seed: int) -> np.ndarray:
    """``n`` reaction times in ms of ``profile``, from numpy's generator seeded with ``seed``.

    Drawn as the engine draws them: ex-Gaussian above its floor, whole ms, at least 1.
    """
    rng = np.random.default_rng(seed)
    if profile.is_fixed:
        value = np.full(n, float(profile.mu))
    else:
        body = profile.mu + profile.sigma * rng.standard_normal(n)
        value = np.maximum(profile.floor, body + profile.tau * rng.exponential(size=n))
    return np.maximum(1.0, np.round(value))


def measure(spec: str, data: str, seat: str, default: Any, seed: int) -> dict[str, Any]:
    """The ``human_likeness`` section of ``spec``'s card against the decisions of ``data``.

    ``data`` is a records folder with its ``seat`` kind, or a Minari dataset id. A
    ``ValueError`` names what is wrong when the data cannot be read or the agent cannot play
    its rules.
    """
    import agents
    from agents.specs.guarded import calling
    from train import bc_data

    decisions = bc_data.load(data, seat)
    with calling(spec, f"building it for the rules of {data!r}"):
        policy = agents.make(spec, decisions.rules, seed=seed)
    choice = decisions.mask.copy()
    choice[:, 0] = 0  # compared on which play: a recorded play is never a wait
    # Real choices only: with one legal play anyone agrees.
    rows = (decisions.action != 0) & (choice.sum(axis=1) > 1)
    obs, choice, action = decisions.obs[rows], choice[rows], decisions.action[rows]
    if len(action):
        with calling(spec, "act", f"choosing the person's recorded plays of {data!r}"):
            pred = np.asarray(policy.act(obs, choice)).reshape(-1)
        agree: float | None = bc_data.agreement(pred, action)
        chance: float | None = bc_data.chance_agreement(choice)
    else:
        agree = chance = None
    # Rows with no measured reaction time hold NaN; they are left out.
    person = decisions.reaction_ms[np.isfinite(decisions.reaction_ms)]
    profile = agents.seat_reaction(policy, default)
    bot = draw_reaction_ms(profile, SAMPLES, seed)
    return {
        "data": decisions.source,
        "rules": decisions.rules.preset,
        "decisions": DECISIONS,
        "n_decisions": len(action),
        "agreement": None if agree is None else round(agree, 4),
        "chance_agreement": None if chance is None else round(chance, 4),
        "reaction": {
            "n_person": len(person),
            "person_median_ms": round(float(np.median(person)), 1) if len(person) else None,
            "agent_profile": profile.label(),
            "agent_median_ms": round(float(np.median(bot)), 1),
            "agent_samples": SAMPLES,
            "wasserstein_ms": round(wasserstein_1(person, bot), 1) if len(person) else None,
        },
    }
