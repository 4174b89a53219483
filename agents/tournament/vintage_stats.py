"""The statistics of a vintage tournament: pure functions over its per-game table.

The real-time tournament at three or four seats (:mod:`agents.tournament.party`) shares them:
its line-ups, seat rotations and shared deals are the vintage harness's. Tested on synthetic
results (tests/vintage/test_vintage_tournament.py); what each number means is told in
:mod:`agents.tournament.vintage`:

- :func:`seat_lineups`: the line-ups of a table of N seats.
- :func:`rated_matches`: Bradley–Terry ratings and head-to-head rows from the comparisons.

- :class:`ChunkResult`: what one chunk of games recorded (the harness's unit).
- :class:`GameTable`: every game as arrays, one row per game.
- :func:`comparisons` / :func:`pairwise`: every seat of one agent against every
  seat of another, game by game (fewer penalty points finishes ahead).
- :func:`agents.stats.clustered_mean` (imported here): a mean with its
  cluster-robust 95% interval, the games of one (line-up, deal) forming a
  cluster.
- :func:`per_cluster`: the comparisons per cluster, for the cluster bootstrap
  of the ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from agents.stats import Ratings, clustered_mean
from agents.tournament.chunk_checks import ints
from agents.tournament.harness import Chunk
from agents.tournament.summary import head_to_head


def seat_lineups(n_agents: int, players: int, gauntlet: int | None) -> list[tuple[int, ...]]:
    """Agent indices at each position of each line-up of ``players`` seats, in a fixed order.

    With at least as many agents as seats, every combination of distinct agents; with fewer,
    every filling of the seats in which each agent sits at least once; with ``gauntlet`` (an
    agent index), that agent against ``players - 1`` copies of each other.
    """
    k, n = n_agents, players
    if gauntlet is not None:
        return [(gauntlet, *([j] * (n - 1))) for j in range(k) if j != gauntlet]
    if k >= n:
        return list(combinations(range(k), n))
    everyone = set(range(k))
    return [c for c in combinations_with_replacement(range(k), n) if set(c) == everyone]


@dataclass
class ChunkResult:
    """Per game of one chunk, in deal order then rotation: who sat where and what they held."""

    chunk: Chunk
    deal: list[int] = field(default_factory=list)
    """Deal index of each game."""
    rotation: list[int] = field(default_factory=list)
    """Rotation ``r`` of each game: the agent at line-up position ``p`` sat in seat
    ``(p + r) % players``."""
    seating: list[list[int]] = field(default_factory=list)
    """Agent index in each seat, per game."""
    penalty: list[list[int]] = field(default_factory=list)
    """Penalty points left in each seat's hand at the end, per game."""
    winner: list[int] = field(default_factory=list)
    """Seat that won, -1 for a drawn lock, -2 for a truncated game."""
    turns: list[int] = field(default_factory=list)
    """Turns each game lasted."""


@dataclass(frozen=True)
class GameTable:
    """Every game of a tournament as arrays, one row per game."""

    seating: np.ndarray
    """``(games, players)`` agent index in each seat."""
    penalty: np.ndarray
    """``(games, players)`` penalty points held at the end."""
    winner: np.ndarray
    """``(games,)`` winning seat, -1 drawn lock, -2 truncated."""
    cluster: np.ndarray
    """``(games,)`` id of the (line-up, deal) the game belongs to."""
    lineup: np.ndarray
    """``(games,)`` line-up index."""

    @property
    def truncated(self) -> np.ndarray:
        """``(games,)`` True for games cut off at ``max_turns``."""
        return self.winner == -2


def game_table(results: Iterable[ChunkResult], deals_per_lineup: int) -> GameTable:
    """Stack chunk results into one :class:`GameTable`."""
    seating: list[list[int]] = []
    pen: list[list[int]] = []
    win: list[int] = []
    cluster: list[int] = []
    lineup: list[int] = []
    for r in results:
        seating.extend(r.seating)
        pen.extend(r.penalty)
        win.extend(r.winner)
        lineup.extend([r.chunk.lineup] * len(r.deal))
        # One id per (line-up, deal): the rotations of one deal share its cards, so they
        # are one cluster, not independent games.
        cluster.extend(r.chunk.lineup * deals_per_lineup + d for d in r.deal)
    return GameTable(
        seating=np.asarray(seating, np.int64).reshape(len(win), -1),
        penalty=np.asarray(pen, np.float64).reshape(len(win), -1),
        winner=np.asarray(win, np.int64),
        cluster=np.asarray(cluster, np.int64),
        lineup=np.asarray(lineup, np.int64),
    )


