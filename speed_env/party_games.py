"""``PartyGames``: a batch of three- or four-seat games with their settings, for the batch doors.

The n-seat twin of :class:`speed_env.game.Games` (which stays the two-seat
path, unchanged), with the calls ``BatchEnv`` and the vector envs make of it:
deal (seeded or explicit), check the actions, step and observe every game in
one compiled pass (:mod:`speed_env.party_step`), restart games, read the
records. Observations are Party Speed's ego-centric n-seat vectors
(:mod:`speed_env.party_obs`), arrays seat-major: ``(players, n, …)``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env import engine
from speed_env.batch_size import bytes_per_game, check_batch_size
from speed_env.deal import Deal, parse_deal
from speed_env.game import ActionError
from speed_env.party_obs import observe_range, party_obs_dim
from speed_env.party_step import party_restart_observe, run_party_tick
from speed_env.reaction import ReactionError, ReactionProfile, make_profile
from speed_env.rng import MASK64
from speed_env.rules import Rules, RulesError, check_ms, make_rules
from speed_env.settings import ILLEGAL_POLICIES
from speed_env.step_observe import Tick, in_parts
from speed_env.table import deal_explicit, full_table, match_points, snapshot


@dataclass(frozen=True)
class PartySettings:
    """The settings of a table of three or four (checked: build it with :func:`party_settings`)."""

    rules: Rules
    """The rules, single-rule options applied; ``rules.players`` is 3 or 4."""
    tick_ms: int
    """Length of one env step in ms."""
    reactions: tuple[ReactionProfile, ...]
    """Each seat's reaction profile, in seat order."""
    illegal_action: str
    """One of :data:`~speed_env.settings.ILLEGAL_POLICIES`."""


def seat_profiles(reaction: object, players: int) -> tuple[ReactionProfile, ...]:
    """One profile per seat from an env's ``reaction=``: None (the default ``human`` for all),
    one value for all, or a list/tuple of exactly ``players`` values."""
    if reaction is None:
        reaction = "human"
    if isinstance(reaction, list | tuple):
        if len(reaction) != players:
            raise ReactionError(
                f"reaction must be one value or one per seat ({players}: player_0 … "
                f"player_{players - 1}), got {len(reaction)}"
            )
        return tuple(make_profile(r) for r in reaction)
    one = make_profile(reaction)  # type: ignore[arg-type]
    return (one,) * players


def party_settings(
    rules: str | os.PathLike[str] | Rules = "us",
    *,
    tick_ms: int = 50,
    reaction: Any = None,
    illegal_action: str = "wait",
    **options: Any,
) -> PartySettings:
    """The envs' ``(rules, tick_ms, reaction, illegal_action, **options)`` for three or four
    players as one checked value (two players: :func:`speed_env.settings.table_settings`)."""
    if illegal_action not in ILLEGAL_POLICIES:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_POLICIES}, got {illegal_action!r}"
        )
    checked = make_rules(rules, **options)
    if checked.players == 2:
        raise RulesError("PartyGames seats 3 or 4 players; two play speed_env.game.Games")
    return PartySettings(
        rules=checked,
        tick_ms=check_ms("tick_ms", tick_ms, low=1),
        reactions=seat_profiles(reaction, checked.players),
        illegal_action=illegal_action,
    )


def seats_asked(rules: Any, options: dict[str, Any]) -> int:
    """How many players ``rules`` with ``options`` seat; 2 where they cannot be read, so the
    two-seat door reports the fault exactly as it always has."""
    try:
        return make_rules(rules, **options).players
    except (RulesError, TypeError, ValueError, OSError):
        return 2


