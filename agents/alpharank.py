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

α-Rank reads only the sign and size of each mean reward, not how many games
made it: with strong selection (α = 100) a 51%-to-49% edge that 200 games cannot
tell from chance still hands an agent all the mass. Given the games behind each
entry, :func:`unseparated` names the agents whose head-to-head against the
leader is within noise (the 95% Wilson interval of the score holds 50%), and
the reports say that α-Rank cannot separate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

ALPHA = 100.0
"""Ranking intensity α (OpenSpiel's default); large: selection close to deterministic."""
POPULATION = 50
"""Finite population size m (OpenSpiel's default)."""
MASS_DIGITS = 10
"""Decimals kept of each agent's mass: the eigen-solve's noise (about 1e-15) lies far below."""


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
    unseparated: dict[str, Any] | None = None
    """The leader and the agents it is not separated from, with the head-to-heads among them.

    See :func:`unseparated`. None where the leader's every head-to-head is outside the noise
    or the games behind the table were not given.
    """

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``results.json``, ``report.json``)."""
        return {
            "method": "alpha-rank (OpenSpiel, single population)",
            "alpha": self.alpha,
            "population": self.population,
            "stationary": dict(zip(self.agents, self.mass, strict=True)),
            "cycle": list(self.cycle) if self.cycle else None,
            "unseparated": self.unseparated,
        }

    def ranked(self) -> list[tuple[str, float]]:
        """(agent, mass), most mass first (ties in table order)."""
        order = sorted(range(len(self.agents)), key=lambda i: (-self.mass[i], i))
        return [(self.agents[i], self.mass[i]) for i in order]


def payoff_from_scores(score: np.ndarray) -> np.ndarray:
    """Mean reward table from a score table: ``2 * score - 1`` off the diagonal, 0 on it.

    ``score[i, j]`` is i's win share against j, a draw counting half.
    """
    table = 2.0 * np.asarray(score, dtype=float) - 1.0
    np.fill_diagonal(table, 0.0)
    return table


def check_payoff(payoff: np.ndarray, agents: tuple[str, ...] | list[str]) -> np.ndarray:
    """The table as a float (n, n) array; ValueError naming what is wrong.

    What can be wrong: its shape, or a pairing with no result.
    """
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
                    # Started at its alphabetically first agent: one cycle, one spelling.
                    first = min((i, j, k), key=lambda s: agents[s])
                    order = [i, j, k]
                    at = order.index(first)
                    return tuple(agents[s] for s in order[at:] + order[:at])
    return None


def unseparated(
    mass: np.ndarray | tuple[float, ...],
    payoff: np.ndarray,
    games: np.ndarray,
    agents: tuple[str, ...] | list[str],
) -> dict[str, Any] | None:
    """The agents α-Rank cannot separate from its leader, or None where it can.

    The leader is the agent with the most mass; another is not separated from
    it when the 95% Wilson interval of the leader's score against it (its share
    of the games, a draw half; ``(1 + payoff) / 2``) holds 50%. Returns
    ``{"agents": [leader, ...], "pairs": [{"a", "b", "games", "score", "ci"}, ...]}``
    with every head-to-head among those agents, ``score`` and ``ci`` ``a``'s.
    """
    from agents.stats import wilson_interval

    n = len(agents)
    lead = max(range(n), key=lambda i: (mass[i], -i))  # a tie goes to the earlier agent

    def head_to_head(i: int, j: int) -> dict[str, Any]:
        played = int(games[i, j])
        score = (1.0 + float(payoff[i, j])) / 2.0
        lo, hi = wilson_interval(score * played, played)
        return {"a": agents[i], "b": agents[j], "games": played, "score": score, "ci": [lo, hi]}

    def within_noise(pair: dict[str, Any]) -> bool:
        return bool(pair["ci"][0] <= 0.5 <= pair["ci"][1])

    tied = [j for j in range(n) if j != lead and within_noise(head_to_head(lead, j))]
    if not tied:
        return None
    group = [lead, *tied]
    pairs = [head_to_head(i, j) for k, i in enumerate(group) for j in group[k + 1 :]]
    return {"agents": [agents[i] for i in group], "pairs": pairs}


def alpharank(
    payoff: np.ndarray,
    agents: tuple[str, ...] | list[str],
    *,
    games: np.ndarray | None = None,
    alpha: float = ALPHA,
    population: int = POPULATION,
) -> AlphaRank:
    """α-Rank over ``agents`` from their symmetric payoff table.

    The table is the one the module docstring describes. With ``games``, the games behind each
    entry, it also names the agents it cannot separate from its leader: :func:`unseparated`.

    Raises :class:`AlphaRankUnavailable` without OpenSpiel, ValueError for a
    table that is not square, or misses a pairing.
    """
    table = check_payoff(payoff, agents)
    try:
        from open_spiel.python.egt import alpharank as os_alpharank
    except ImportError as exc:
        raise AlphaRankUnavailable(
            f"α-Rank, a second ranking beside the ratings, comes with OpenSpiel ({exc.name or exc}"
            " is not installed here): `make setup` or pip install 'speed-rl[openspiel]' adds it"
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
        # Its last digits differ between BLAS builds (0.99999999999999 here, 1.0 there), so the
        # mass is kept to MASS_DIGITS decimals: a card re-made on another machine is the same.
        mass=tuple(round(max(0.0, float(x)), MASS_DIGITS) + 0.0 for x in mass),
        alpha=float(alpha),
        population=int(population),
        cycle=beat_cycle(table, agents) if len(agents) >= 3 else None,
        unseparated=(
            unseparated(mass, table, np.asarray(games), agents)
            if games is not None and len(agents) >= 2
            else None
        ),
    )


def alpharank_or_reason(
    payoff: np.ndarray,
    agents: tuple[str, ...] | list[str],
    games: np.ndarray | None = None,
) -> tuple[AlphaRank | None, str | None]:
    """:func:`alpharank`, or None and the one-line reason it was not computed (for reports)."""
    try:
        return alpharank(payoff, agents, games=games), None
    except (AlphaRankUnavailable, ValueError) as exc:
        return None, str(exc)


def markdown(result: AlphaRank | None, reason: str | None = None) -> list[str]:
    """Lines of a report's α-Rank section: the ranking, and the cycle note where there is one."""
    lines = ["## α-Rank", ""]
    if result is None:  # information, not an error: the ratings above are complete
        return [*lines, f"Not shown: {reason}.", ""]
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
    note = unseparated_note(result.unseparated)
    return [*lines, note, ""] if note else lines