@dataclass(frozen=True)
class Comparisons:
    """Every seat-by-seat comparison of two different agents in a :class:`GameTable`.

    One row each.
    """

    a: np.ndarray
    """The agent in the lower seat."""
    b: np.ndarray
    """The agent in the higher seat."""
    score_a: np.ndarray
    """1 when ``a`` held fewer penalty points, 0 when more, 0.5 on equal points or a truncated
    game."""
    cluster: np.ndarray
    """The (line-up, deal) cluster of the game."""


def comparisons(table: GameTable) -> Comparisons:
    """Compare every pair of seats held by different agents, game by game."""
    parts: list[tuple[np.ndarray, ...]] = []
    players = table.seating.shape[1] if table.seating.ndim == 2 else 0
    trunc = table.truncated
    for s, t in combinations(range(players), 2):
        a, b = table.seating[:, s], table.seating[:, t]
        ps, pt = table.penalty[:, s], table.penalty[:, t]
        differ = a != b  # a line-up may seat one agent twice: it is not compared with itself
        score = np.where(trunc | (ps == pt), 0.5, (ps < pt).astype(np.float64))
        parts.append((a[differ], b[differ], score[differ], table.cluster[differ]))
    if not parts:
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0, np.float64)
        return Comparisons(empty_i, empty_i, empty_f, empty_i)
    a, b, score, cluster = (np.concatenate(x) for x in zip(*parts, strict=True))
    return Comparisons(a, b, score, cluster)


def rated_matches(
    comp: Comparisons, names: Sequence[str], seed: int, bootstrap: int = 300
) -> tuple[Ratings, list[dict[str, Any]]]:
    """Bradley–Terry ratings (a cluster bootstrap of the intervals) and the head-to-head rows.

    A deal's seat rotations share its cards, so a's win rate against b is the clustered
    interval of a's score in each of their comparisons, whichever seat a sat in, and the
    ratings' bootstrap redraws whole clusters (a real-time pairing's games are independent:
    Wilson there).
    """
    from agents.stats import cluster_bootstrap_ratings

    k = len(names)
    counts = pairwise_counts(comp, k)
    ratings = cluster_bootstrap_ratings(*per_cluster(comp, k), samples=bootstrap, seed=seed)

    def interval(a: int, b: int, score: float, m: int) -> tuple[float, float]:
        fwd, rev = (comp.a == a) & (comp.b == b), (comp.a == b) & (comp.b == a)
        values = np.concatenate([comp.score_a[fwd], 1.0 - comp.score_a[rev]])
        _, lo, hi = clustered_mean(values, np.concatenate([comp.cluster[fwd], comp.cluster[rev]]))
        return max(0.0, lo), min(1.0, hi)

    pairs = (head_to_head(names, a, b, counts, interval) for a, b in combinations(range(k), 2))
    return ratings, [row for row in pairs if row is not None]


