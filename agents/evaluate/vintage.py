"""Vintage Speed's report card: its protocol, its tables, their results, checks and page.

The agent sits at four-seat tables, against three copies of each reference bot and at two
mixed tables, seats rotated over shared deals (:mod:`agents.tournament.vintage`). Its results
are per table (finished-ahead rate, mean penalty, win rate) and the seat-by-seat comparisons
with each bot, which the anchored rating and α-Rank are made from. :data:`CARD` is what the
shared card code (:mod:`agents.evaluate.protocol`'s :class:`~agents.evaluate.protocol.CardGame`)
asks; the game's plug-in, :mod:`agents.games.vintage`, registers it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.evaluate import protocol
from agents.evaluate.card_check import Check, check_interval
from agents.evaluate.make_anchors import pairwise_counts
from agents.evaluate.plan import ChunkKind, Job, Plan
from agents.evaluate.report import alpharank_section, header_section, section, timing_section
from agents.evaluate.report_text import SKIP_REASON_CHARS, ci_text, md_text, pct_text
from agents.specs.guarded import calling
from agents.vintage.registry import VINTAGE

PROTOCOL_1: dict[str, Any] = {
    "game": "vintage",
    "players": 4,
    "opponents": [
        "vintage-random",
        "vintage-greedy",
        "vintage-tactician",
        "vintage-search",
        "vintage-expert",
    ],
    "mixed_tables": [
        ["vintage-random", "vintage-greedy", "vintage-tactician"],
        ["vintage-tactician", "vintage-search", "vintage-expert"],
    ],
    "games": 200,
    "seed": 1,
    "options": {},
    "rating": {"bootstrap": 300, "scale": "Elo (400 points = 10:1 odds), anchors fixed"},
}
"""Vintage Speed, protocol 1: the agent against three copies of each reference bot at four
seats, seats rotated over shared deals, and at two mixed tables."""


def table_lineups(spec: str, proto: dict[str, Any]) -> list[tuple[list[str], str | None]]:
    """The line-ups of a vintage card, the agent first, each with the reason it is skipped.

    The reason is None but for a mirror table.
    """
    tables: list[tuple[list[str], str | None]] = []
    for bot in proto["opponents"]:
        mirror = "a mirror table (the agent is this bot)" if bot == spec else None
        tables.append(([spec] + [bot] * (proto["players"] - 1), mirror))
    for mix in proto["mixed_tables"]:
        mirror = "a mirror table (the agent is one of its bots)" if spec in mix else None
        tables.append(([spec, *mix], mirror))
    return tables


def fill(plan: Plan, act_timeout: float | None = None) -> Plan:
    """A vintage card's ``plan``, from :func:`make_plan`, filled with the card's games.

    Refuses another game's agent. ``act_timeout``: as
    :func:`agents.evaluate.plan.plan_realtime`'s.
    """
    from agents.evaluate import agent_files
    from agents.tournament import vintage

    spec, games, seed = plan.spec, plan.games, plan.seed
    proto = protocol.protocol("vintage", plan.version)
    VINTAGE.parse_spec(spec)
    plan.files.update(agent_files.source_files(spec))
    with calling(spec, "building it", passthrough=(ValueError,)):
        _, files = agent_files.files_read(lambda: VINTAGE.make(spec, None, 0))
    plan.files.update(files)
    for t, (lineup, reason) in enumerate(table_lineups(spec, proto)):
        group = f"table/{t}"
        if reason:
            plan.skipped[group] = reason
            continue
        others = tuple(dict.fromkeys(lineup[1:]))  # each bot once, in line-up order
        settings = vintage.VintageSettings(
            agents=(spec, *others),
            players=proto["players"],
            games=games,
            seed=seed,
            # Else two agents would fill four seats every way (a a b b ...), not one line-up.
            gauntlet=spec if len(others) == 1 else None,
            options=tuple(sorted(proto["options"].items())),
            act_timeout=act_timeout,
        )
        plan.groups[group] = {"kind": "table", "lineup": lineup, "settings": settings}
        for chunk in vintage.plan(settings):
            plan.jobs.append(Job(group, settings, chunk, _chunk_kind()))
    return plan


def _check(settings: Any, result: Any) -> str | None:
    """What is impossible in a logged chunk of a card's table (its line-up's seats)."""
    from agents.tournament.vintage_stats import check_chunk

    return check_chunk(result, settings.lineups()[result.chunk.lineup], settings.players)


def _chunk_kind() -> ChunkKind:
    """How a table's chunk is played, named, read back and checked: the tournament's own."""
    from agents.tournament import vintage

    return ChunkKind(vintage.run_chunk, vintage.describe_chunk, vintage.ChunkResult, _check)


def summarise(plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
    """The vintage card's results: per table, and the agent's comparisons with each bot.

    The comparisons are seat by seat, all tables together. The rating is :func:`rate`'s.
    """
    from agents.stats import clustered_mean, wilson_interval
    from agents.tournament.vintage_stats import comparisons, game_table

    proto = protocol.protocol("vintage", plan.version)
    tables: list[dict[str, Any]] = []
    per_bot: dict[str, list[float]] = {}  # bot -> [wins, draws, comparisons]
    for t, (lineup, _) in enumerate(table_lineups(plan.spec, proto)):
        group = f"table/{t}"
        if group in plan.skipped:
            tables.append({"lineup": lineup, "skipped": plan.skipped[group]})
            continue
        settings = plan.groups[group]["settings"]
        table = game_table(by_group[group], settings.deals)
        comp = comparisons(table)
        # The agent is index 0; where it is the b side, its score is 1 - a's.
        mine_a, mine_b = comp.a == 0, comp.b == 0
        scores = np.concatenate([comp.score_a[mine_a], 1.0 - comp.score_a[mine_b]])
        clusters = np.concatenate([comp.cluster[mine_a], comp.cluster[mine_b]])
        ahead, lo, hi = clustered_mean(scores, clusters)
        others = np.concatenate([comp.b[mine_a], comp.a[mine_b]])
        for k, name in enumerate(settings.agents):
            if k == 0:
                continue  # the agent itself
            s = scores[others == k]
            acc = per_bot.setdefault(name, [0.0, 0.0, 0.0])
            acc[0] += float((s == 1).sum())
            acc[1] += float((s == 0.5).sum())
            acc[2] += float(s.size)
        seats = table.seating == 0
        finished = ~table.truncated
        seat_idx = np.arange(table.seating.shape[1])
        g_idx, s_idx = np.nonzero(seats & finished[:, None])
        pen, plo, phi = clustered_mean(table.penalty[g_idx, s_idx], table.cluster[g_idx])
        n = int(seats.sum())
        wins = int((seats & (table.winner[:, None] == seat_idx[None, :])).sum())
        wlo, whi = wilson_interval(wins, n)
        tables.append(
            {
                "lineup": lineup,
                "games": len(table.winner),
                "truncations": int(table.truncated.sum()),
                "finished_ahead_rate": ahead,
                # Clustered intervals are normal-approximation: clipped to a share's range.
                "finished_ahead_ci": [max(0.0, lo), min(1.0, hi)],
                "mean_penalty": pen,
                "mean_penalty_ci": [plo, phi],
                "wins": wins,
                "win_rate": wins / n if n else 0.0,
                "win_rate_ci": [wlo, whi],
            }
        )
    counts = {
        bot: {"wins": int(w), "draws": int(d), "games": int(g)}
        for bot, (w, d, g) in per_bot.items()
    }
    return {"tables": tables, "comparisons": counts}  # the rating: rate()


def check(c: Check, results: dict[str, Any], proto: dict[str, Any], agent: str, games: int) -> None:
    from agents.stats import wilson_interval

    tables = c.items(results.get("tables"), "results.tables")
    expected = table_lineups(agent, proto)
    if len(tables) != len(expected):
        c.fail("results.tables", f"must hold the protocol's {len(expected)} tables")
    seats: dict[str, int] = {}
    for i, (t, (lineup, _)) in enumerate(zip(tables, expected, strict=True)):
        where = f"results.tables[{i}]"
        t = c.obj(t, where)
        if t.get("lineup") != lineup:
            c.fail(f"{where}.lineup", f"must be the protocol's {lineup}")
        if "skipped" in t:
            c.text(t, "skipped", f"{where}.skipped")
            continue
        n = c.whole(t, "games", f"{where}.games", low=1)
        if n != games:
            c.fail(f"{where}.games", f"is {n}, but the card played {games} games a table")
        wins = c.whole(t, "wins", f"{where}.wins")
        if wins > n or c.whole(t, "truncations", f"{where}.truncations") > n:
            c.fail(where, f"wins and truncations cannot pass its {n} games")
        c.close(t, "win_rate", where, wins / n)
        c.close(t, "win_rate_ci", where, wilson_interval(wins, n))
        ahead = c.number(t, "finished_ahead_rate", f"{where}.finished_ahead_rate", 0.0, 1.0)
        check_interval(c, t, "finished_ahead_ci", where, ahead, 0.0, 1.0)
        penalty = c.number(t, "mean_penalty", f"{where}.mean_penalty", 0.0)
        check_interval(c, t, "mean_penalty_ci", where, penalty, -math.inf, math.inf)
        for bot in lineup[1:]:
            seats[bot] = seats.get(bot, 0) + n
    for bot, comp in c.obj(results.get("comparisons"), "results.comparisons").items():
        where = f"results.comparisons.{bot}"
        comp = c.obj(comp, where)
        wins, draws, n = (c.whole(comp, k, f"{where}.{k}") for k in ("wins", "draws", "games"))
        if wins + draws > n or n > seats.get(bot, 0):
            c.fail(
                where,
                f"wins {wins} + draws {draws} in {n} comparisons is impossible here "
                f"(at most {seats.get(bot, 0)} seats beside {bot})",
            )


def _table_name(lineup: Sequence[str]) -> str:
    """The agent's table-mates: ``3 × vintage-greedy``, or the mixed table's bots."""
    others = lineup[1:]
    if len(set(others)) == 1:
        return f"{len(others)} × {others[0]}"
    return " + ".join(others)


def tables_section(card: dict[str, Any]) -> list[str]:
    """The card's tables: finished-ahead rate, mean penalty and win rate at each."""
    res = card["results"]
    lines = section("Tables (four seats, seats rotated over shared deals)")
    if res.get("rating") is not None:
        lines += [
            f"Anchored rating: **{res['rating']:.0f}**{ci_text(res['rating_ci'], False)} "
            f"(Elo scale, against {', '.join(res['against'])}).",
            "",
        ]
    lines += [
        "Finished ahead: share of seat-by-seat comparisons where the agent held fewer penalty "
        "points (a tie half); intervals 95%, clustered by deal (finished ahead, penalty) or "
        "Wilson (win rate).",
        "",
        "| table | games | finished ahead | mean penalty | win rate | truncated |",
        "|---|---:|---|---|---|---:|",
    ]
    for t in res["tables"]:
        name = _table_name(t["lineup"])
        if "skipped" in t:
            skipped = md_text(t["skipped"], SKIP_REASON_CHARS)  # escaped, cut at a word
            lines.append(f"| {name} | – | skipped: {skipped} | | | |")
            continue
        lines.append(
            f"| {name} | {t['games']} | {pct_text(t['finished_ahead_rate'])}"
            f"{ci_text(t['finished_ahead_ci'])} | {t['mean_penalty']:.1f}"
            f"{ci_text(t['mean_penalty_ci'], False, 1)} | {pct_text(t['win_rate'])}"
            f"{ci_text(t['win_rate_ci'])}"
            f" | {t['truncations']} |"
        )
    return lines


