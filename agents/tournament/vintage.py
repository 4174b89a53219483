"""N-player tournaments of Vintage Speed: line-ups, seat rotation, shared deals, statistics.

    speed tournament --game vintage --agents vintage-random,vintage-greedy,vintage-tactician \\
        --players 4 --games 2000 --seed 0 --workers 2 --out results/vintage

**Line-ups.** A table seats ``players`` agents. With at least as many agents
as seats, every combination of distinct agents is a line-up; with fewer,
every way of filling the seats in which each agent sits at least once (3
agents at 4 seats: ``a a b c``, ``a b b c``, ``a b c c``). ``gauntlet=X``
plays instead X against ``players - 1`` copies of each other agent (how a
learned agent is measured against a field of heuristics). Copies of an agent
are separate instances, each with its own generator.

**Seat rotation and shared deals.** Each line-up plays ``games // players``
deals, and each deal ``players`` times: in rotation ``r`` the agent at
position ``p`` of the line-up sits in seat ``(p + r) % players``, so every
agent sits in every seat (the cyclic order, who plays after whom, stays the
line-up's). Deal ``d`` is the game reset with seed ``(seed << 32) + d``
(cut, deal and pack rebuilds), the same deal for every rotation and every
line-up, so the luck of the cards cancels out of every comparison.

**Statistics** (pure functions over the per-game table, in :mod:`agents.tournament.vintage_stats`):

- *Mean penalty* per agent: the penalty points it was left holding, per
  seat it filled in a finished game (truncated games are left out). Its 95%
  interval is cluster-robust, the games of one deal of one line-up forming a
  cluster (its rotations share the cards, so they are not independent).
- *Pairwise results*: for each pair ``a``, ``b`` of different agents at one
  table, each game compares every seat of ``a`` with every seat of ``b``: ``a``
  finished ahead when it was left holding fewer penalty points (the player
  who went out holds none); equal points, or a truncated game, are a tie and
  count half.
- *Ratings*: Bradley–Terry on those pairwise results (:mod:`agents.stats`,
  as the real-time tournament).
- *Intervals* of pairwise win rates and ratings are clustered like the mean
  penalty's: the win rate's is the cluster-robust interval of the mean
  comparison score, the ratings' a bootstrap that redraws whole (line-up,
  deal) clusters. The rotations of one deal share its cards, so their
  results move together; treating them as independent (Wilson, a
  per-game bootstrap) would make the intervals too narrow.

**Determinism.** The work is cut into chunks (a line-up and a range of
deals) and run by :mod:`agents.tournament.harness`, shared with the
real-time tournament; each chunk is a pure function of the settings and its
index (the policies' seeds included), so results are identical for any
number of worker processes, and an interrupted run keeps every finished
chunk.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Unpack

import numpy as np

from agents.runtime import plotting
from agents.specs.guarded import calling, checked_act, positive_seconds, seed_globals
from agents.tournament import harness, report
from agents.tournament.harness import Chunk
from agents.tournament.summary import document
from agents.tournament.vintage_stats import (
    ChunkResult,
    SeatRotation,
    agent_rows,
    comparisons,
    game_table,
    rated_matches,
)
from speed_env.vintage import VintageRules, make_vintage_rules, raw_env
from speed_env.vintage.engine import TRUNCATED, penalties

CHUNK_DEALS = 50
"""Deals per chunk of work (times ``players`` rotations: 200 games at 4 players)."""

PAIR_WORDS = report.PairWords(
    "| a | b | comparisons | a ahead | b ahead | ties | a's win rate | 95% CI |",
    "row finished ahead of column (fewer penalty points; ties half)",
)
"""How a vintage tournament's pairwise results read: seat against seat, ties half."""


class VintageTournamentError(ValueError):
    """Settings a vintage tournament cannot play: the message says what would be right."""


@dataclass(frozen=True)
class VintageSettings(SeatRotation):
    """What a vintage tournament plays; everything its results depend on."""

    agents: tuple[str, ...]
    """Agent specs (``vintage-greedy``, ``vintage-ppo:model.json`` …), as given."""
    players: int = 4
    """Seats at each table (2–10)."""
    games: int = 2000
    """Games per line-up: ``games // players`` deals, each played once per seat rotation."""
    seed: int = 0
    """Seed of the deals (and of the policies' generators)."""
    gauntlet: str | None = None
    """Only this agent against ``players - 1`` copies of each other agent (else every line-up)."""
    options: tuple[tuple[str, Any], ...] = ()
    """Vintage rule options (``("may_draw_when_able", True)``, …), as sorted pairs."""
    act_timeout: float | None = None
    """Seconds an agent may take over one ``act`` call before it fails; ``None``: no limit.

    See :mod:`agents.specs.guarded`. Not in :meth:`to_dict`: it stops a run, never changes its
    numbers.
    """

    def __post_init__(self) -> None:
        positive_seconds(self.act_timeout)
        check_settings(self)

    @property
    def deals(self) -> int:
        """Deals per line-up."""
        return max(1, self.games // self.players)  # whole deals: every rotation of each

    @property
    def rules(self) -> VintageRules:
        """The rules of every game (a match of one game)."""
        return make_vintage_rules(self.players, 1, **dict(self.options))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "game": "vintage",
            "agents": list(self.agents),
            "players": self.players,
            "games_per_lineup": self.deals * self.players,
            "deals_per_lineup": self.deals,
            "lineups": [[self.agents[i] for i in lu] for lu in self.lineups()],
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "options": {k: _jsonable(v) for k, v in self.options},
            "seat_rotation": True,
            "shared_deals": True,
        }


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, bool | int | float | str) or value is None else str(value)


