"""Real-time tournaments at tables of three or four (Party Speed): seat rotation, shared deals.

    speed tournament --players 4 --agents random,greedy,chain,chain:deny=0 --games 400

The table is the N-player harness's of :mod:`agents.tournament.vintage`, played on the engine's
n-seat games (:class:`speed_env.seats.SeatGames`):

- **Line-ups.** A table seats ``players`` agents: every combination of distinct agents, or,
  with fewer agents than seats, every filling in which each sits at least once; a gauntlet
  seats its agent with ``players - 1`` copies of each other
  (:func:`agents.tournament.vintage_stats.seat_lineups`). Copies are separate instances.
- **Seat rotation over shared deals.** Each line-up plays ``games // players`` deals, each
  once per rotation: in rotation ``r`` the agent at position ``p`` sits in seat
  ``(p + r) % players``. Deal ``d`` is seeded ``(seed << 32) + d`` for every rotation and
  line-up, so the cards' luck cancels out of every comparison.
- **Win shares.** Per agent, the games it won per seat it filled; the fair share is
  ``1 / players``. The 95% interval is cluster-robust, a (line-up, deal) one cluster (its
  rotations share the cards).
- **Ratings.** Bradley–Terry from the pairwise results within each game, winner against
  others: the winner finished ahead of every other seat, the others tie among themselves (a
  drawn or truncated game is a tie for all). Intervals clustered as the win shares'
  (:func:`agents.tournament.vintage_stats.rated_matches`).

Each chunk (a line-up, a range of deals) is a pure function of the settings and its index,
so the results are the same for any number of workers, on every backend, and a resume
keeps every finished chunk (:mod:`agents.tournament.harness`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Unpack

import numpy as np

from agents.specs.guarded import calling, checked_act, positive_seconds, seed_globals
from agents.stats import clustered_mean
from agents.think.plan import ThinkPlan, seat_profile
from agents.tournament import harness
from agents.tournament.chunk_checks import ints
from agents.tournament.harness import Chunk
from agents.tournament.summary import document
from agents.tournament.vintage_stats import (
    GameTable,
    SeatRotation,
    comparisons,
    rated_matches,
    rotation_problem,
)
from speed_env import engine
from speed_env.party_obs import observe_seats
from speed_env.reaction import ReactionProfile, make_profile
from speed_env.rules import Rules
from speed_env.seats import SeatGames

CHUNK_DEALS = 25
"""Deals per chunk of work (times ``players`` rotations: 100 games at 4 players)."""


@dataclass(frozen=True)
class PartySettings(SeatRotation):
    """What a tournament at tables of three or four plays; everything its results depend on."""

    agents: tuple[str, ...]
    """Agent specs (``random``, ``greedy``, ``chain@pro`` …), as given."""
    rules: Rules
    """The rules; ``rules.players`` (3 or 4) seats each table."""
    games: int = 400
    """Games per line-up: ``games // players`` deals, each played once per seat rotation."""
    reaction: ReactionProfile = field(default_factory=lambda: make_profile("human"))
    """Profile of every agent whose spec carries no ``@reaction``."""
    tick_ms: int = 50
    seed: int = 0
    """Seed of the deals (and of the policies' generators)."""
    gauntlet: str | None = None
    """Only this agent against ``players - 1`` copies of each other agent."""
    act_timeout: float | None = None
    """Seconds an agent may take over one ``act`` call; ``None``: no limit (never changes
    the numbers, so not in :meth:`to_dict`)."""
    think: ThinkPlan | None = None
    """How each agent's thinking is charged (``--think`` declared or calibrated,
    :mod:`agents.think`); ``None``: off, what each agent declares itself."""

    def __post_init__(self) -> None:
        positive_seconds(self.act_timeout)
        if self.rules.players < 3:
            raise ValueError(f"a party tournament seats 3 or 4, got players={self.rules.players}")
        if self.think is not None and self.think.mode == "measured":
            # its games are played side by side, one act call a tick for all: none is timed alone
            raise ValueError(
                f"--think measured times each decision of a two-seat table only; at "
                f"--players {self.players} use --think declared or calibrated"
            )

    @property
    def players(self) -> int:
        """Seats at each table."""
        return self.rules.players

    @property
    def deals(self) -> int:
        """Deals per line-up: whole deals, each played once per rotation."""
        return max(1, self.games // self.players)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "agents": list(self.agents),
            "players": self.players,
            "games_per_lineup": self.deals * self.players,
            "deals_per_lineup": self.deals,
            "lineups": [[self.agents[i] for i in lu] for lu in self.lineups()],
            "rules": self.rules.to_dict(),
            "reaction": self.reaction.label(),
            "tick_ms": self.tick_ms,
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "fair_share": 1.0 / self.players,
            "seat_rotation": True,
            "shared_deals": True,
        } | ({} if self.think is None else {"think": self.think.to_dict()})


