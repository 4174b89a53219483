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

**Statistics** (pure functions over the per-game table, tested on synthetic results):

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
deals); each chunk is a pure function of the settings and its index (the
policies' seeds included), so results are identical for any number of
worker processes, and an interrupted run keeps every finished chunk.

The last section saves and loads learned vintage agents in the kit's model
format (``agents.model_io``) with the vintage observation signature: the
``vintage-ppo:PATH`` agent spec.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from typing import Any

import numpy as np

from agents import plotting
from agents.jobs import Backend, run_jobs
from agents.stats import clustered_mean
from speed_env.vintage import ObservationLayout, VintageRules, make_rules, raw_env
from speed_env.vintage.actions import Actions
from speed_env.vintage.engine import TRUNCATED, penalties

CHUNK_DEALS = 50
"""Deals per chunk of work (times ``players`` rotations: 200 games at 4 players)."""


class VintageTournamentError(ValueError):
    """Settings a vintage tournament cannot play: the message says what would be right."""


@dataclass(frozen=True)
class VintageSettings:
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

    def __post_init__(self) -> None:
        check_settings(self)

    @property
    def deals(self) -> int:
        """Deals per line-up."""
        return max(1, self.games // self.players)

    @property
    def rules(self) -> VintageRules:
        """The rules of every game (a match of one game)."""
        return make_rules(self.players, 1, **dict(self.options))

    def lineups(self) -> list[tuple[int, ...]]:
        """Agent indices at each position of each line-up, in a fixed order."""
        k, n = len(self.agents), self.players
        if self.gauntlet is not None:
            g = self.agents.index(self.gauntlet)
            return [(g, *([j] * (n - 1))) for j in range(k) if j != g]
        if k >= n:
            return list(combinations(range(k), n))
        everyone = set(range(k))
        return [c for c in combinations_with_replacement(range(k), n) if set(c) == everyone]

    def deal_seed(self, deal: int) -> int:
        """Seed of deal ``deal``; the same deals for every line-up and rotation."""
        return (self.seed << 32) + deal

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
    import agents

    if len(s.agents) < 2:
        raise VintageTournamentError(
            f"a tournament needs at least two agents, got {list(s.agents)}"
        )
    if len(set(s.agents)) != len(s.agents):
        raise VintageTournamentError(f"an agent is listed twice: {list(s.agents)}")
    for spec in s.agents:
        name = agents.parse_spec(spec).name
        if not name.startswith("vintage-"):
            known = ", ".join(n for n in agents.available() if n.startswith("vintage-"))
            raise VintageTournamentError(
                f"{spec!r} plays real-time Speed, not Vintage Speed; vintage agents are {known}"
            )
    if isinstance(s.players, bool) or not isinstance(s.players, int) or not 2 <= s.players <= 10:
        raise VintageTournamentError(f"players must be 2–10, got {s.players!r}")
    if s.gauntlet is not None and s.gauntlet not in s.agents:
        raise VintageTournamentError(f"gauntlet {s.gauntlet!r} is not one of the agents")
    if s.games < s.players:
        raise VintageTournamentError(
            f"games must be at least players ({s.players}): each deal is played once per seat rotation"
        )
    make_rules(s.players, 1, **dict(s.options))  # a bad option fails here, naming it


# ---------------------------------------------------------------------- playing
@dataclass(frozen=True)
class Chunk:
    """One unit of work: deals ``start .. start + count`` of line-up ``lineup``, every rotation."""

    index: int
    lineup: int
    start: int
    count: int


@dataclass
class ChunkResult:
    """Per game of one chunk, in deal order then rotation: who sat where and what they held."""

    chunk: Chunk
    deal: list[int] = field(default_factory=list)
    """Deal index of each game."""
    rotation: list[int] = field(default_factory=list)
    """Rotation of each game (the agent at line-up position ``p`` sat in seat ``(p + r) % players``)."""
    seating: list[list[int]] = field(default_factory=list)
    """Agent index in each seat, per game."""
    penalty: list[list[int]] = field(default_factory=list)
    """Penalty points left in each seat's hand at the end, per game."""
    winner: list[int] = field(default_factory=list)
    """Seat that won, -1 for a drawn lock, -2 for a truncated game."""
    turns: list[int] = field(default_factory=list)
    """Turns each game lasted."""


def plan(settings: VintageSettings) -> list[Chunk]:
    """The chunks of a tournament, in the order their results are combined."""
    chunks: list[Chunk] = []
    for lu in range(len(settings.lineups())):
        for start in range(0, settings.deals, CHUNK_DEALS):
            chunks.append(Chunk(len(chunks), lu, start, min(CHUNK_DEALS, settings.deals - start)))
    return chunks


def policy_seed(settings: VintageSettings, chunk: Chunk, position: int) -> int:
    """Seed of the policy at ``position`` of the chunk's line-up (a function of the settings only)."""
    return (settings.seed * 1_000_003 + chunk.index * 101 + position) & 0x7FFFFFFF


def run_chunk(settings: VintageSettings, chunk: Chunk) -> ChunkResult:
    """Play one chunk: each of its deals once per seat rotation, all games side by side.

    Each position of the line-up is its own policy instance; it acts on all its
    pending decisions at once (one batch per position per round).
    """
    import agents

    n = settings.players
    lineup = settings.lineups()[chunk.lineup]
    bots = [
        agents.make(settings.agents[a], seed=policy_seed(settings, chunk, p))
        for p, a in enumerate(lineup)
    ]
    options = dict(settings.options)
    games: list[tuple[Any, int, int]] = []  # (env, deal, rotation)
    for i in range(chunk.count):
        for r in range(n):
            env = raw_env(num_players=n, games=1, **options)
            env.reset(seed=settings.deal_seed(chunk.start + i))
            games.append((env, chunk.start + i, r))
    running = list(range(len(games)))
    while running:
        by_position: dict[int, list[int]] = {}
        for g in running:
            env, _, r = games[g]
            by_position.setdefault((env.game.current - r) % n, []).append(g)
        for pos in sorted(by_position):
            slots = by_position[pos]
            views = [games[g][0].observe(games[g][0].agent_selection) for g in slots]
            obs = np.stack([v["observation"] for v in views])
            mask = np.stack([v["action_mask"] for v in views])
            acts = np.asarray(bots[pos].act(obs, mask)).reshape(-1)
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
        else:
            out.winner.append(game.winner if game.winner is not None else -1)
        out.turns.append(game.turns)
    return out


def _run_chunk_job(args: tuple[VintageSettings, Chunk]) -> ChunkResult:
    return run_chunk(*args)


def run(
    settings: VintageSettings,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[list[ChunkResult], bool]:
    """Play every chunk; returns the finished chunks in plan order and whether all finished.

    Ctrl-C stops the run and returns what finished. ``backend`` runs the chunks
    on Ray (``agents.jobs``); the results are the same on every backend.
    """
    chunks = plan(settings)
    jobs = [(settings, c) for c in chunks]
    results, complete = run_jobs(_run_chunk_job, jobs, workers, progress, backend)
    return [r for r in results if r is not None], complete


# ---------------------------------------------------------------------- statistics
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
    """Every seat-by-seat comparison of two different agents in a :class:`GameTable`, one per row."""

    a: np.ndarray
    """The agent in the lower seat."""
    b: np.ndarray
    """The agent in the higher seat."""
    score_a: np.ndarray
    """1 when ``a`` held fewer penalty points, 0 when more, 0.5 on equal points or a truncated game."""
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
        differ = a != b
        score = np.where(trunc | (ps == pt), 0.5, (ps < pt).astype(np.float64))
        parts.append((a[differ], b[differ], score[differ], table.cluster[differ]))
    if not parts:
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0, np.float64)
        return Comparisons(empty_i, empty_i, empty_f, empty_i)
    a, b, score, cluster = (np.concatenate(x) for x in zip(*parts, strict=True))
    return Comparisons(a, b, score, cluster)


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
    np.add.at(games, (c.a, c.b), 1)
    np.add.at(games, (c.b, c.a), 1)
    np.add.at(draws, (c.a[tie], c.b[tie]), 1)
    np.add.at(draws, (c.b[tie], c.a[tie]), 1)
    np.add.at(wins, (c.a[c.score_a == 1], c.b[c.score_a == 1]), 1)
    np.add.at(wins, (c.b[c.score_a == 0], c.a[c.score_a == 0]), 1)
    return wins, draws, games


def _per_cluster(c: Comparisons, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
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


def _agent_rows(
    table: GameTable, n_agents: int, lineups: np.ndarray | None = None
) -> list[dict[str, Any]]:
    """Per agent: seat-games, wins, mean penalty with its interval (over the games selected)."""
    rows = []
    sel = np.ones(len(table.winner), bool) if lineups is None else np.isin(table.lineup, lineups)
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


def summarise(
    settings: VintageSettings, results: Iterable[ChunkResult], bootstrap: int = 300
) -> dict[str, Any]:
    """The ``results.json`` document: settings, agents with ratings and penalties, matches, line-ups."""
    from agents.stats import cluster_bootstrap_ratings

    results = list(results)
    k = len(settings.agents)
    table = game_table(results, settings.deals)
    comp = comparisons(table)
    wins, draws, games = pairwise_counts(comp, k)
    ratings = cluster_bootstrap_ratings(
        *_per_cluster(comp, k), samples=bootstrap, seed=settings.seed
    )
    matches = []
    for a, b in combinations(range(k), 2):
        m = int(games[a, b])
        if m == 0:
            continue
        score = wins[a, b] + draws[a, b] / 2
        # a's score in each of their comparisons, whichever seat a sat in; clustered by deal.
        fwd, rev = (comp.a == a) & (comp.b == b), (comp.a == b) & (comp.b == a)
        values = np.concatenate([comp.score_a[fwd], 1.0 - comp.score_a[rev]])
        _, lo, hi = clustered_mean(values, np.concatenate([comp.cluster[fwd], comp.cluster[rev]]))
        lo, hi = max(0.0, lo), min(1.0, hi)
        matches.append(
            {
                "a": settings.agents[a],
                "b": settings.agents[b],
                "games": m,
                "wins_a": int(wins[a, b]),
                "wins_b": int(wins[b, a]),
                "draws": int(draws[a, b]),
                "win_rate_a": score / m,
                "win_rate_a_ci": [lo, hi],
            }
        )
    agents_out = []
    for i, row in enumerate(_agent_rows(table, k)):
        agents_out.append(
            {
                "name": settings.agents[i],
                "rating": float(ratings.rating[i]),
                "rating_ci": [float(ratings.low[i]), float(ratings.high[i])],
                **row,
            }
        )
    agents_out.sort(key=lambda x: -x["rating"])
    lineups_out = []
    for li, lineup in enumerate(settings.lineups()):
        rows = _agent_rows(table, k, np.array([li]))
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
    return {
        "settings": settings_out,
        "agents": agents_out,
        "matches": matches,
        "lineups": lineups_out,
    }


def penalties_png(summary: dict[str, Any]) -> bytes:
    """Mean penalty per game with 95% intervals, one row per agent (fewer is better)."""
    agents = sorted(summary["agents"], key=lambda a: -a["mean_penalty"])
    return plotting.interval_rows_png(
        [(a["name"], a["mean_penalty"], *a["mean_penalty_ci"]) for a in agents],
        "mean penalty points per game (fewer is better), 95% interval",
        color="tab:red",
    )


def agents_csv(summary: dict[str, Any]) -> str:
    """One row per agent: rating, games, wins, mean penalty, with intervals."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        [
            "agent",
            "rating",
            "rating_low",
            "rating_high",
            "games",
            "wins",
            "mean_penalty",
            "penalty_low",
            "penalty_high",
        ]
    )
    for a in summary["agents"]:
        w.writerow(
            [
                a["name"],
                f"{a['rating']:.2f}",
                f"{a['rating_ci'][0]:.2f}",
                f"{a['rating_ci'][1]:.2f}",
                a["games"],
                a["wins"],
                f"{a['mean_penalty']:.4f}",
                f"{a['mean_penalty_ci'][0]:.4f}",
                f"{a['mean_penalty_ci'][1]:.4f}",
            ]
        )
    return buf.getvalue()


def write_outputs(out: Path, summary: dict[str, Any]) -> list[Path]:
    """Every output file: the real-time tournament's set, plus ``agents.csv`` and ``penalties.png``."""
    from agents import report

    return report.write_outputs(
        out,
        summary,
        extra={
            "agents.csv": agents_csv(summary).encode(),
            "penalties.png": penalties_png(summary),
        },
    )


# ---------------------------------------------------------------------- learned agents
def vintage_signature(rules: VintageRules | None = None) -> dict[str, Any]:
    """The observation/action signature a vintage model must match (any table size: the layout is padded)."""
    rules = rules or make_rules(4, 1)
    layout = ObservationLayout(rules.pack)
    return {
        "game": "vintage",
        "obs_dim": layout.size,
        "n_actions": Actions(rules.pack).n,
        "layout": [[name, s.start, s.stop] for name, s in layout.slices.items()],
        "pack": rules.pack.name,
    }


def save_vintage_model(
    path: str | Path,
    tensors: Mapping[str, np.ndarray],
    *,
    rules: VintageRules,
    hidden: list[int],
    activation: str,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``PATH.safetensors`` and the manifest ``PATH.json`` (the kit's format, vintage signature).

    The same two files as :func:`agents.model_io.save_model` (so ``read_model``
    checks them), with ``rules`` holding the vintage options and ``observation``
    the vintage signature; returns the manifest's path.
    """
    from agents import model_io

    manifest = {
        "game": "vintage",
        "rules": {
            "game": "vintage",
            "num_players": rules.num_players,
            "may_draw_when_able": rules.may_draw_when_able,
            "rebuild_pack": rules.rebuild_pack,
            "max_turns": rules.max_turns,
            "pack": rules.pack.name,
        },
        "observation": vintage_signature(rules),
        "net": {"kind": "mlp", "hidden": [int(h) for h in hidden], "activation": activation},
        "versions": model_io.library_versions(),
        "training": training or {},
    }
    return model_io.write_model(path, tensors, manifest)


def load_vintage_policy(arg: str, seed: int | None = None) -> Any:
    """The ``vintage-ppo:PATH[?sample]`` agent: a saved vintage model as a batch Policy (numpy only)."""
    from agents import model_io

    path, _, query = arg.partition("?")
    flags = {f for f in query.replace("&", "?").split("?") if f}
    if flags - {"sample"}:
        raise model_io.ModelFormatError(
            f"unknown option(s) {', '.join(sorted(flags - {'sample'}))} in "
            f"vintage-ppo:{arg}; known: sample"
        )
    if not path:
        raise model_io.ModelFormatError("vintage-ppo needs a model path: vintage-ppo:PATH.json")
    tensors, manifest, where = model_io.read_model(path)
    have, want = manifest["observation"], vintage_signature()
    for key in ("obs_dim", "n_actions", "layout"):
        if have.get(key) != want[key]:
            raise model_io.ModelFormatError(
                f"{where} does not fit Vintage Speed with the default pack ({key}: the model has "
                f"{have.get(key)!r}, the game {want[key]!r}); a real-time model plays as ppo:PATH"
            )
    return model_io.MLPPolicy(
        tensors,
        manifest["net"]["activation"],
        sample="sample" in flags,
        seed=seed,
        manifest=manifest,
        source=str(where),
    )