class PartyGames:
    """``n`` games of three or four players under one :class:`PartySettings`.

    ``PartyGames(n, rules, tick_ms=..., reaction=..., illegal_action=..., **options)``;
    ``threads`` shares each step out among that many threads.
    """

    def __init__(
        self,
        n: int,
        rules: str | os.PathLike[str] | Rules | PartySettings = "us",
        *,
        threads: int = 1,
        **settings: Any,
    ) -> None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads must be a whole number >= 1, got {threads!r}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of games must be a whole number >= 1, got {n!r}")
        self.threads = int(threads)
        self.settings = (
            rules if isinstance(rules, PartySettings) else party_settings(rules, **settings)
        )
        self.rules: Rules = self.settings.rules
        self.players = self.rules.players
        self.n = int(n)
        self.tick_ms = self.settings.tick_ms
        self.reactions = self.settings.reactions
        self.illegal_action = self.settings.illegal_action
        self.n_actions = engine.n_actions(self.rules)
        self.obs_dim = party_obs_dim(self.rules)
        record = engine.state_dtype(self.players).itemsize
        check_batch_size(
            self.n, bytes_per_game(record, self.obs_dim, self.n_actions, seats=self.players)
        )
        self.cfg = engine.config(self.rules, self.tick_ms)
        self.lat = np.empty((self.n, self.players, 5), np.float64)
        self.set_reactions(self.reactions)
        self.state = engine.new_state(self.n, self.players)
        self.obs_buf = np.zeros((self.players, self.n, self.obs_dim), np.float32)
        self.mask_buf = np.zeros((self.players, self.n, self.n_actions), np.int8)
        self._not_finished = np.zeros(self.n, np.bool_)
        self._synced = False

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled (maybe in a fresh process): the records' kernels are compiled first."""
        engine.compile_seats(state["players"])
        self.__dict__.update(state)

    def set_reactions(self, reactions: Sequence[ReactionProfile], games: Any = slice(None)) -> None:
        """Give the seats of ``games`` (default all) these profiles, one per seat."""
        for p, profile in enumerate(reactions):
            self.lat[games, p] = profile.params()

    def deal_seeded(
        self, games: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray
    ) -> None:
        """Deal ``games[j]`` as the game seeded ``seeds[j]``."""
        seeds64 = np.array([int(x) & MASK64 for x in seeds], dtype=np.uint64)
        engine.deal_many(self.state, self.cfg, np.asarray(games, np.int64), seeds64)
        self._synced = False

    def deal_explicit(self, game: int, deal: dict[str, Any] | Deal, seed: int) -> None:
        """Start ``game`` from an explicit deal (public format, validated)."""
        parsed = deal if isinstance(deal, Deal) else parse_deal(self.rules, deal)
        deal_explicit(self.state, self.cfg, game, parsed, seed)
        self._synced = False

    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64 ``(players, n)``, refusing anything outside the action space."""
        a = np.asarray(actions)
        shape = (self.players, self.n)
        if a.shape != shape:
            raise ActionError(f"actions must have shape {shape} (seat-major), got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):
            raise ActionError(f"actions must be an integer array, got dtype {a.dtype}")
        bad = (a < 0) | (a >= self.n_actions)
        if bad.any():
            p, b = np.argwhere(bad)[0]
            raise ActionError(
                f"action {int(a[p, b])} of seat {p} in game {b} is outside the action space "
                f"Discrete({self.n_actions})"
            )
        return a.astype(np.int64, copy=False)

    def check_legal(self, actions: np.ndarray) -> None:
        """With ``illegal_action="raise"``, refuse an in-space action that is illegal now."""
        if self.illegal_action != "raise":
            return
        row = np.empty(self.n_actions, np.int8)
        for p in range(self.players):
            for b in np.flatnonzero(actions[p]).tolist():
                engine.legal_row(self.state[b], self.cfg, p, row)
                if row[actions[p, b]] == 0:
                    who = f"player_{p}" if self.n == 1 else f"seat {p} in game {b}"
                    legal = np.flatnonzero(row).tolist()
                    raise ActionError(
                        f"action {int(actions[p, b])} of {who} is illegal now; legal: {legal}"
                    )

    def step_observe(
        self, actions: np.ndarray, finished: np.ndarray | None = None, fresh: bool = False
    ) -> tuple[Tick, int]:
        """Advance every game one tick and observe it, in one pass (as ``Games.step_observe``)."""
        done = self._not_finished if finished is None else finished
        tick, n_over = run_party_tick(self, actions, done, not self._synced, fresh)
        self._synced = True
        return tick, n_over

    def restart_observe(
        self, games: np.ndarray, seeds: Sequence[int], tick: Tick | None = None
    ) -> None:
        """Deal ``games[j]`` as the game seeded ``seeds[j]`` and rewrite its rows of the buffers
        (and of ``tick``'s ``obs`` and ``mask`` when they are fresh arrays)."""
        seeds64 = np.array([int(x) & MASK64 for x in seeds], dtype=np.uint64)
        obs, mask = (self.obs_buf, self.mask_buf) if tick is None else (tick.obs, tick.mask)
        party_restart_observe(
            self.state,
            self.cfg,
            np.asarray(games, np.int64),
            seeds64,
            self.obs_buf,
            self.mask_buf,
            obs,
            mask,
        )

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh observations ``(players, n, obs_dim)`` and masks ``(players, n, n_actions)``."""
        in_parts(
            lambda lo, hi: observe_range(self.state, self.cfg, self.obs_buf, self.mask_buf, lo, hi),
            self.n,
            self.threads,
        )
        self._synced = True
        return self.obs_buf.copy(), self.mask_buf.copy()

    def copy_buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh copies of :attr:`obs_buf` and :attr:`mask_buf`."""
        return self.obs_buf.copy(), self.mask_buf.copy()

    @property
    def over(self) -> np.ndarray:
        """bool ``(n,)``: the game has ended, with a result or truncated (a fresh array)."""
        return self.state["phase"] == engine.OVER

    @property
    def winner(self) -> np.ndarray:
        """int8 ``(n,)``: the winning seat, ``players`` a draw, -1 running or truncated; fresh."""
        return self.state["winner"].copy()

    def match_points(self) -> np.ndarray | None:
        """Every game's match points, int64 ``(players, n)``; ``None`` for ``japanese``."""
        return match_points(self.state, self.rules)

    def table(self, game: int = 0) -> dict[str, Any]:
        """The full table of ``game``, hidden piles included (docs/rules.md, "The full table")."""
        return full_table(self.state, game, self.rules.hand_size, self.players)

    def snapshot(self, game: int = 0) -> dict[str, Any]:
        """The public JSON-ready table of ``game`` (docs/envs/speed.md, ``snapshot()``): every
        seat in seat order, one centre pile per seat."""
        return snapshot(self.state, game, self.rules)
