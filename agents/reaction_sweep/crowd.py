"""A reaction sweep's point at a table of three or four: one swept seat against a field.

Two players play a point as a two-agent tournament (:mod:`agents.tournament.realtime`). At a
Party Speed table (``rules.players`` 3 or 4, docs/rules.md) a point seats the swept agent in one
seat and the field agent in every other, and plays each deal once with the swept agent in each
seat in turn (seat rotation: the n-seat form of paired deals), so every seat's position at the
table, and every deal's luck, is shared out evenly. A game's outcome is read from the swept
seat's side: +1 it won, -1 another seat won, 0 a draw or a truncation (its fair share, ``1/n``,
is what it scores on average against copies of itself).

The table is :class:`speed_env.seats.SeatGames` (the engine's n-seat door, the kernels every env
runs) with the n-seat observation of :func:`speed_env.party_obs.observe_seats`, so a bot sees
exactly what ``parallel_env(players=n)`` shows it. Game ``i`` of a chunk is the deal seeded
``(seed << 32) + start + i``, as in the two-player tournament; each seat's bot is built from the
chunk's seed as there, so a chunk is a pure function of the settings and its index: the same
results for any number of workers, on either job backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agents.specs.guarded import calling, checked_act, seed_globals
from agents.think.plan import ThinkPlan, seat_profile
from agents.tournament.harness import Chunk
from speed_env.party_obs import observe_seats
from speed_env.reaction import ReactionProfile, make_profile
from speed_env.rules import Rules
from speed_env.seats import SeatGames


@dataclass(frozen=True)
class TableSettings:
    """One point of a crowd sweep: the swept spec in one seat, the field spec in the others."""

    agent: str
    """The swept agent's spec as seated (``greedy@200``, or bare with ``reaction`` its shape)."""
    opponent: str
    """The field's spec as seated (``greedy@250``): the opponent in every other seat."""
    games: int
    """Games asked for: ``games // players`` deals, each played once per seat of the swept agent."""
    rules: Rules
    reaction: ReactionProfile = field(default_factory=lambda: make_profile("human"))
    """Profile of a seat whose spec carries no ``@reaction`` (a jitter-shaped swept agent's)."""
    tick_ms: int = 50
    seed: int = 0
    think: ThinkPlan | None = None
    """How each seat's thinking is charged (``declared``/``calibrated`` move its profile)."""

    def __post_init__(self) -> None:
        if self.think is not None and self.think.mode == "measured":
            raise ValueError(
                "--think measured times each decision of a two-seat table only; at a table of "
                f"{self.rules.players} use --think declared or calibrated"
            )

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.rules.players

    @property
    def deals(self) -> int:
        """Deals of the point: each played ``players`` times, the swept agent in each seat."""
        return max(1, self.games // self.players)

    def deal_seed(self, deal: int) -> int:
        """Seed of deal ``deal``: the two-player tournament's, so the same deals at every point."""
        return (self.seed << 32) + deal


def outcomes(winner: np.ndarray, truncated: np.ndarray, seat: int, players: int) -> np.ndarray:
    """Per game, from seat ``seat``'s side: +1 it won, -1 another seat did, 0 a draw or a cut.

    ``winner`` is :attr:`speed_env.seats.SeatGames.winner` (a seat, ``players`` for a draw),
    ``truncated`` the games cut off at ``max_game_ms``.
    """
    won = (winner == seat) & ~truncated
    lost = (winner >= 0) & (winner < players) & (winner != seat) & ~truncated
    return np.where(won, 1, np.where(lost, -1, 0)).astype(np.int8)


def play_rotation(
    settings: TableSettings, seat: int, start: int, count: int, seed: int
) -> np.ndarray:
    """Deals ``start .. start + count`` once, the swept agent in ``seat``; per-deal outcomes.

    Seat ``p``'s bot is built with ``seed + p``; every call into a bot is attributed
    (:mod:`agents.specs.guarded`), a failure one line naming the agent, the seat and the deals.
    """
    from agents.specs.realtime import REALTIME

    n = settings.players
    specs = [settings.agent if p == seat else settings.opponent for p in range(n)]
    last = start + count - 1
    where = [
        f"{settings.agent} at a table of {n} ({'swept' if p == seat else 'field'} seat {p}), "
        f"deals {start}-{last}"
        for p in range(n)
    ]
    seed_globals(seed)
    bots, reactions = [], []
    for p, spec in enumerate(specs):
        with calling(spec, "building it", where[p]):
            bots.append(REALTIME.make(spec, settings.rules, seed + p))
            reactions.append(seat_profile(bots[p], spec, settings.reaction, settings.think))
    games = SeatGames(
        count,
        settings.rules,
        tick_ms=settings.tick_ms,
        reactions=reactions,
        seed=settings.deal_seed(start),
    )
    actions = np.zeros((n, count), np.int64)
    while not games.over.all():
        running = np.flatnonzero(~games.over)  # a finished game waits, over, for the rest
        masks = games.masks()
        deals = [f"deal {start + int(b)}" for b in running]
        actions[:] = 0
        observed = observe_seats(games.state, settings.rules)  # every seat of every game
        for p in range(n):
            actions[p, running] = checked_act(
                bots[p], observed[p, running], masks[p, running], spec=specs[p], where=where[p],
                rows=deals.__getitem__,
            )  # fmt: skip
        games.step(actions)
    return outcomes(games.winner, games.state["truncated"].astype(bool), seat, n)


def run_table_chunk(settings: TableSettings, chunk: Chunk) -> list[int]:
    """One chunk of a point: each of its deals with the swept agent in every seat in turn.

    Returns the outcomes in deal order, then seat (as the two-player chunk's deal, then seating).
    """
    n = settings.players
    per_seat = []
    for seat in range(n):
        # The steps of 2n keep every chunk's and rotation's seats' seeds apart; the mask keeps the
        # seed a non-negative 31-bit int, as the two-player tournament's.
        seed = (settings.seed * 1_000_003 + chunk.index * 2 * n * n + seat * n) & 0x7FFFFFFF
        per_seat.append(play_rotation(settings, seat, chunk.start, chunk.count, seed))
    return [int(x) for x in np.stack(per_seat, axis=1).reshape(-1)]
