"""α-Rank on a report card: the agent among the reference pool, from the same counts as its rating.

A card's rating fits the agent against the reference pool's fixed ratings
(:mod:`agents.evaluate.rating`); α-Rank (:mod:`agents.alpharank`) ranks the same
agents by the stationary distribution of an evolutionary process over their
payoff table, which sees cycles a rating hides. The table is the pool's own
results (the shipped anchors: reference agent against reference agent) plus
the card's row (the agent against each reference agent), each entry a mean
reward ``(wins - losses) / games``, with the games behind it, so that the entry
also names the agents α-Rank cannot separate from its leader
(:func:`agents.alpharank.unseparated`). Like the rating, it is a pure function of
the card's counts and the anchors, so a card can be re-ranked without replaying.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.alpharank import alpharank_or_reason


def _pool_rewards(pool: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    names = list(pool["agents"])
    wins = np.asarray(pool["wins"], float)
    games = np.asarray(pool["games"], float)
    with np.errstate(invalid="ignore", divide="ignore"):
        # j's wins over i are i's losses; an unplayed pairing stays nan, not a warning.
        table = np.where(games > 0, (wins - wins.T) / games, np.nan)
    np.fill_diagonal(table, 0.0)
    return names, table, games


def entry(
    pool: dict[str, Any] | None,
    agent: str,
    rewards: dict[str, float],
    games: dict[str, int] | None = None,
) -> dict[str, Any]:
    """α-Rank over the pool's agents the card played and the agent itself.

    ``rewards``
        the agent's mean reward against each.
    ``games``
        the games behind each, which name the agents it cannot separate.

    Where it cannot be computed: ``{"computed": False, "reason": …}``.
    """
    if pool is None:
        return {"computed": False, "reason": "no reference-pool results (anchors) for this"}
    names, pool_table, pool_games = _pool_rewards(pool)
    keep = [i for i, n in enumerate(names) if n in rewards]
    if not keep:
        return {"computed": False, "reason": "the agent played no reference agent here"}
    # A reference agent evaluated against its own pool needs a second name in the table.
    label = f"{agent} (evaluated)" if agent in names else agent
    size = len(keep) + 1
    table = np.zeros((size, size))
    table[: size - 1, : size - 1] = pool_table[np.ix_(keep, keep)]
    played = None
    if games is not None:
        played = np.zeros((size, size))
        played[: size - 1, : size - 1] = pool_games[np.ix_(keep, keep)]
    for row, i in enumerate(keep):
        table[-1, row] = rewards[names[i]]
        table[row, -1] = -rewards[names[i]]
        if played is not None and games is not None:
            played[-1, row] = played[row, -1] = games[names[i]]
    result, reason = alpharank_or_reason(table, [*(names[i] for i in keep), label], played)
    if result is None:
        return {"computed": False, "reason": reason}
    return {"computed": True, "agent": label, **result.to_json()}


def card_alpharank(card: dict[str, Any], anchors: dict[str, Any]) -> dict[str, Any]:
    """The card's ``alpharank`` results, keyed as the card's ratings are (its game's
    :meth:`~agents.evaluate.protocol.CardGame.alpharank` over the anchors' pools)."""
    from agents.evaluate import protocol

    version, game = str(card["protocol"]), card["game"]
    pools = anchors.get(version, {}).get(game, {})
    result: dict[str, Any] = protocol.card_game(game).alpharank(card, pools)
    return result


def rule_set_alpharank(card: dict[str, Any], pools: dict[str, Any]) -> dict[str, Any]:
    """A real-time card's α-Rank, one per rule set."""
    out: dict[str, Any] = {}
    for rs, row in card["results"]["rule_sets"].items():
        if "opponents" not in row:
            continue
        rewards = {
            opp: (r["wins"] - r["losses"]) / r["games"]
            for opp, r in row["opponents"].items()
            if r.get("games")
        }
        games = {opp: r["games"] for opp, r in row["opponents"].items() if r.get("games")}
        out[rs] = entry(pools.get(rs), card["agent"], rewards, games)
    return out