def pairwise(table: GameTable, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(wins, draws, games)``, each ``(n_agents, n_agents)``: seat-by-seat comparisons.

    ``wins[a, b]`` counts comparisons where ``a`` held fewer penalty points than
    ``b``; ``draws`` (symmetric) equal points or a truncated game; ``games``
    (symmetric) every comparison. Seats of the same agent are not compared.
    """
    return pairwise_counts(comparisons(table), n_agents)


def pairwise_counts(c: Comparisons, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`pairwise` from comparisons already made."""
    wins = np.zeros((n_agents, n_agents))
    draws = np.zeros((n_agents, n_agents))
    games = np.zeros((n_agents, n_agents))
    tie = c.score_a == 0.5
    # np.add.at, not ``+=``: a pair of agents repeats within the index arrays, and a fancy-
    # indexed ``+=`` would count it once.
    np.add.at(games, (c.a, c.b), 1)
    np.add.at(games, (c.b, c.a), 1)
    np.add.at(draws, (c.a[tie], c.b[tie]), 1)
    np.add.at(draws, (c.b[tie], c.a[tie]), 1)
    np.add.at(wins, (c.a[c.score_a == 1], c.b[c.score_a == 1]), 1)
    np.add.at(wins, (c.b[c.score_a == 0], c.a[c.score_a == 0]), 1)
    return wins, draws, games


def per_cluster(c: Comparisons, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """``(points, games)``, each ``(clusters, n_agents, n_agents)``, for the cluster bootstrap."""
    _, idx = np.unique(c.cluster, return_inverse=True)
    n_clusters = int(idx.max()) + 1 if idx.size else 0
    points = np.zeros((n_clusters, n_agents, n_agents))
    games = np.zeros((n_clusters, n_agents, n_agents))
    np.add.at(points, (idx, c.a, c.b), c.score_a)
    np.add.at(points, (idx, c.b, c.a), 1.0 - c.score_a)
    np.add.at(games, (idx, c.a, c.b), 1.0)
    np.add.at(games, (idx, c.b, c.a), 1.0)
    return points, games


def agent_rows(
    table: GameTable, n_agents: int, lineups: np.ndarray | None = None
) -> list[dict[str, Any]]:
    """Per agent: seat-games, wins, mean penalty with its interval (over the games selected)."""
    rows = []
    sel = np.ones(len(table.winner), bool) if lineups is None else np.isin(table.lineup, lineups)
    # A truncated game's hands are mid-game, not final penalties: left out of the mean.
    finished = sel & ~table.truncated
    seat_idx = np.arange(table.seating.shape[1] if table.seating.ndim == 2 else 0)
    for a in range(n_agents):
        mine = table.seating == a
        games = int(mine[sel].sum())
        wins = int((mine[sel] & (table.winner[sel, None] == seat_idx[None, :])).sum())
        g_idx, s_idx = np.nonzero(mine & finished[:, None])
        mean, lo, hi = clustered_mean(table.penalty[g_idx, s_idx], table.cluster[g_idx])
        rows.append(
            {"games": games, "wins": wins, "mean_penalty": mean, "mean_penalty_ci": [lo, hi]}
        )
    return rows


class SeatRotation:
    """Line-ups and deal seeds of an N-seat tournament's settings (``agents``, ``players``,
    ``gauntlet``, ``seed``): every table seats its line-up over the same deals."""

    agents: tuple[str, ...]
    gauntlet: str | None
    seed: int

    @property
    def players(self) -> int:
        """Seats at each table (a field or a property of the settings)."""
        raise NotImplementedError

    def lineups(self) -> list[tuple[int, ...]]:
        """Agent indices at each position of each line-up, in a fixed order."""
        g = None if self.gauntlet is None else self.agents.index(self.gauntlet)
        return seat_lineups(len(self.agents), self.players, g)

    def deal_seed(self, deal: int) -> int:
        """Seed of deal ``deal``; the same deals for every line-up and rotation."""
        return (self.seed << 32) + deal


def rotation_problem(
    result: Any, players: int, length: str, lengths: Any, allowed: range
) -> str | None:
    """The first impossible deal, rotation, winner or game ``length`` of a chunk result that
    plays each of its deals once per rotation at tables of ``players``, or ``None``."""
    from agents.tournament.chunk_checks import ints

    chunk = result.chunk
    games = chunk.count * players
    problem = (
        ints("deal", result.deal, games, range(chunk.start, chunk.start + chunk.count))
        or ints("rotation", result.rotation, games, range(players))
        # -1 is a drawn game (or lock), -2 a truncated one.
        or ints("winner", result.winner, games, range(-2, players))
        or ints(length, lengths, games, allowed)
    )
    if problem:
        return problem
    expected = [(chunk.start + i, r) for i in range(chunk.count) for r in range(players)]
    if list(zip(result.deal, result.rotation, strict=True)) != expected:
        return "deal and rotation do not hold each deal once per rotation"
    return None


def check_chunk(result: Any, lineup: tuple[int, ...], players: int) -> str | None:
    """The first impossible field of a logged chunk result, or ``None`` (a resume trusts only
    these; :mod:`agents.tournament.chunk_checks`).

    The chunk seats ``lineup`` at tables of ``players``.
    """
    games = result.chunk.count * players  # each deal once per rotation
    problem = rotation_problem(result, players, "turns", result.turns, range(0, 1 << 31))
    if problem:
        return problem
    for name in ("seating", "penalty"):
        rows = getattr(result, name)
        if not isinstance(rows, list) or len(rows) != games:
            return f"{name} holds {len(rows) if isinstance(rows, list) else 0} games, not {games}"
    for g in range(games):
        r = result.rotation[g]
        # The inverse of "line-up position p sits in seat (p + r) % players".
        seats = [lineup[(s - r) % players] for s in range(players)]
        if result.seating[g] != seats:
            return f"seating[{g}] is {result.seating[g]!r}, but rotation {r} seats {seats}"
        problem = ints(f"penalty[{g}]", result.penalty[g], players, range(0, 1 << 31))
        if problem:
            return problem
    return None
