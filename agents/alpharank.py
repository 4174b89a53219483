"""α-Rank beside Bradley–Terry: a ranking that sees cycles a rating hides.

A rating (Bradley–Terry, Elo) puts every agent on one line, so a cycle (A
beats B, B beats C, C beats A) is averaged away. α-Rank (Omidshafiei et al.,
2019) ranks agents by the stationary distribution of an evolutionary process
over the same payoff table: agents that sit in a cycle share the mass. The
kit computes it with OpenSpiel's implementation
(``open_spiel.python.egt.alpharank``, extra ``[openspiel]``), in its
single-population form for a symmetric two-player game, from the payoff
table ``payoff[i, j]``: agent ``i``'s mean reward against agent ``j`` (+1 win,
−1 loss, 0 draw: ``2 * score - 1`` where a draw scores half).

:func:`alpharank` gives the stationary distribution; :func:`beat_cycle` finds a
cycle of "beats" (a positive mean reward) that the ratings hide, for the note
the reports print. Both read a complete table: a pairing that was not played
has no entry, and α-Rank is then not computed (the reports say so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

ALPHA = 100.0
"""Ranking intensity α (OpenSpiel's default); large: selection close to deterministic."""
POPULATION = 50
"""Finite population size m (OpenSpiel's default)."""


class AlphaRankUnavailable(RuntimeError):
    """α-Rank needs OpenSpiel (and its matplotlib and networkx imports)."""


@dataclass(frozen=True)
class AlphaRank:
    """α-Rank's stationary distribution over agents, with the settings it was computed with."""

    agents: tuple[str, ...]
    """Agent names, in the table's order."""
    mass: tuple[float, ...]
    """Stationary probability of each agent (sums to 1)."""
    alpha: float
    """Ranking intensity used."""
    population: int
    """Population size used."""
    cycle: tuple[str, ...] | None
    """A cycle of agents each beating the next (and the last the first), or None."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``results.json``, ``report.json``)."""
        return {
            "method": "alpha-rank (OpenSpiel, single population)",
            "alpha": self.alpha,
            "population": self.population,
            "stationary": dict(zip(self.agents, self.mass, strict=True)),
            "cycle": list(self.cycle) if self.cycle else None,
        }

    def ranked(self) -> list[tuple[str, float]]:
        """(agent, mass), most mass first (ties in table order)."""
        order = sorted(range(len(self.agents)), key=lambda i: (-self.mass[i], i))
        return [(self.agents[i], self.mass[i]) for i in order]


def payoff_from_scores(score: np.ndarray) -> np.ndarray:
    """Mean reward table from a score table (``score[i, j]``: i's win share against j, draws
    half): ``2 * score - 1`` off the diagonal, 0 on it."""
    table = 2.0 * np.asarray(score, dtype=float) - 1.0
    np.fill_diagonal(table, 0.0)
    return table


def check_payoff(payoff: np.ndarray, agents: tuple[str, ...] | list[str]) -> np.ndarray:
    """The table as a float (n, n) array; ValueError naming what is wrong (its shape, a pairing
    with no result)."""
    table = np.asarray(payoff, dtype=float)
    n = len(agents)
    if table.shape != (n, n):
        raise ValueError(f"payoff table must be {n}x{n} for {n} agents; got shape {table.shape}")
    missing = [
        f"{agents[i]} vs {agents[j]}"
        for i in range(n)
        for j in range(n)
        if i != j and not np.isfinite(table[i, j])
    ]
    if missing:
        raise ValueError(
            "α-Rank needs every pairing played; no result for " + ", ".join(missing[:4])
        )
    return table


def beat_cycle(payoff: np.ndarray, agents: tuple[str, ...] | list[str]) -> tuple[str, ...] | None:
    """Three agents each beating the next (a positive mean reward), the last beating the first.

    In a table where every pair has a winner, the "beats" relation has a
    cycle exactly when it has one of three, so this finds one if any exists
    (pairs with a mean reward of exactly 0 are ties, in no cycle).
    """
    table = check_payoff(payoff, agents)
    n = len(agents)
    beats = table > 0
    for i in range(n):
        for j in range(n):
            if not beats[i, j]:
                continue
            for k in range(n):
                if beats[j, k] and beats[k, i]:
                    first = min((i, j, k), key=lambda s: agents[s])
                    order = [i, j, k]
                    at = order.index(first)
                    return tuple(agents[s] for s in order[at:] + order[:at])
    return None


def alpharank(
    payoff: np.ndarray,
    agents: tuple[str, ...] | list[str],
    *,
    alpha: float = ALPHA,
    population: int = POPULATION,
) -> AlphaRank:
    """α-Rank over ``agents`` from their symmetric payoff table (module docstring).

    Raises :class:`AlphaRankUnavailable` without OpenSpiel, ValueError for a
    table that is not square, or misses a pairing.
    """
    table = check_payoff(payoff, agents)
    try:
        from open_spiel.python.egt import alpharank as os_alpharank
    except ImportError as exc:
        raise AlphaRankUnavailable(
            f"α-Rank needs OpenSpiel ({exc.name or exc}): pip install 'speed-rl[openspiel]'"
        ) from None
    if len(agents) == 1:
        mass = np.ones(1)
    else:
        # Strong selection overflows exp() in OpenSpiel's fixation probabilities; the overflow
        # is the right limit there (a fixation probability of 0), so it is not a warning here.
        with np.errstate(over="ignore"):
            _, _, pi, _, _ = os_alpharank.compute([table], m=population, alpha=alpha)
        mass = np.asarray(pi, dtype=float)
    return AlphaRank(
        agents=tuple(agents),
        # The stationary vector can hold tiny negatives (-1e-17) from the eigen-solve: 0 then.
        mass=tuple(max(0.0, float(x)) + 0.0 for x in mass),
        alpha=float(alpha),
        population=int(population),
        cycle=beat_cycle(table, agents) if len(agents) >= 3 else None,
    )


def alpharank_or_reason(
    payoff: np.ndarray, agents: tuple[str, ...] | list[str]
) -> tuple[AlphaRank | None, str | None]:
    """:func:`alpharank`, or None and the one-line reason it was not computed (for reports)."""
    try:
        return alpharank(payoff, agents), None
    except (AlphaRankUnavailable, ValueError) as exc:
        return None, str(exc)


def markdown(result: AlphaRank | None, reason: str | None = None) -> list[str]:
    """Lines of a report's α-Rank section: the ranking, and the cycle note where there is one."""
    lines = ["## α-Rank", ""]
    if result is None:
        return [*lines, f"Not computed: {reason}", ""]
    lines += [
        f"Stationary distribution of α-Rank (α = {result.alpha:g}, population {result.population}),"
        " from the same payoff table as the ratings:",
        "",
        "| agent | α-Rank mass |",
        "|---|---:|",
    ]
    lines += [f"| {a} | {m:.3f} |" for a, m in result.ranked()]
    lines.append("")
    if result.cycle:
        chain = " > ".join([*result.cycle, result.cycle[0]])
        lines += [
            f"Note: the table has a cycle that one-line ratings hide: {chain} "
            "(each beats the next on average); α-Rank spreads its mass across such cycles.",
            "",
        ]
    return lines


def from_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The ``alpharank`` entry of a tournament summary (either game): α-Rank over the ranked
    agents from the pairings' mean rewards (``(wins_a - wins_b) / games``, a draw or tie 0),
    or ``{"computed": False, "reason": …}`` where it cannot be computed (a pairing not
    played, as in a gauntlet; no OpenSpiel)."""
    names = [a["name"] for a in summary.get("agents", [])]
    index = {name: i for i, name in enumerate(names)}
    table = np.full((len(names), len(names)), np.nan)
    np.fill_diagonal(table, 0.0)
    for m in summary.get("matches", []):
        i, j = index.get(m["a"]), index.get(m["b"])
        if i is None or j is None or not m["games"]:
            continue
        reward = (m["wins_a"] - m["wins_b"]) / m["games"]
        table[i, j], table[j, i] = reward, -reward
    if len(names) < 2:
        return {"computed": False, "reason": "α-Rank needs at least two ranked agents"}
    result, reason = alpharank_or_reason(table, names)
    if result is None:
        return {"computed": False, "reason": reason}
    return {"computed": True, **result.to_json()}


def summary_markdown(entry: dict[str, Any] | None) -> list[str]:
    """The α-Rank section of a report from a summary's ``alpharank`` entry (none: no lines)."""
    if not entry:
        return []
    if not entry.get("computed"):
        return ["", *markdown(None, entry.get("reason", "not computed"))]
    agents = tuple(entry["stationary"])
    result = AlphaRank(
        agents=agents,
        mass=tuple(entry["stationary"][a] for a in agents),
        alpha=entry["alpha"],
        population=entry["population"],
        cycle=tuple(entry["cycle"]) if entry.get("cycle") else None,
    )
    return ["", *markdown(result)]
