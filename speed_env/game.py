"""``Games``: a batch of real-time Speed games with their settings, over the engine.

This is the one place that turns the settings (a
:class:`~speed_env.settings.TableSettings`: rules, tick, reaction profiles,
the illegal-action policy) into the engine's arrays, that checks actions
before they reach the compiled kernels, and that reads the engine's records:
callers ask by name (:attr:`Games.over`, :attr:`Games.truncated`,
:attr:`Games.winner`, :attr:`Games.stats`, :meth:`Games.outcome`) and step
every game (:meth:`Games.step_observe`, :meth:`Games.step`) or chosen ones
(:meth:`Games.step_games`). ``BatchEnv``, the PettingZoo and Gymnasium envs
and the training env (``train/vec_env/env.py``) are thin layers over it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from speed_env import engine
from speed_env.batch_size import bytes_per_game, check_batch_size
from speed_env.deal import Deal, parse_deal
from speed_env.observation import obs_dim, observe_all, observe_games
from speed_env.reaction import ReactionProfile
from speed_env.rng import MASK64
from speed_env.rules import Rules
from speed_env.settings import TableSettings, table_settings
from speed_env.shown import shown
from speed_env.step_observe import Tick, first_illegal, in_parts, restart_observe, run_tick
from speed_env.table import AGENTS, deal_explicit, full_table, match_points, snapshot


class ActionError(ValueError):
    """An action is outside the action space, or illegal with ``illegal_action="raise"``."""


def check_action(action: object, n_actions: int, who: str) -> int:
    """One agent's action as a Python int in ``[0, n_actions)``, else an :class:`ActionError`
    naming ``who``.

    The one check of a single action every Speed env uses: a Python or numpy
    integer, or a 0-d integer array, is taken; a bool, a float (even ``1.0``),
    a string or an array of another shape is refused, and so is an integer
    outside the space, however large.
    """
    value = action.item() if isinstance(action, np.ndarray) and action.shape == () else action
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ActionError(
            f"action for {who} must be an integer in 0..{n_actions - 1}, got {shown(action)} "
            f"of type {type(action).__name__}"
        )
    if not 0 <= value < n_actions:
        raise ActionError(
            f"action {value} for {who} is outside the action space Discrete({n_actions})"
        )
    return int(value)


def check_seed(seed: object) -> int | None:
    """``seed`` as a Python int in ``[0, 2**64)`` (or None), refusing floats, bools and strings.

    A game's seed is 64 bits; Gymnasium also refuses negative seeds.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(
            f"seed must be a whole number or None, got {shown(seed)} of type {type(seed).__name__}"
        )
    if not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed must be between 0 and 2**64 - 1, got {int(seed)}")
    return int(seed)


def reset_seeds(
    generator: np.random.Generator | None, seed: int | None
) -> tuple[np.random.Generator, int]:
    """A multi-agent env's reset seeding: ``(the generator later unseeded resets draw from,
    this reset's game seed)`` for a ``seed`` already checked by :func:`check_seed`.

    ``seed=s`` deals the game seeded ``s`` and restarts the generator from ``s``
    (Gymnasium's convention); ``None`` draws the game's seed from ``generator``,
    which starts from OS entropy before any seed. The parallel envs of every seat
    count reset through this one function, so they seed alike.
    """
    if seed is not None:
        return seeding.np_random(seed)[0], seed
    if generator is None:
        generator = seeding.np_random()[0]
    return generator, int(generator.integers(2**63))


RENDER_MODES = ("human", "ansi", "rgb_array")
"""The real-time envs' render modes, at any seat count (drawn by :mod:`speed_env.render.modes`)."""


def check_render_mode(render_mode: object, modes: Sequence[str]) -> str | None:
    """``render_mode`` if it is None or one of an env's ``modes``, else a ``ValueError``
    naming them: every env, both games, refuses alike."""
    if render_mode is None:
        return None
    if not isinstance(render_mode, str) or render_mode not in modes:
        raise ValueError(f"render_mode must be one of {list(modes)} or None, got {render_mode!r}")
    return render_mode