def anchor_pool(version: int, workers: int, progress: Any = None) -> dict[str, Any]:
    """The vintage bots' round robin at the protocol's table size: pairwise comparison counts."""
    from agents.tournament import vintage
    from agents.tournament.vintage_stats import game_table, pairwise

    proto = protocol.protocol("vintage", version)
    settings = vintage.VintageSettings(
        agents=tuple(proto["opponents"]),
        players=proto["players"],
        games=proto["games"],
        seed=proto["seed"],
        options=tuple(sorted(proto["options"].items())),
    )
    results, complete = vintage.run(settings, workers=workers, progress=progress)
    if not complete:
        raise KeyboardInterrupt
    wins, draws, games = pairwise(game_table(results, settings.deals), len(settings.agents))
    return {
        "agents": list(settings.agents),
        "games_per_lineup": settings.deals * settings.players,  # each deal at every rotation
        "seed": settings.seed,
        **pairwise_counts(wins, draws, games),
    }


def rate(out: dict[str, Any], anchors: dict[str, Any]) -> None:
    """The card's one rating, at the four-seat tables (``4p``), and α-Rank, put into ``out``."""
    from agents.evaluate.alpharank import card_alpharank
    from agents.evaluate.make_card import RATING_FIELDS, rating_fields

    version, game = out["protocol"], out["game"]
    proto = protocol.protocol(game, version)
    samples, seed = proto["rating"]["bootstrap"], out["manifest"]["seeds"]["deals"]
    res = out["results"]
    rows = [(b, c["wins"], c["draws"], c["games"]) for b, c in res["comparisons"].items()]
    for k in RATING_FIELDS:  # an old rating's fields out first: a "note" must not outlive a rating
        res.pop(k, None)
    res.update(rating_fields(anchors, version, game, "4p", rows, samples, seed))
    res["alpharank"] = card_alpharank(out, anchors)