@dataclass
class PartyChunkResult:
    """Per game of one chunk, in deal order then rotation: who sat where and how it ended."""

    chunk: Chunk
    deal: list[int] = field(default_factory=list)
    """Deal index of each game."""
    rotation: list[int] = field(default_factory=list)
    """Rotation ``r``: the agent at line-up position ``p`` sat in seat ``(p + r) % players``."""
    seating: list[list[int]] = field(default_factory=list)
    """Agent index in each seat, per game."""
    winner: list[int] = field(default_factory=list)
    """Seat that won, -1 for a draw, -2 for a truncated game."""
    cards_left: list[list[int]] = field(default_factory=list)
    """Cards each seat still held at the end (hand, draw pile, in flight), per game."""
    played: list[list[int]] = field(default_factory=list)
    """Cards each seat put on a centre pile, per game."""
    illegal: list[list[int]] = field(default_factory=list)
    """Illegal actions each seat chose (each played as a wait), per game."""
    game_ms: list[int] = field(default_factory=list)
    """Length of each game in ms."""


def plan(settings: PartySettings) -> list[Chunk]:
    """The chunks, line-up by line-up, in the order their results are combined."""
    return harness.plan(len(settings.lineups()), settings.deals, CHUNK_DEALS)


def policy_seed(settings: PartySettings, chunk: Chunk, position: int) -> int:
    """Seed of the policy at ``position`` of the chunk's line-up (the worker never matters)."""
    return (settings.seed * 1_000_003 + chunk.index * 101 + position) & 0x7FFFFFFF


def run_chunk(settings: PartySettings, chunk: Chunk, record: int = 0) -> PartyChunkResult:
    """Play one chunk: each of its deals once per seat rotation, all games side by side.

    Each position of the line-up is its own policy, acting once a tick on every running game
    at once. ``record`` must be 0 (no replays at three or four seats yet).
    """
    if record:
        raise ValueError("a tournament of three or four players keeps no replays (record 0)")
    from agents.specs.realtime import REALTIME

    n = settings.players
    lineup = settings.lineups()[chunk.lineup]
    specs = [settings.agents[a] for a in lineup]
    last = chunk.start + chunk.count - 1
    table = " / ".join(specs)
    where = [f"table {table}, position {p}, deals {chunk.start}-{last}" for p in range(n)]
    seed_globals(policy_seed(settings, chunk, 0))
    bots, reactions = [], []
    for p, spec in enumerate(specs):
        with calling(spec, "building it", where[p]):
            bots.append(REALTIME.make(spec, settings.rules, policy_seed(settings, chunk, p)))
            reactions.append(seat_profile(bots[p], spec, settings.reaction, settings.think))
    count = chunk.count * n  # game g: deal start + g // n, rotation g % n
    deal = chunk.start + np.arange(count) // n
    rotation = np.arange(count) % n
    games = SeatGames(count, settings.rules, tick_ms=settings.tick_ms)
    games.reset([settings.deal_seed(int(d)) for d in deal])
    for p in range(n):
        games.lat[np.arange(count), (p + rotation) % n] = reactions[p].params()
    illegal = np.zeros((n, count), np.int64)
    while not games.over.all():
        rows = np.flatnonzero(~games.over)
        masks = games.masks()
        observed = observe_seats(games.state, settings.rules)  # every seat of every game
        actions = np.zeros((n, count), np.int64)
        for p in range(n):  # a fixed order: each bot's generator sees the same calls every run
            seats = (p + rotation[rows]) % n
            mask = masks[seats, rows]
            acts = checked_act(
                bots[p],
                observed[seats, rows],
                mask,
                spec=specs[p],
                where=where[p],
                rows=partial(_game_name, deal, rotation, rows),
                timeout=settings.act_timeout,
            )
            illegal[seats, rows] += mask[np.arange(len(rows)), acts] == 0
            actions[seats, rows] = acts
        games.step(actions)
    return _result(settings, chunk, lineup, games, deal, rotation, illegal)