def check_settings(s: VintageSettings) -> None:
    """Refuse settings that cannot be played, naming what is wrong."""
    from agents.specs.realtime import REALTIME
    from agents.vintage.registry import VINTAGE

    if len(s.agents) < 2:
        raise VintageTournamentError(
            f"a tournament needs at least two agents, got {list(s.agents)}"
        )
    if len(set(s.agents)) != len(s.agents):
        raise VintageTournamentError(f"an agent is listed twice: {list(s.agents)}")
    for spec in s.agents:
        if REALTIME.knows(spec):
            raise VintageTournamentError(
                f"{spec!r} plays real-time Speed, not Vintage Speed; vintage agents are "
                + ", ".join(VINTAGE.available())
            )
        VINTAGE.parse_spec(spec)
    if isinstance(s.players, bool) or not isinstance(s.players, int) or not 2 <= s.players <= 10:
        raise VintageTournamentError(f"players must be 2–10, got {s.players!r}")
    if s.gauntlet is not None and s.gauntlet not in s.agents:
        raise VintageTournamentError(f"gauntlet {s.gauntlet!r} is not one of the agents")
    if s.games < s.players:  # else deals, at least 1, would play more games than asked
        raise VintageTournamentError(
            f"games must be at least players ({s.players}): each deal is played once per seat "
            "rotation"
        )
    make_vintage_rules(s.players, 1, **dict(s.options))  # a bad option fails here, naming it


# ---------------------------------------------------------------------- playing
def plan(settings: VintageSettings) -> list[Chunk]:
    """The chunks of a tournament, in the order their results are combined."""
    return harness.plan(len(settings.lineups()), settings.deals, CHUNK_DEALS)


def policy_seed(settings: VintageSettings, chunk: Chunk, position: int) -> int:
    """Seed of the policy at ``position`` of the chunk's line-up.

    A function of the settings and the chunk only, never of the worker that plays it.
    """
    # 101 > the 10 seats a table can have: two chunks' positions never share a seed.
    return (settings.seed * 1_000_003 + chunk.index * 101 + position) & 0x7FFFFFFF


def run_chunk(settings: VintageSettings, chunk: Chunk, record: int = 0) -> ChunkResult:
    """Play one chunk: each of its deals once per seat rotation, all games side by side.

    Each position of the line-up is its own policy instance; it acts on all its
    pending decisions at once (one batch per position per round). ``record``
    must be 0: vintage games keep no replays.
    """
    if record:
        raise VintageTournamentError("a vintage tournament records no replays (record must be 0)")
    from agents.vintage.registry import VINTAGE

    n = settings.players
    lineup = settings.lineups()[chunk.lineup]
    specs = [settings.agents[a] for a in lineup]
    last = chunk.start + chunk.count - 1
    table = " / ".join(specs)
    where = [f"table {table}, position {p}, deals {chunk.start}-{last}" for p in range(n)]
    # A bot drawing from the global generators plays the same for the same seed, whatever
    # ran in this process before.
    seed_globals(policy_seed(settings, chunk, 0))
    bots = []
    for p, spec in enumerate(specs):
        with calling(spec, "building it", where[p]):
            bots.append(VINTAGE.make(spec, None, policy_seed(settings, chunk, p)))
    options = dict(settings.options)
    games: list[tuple[Any, int, int]] = []  # (env, deal, rotation)
    for i in range(chunk.count):
        for r in range(n):
            env = raw_env(num_players=n, games=1, **options)
            env.reset(seed=settings.deal_seed(chunk.start + i))  # one deal for all rotations
            games.append((env, chunk.start + i, r))
    running = list(range(len(games)))
    while running:
        by_position: dict[int, list[int]] = {}
        for g in running:
            env, _, r = games[g]
            # In rotation r seat s holds position (s - r) % n: the seat to act, back to its bot.
            by_position.setdefault((env.game.current - r) % n, []).append(g)
        # A fixed order of positions: each bot's generator sees the same calls on every run.
        for pos in sorted(by_position):
            slots = by_position[pos]
            views = [games[g][0].observe(games[g][0].agent_selection) for g in slots]
            obs = np.stack([v["observation"] for v in views])
            mask = np.stack([v["action_mask"] for v in views])
            acts = checked_act(
                bots[pos],
                obs,
                mask,
                spec=specs[pos],
                where=where[pos],
                rows=partial(_game_name, games, slots),
                legal_only=True,  # an illegal vintage action is an error, not a wait
                timeout=settings.act_timeout,
            )
            for g, a in zip(slots, acts, strict=True):
                games[g][0].step(int(a))
        running = [g for g in running if not games[g][0].game.over]
    out = ChunkResult(chunk)
    for env, deal, r in games:
        game = env.game
        out.deal.append(deal)
        out.rotation.append(r)
        out.seating.append([lineup[(s - r) % n] for s in range(n)])
        out.penalty.append(penalties(game))
        if game.status == TRUNCATED:
            out.winner.append(-2)
        else:  # -1: a finished game with no single winner
            out.winner.append(game.winner if game.winner is not None else -1)
        out.turns.append(game.turns)
    return out


