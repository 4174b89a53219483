"""Real-time Speed's report card, as the shared card code asks for it: :data:`CARD`.

Its pieces live in the modules of the card's stages, the kit's main game at the top of each:
the plan (:func:`agents.evaluate.plan.plan_realtime`: paired deals against the reference bots
per rule set, and the latency sweep), the results
(:func:`agents.evaluate.summary.summarise_realtime`), the ratings per rule set
(:func:`agents.evaluate.make_card.rate_rule_sets`), the checks
(:func:`agents.evaluate.card_check.check_realtime`) and the page
(:data:`agents.evaluate.report.REALTIME_SECTIONS`). The game's plug-in,
:mod:`agents.games.realtime`, registers :data:`CARD`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.evaluate import protocol
from agents.evaluate.alpharank import rule_set_alpharank
from agents.evaluate.card_check import Check, check_realtime
from agents.evaluate.make_card import rate_rule_sets
from agents.evaluate.plan import Plan, plan_realtime
from agents.evaluate.report import REALTIME_SECTIONS
from agents.evaluate.report_text import num_text
from agents.evaluate.summary import summarise_realtime
from agents.evaluate.thinking import realtime_2


@dataclass(frozen=True)
class RealtimeCard:
    """Real-time Speed's :class:`~agents.evaluate.protocol.CardGame`."""

    name: str = "realtime"
    title: str = "Real-time Speed"
    about: str = "paired deals against the reference bots"
    unit: str = "pairing"
    env_mark: str | None = None
    figure_label: str = "win rate (draw = ½), 95% interval"
    board_column: str = "break-even ms vs chain"

    @property
    def protocols(self) -> dict[int, dict[str, Any]]:
        """Protocol 1, and 2 (1 with thinking charged; its shipped costs read when first asked)."""
        return {1: protocol.REALTIME_1, 2: realtime_2()}

    def fill(self, plan: Plan, act_timeout: float | None) -> Plan:
        """Pairings per rule set and opponent, and the latency sweep."""
        return plan_realtime(plan, act_timeout)

    def summarise(self, plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
        """Results per rule set and opponent, and the latency curve."""
        return summarise_realtime(plan, by_group)

    def rate(self, card: dict[str, Any], anchors: dict[str, Any]) -> None:
        """A rating per rule set, and α-Rank."""
        rate_rule_sets(card, anchors)

    def alpharank(self, card: dict[str, Any], pools: dict[str, Any]) -> dict[str, Any]:
        """α-Rank per rule set."""
        return rule_set_alpharank(card, pools)

    def check(
        self, c: Check, results: dict[str, Any], proto: dict[str, Any], agent: str, games: int
    ) -> None:
        """Each rule set's pairings and the latency sweep, field by field."""
        check_realtime(c, results, proto, games, agent)

    def sections(self) -> list[Callable[[dict[str, Any]], list[str]]]:
        """The real-time page."""
        return REALTIME_SECTIONS

    def figure_rows(self, card: dict[str, Any]) -> list[tuple[str, float, float, float]]:
        """The win rate against each opponent, per rule set."""
        rows: list[tuple[str, float, float, float]] = []
        for rs, row in card["results"]["rule_sets"].items():
            for opp, r in row.get("opponents", {}).items():
                if "games" in r:
                    rows.append((f"{rs} · {opp}", r["win_rate"], *r["win_rate_ci"]))
        return rows

    def board_row(self, results: dict[str, Any]) -> dict[str, Any]:
        """A rating per rule set, and the break-even latency against chain."""
        row = {
            "ratings": {
                rs: (r.get("rating"), r.get("rating_ci")) for rs, r in results["rule_sets"].items()
            },
            "break_even_ms": results["latency"].get("break_even_ms"),
        }
        if "thinking" in results:  # a protocol that charges thinking: the agent's own cost
            row["think_ms"] = results["thinking"]["agent_ms"]
        return row

    def board_cell(self, row: dict[str, Any]) -> str:
        """The break-even latency, ms, and the agent's thinking cost where it is charged."""
        cost = "" if row.get("think_ms") is None else f" (costs {row['think_ms']:g} ms)"
        return num_text(row.get("break_even_ms")) + cost

    def anchor_keys(self, proto: dict[str, Any], only: list[str] | None) -> list[str]:
        """The rule sets (``only``: those asked for; one the protocol lacks is refused)."""
        keys = list(proto["rule_sets"]) if only is None else only
        unknown = [k for k in keys if k not in proto["rule_sets"]]
        if unknown:
            raise ValueError(
                f"has no rule set {', '.join(unknown)}; it has {', '.join(proto['rule_sets'])}"
            )
        return keys

    def anchor_pool(self, key: str, version: int, workers: int, progress: Any) -> dict[str, Any]:
        """One rule set's round robin of the protocol's opponents."""
        from agents.evaluate.make_anchors import realtime_pool

        return realtime_pool(key, version, workers, progress)


CARD = RealtimeCard()
"""Real-time Speed's report card, registered by :mod:`agents.games.realtime`."""
