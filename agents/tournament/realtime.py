"""Round-robin and gauntlet tournaments on ``BatchEnv`` with paired deals.

Every pairing plays the same deals, and each deal twice with seats swapped,
so the luck of the deal cancels out of every comparison. The work is cut
into fixed chunks (a pairing, the line-up of :mod:`agents.tournament.harness`,
and a range of deals) and run by that harness, shared with every game's
tournament: the results are identical for any number of worker processes, and
an interrupted run keeps every finished chunk.

With ``match=True`` (``us``/``pagat``) the games of each pairing, in deal
order with the seats alternating (each deal's two seatings back to back), are
also cut into matches: consecutive games until a seat has ``match_target``
points (docs/rules.md, "Match points"). Matches are read off the finished games'
points, so they too are the same for any number of workers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Unpack

import numpy as np

from agents.specs.guarded import calling, checked_act, positive_seconds, seed_globals
from agents.think import measured
from agents.think.plan import ThinkPlan, seat_profile
from agents.tournament import harness
from agents.tournament.harness import Chunk
from agents.tournament.summary import document, head_to_head
from speed_env.batch import BatchEnv
from speed_env.reaction import ReactionProfile, make_profile
from speed_env.rules import Rules

CHUNK_DEALS = 250


@dataclass(frozen=True)
class Settings:
    """What a tournament plays; everything its results depend on."""

    agents: tuple[str, ...]
    """Agent specs (``greedy``, ``chain@pro``, ``ppo:model.json`` …), as given."""
    games: int = 2000
    """Games per pairing: ``games / 2`` deals, each played with both seatings."""
    rules: Rules = field(default_factory=Rules)
    reaction: ReactionProfile = field(default_factory=lambda: make_profile("human"))
    """Profile of every agent whose spec carries no ``@reaction``."""
    tick_ms: int = 50
    seed: int = 0
    gauntlet: str | None = None
    """Only pairings of this spec against each other agent (else a full round robin)."""
    match: bool = False
    """Also score matches: consecutive games of a pairing until a seat has ``match_target``.

    The target is ``rules.match_target`` points.
    """
    act_timeout: float | None = None
    """Seconds an agent may take over one ``act`` call before it fails; ``None``: no limit.

    See :mod:`agents.specs.guarded`. Not in :meth:`to_dict`: it stops a run, never changes its
    numbers.
    """
    think: ThinkPlan | None = None
    """How each agent's thinking is charged (``--think``, :mod:`agents.think`); ``None``: off."""

    def __post_init__(self) -> None:
        positive_seconds(self.act_timeout)
        if self.match and self.rules.is_japanese:
            raise ValueError(
                "match scoring (match_target) exists for the us and pagat presets only, "
                "not japanese"
            )

    @property
    def deals(self) -> int:
        """Deals per pairing."""
        return max(1, self.games // 2)  # an odd game count loses its last game, never all

    def pairings(self) -> list[tuple[int, int]]:
        """Index pairs ``(a, b)`` that meet, in a fixed order."""
        n = len(self.agents)
        if self.gauntlet is not None:
            g = self.agents.index(self.gauntlet)
            return [(g, j) for j in range(n) if j != g]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def deal_seed(self, deal: int) -> int:
        """Seed of deal ``deal``; the same deals for every pairing."""
        return (self.seed << 32) + deal  # 2**32 deals per seed: two seeds never share a deal

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings."""
        return {
            "agents": list(self.agents),
            "games_per_pairing": 2 * self.deals,
            "rules": self.rules.to_dict(),
            "reaction": self.reaction.label(),
            "tick_ms": self.tick_ms,
            "seed": self.seed,
            "gauntlet": self.gauntlet,
            "paired_deals": True,
            "match": self.match,
        } | ({} if self.think is None else {"think": self.think.to_dict()})


@dataclass
class ChunkResult:
    """Results of one chunk, from agent ``a``'s side of the pairing."""

    chunk: Chunk
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    games: int = 0
    played_a: int = 0
    played_b: int = 0
    bounced_a: int = 0
    bounced_b: int = 0
    game_ms: int = 0
    truncated: int = 0
    """Games cut off at ``max_game_ms`` (counted among ``draws``: no winner)."""
    illegal_a: int = 0
    """Illegal actions ``a`` chose (each played as a wait)."""
    illegal_b: int = 0
    outcomes: list[int] = field(default_factory=list)
    """Per game, in deal order then seating: +1 a won, -1 b won, 0 draw/truncated."""
    points_a: list[int] = field(default_factory=list)
    """Per game, in the order of ``outcomes``: a's match points (0 without match scoring)."""
    points_b: list[int] = field(default_factory=list)
    """Per game: b's match points."""
    replays: list[dict[str, Any]] = field(default_factory=list)


def plan(settings: Settings) -> list[Chunk]:
    """The chunks of a tournament, in the order their results are combined."""
    return harness.plan(len(settings.pairings()), settings.deals, CHUNK_DEALS)


def _play(
    settings: Settings,
    specs: tuple[str, str],
    start: int,
    count: int,
    policy_seed: int,
    record: int,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Play deals ``start..start+count`` once with ``specs[0]`` in seat 0; per-game results.

    Every call into an agent is attributed (:mod:`agents.specs.guarded`): a failure is one
    :class:`~agents.runtime.failures.AgentFailure` naming the agent, the seat and the deals.
    """
    from agents.specs.realtime import REALTIME

    last = start + count - 1
    where = [f"{specs[0]} vs {specs[1]}, seat {p}, deals {start}-{last}" for p in range(2)]
    # A bot drawing from the global generators plays the same for the same seed, whatever
    # ran in this process before (another chunk, another worker's share).
    seed_globals(policy_seed)
    bots, reactions = [], []
    for p, spec in enumerate(specs):
        with calling(spec, "building it", where[p]):
            bots.append(REALTIME.make(spec, settings.rules, policy_seed + p))
            reactions.append(seat_profile(bots[p], spec, settings.reaction, settings.think))
    # No autoreset: each deal is played once, and a finished game waits, over, for the rest.
    env = BatchEnv(
        count, settings.rules, tick_ms=settings.tick_ms, reaction=tuple(reactions), autoreset=False
    )

    def act(p: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Seat ``p``'s actions, checked and attributed.

        The checks are :func:`agents.specs.guarded.checked_act`'s.
        """
        return checked_act(
            bots[p], obs, mask, spec=specs[p], where=where[p],
            rows=lambda i: f"deal {start + i}", timeout=settings.act_timeout,
        )  # fmt: skip

    def timed(p: int, obs: np.ndarray, mask: np.ndarray, running: np.ndarray) -> np.ndarray:
        """Seat ``p``'s actions game by game, each decision's time charged to it (measured)."""

        def one(i: int, o: np.ndarray, m: np.ndarray) -> np.ndarray:
            return checked_act(
                bots[p], o, m, spec=specs[p], where=where[p],
                rows=lambda _: f"deal {start + i}", timeout=settings.act_timeout,
            )  # fmt: skip

        return measured.act_and_charge(one, obs, mask, running, env.games.lat[:, p], reactions[p])

    # Game i is seeded deal_seed(start) + i, which is deal_seed(start + i): chunks never overlap.
    obs, mask = env.reset(seed=settings.deal_seed(start))
    winner = np.full(count, -1, np.int8)
    played = np.zeros((2, count), np.int64)
    bounced = np.zeros((2, count), np.int64)
    clock = np.zeros(count, np.int64)
    points = np.zeros((2, count), np.int64)
    illegal = np.zeros((2, count), np.int64)
    frames: list[dict[str, Any]] = []
    while not env.all_finished:
        if record:
            for i in range(min(record, count)):
                if winner[i] < 0:
                    frames.append({"game": i, "seats": list(specs), "snapshot": env.snapshot(i)})
        running = winner < 0
        if settings.think is not None and settings.think.mode == "measured":
            actions = np.stack([timed(p, obs[p], mask[p], running) for p in range(2)])
        else:  # each seat's answer checked before they are stacked (stacking converts dtypes)
            actions = np.stack([act(p, obs[p], mask[p]) for p in range(2)])
        obs, mask, _, term, trunc, info = env.step(actions)
        illegal += info["illegal"] & running  # a finished game's seats act on nothing
        ended = term | trunc
        if ended.any():
            winner[ended] = np.where(trunc[ended], 3, info["winner"][ended])  # 3: truncated
            played[:, ended] = info["played"][:, ended]
            bounced[:, ended] = info["bounced"][:, ended]
            clock[ended] = info["clock_ms"][ended]
            if "points" in info:  # us/pagat match scoring
                points[:, ended] = info["points"][:, ended]
    if record:  # and each recorded game's final position
        for i in range(min(record, count)):
            frames.append({"game": i, "seats": list(specs), "snapshot": env.snapshot(i)})
    return {
        "winner": winner,
        "played": played,
        "bounced": bounced,
        "clock": clock,
        "points": points,
        "illegal": illegal,
    }, frames


def run_chunk(settings: Settings, chunk: Chunk, record: int = 0) -> ChunkResult:
    """Play one chunk: each of its deals with ``a`` in seat 0, then with seats swapped.

    ``chunk.lineup`` is the pairing's index.
    """
    a, b = settings.pairings()[chunk.lineup]
    specs = (settings.agents[a], settings.agents[b])
    out = ChunkResult(chunk)
    seat_results = []
    for swap in (0, 1):
        order = (specs[1], specs[0]) if swap else specs
        # Seats take policy_seed + p: the steps of 2 and 4 keep every chunk's and seating's
        # seeds apart; the mask keeps the seed a non-negative 31-bit int, as older seeders want.
        policy_seed = (settings.seed * 1_000_003 + chunk.index * 4 + swap * 2) & 0x7FFFFFFF
        res, frames = _play(
            settings, order, chunk.start, chunk.count, policy_seed, record if swap == 0 else 0
        )  # replays of the first seating only
        out.replays.extend(frames)
        seat_results.append(res)
    for i in range(chunk.count):
        for swap, res in enumerate(seat_results):
            seat_a = 1 if swap else 0
            w = int(res["winner"][i])
            outcome = 0 if w in (2, 3) else (1 if w == seat_a else -1)  # 2: a draw, 3: truncated
            out.outcomes.append(outcome)
            out.truncated += w == 3
            out.illegal_a += int(res["illegal"][seat_a, i])
            out.illegal_b += int(res["illegal"][1 - seat_a, i])
            out.wins_a += outcome == 1
            out.wins_b += outcome == -1
            out.draws += outcome == 0
            out.games += 1
            out.played_a += int(res["played"][seat_a, i])
            out.played_b += int(res["played"][1 - seat_a, i])
            out.bounced_a += int(res["bounced"][seat_a, i])
            out.bounced_b += int(res["bounced"][1 - seat_a, i])
            out.game_ms += int(res["clock"][i])
            out.points_a.append(int(res["points"][seat_a, i]))
            out.points_b.append(int(res["points"][1 - seat_a, i]))
    return out


def run(
    settings: Settings, *, record: int = 0, **options: Unpack[harness.RunOptions]
) -> tuple[list[ChunkResult], bool]:
    """Play every chunk; returns the finished chunks in plan order and whether all finished.

    ``record`` games of the first chunk are kept as replays. Ctrl-C stops the run and returns
    what finished. ``options`` (``workers``, ``progress``, ``backend``, and ``done`` and
    ``on_result`` for resuming and logging) are :func:`agents.tournament.harness.run`'s: the
    results are the same for any number of workers, on every backend.
    """
    return harness.run(
        run_chunk, settings, plan(settings), describe_chunk, seated, record=record, **options
    )


def seated(settings: Settings, chunk: Chunk) -> tuple[str, str]:
    """The two agent specs a chunk's pairing seats (an agent failing ends only what it plays in)."""
    a, b = settings.pairings()[chunk.lineup]
    return settings.agents[a], settings.agents[b]


def describe_pairing(settings: Settings, chunk: Chunk) -> str:
    """The pairing a chunk plays, in words (``random vs greedy``)."""
    return " vs ".join(seated(settings, chunk))


def describe_chunk(settings: Settings, chunk: Chunk) -> str:
    """A chunk in words, for a line naming the work a failure stopped."""
    last = chunk.start + chunk.count - 1
    return f"chunk {chunk.index} ({describe_pairing(settings, chunk)}, deals {chunk.start}-{last})"


# ---------------------------------------------------------------- matches
def split_matches(
    points_a: Sequence[int], points_b: Sequence[int], target: int
) -> tuple[list[tuple[int, int]], int]:
    """Cut a sequence of games into matches: each runs until a seat has ``target`` points.

    Returns ``(matches, left_over)``: per finished match ``(+1 if a won else -1,
    games it took)``, and the games after the last finished match (a match
    still running when the games ran out, not counted).
    """
    matches: list[tuple[int, int]] = []
    score_a = score_b = games = 0
    for pa, pb in zip(points_a, points_b, strict=True):
        score_a += pa
        score_b += pb
        games += 1
        if score_a >= target or score_b >= target:  # only a game's winner scores: never both
            matches.append((1 if score_a >= target else -1, games))
            score_a = score_b = games = 0
    return matches, games


def pairing_matches(
    settings: Settings, results: Iterable[ChunkResult]
) -> dict[int, tuple[list[tuple[int, int]], int]]:
    """Per pairing index: :func:`split_matches` over its games in deal order.

    The chunks of a pairing are consecutive deal ranges; a chunk missing after an
    interrupt breaks the sequence, so a match never spans the gap (the games of
    the match cut short count as left over).
    """
    by_pair: dict[int, list[ChunkResult]] = {}
    for r in results:
        by_pair.setdefault(r.chunk.lineup, []).append(r)
    out: dict[int, tuple[list[tuple[int, int]], int]] = {}
    for pair, chunks in by_pair.items():
        chunks.sort(key=lambda r: r.chunk.start)  # results arrive in any order
        matches: list[tuple[int, int]] = []
        left = 0
        run_a: list[int] = []
        run_b: list[int] = []
        expected = 0
        for r in chunks:
            if r.chunk.start != expected:  # a gap: close the run before it
                done, rest = split_matches(run_a, run_b, settings.rules.match_target)
                matches += done
                left += rest
                run_a, run_b = [], []
            run_a += r.points_a
            run_b += r.points_b
            expected = r.chunk.start + r.chunk.count
        done, rest = split_matches(run_a, run_b, settings.rules.match_target)
        matches += done
        left += rest
        out[pair] = (matches, left)
    return out


# ---------------------------------------------------------------- summaries
@dataclass
class MatchScore:
    """One pairing's matches, with ``--match``.

    A match is consecutive games until a seat has ``match_target`` points.
    """

    matches: int
    match_wins_a: int
    match_wins_b: int
    match_win_rate_a: float
    match_win_rate_a_ci: list[float]
    mean_games_per_match: float
    games_left_over: int
    """Games after the pairing's last finished match (a match the games ran out on)."""


def pair_counts(
    settings: Settings, results: Iterable[ChunkResult]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(wins, draws, games)``, each ``(n, n)`` over ``settings.agents``.

    Entry ``[a, b]`` counts agent ``a``'s wins, the draws and the games of the pairing of ``a``
    with ``b``.
    """
    n = len(settings.agents)
    pairs = settings.pairings()
    wins, draws, games = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for r in results:
        a, b = pairs[r.chunk.lineup]
        wins[a, b] += r.wins_a
        wins[b, a] += r.wins_b
        draws[a, b] += r.draws
        draws[b, a] += r.draws
        games[a, b] += r.games
        games[b, a] += r.games
    return wins, draws, games


def summarise(
    settings: Settings, results: Iterable[ChunkResult], bootstrap: int = 300
) -> dict[str, Any]:
    """The ``results.json`` document, as :func:`agents.tournament.summary.document` lays it out.

    It holds the settings, the agents with ratings, and the matches, with match scores when
    ``settings.match``.
    """
    from agents.stats import bootstrap_ratings, wilson_interval

    results = list(results)
    n = len(settings.agents)
    pairs = settings.pairings()
    wins, draws, games = pair_counts(settings, results)
    played = np.zeros(n)
    bounced = np.zeros(n)
    n_games = np.zeros(n)
    for r in results:
        a, b = pairs[r.chunk.lineup]
        played[a] += r.played_a
        played[b] += r.played_b
        bounced[a] += r.bounced_a
        bounced[b] += r.bounced_b
        n_games[a] += r.games
        n_games[b] += r.games
    ratings = bootstrap_ratings(wins, draws, games, samples=bootstrap, seed=settings.seed)
    per_pair = pairing_matches(settings, results) if settings.match else {}
    match_wins = np.zeros(n)
    match_count = np.zeros(n)
    matches = []
    for k, (a, b) in enumerate(pairs):
        # A pairing's games are independent draws on paired deals: a plain Wilson interval
        # (seat rotations sharing a deal's cards would be clustered instead).
        row = head_to_head(
            settings.agents, a, b, (wins, draws, games), lambda _a, _b, s, m: wilson_interval(s, m)
        )
        if row is None:
            continue
        if settings.match:
            played_matches, left = per_pair.get(k, ([], 0))
            won_a = sum(1 for w, _ in played_matches if w > 0)
            count = len(played_matches)
            mlo, mhi = wilson_interval(won_a, count)
            row.update(
                asdict(
                    MatchScore(
                        count,
                        won_a,
                        count - won_a,
                        won_a / count if count else 0.0,
                        [mlo, mhi],
                        sum(g for _, g in played_matches) / count if count else 0.0,
                        left,
                    )
                )
            )
            match_wins[a] += won_a
            match_wins[b] += count - won_a
            match_count[a] += count
            match_count[b] += count
        matches.append(row)
    agents_out: list[tuple[str, dict[str, Any]]] = []
    for i, spec in enumerate(settings.agents):
        total = played[i] + bounced[i]
        fields = {
            "games": int(n_games[i]),
            "wins": int(wins[i].sum()),
            "draws": int(draws[i].sum()),
            "mean_cards_played": float(played[i] / n_games[i]) if n_games[i] else 0.0,
            "bounce_rate": float(bounced[i] / total) if total else 0.0,
        }
        if settings.match:
            fields.update(matches=int(match_count[i]), match_wins=int(match_wins[i]))
        agents_out.append((spec, fields))
    return document("realtime", settings.to_dict(), ratings, agents_out, matches)


def replay_lines(results: Iterable[ChunkResult]) -> list[str]:
    """Recorded replay frames as JSON Lines."""
    return [json.dumps(frame) for r in results for frame in r.replays]