def _game_name(deal: np.ndarray, rotation: np.ndarray, rows: np.ndarray, row: int) -> str:
    """Row ``row`` of a decision batch in words: its deal and rotation."""
    return f"deal {deal[rows[row]]}, rotation {rotation[rows[row]]}"


def _result(
    settings: PartySettings,
    chunk: Chunk,
    lineup: tuple[int, ...],
    games: SeatGames,
    deal: np.ndarray,
    rotation: np.ndarray,
    illegal: np.ndarray,
) -> PartyChunkResult:
    """The chunk's finished games as a :class:`PartyChunkResult`."""
    n = settings.players
    out = PartyChunkResult(chunk)
    for b in range(games.n):
        g, r = games.state[b], int(rotation[b])
        out.deal.append(int(deal[b]))
        out.rotation.append(r)
        out.seating.append([lineup[(s - r) % n] for s in range(n)])
        w = int(g["winner"])
        out.winner.append(-2 if g["truncated"] else (-1 if w == n else w))
        out.cards_left.append([int(engine.cards_left(g, games.cfg, s)) for s in range(n)])
        out.played.append([int(x) for x in g["played"][:n]])
        out.illegal.append([int(x) for x in illegal[:, b]])
        out.game_ms.append(int(g["clock"]))
    return out


def check_chunk(result: Any, lineup: tuple[int, ...], players: int) -> str | None:
    """The first impossible field of a logged chunk result, or ``None`` (a resume trusts only
    these). The chunk seats ``lineup`` at tables of ``players``."""
    games = result.chunk.count * players
    problem = rotation_problem(result, players, "game_ms", result.game_ms, range(0, 1 << 62))
    if problem:
        return problem
    for name in ("seating", "cards_left", "played", "illegal"):
        rows = getattr(result, name)
        if not isinstance(rows, list) or len(rows) != games:
            return f"{name} holds {len(rows) if isinstance(rows, list) else 0} games, not {games}"
    for g in range(games):
        r = result.rotation[g]
        seats = [lineup[(s - r) % players] for s in range(players)]
        if result.seating[g] != seats:
            return f"seating[{g}] is {result.seating[g]!r}, but rotation {r} seats {seats}"
        for name in ("cards_left", "played", "illegal"):
            problem = ints(f"{name}[{g}]", getattr(result, name)[g], players, range(0, 1 << 31))
            if problem:
                return problem
        w = result.winner[g]
        if w >= 0 and result.cards_left[g][w] != 0:
            return f"winner[{g}] is seat {w}, which still held {result.cards_left[g][w]} cards"
    return None


def run(
    settings: PartySettings, **options: Unpack[harness.RunOptions]
) -> tuple[list[PartyChunkResult], bool]:
    """Play every chunk (``options``: :func:`agents.tournament.harness.run`'s); the finished
    chunks in plan order and whether all finished."""
    return harness.run(run_chunk, settings, plan(settings), describe_chunk, seated, **options)


def seated(settings: PartySettings, chunk: Chunk) -> set[str]:
    """The agent specs a chunk's line-up seats (an agent failing ends only what it plays in)."""
    return {settings.agents[a] for a in settings.lineups()[chunk.lineup]}


def describe_lineup(settings: PartySettings, chunk: Chunk) -> str:
    """The line-up a chunk seats, in words (``table a / b / c``)."""
    return "table " + " / ".join(settings.agents[a] for a in settings.lineups()[chunk.lineup])