def check_max_cycles(max_cycles: object) -> int | None:
    """``max_cycles`` as an int >= 1 (or None: no limit), else a ``ValueError`` naming it."""
    if max_cycles is None:
        return None
    if (
        isinstance(max_cycles, bool)
        or not isinstance(max_cycles, int | np.integer)
        or max_cycles < 1
    ):
        raise ValueError(
            f"max_cycles must be a whole number of ticks >= 1 or None, got {max_cycles!r}"
        )
    return int(max_cycles)


def check_options(options: object, *, deal: bool = True, env: str = "this env") -> dict[str, Any]:
    """``reset``'s ``options`` as a dict (None: empty); unknown keys pass (PettingZoo's checkers
    send some).

    Anything but a dict or None is refused, and so is a ``deal`` where the env
    cannot start from one (``deal=False``).
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(
            "reset options must be a dict such as {'deal': {...}} or None, "
            f"got {shown(options)} of type {type(options).__name__}"
        )
    if not deal and options.get("deal") is not None:
        raise ValueError(
            f"{env} does not start from an explicit deal (options['deal']); use parallel_env, "
            f"env() or SpeedGymEnv for that"
        )
    return options


class GameStats:
    """Running counts of every game of a batch, seat-major: each a fresh array, read from the
    engine's records when it is asked for (so reading one costs one copy)."""

    __slots__ = ("_state",)

    def __init__(self, state: np.ndarray) -> None:
        self._state = state

    @property
    def played(self) -> np.ndarray:
        """int32 (2, n): cards each seat has played (landed on a centre pile)."""
        return self._state["played"].T.copy()

    @property
    def bounced(self) -> np.ndarray:
        """int32 (2, n): cards each seat has had bounce back."""
        return self._state["bounced"].T.copy()

    @property
    def illegal(self) -> np.ndarray:
        """int32 (2, n): illegal actions each seat has given (each taken as a wait)."""
        return self._state["illegal"].T.copy()

    @property
    def clock_ms(self) -> np.ndarray:
        """int64 (n,): the game's clock (its length once it is over)."""
        return self._state["clock"].copy()


