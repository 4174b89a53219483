"""``SeatGames``: a batch of games of any seat count (2, 3 or 4 players), straight on the engine.

The envs (``parallel_env``, ``BatchEnv`` …) seat two players; this is the
engine's own door for Party Speed's three and four (docs/rules.md, "Party
Speed": two decks, a centre pile and a side pile per player), with the very
kernels the envs run (:mod:`speed_env.engine`: seats and piles are array
dimensions of one record, the two-player game a record of two). It deals,
steps, gives each seat's action mask and rewards, and reads the full table;
it has no observation (the ego-centric n-seat observation belongs to the
n-seat envs).

Actions per seat: ``0`` waits, ``1 + n * r + j`` plays a card of rank ``r``
onto pile ``j`` counted from the seat's own pile (two players: the pile
itself). Rewards of a game won on a tick: +1 the winner, ``-1/(n-1)`` each
other seat.

    >>> from speed_env.seats import SeatGames
    >>> games = SeatGames(2, "us", players=4, seed=7)
    >>> games.masks().shape
    (4, 2, 53)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from speed_env import engine
from speed_env.deal import Deal, parse_deal
from speed_env.reaction import ReactionProfile, make_profile
from speed_env.rng import MASK64
from speed_env.rules import Rules, check_ms, make_rules
from speed_env.table import deal_explicit, full_table, match_points, snapshot


class SeatGames:
    """``n`` games under one rules value of any seat count, stepped together on the engine."""

    def __init__(
        self,
        n: int,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        tick_ms: int = 50,
        reactions: Sequence[Any] | None = None,
        seed: int = 0,
        **options: Any,
    ) -> None:
        """``n`` games dealt from seeds ``seed``, ``seed + 1`` …; ``reactions`` one profile (or
        ms, or a preset name) per seat, default ``"human"`` for every seat."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n (the number of games) must be a whole number >= 1, got {n!r}")
        self.rules = make_rules(rules, **options)
        self.players = self.rules.players
        self.tick_ms = check_ms("tick_ms", tick_ms, low=1)
        given = ["human"] * self.players if reactions is None else list(reactions)
        if len(given) != self.players:
            raise ValueError(
                f"reactions must give one profile per seat ({self.players}), got {len(given)}"
            )
        self.reactions: tuple[ReactionProfile, ...] = tuple(make_profile(r) for r in given)
        self.n = n
        self.n_actions = engine.n_actions(self.rules)
        self.cfg = engine.config(self.rules, self.tick_ms)
        self.state = engine.new_state(n, self.players)
        self.lat = np.zeros((n, self.players, 5), np.float64)
        self.set_reactions(self.reactions)
        self.reset(np.arange(n, dtype=object) + seed)

    def set_reactions(self, profiles: Sequence[ReactionProfile]) -> None:
        """Give every game's seat ``p`` the profile ``profiles[p]`` (``reactions`` stays the
        profiles the games were built with)."""
        for p, profile in enumerate(profiles):
            self.lat[:, p] = profile.params()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (maybe in a fresh process): the records' kernels are compiled first."""
        engine.compile_seats(state["players"])
        self.__dict__.update(state)

    def reset(self, seeds: Sequence[int] | np.ndarray) -> None:
        """Deal every game afresh, game ``b`` from ``seeds[b]``."""
        if len(seeds) != self.n:
            raise ValueError(f"reset needs one seed per game ({self.n}), got {len(seeds)}")
        seeds64 = np.array([int(x) & MASK64 for x in seeds], np.uint64)
        engine.deal_many(self.state, self.cfg, np.arange(self.n, dtype=np.int64), seeds64)

    def reset_game(self, b: int, seed: int) -> None:
        """Deal game ``b`` afresh from ``seed`` (the others go on as they are)."""
        seeds64 = np.array([int(seed) & MASK64], np.uint64)
        engine.deal_many(self.state, self.cfg, np.array([b], np.int64), seeds64)

    def start(self, b: int, deal: Deal | dict[str, Any], seed: int = 0) -> None:
        """Start game ``b`` from an explicit deal (the public deal format, one entry per seat
        and pile: docs/envs/speed.md, "Explicit deals"), checked by ``parse_deal``."""
        checked = deal if isinstance(deal, Deal) else parse_deal(self.rules, deal)
        deal_explicit(self.state, self.cfg, b, checked, seed)

    def masks(self) -> np.ndarray:
        """int8 ``(players, n, n_actions)``: each seat's legal actions in each game now."""
        out = np.zeros((self.players, self.n, self.n_actions), np.int8)
        for p in range(self.players):
            for b in range(self.n):
                engine.legal_row(self.state[b], self.cfg, p, out[p, b])
        return out

    def step(self, actions: np.ndarray) -> np.ndarray:
        """One tick of every game with ``actions`` (players, n); float32 ``(players, n)`` rewards
        of the games won on it (an illegal action counts as a wait, as in the envs)."""
        acts = np.asarray(actions)
        if acts.shape != (self.players, self.n) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be integers of shape ({self.players}, {self.n}), "
                f"got {acts.dtype} {acts.shape}"
            )
        if acts.size and (acts.min() < 0 or acts.max() >= self.n_actions):
            raise ValueError(f"actions must lie in 0 … {self.n_actions - 1}")
        rewards = np.zeros((self.players, self.n), np.float32)
        engine.step_all(self.state, self.cfg, self.lat, acts.astype(np.int64), rewards)
        return rewards

    @property
    def over(self) -> np.ndarray:
        """bool (n,): the game has ended (won, drawn or truncated)."""
        return self.state["phase"] == engine.OVER

    @property
    def winner(self) -> np.ndarray:
        """int8 (n,): the winning seat, ``players`` for a draw, -1 none (yet, or truncated)."""
        return self.state["winner"].copy()

    def points(self) -> np.ndarray | None:
        """int64 ``(players, n)`` match points of each game (docs/rules.md, "Match points": the
        winner of a finished game scores the cards every other seat still holds); ``None`` in
        ``japanese``."""
        return match_points(self.state, self.rules)

    def table(self, b: int) -> dict[str, Any]:
        """Everything about game ``b`` (docs/rules.md, "The full table"), ``players`` seats."""
        return full_table(self.state, b, self.rules.hand_size, self.players)

    def snapshot(self, b: int) -> dict[str, Any]:
        """The public JSON-ready table of game ``b`` (docs/envs/speed.md, ``snapshot()``)."""
        return snapshot(self.state, b, self.rules)