def describe_chunk(settings: PartySettings, chunk: Chunk) -> str:
    """A chunk in words, for a line naming the work a failure stopped."""
    last = chunk.start + chunk.count - 1
    return f"chunk {chunk.index} ({describe_lineup(settings, chunk)}, deals {chunk.start}-{last})"


# ---------------------------------------------------------------------- statistics
def game_table(settings: PartySettings, results: Iterable[PartyChunkResult]) -> GameTable:
    """Every game as a :class:`~agents.tournament.vintage_stats.GameTable` of winner against
    others: "penalty" 0 for the winner, 1 for every other seat (so the winner finishes ahead
    of each, the others tie)."""
    seating, pen, win, cluster, lineup = [], [], [], [], []
    for res in results:
        for i, w in enumerate(res.winner):
            seating.append(res.seating[i])
            pen.append([0.0 if s == w else 1.0 for s in range(settings.players)])
            win.append(w)
            lineup.append(res.chunk.lineup)
            cluster.append(res.chunk.lineup * settings.deals + res.deal[i])
    n = settings.players
    return GameTable(
        seating=np.asarray(seating, np.int64).reshape(len(win), n),
        penalty=np.asarray(pen, np.float64).reshape(len(win), n),
        winner=np.asarray(win, np.int64),
        cluster=np.asarray(cluster, np.int64),
        lineup=np.asarray(lineup, np.int64),
    )


def agent_rows(
    table: GameTable, n_agents: int, lineups: np.ndarray | None = None
) -> list[dict[str, Any]]:
    """Per agent: seat-games, wins, and the win share with its clustered 95% interval."""
    sel = np.ones(len(table.winner), bool) if lineups is None else np.isin(table.lineup, lineups)
    won = table.winner[:, None] == np.arange(table.seating.shape[1])[None, :]
    rows = []
    for a in range(n_agents):
        g_idx, s_idx = np.nonzero((table.seating == a) & sel[:, None])
        share, lo, hi = clustered_mean(won[g_idx, s_idx].astype(np.float64), table.cluster[g_idx])
        rows.append(
            {
                "games": len(g_idx),
                "wins": int(won[g_idx, s_idx].sum()),
                "win_share": share,
                "win_share_ci": [max(0.0, lo), min(1.0, hi)],
            }
        )
    return rows


def summarise(
    settings: PartySettings, results: Iterable[PartyChunkResult], bootstrap: int = 300
) -> dict[str, Any]:
    """The ``results.json`` document (:func:`agents.tournament.summary.document`): settings,
    agents with ratings and win shares, the pairwise results, the line-ups."""
    results = list(results)
    k = len(settings.agents)
    table = game_table(settings, results)
    ratings, matches = rated_matches(comparisons(table), settings.agents, settings.seed, bootstrap)
    lineups_out = []
    for li, lineup in enumerate(settings.lineups()):
        rows = agent_rows(table, k, np.array([li]))
        lineups_out.append(
            {
                "agents": [settings.agents[a] for a in lineup],
                "games": int((table.lineup == li).sum()),
                "results": [
                    {"name": settings.agents[a], "seats": lineup.count(a), **rows[a]}
                    for a in sorted(set(lineup))
                ],
            }
        )
    out = settings.to_dict()
    game_ms = [ms for r in results for ms in r.game_ms]
    out.update(
        games_played=len(table.winner),
        truncated=int(table.truncated.sum()),
        drawn=int((table.winner == -1).sum()),
        illegal=int(sum(sum(row) for r in results for row in r.illegal)),
        mean_game_s=round(float(np.mean(game_ms)) / 1000.0, 3) if game_ms else 0.0,
    )
    fields = zip(settings.agents, agent_rows(table, k), strict=True)
    return document(
        "realtime", out, ratings, fields, matches, players=settings.players, lineups=lineups_out
    )


ChunkResult = PartyChunkResult
"""The chunk result under the name every chunk module gives it
(:class:`agents.games.tournament_side.ChunkModuleTournament` reads it)."""