class Games:
    """``n`` games under one :class:`~speed_env.settings.TableSettings`.

    ``Games(n, rules, tick_ms=..., reaction=..., illegal_action=..., **options)``
    takes the settings as :func:`~speed_env.settings.table_settings` does, or
    one ``TableSettings``; ``threads`` shares each step out among that many
    threads.
    """

    def __init__(
        self,
        n: int,
        rules: str | os.PathLike[str] | Rules | TableSettings = "us",
        *,
        threads: int = 1,
        **settings: Any,
    ) -> None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads must be a whole number >= 1, got {threads!r}")
        self.threads = int(threads)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of games must be a whole number >= 1, got {n!r}")
        self.settings = table_settings(rules, **settings)
        self.rules: Rules = self.settings.rules
        self.n = int(n)
        self.tick_ms = self.settings.tick_ms
        self.reactions: tuple[ReactionProfile, ReactionProfile] = self.settings.reactions
        self.illegal_action = self.settings.illegal_action
        self.n_actions = engine.n_actions(self.rules)
        self.obs_dim = obs_dim(self.rules)
        # Before any array of n games exists: a batch too large is refused, not half-allocated.
        check_batch_size(
            self.n, bytes_per_game(engine.state_dtype().itemsize, self.obs_dim, self.n_actions)
        )
        self.cfg = engine.config(self.rules, self.tick_ms)
        self.lat = np.empty((self.n, 2, 5), np.float64)
        self.set_reactions(self.reactions)
        self.state = engine.new_state(self.n)
        self._rewards = np.zeros((2, self.n), np.float32)
        self._not_finished = np.zeros(self.n, np.bool_)
        # The games' current observations and masks, kept up to date by step_observe
        # (which rewrites only what a tick changed) while ``_synced``.
        self.obs_buf = np.zeros((2, self.n, self.obs_dim), np.float32)
        self.mask_buf = np.zeros((2, self.n, self.n_actions), np.int8)
        self._synced = False

    def set_reactions(
        self, reactions: tuple[ReactionProfile, ReactionProfile], games: Any = slice(None)
    ) -> None:
        """Give seats 0 and 1 of ``games`` (default all) these reaction profiles."""
        self.lat[games, 0] = reactions[0].params()
        self.lat[games, 1] = reactions[1].params()

    # ----------------------------------------------------------------- dealing
    def deal_seeded(
        self, games: Sequence[int] | np.ndarray, seeds: Sequence[int] | np.ndarray
    ) -> None:
        """Deal ``games[j]`` as the game seeded ``seeds[j]`` (Python ints or uint64)."""
        seeds64 = np.array([int(x) & MASK64 for x in seeds], dtype=np.uint64)
        engine.deal_many(self.state, self.cfg, np.asarray(games, np.int64), seeds64)
        self._synced = False

    def deal_explicit(self, game: int, deal: dict[str, Any] | Deal, seed: int) -> None:
        """Start ``game`` from an explicit deal (public format, validated)."""
        parsed = deal if isinstance(deal, Deal) else parse_deal(self.rules, deal)
        deal_explicit(self.state, self.cfg, game, parsed, seed)
        self._synced = False

    # ----------------------------------------------------------------- stepping
    def check_actions(self, actions: np.ndarray) -> np.ndarray:
        """``actions`` as int64 (2, n), refusing anything outside the action space."""
        a = np.asarray(actions)
        if a.shape != (2, self.n):
            raise ActionError(f"actions must have shape (2, {self.n}) (seat-major), got {a.shape}")
        if not np.issubdtype(a.dtype, np.integer):  # bools are not integers to numpy either
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
        at = first_illegal(self.state, self.cfg, actions, row)
        if at >= 0:
            p, b = divmod(at, self.n)
            legal = np.flatnonzero(row).tolist()
            who = AGENTS[p] if self.n == 1 else f"seat {p} in game {b}"
            raise ActionError(
                f"action {int(actions[p, b])} of {who} is illegal now; legal: {legal}"
            )

    def step_observe(
        self, actions: np.ndarray, finished: np.ndarray | None = None, fresh: bool = False
    ) -> tuple[Tick, int]:
        """Advance every game one tick and observe it, in one pass; the :class:`Tick` and how
        many are over.

        The tick's ``obs`` and ``mask`` are :attr:`obs_buf` and :attr:`mask_buf`,
        updated in place (copy them to keep them), or with ``fresh`` new arrays
        holding the same numbers, written in the same pass. ``finished`` (n,)
        bool marks games whose end was already reported: they are not ``over`` again.
        """
        done = self._not_finished if finished is None else finished
        tick, n_over = run_tick(self, actions, done, not self._synced, fresh)
        self._synced = True
        return tick, n_over

    def restart_observe(
        self, games: np.ndarray, seeds: Sequence[int], tick: Tick | None = None
    ) -> None:
        """Deal ``games[j]`` as the game seeded ``seeds[j]`` and rewrite its rows of the buffers
        (and of ``tick``'s ``obs`` and ``mask`` when they are fresh arrays)."""
        seeds64 = np.array([int(x) & MASK64 for x in seeds], dtype=np.uint64)
        obs, mask = (self.obs_buf, self.mask_buf) if tick is None else (tick.obs, tick.mask)
        restart_observe(
            self.state,
            self.cfg,
            np.asarray(games, np.int64),
            seeds64,
            self.obs_buf,
            self.mask_buf,
            obs,
            mask,
        )

    def step(self, actions: np.ndarray) -> np.ndarray:
        """Advance every game one tick; return rewards (2, n) of games that ended on it."""
        engine.step_all(self.state, self.cfg, self.lat, actions, self._rewards)
        self._synced = False
        return self._rewards.copy()

    def step_games(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Advance only the listed games one tick; bool ``(len(games),)``: it ended on this tick.

        ``games`` are distinct game indices, ``actions`` int64 ``(2, len(games))``
        their seats' actions (checked by the caller: an illegal in-space action is a
        wait, counted in :attr:`stats`). A game already over stays as it is.
        The other games do not move, so games can run at their own pace (the
        training env plays a game on to the learner's next decision); read what
        changed with :meth:`observe_games`.
        """
        rows = np.asarray(games, np.int64)
        ended = np.zeros(rows.shape[0], np.bool_)
        engine.step_some(self.state, self.cfg, self.lat, rows, actions, ended)
        self._synced = False
        return ended

    def state_changed(self) -> None:
        """Say that a caller's own compiled kernel stepped :attr:`state` (the training env's
        skip loop does): the buffers of :meth:`step_observe` are stale, the next call observes
        every game whole."""
        self._synced = False

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh (never aliased) observations (2, n, obs_dim) and masks (2, n, n_actions)."""
        observe_all(self.state, self.cfg, self.obs_buf, self.mask_buf)
        self._synced = True
        return self.obs_buf.copy(), self.mask_buf.copy()

    def copy_buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh copies of :attr:`obs_buf` and :attr:`mask_buf` (in ``threads`` threads)."""
        obs, mask = np.empty_like(self.obs_buf), np.empty_like(self.mask_buf)

        def part(lo: int, hi: int) -> None:  # numpy copies release the GIL
            obs[:, lo:hi] = self.obs_buf[:, lo:hi]
            mask[:, lo:hi] = self.mask_buf[:, lo:hi]

        in_parts(part, self.n, self.threads)
        return obs, mask

    def observe_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        """Rewrite, in place, the rows of ``obs``/``mask`` of the listed games (after restarts)."""
        observe_games(self.state, self.cfg, np.asarray(games, np.int64), obs, mask)

    # ----------------------------------------------------------------- results
    @property
    def over(self) -> np.ndarray:
        """bool ``(n,)``: the game has ended, with a result or truncated (a fresh array)."""
        return self.state["phase"] == engine.OVER

    @property
    def truncated(self) -> np.ndarray:
        """bool ``(n,)``: the game was cut at ``max_game_ms`` (then ``over``, winner -1); fresh."""
        return self.state["truncated"].copy()

    @property
    def winner(self) -> np.ndarray:
        """int8 ``(n,)``: 0 / 1 the winning seat, 2 a draw, -1 running or truncated; fresh."""
        return self.state["winner"].copy()

    @property
    def stats(self) -> GameStats:
        """Each game's counts so far: played, bounced, illegal (seat-major) and its clock."""
        return GameStats(self.state)

    def illegal_totals(self, game: int) -> list[int]:
        """Illegal actions each seat of game ``game`` has given so far, as Python ints.

        What a batch of one reads every step: one read of the record, where
        :attr:`stats` copies every game's counts (a microsecond a step)."""
        return self.state["illegal"][game].tolist()

    def outcome(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float32: +1 where ``seats[j]`` won game ``games[j]``, -1 where it lost, else 0.

        0 covers a draw, a truncated game and a game still running.
        """
        winner = self.state["winner"][games].astype(np.int64)
        won = ~self.state["truncated"][games] & ((winner == 0) | (winner == 1))
        return np.where(won, np.where(winner == seats, 1, -1), 0).astype(np.float32)

    # ----------------------------------------------------------------- views
    def snapshot(self, game: int = 0) -> dict[str, Any]:
        """The public JSON-ready table of ``game``."""
        return snapshot(self.state, game, self.rules)

    def match_points(self) -> np.ndarray | None:
        """Every game's match points, int64 ``(2, n)`` (0 unless won); ``None`` for ``japanese``."""
        return match_points(self.state, self.rules)

    def table(self, game: int = 0) -> dict[str, Any]:
        """The full table of ``game``, hidden piles included (for tests and debugging)."""
        return full_table(self.state, game, self.rules.hand_size)