def _game_name(games: list[tuple[Any, int, int]], slots: list[int], row: int) -> str:
    """Row ``row`` of a decision batch in words: its game's deal, rotation and the seat to act.

    ``slots`` are the batch's indices into ``games``.
    """
    env, deal, rotation = games[slots[row]]
    return f"deal {deal}, rotation {rotation}, seat {env.game.current}"


def describe_lineup(settings: VintageSettings, chunk: Chunk) -> str:
    """The line-up a chunk seats, in words (``table a / b / b``)."""
    return "table " + " / ".join(settings.agents[a] for a in settings.lineups()[chunk.lineup])


def describe_chunk(settings: VintageSettings, chunk: Chunk) -> str:
    """A chunk in words, for a line naming the work a failure stopped."""
    table = " / ".join(settings.agents[a] for a in settings.lineups()[chunk.lineup])
    return (
        f"chunk {chunk.index} (table {table}, deals {chunk.start}-{chunk.start + chunk.count - 1})"
    )


def run(
    settings: VintageSettings, **options: Unpack[harness.RunOptions]
) -> tuple[list[ChunkResult], bool]:
    """Play every chunk; returns the finished chunks in plan order and whether all finished.

    Ctrl-C stops the run and returns what finished. ``options`` are
    :func:`agents.tournament.harness.run`'s (``workers``, ``progress``, ``backend``, and
    ``done`` and ``on_result`` for resuming and logging); no game is kept as a replay.
    """
    return harness.run(run_chunk, settings, plan(settings), describe_chunk, seated, **options)


def seated(settings: VintageSettings, chunk: Chunk) -> set[str]:
    """The agent specs a chunk's line-up seats (an agent failing ends only what it plays in)."""
    return {settings.agents[a] for a in settings.lineups()[chunk.lineup]}


def summarise(
    settings: VintageSettings, results: Iterable[ChunkResult], bootstrap: int = 300
) -> dict[str, Any]:
    """The ``results.json`` document, as :func:`agents.tournament.summary.document` lays it out.

    It holds the settings, the agents with ratings and penalties, the matches and the line-ups.
    """
    results = list(results)
    k = len(settings.agents)
    table = game_table(results, settings.deals)
    ratings, matches = rated_matches(comparisons(table), settings.agents, settings.seed, bootstrap)
    names = settings.agents
    lineups_out = []
    for li, lineup in enumerate(settings.lineups()):
        rows = agent_rows(table, k, np.array([li]))
        present = sorted(set(lineup))
        n_games = int((table.lineup == li).sum())
        lineups_out.append(
            {
                "agents": [settings.agents[a] for a in lineup],
                "games": n_games,
                "results": [
                    {"name": settings.agents[a], "seats": lineup.count(a), **rows[a]}
                    for a in present
                ],
            }
        )
    settings_out = settings.to_dict()
    settings_out.update(
        games_played=len(table.winner),
        truncated=int(table.truncated.sum()),
        drawn=int((table.winner == -1).sum()),
    )
    fields = zip(names, agent_rows(table, k), strict=True)
    return document("vintage", settings_out, ratings, fields, matches, lineups=lineups_out)


def penalties_png(summary: dict[str, Any]) -> bytes:
    """Mean penalty per game with 95% intervals, one row per agent (fewer is better)."""
    from agents.tournament import report

    # Most penalty first: rows are drawn bottom up, so the best agent ends at the top.
    agents = sorted(summary["agents"], key=lambda a: -a["mean_penalty"])
    return plotting.interval_rows_png(
        [(a["name"], a["mean_penalty"], *a["mean_penalty_ci"]) for a in agents],
        report.titled(summary, "mean penalty points per game (fewer is better), 95% interval"),
        color="tab:red",
    )


def agents_csv(summary: dict[str, Any]) -> str:
    """One row per agent: rating, games, wins, mean penalty, with intervals."""
    from agents.tournament import report

    columns = ("mean_penalty", "penalty_low", "penalty_high")
    return report.agents_csv(summary, "mean_penalty", columns)


def write_outputs(out: Path, summary: dict[str, Any]) -> list[Path]:
    """Every output file: the real-time tournament's set, plus two.

    The two are ``agents.csv`` and ``penalties.png``.
    """
    return report.write_outputs(
        out,
        summary,
        extra={
            "agents.csv": agents_csv(summary).encode(),
            "penalties.png": penalties_png(summary),
        },
        words=PAIR_WORDS,
    )


def leaderboard(summary: dict[str, Any]) -> str:
    """The leaderboard (Markdown, what the terminal shows) in a vintage tournament's words."""
    return report.leaderboard(summary, PAIR_WORDS)