def unseparated_note(entry: dict[str, Any] | None) -> str | None:
    """The reports' sentence for an ``unseparated`` entry.

    It names who α-Rank cannot separate from its leader, and the leader's scores against them
    with their 95% intervals.
    """
    if not entry:
        return None
    lead, *rest = entry["agents"]
    scores = ", ".join(
        f"vs {p['b']} {100 * p['score']:.1f}% [{100 * p['ci'][0]:.1f}, {100 * p['ci'][1]:.1f}]"
        f" of {p['games']:,} games"
        for p in entry["pairs"]
        if p["a"] == lead
    )
    return (
        f"Note: α-Rank cannot separate {lead} from {', '.join(rest)}: {lead}'s score against "
        f"{'each' if len(rest) > 1 else 'it'} is within noise ({scores}; each interval holds "
        "50%), so the mass among them follows differences the games do not resolve; more games "
        "would separate them."
    )


def from_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """The ``alpharank`` entry of a tournament summary, of either game.

    - Computed: α-Rank over the ranked agents from the pairings' mean rewards,
      ``(wins_a - wins_b) / games``, a draw or tie counting 0.
    - Not computed: ``{"computed": False, "reason": …}``, say for a pairing not played, as in
      a gauntlet, or without OpenSpiel.
    """
    names = [a["name"] for a in summary.get("agents", [])]
    index = {name: i for i, name in enumerate(names)}
    table = np.full((len(names), len(names)), np.nan)
    np.fill_diagonal(table, 0.0)
    games = np.zeros((len(names), len(names)), dtype=int)
    for m in summary.get("matches", []):
        i, j = index.get(m["a"]), index.get(m["b"])
        if i is None or j is None or not m["games"]:
            continue  # left nan: check_payoff then names the pairing in the reason
        reward = (m["wins_a"] - m["wins_b"]) / m["games"]
        table[i, j], table[j, i] = reward, -reward
        games[i, j] = games[j, i] = m["games"]
    if len(names) < 2:
        return {"computed": False, "reason": "α-Rank needs at least two ranked agents"}
    result, reason = alpharank_or_reason(table, names, games)
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
        unseparated=entry.get("unseparated"),
    )
    return ["", *markdown(result)]