def alpharank(card: dict[str, Any], pools: dict[str, Any]) -> dict[str, Any]:
    """α-Rank at the four-seat tables, ``4p``, from the seat-by-seat comparisons."""
    from agents.evaluate.alpharank import entry

    comps = card["results"].get("comparisons", {})
    # No losses column here: losses = games - wins - draws, so this is (wins - losses) / games.
    rewards = {
        b: (2 * c["wins"] + c["draws"] - c["games"]) / c["games"]
        for b, c in comps.items()
        if c.get("games")
    }
    games = {b: c["games"] for b, c in comps.items() if c.get("games")}
    return {"4p": entry(pools.get("4p"), card["agent"], rewards, games)}


@dataclass(frozen=True)
class VintageCard:
    """Vintage Speed's :class:`~agents.evaluate.protocol.CardGame`."""

    name: str = "vintage"
    title: str = "Vintage Speed"
    about: str = "four seats"
    unit: str = "table"
    protocols: dict[int, dict[str, Any]] = field(default_factory=lambda: {1: PROTOCOL_1})
    # The ids spell it VintageSpeed-v0 and vintage_speed_v0.
    env_mark: str | None = "intage"
    figure_label: str = "finished-ahead rate, 95%"
    board_column: str = "finished ahead (mean of tables)"

    def fill(self, plan: Plan, act_timeout: float | None) -> Plan:
        """The agent's tables."""
        return fill(plan, act_timeout)

    def summarise(self, plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
        """Results per table, and the comparisons with each bot."""
        return summarise(plan, by_group)

    def rate(self, card: dict[str, Any], anchors: dict[str, Any]) -> None:
        """One rating, ``4p``, and α-Rank."""
        rate(card, anchors)

    def alpharank(self, card: dict[str, Any], pools: dict[str, Any]) -> dict[str, Any]:
        """α-Rank, ``4p``."""
        return alpharank(card, pools)

    def check(
        self, c: Check, results: dict[str, Any], proto: dict[str, Any], agent: str, games: int
    ) -> None:
        """The tables and the comparisons, field by field."""
        check(c, results, proto, agent, games)

    def sections(self) -> list[Callable[[dict[str, Any]], list[str]]]:
        """The vintage page."""
        return [header_section, tables_section, alpharank_section, timing_section]

    def figure_rows(self, card: dict[str, Any]) -> list[tuple[str, float, float, float]]:
        """The finished-ahead rate at each table."""
        return [
            (_table_name(t["lineup"]), t["finished_ahead_rate"], *t["finished_ahead_ci"])
            for t in card["results"]["tables"]
            if "games" in t
        ]

    def board_row(self, results: dict[str, Any]) -> dict[str, Any]:
        """The ``4p`` rating, and the finished-ahead rate, the mean of the tables played."""
        tables = [t for t in results["tables"] if "games" in t]
        return {
            "ratings": {"4p": (results.get("rating"), results.get("rating_ci"))},
            "finished_ahead": (
                sum(t["finished_ahead_rate"] for t in tables) / len(tables) if tables else None
            ),
        }

    def board_cell(self, row: dict[str, Any]) -> str:
        """The finished-ahead rate."""
        return pct_text(row["finished_ahead"])

    def anchor_keys(self, proto: dict[str, Any], only: list[str] | None) -> list[str]:
        """The one section, ``4p``."""
        return ["4p"]

    def anchor_pool(self, key: str, version: int, workers: int, progress: Any) -> dict[str, Any]:
        """The vintage bots' round robin at the protocol's table size."""
        return anchor_pool(version, workers, progress)


CARD = VintageCard()
"""Vintage Speed's report card, registered by :mod:`agents.games.vintage`."""
