"""What both vector envs share: games on the batch engine as rows, infos, autoreset, seeding.

Both envs follow Gymnasium 1.x's vector conventions: batched ``observation_space``
and ``action_space`` beside ``single_observation_space`` and
``single_action_space``; rewards float32 ``(num_envs,)``; terminations and
truncations bool ``(num_envs,)``; infos as arrays with a ``_key`` flag array
saying which sub-envs set ``key`` (``VectorEnv._add_info``'s layout). With
``obs_format="box"`` (the default) the mask is ``infos["action_mask"]`` (int8
``(num_envs, n_actions)``, ``infos["_action_mask"]`` all True); with ``"dict"``
it is the observation's ``"action_mask"`` entry. ``action_masks()`` returns it
(int8) in both. Every array handed out is fresh: nothing the env writes later.

Autoreset modes (``autoreset_mode=``, ``metadata["autoreset_mode"]``)
    ``NEXT_STEP`` (the default, as Gymnasium's): the step after a game ended
    resets it (its action is ignored; reward 0, flags False, its info the
    reset's). ``SAME_STEP``: the step that ends a game returns the next game's
    first observation; the last one is ``infos["final_obs"]`` (an object array,
    ``None`` for games that did not end) and the ending step's info is
    ``infos["final_info"]``. ``DISABLED``: an ended game waits for
    ``reset(options={"reset_mask": mask})``; stepping the batch before that is
    an error naming the game. A string (``"same_step"``, ``"SameStep"``) is taken
    for the enum.

Reset options (:data:`RESET_KEYS`)
    ``reset_mask`` is Gymnasium's own vector option (``SyncVectorEnv`` takes it
    in every mode: a bool array, one per sub-env, marking those to reset); every
    other key is a sub-env's, and ``deal`` is the only one ``Speed-v1`` reads.
    In ``NEXT_STEP`` and ``SAME_STEP`` an unknown key is ignored, as
    ``SyncVectorEnv`` of ``Speed-v1`` ignores it. Under ``DISABLED`` it is
    refused, naming the key and the known ones: there the caller resets ended
    games with a ``reset_mask`` every time some end, so a misspelt mask
    (``reset_masks``) would silently restart every game in play.

Seeding, as ``SyncVectorEnv`` of single envs does it
    ``reset(seed=s)`` resets sub-env ``i`` with seed ``s + i`` (a list gives
    each its own; ``None`` leaves each on its own stream), and every later
    reset of game ``i``, automatic or not, draws from game ``i``'s own
    generator, seeded by its last seeded reset. So sub-env ``i`` plays exactly
    the games that ``gymnasium.make("speed_env/Speed-v1")`` plays reset with
    ``seed=s + i`` and then unseeded (and, for the self-play rows, that
    ``speed_env.parallel_env()`` plays): the differential tests check it
    step by step against ``gymnasium.vector.SyncVectorEnv`` and ``parallel_env``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit

from speed_env import engine
from speed_env.batch_size import bytes_per_game, bytes_per_row, check_batch_size
from speed_env.deal import parse_deal
from speed_env.game import (
    RENDER_MODES,
    ActionError,
    Games,
    check_options,
    check_render_mode,
    check_seed,
)
from speed_env.obs_format import check_obs_format, observation_space, package
from speed_env.observation import obs_dim
from speed_env.party_games import PartyGames, party_settings, seats_asked
from speed_env.party_obs import party_obs_dim
from speed_env.rules import Rules
from speed_env.settings import table_settings
from speed_env.shown import shown
from speed_env.table import AGENTS

RESET_KEYS = ("reset_mask", "deal")
"""The ``reset`` option keys a vector env reads; under ``DISABLED`` autoreset no other is taken."""

TABLE_KEYS = ("tick_ms", "reaction", "illegal_action")
"""The table settings beside ``rules`` and its options that ``_setup`` takes."""

END_KEYS = frozenset({"winner", "points", "played", "bounced", "clock_ms"})
"""Info keys set only on the step that ends a game."""


@njit(cache=True)
def rows_of(buf: np.ndarray, seats: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``buf[seats[r], games[r]]`` for each ``r``, in a fresh array: one pass over memory
    (numpy's two-array fancy index takes several times longer at a thousand rows)."""
    n, width = seats.shape[0], buf.shape[2]
    out = np.empty((n, width), buf.dtype)
    for r in range(n):
        s, g = seats[r], games[r]
        for j in range(width):  # element by element: a row slice costs a view per row
            out[r, j] = buf[s, g, j]
    return out


def check_autoreset_mode(mode: object) -> AutoresetMode:
    """``mode`` as an :class:`AutoresetMode` (the enum, its value or its name in any case)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        for m in AutoresetMode:
            if mode.lower().replace("_", "") in (m.value.lower(), m.name.lower().replace("_", "")):
                return m
    names = ", ".join(f"AutoresetMode.{m.name}" for m in AutoresetMode)
    raise ValueError(f"autoreset_mode must be one of {names} (or its name), got {shown(mode)}")


def check_num_envs(num_envs: object) -> int:
    """``num_envs`` as an int >= 1, else a ``ValueError`` naming it."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be a whole number >= 1, got {shown(num_envs)}")
    return int(num_envs)


def check_reset_keys(options: dict[str, Any]) -> None:
    """Refuse an option key outside :data:`RESET_KEYS`, naming it and the known ones."""
    unknown = [key for key in options if key not in RESET_KEYS]
    if unknown:
        known = ", ".join(repr(k) for k in RESET_KEYS)
        raise ValueError(
            f"reset option {shown(unknown[0])} is not one this vector env knows ({known}); under "
            "autoreset_mode DISABLED an unknown key is refused, so that a misspelt 'reset_mask' "
            "cannot restart every game"
        )


def check_rows(rows: int, games: int, rules: Rules) -> None:
    """Refuse ``rows`` rows over ``games`` games above the batch bound or the memory available,
    naming ``num_envs`` and the estimate, before any array of them exists."""
    n_actions, seats = engine.n_actions(rules), rules.players
    dim = obs_dim(rules) if seats == 2 else party_obs_dim(rules)
    per_game = bytes_per_game(engine.state_dtype(seats).itemsize, dim, n_actions, seats=seats)
    per_row = bytes_per_row(per_game, games / rows, dim, n_actions)
    check_batch_size(rows, per_row, name="num_envs", unit="sub-envs")


def put_info(infos: dict[str, Any], key: str, values: np.ndarray, rows: np.ndarray) -> None:
    """Merge ``values[rows]`` into ``infos[key]`` with its ``_key`` flags, as
    ``VectorEnv._add_info`` does one sub-env at a time (zero or None where unset).

    ``values`` must be a fresh array, the caller's to give away: a new key
    takes it as it is, its unset rows cleared in place.
    """
    if not rows.any():
        return
    if key in infos:
        at = np.flatnonzero(rows)
        infos[key][at] = values[at]
        infos[f"_{key}"][at] = True
        return
    if not rows.all():
        values[~rows] = None if values.dtype == object else 0
    infos[key], infos[f"_{key}"] = values, rows.copy()


class GamesVectorEnv(VectorEnv):
    """What both vector envs share: games on the batch engine, rows, seeding and autoreset.

    A subclass says which seat and game each row is (:attr:`row_seat`,
    :attr:`row_game`), how a reset draws a game's deal (:meth:`_deal_seed`),
    who fills the seats no row acts for (:meth:`_other_actions`) and which
    info keys a row gets (:meth:`_step_info`, :meth:`_reset_info`).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (VectorEnv declares it; copied per env)
        "render_modes": list(RENDER_MODES),
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    row_seat: np.ndarray
    row_game: np.ndarray

    def _setup(
        self,
        games: int,
        rows: int,
        render_mode: str | None,
        obs_format: str,
        autoreset_mode: Any,
        /,
        **settings: Any,
    ) -> None:
        """Check the keywords both envs take and build ``games`` games as ``rows`` rows.

        ``settings`` go to :func:`~speed_env.settings.table_settings` as they are
        (``rules``, ``tick_ms``, ``reaction``, ``illegal_action``, rule options).
        """
        # Positional-only above: a rule option spelled like a parameter must still reach
        # table_settings, which names it in its refusal.
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.obs_format = check_obs_format(obs_format)
        self.autoreset_mode = check_autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.games: Games | PartyGames
        rule_keys = {k: v for k, v in settings.items() if k not in TABLE_KEYS}
        if seats_asked(rule_keys.pop("rules", "us"), rule_keys) != 2:
            party = party_settings(**settings)
            check_rows(rows, games, party.rules)
            self.games = PartyGames(games, party)
        else:
            table = table_settings(**settings)
            check_rows(rows, games, table.rules)
            self.games = Games(games, table)
        self.rules = self.games.rules
        self.players = self.rules.players
        self.n_games = games
        self.num_envs = rows
        self.render_mode = render_mode
        n_actions = self.games.n_actions
        vector = spaces.Box(0.0, 1.0, (self.games.obs_dim,), np.float32)
        self.single_observation_space = observation_space(self.obs_format, vector, n_actions)
        self.single_action_space = spaces.Discrete(n_actions)
        self.observation_space = batch_space(self.single_observation_space, rows)
        self.action_space = batch_space(self.single_action_space, rows)
        self._rngs: list[np.random.Generator | None] = [None] * games
        self._ended = np.zeros(games, bool)  # over, its next reset not yet done
        self._obs: np.ndarray | None = None  # the rows' current vectors and masks
        self._mask: np.ndarray | None = None
        self._all_games = np.arange(games)

    # ----------------------------------------------------------------- subclass hooks
    def _deal_seed(self, game: int, seed: int | None, rng: np.random.Generator) -> int:
        """Game ``game``'s deal seed at a reset (``seed`` its reset seed or None), drawn as the
        env it mirrors draws it from ``rng``, the game's generator."""
        raise NotImplementedError

    def _other_actions(self, raw: np.ndarray, stepped: np.ndarray) -> None:
        """Fill the seats of the ``stepped`` games that no row acts for (in place)."""

    def _step_info(self, tick: Any, ended: np.ndarray) -> dict[str, np.ndarray]:
        """Every row's step info as fresh arrays (the end keys of :data:`END_KEYS` only where
        ``ended``, games that ended on this tick, before any of them is reset)."""
        raise NotImplementedError

    def _reset_info(self) -> dict[str, np.ndarray]:
        """Every row's reset info as fresh arrays, after the reset."""
        raise NotImplementedError

    # ----------------------------------------------------------------- Gymnasium API
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every game, or with ``options={"reset_mask": mask}`` only those marked.

        ``seed``: an int ``s`` resets game ``k`` with ``s + k`` (rows: see the
        class); a list gives one seed (or ``None``) per game; ``None`` draws
        from each game's generator. ``options={"deal": {...}}`` deals every reset
        game that deal (docs/rules.md). Under ``DISABLED`` autoreset any other option key is
        refused (see the module docstring). Returns ``(observations, infos)``.
        """
        options = dict(check_options(options))
        if self.autoreset_mode == AutoresetMode.DISABLED:
            check_reset_keys(options)
        games = self._reset_games(options.pop("reset_mask", None))
        seeds = self._seeds(seed)
        deal = options.get("deal")
        parsed = None if deal is None else parse_deal(self.rules, deal)
        deal_seeds = [self._draw(int(g), seeds[g]) for g in games]
        if parsed is None:
            self.games.deal_seeded(games, deal_seeds)
        else:
            for g, s in zip(games, deal_seeds, strict=True):
                self.games.deal_explicit(int(g), parsed, s)
        self.games.observe()
        self._ended[games] = False
        self._gather()
        rows = np.isin(self.row_game, games)
        infos: dict[str, Any] = {}
        for key, value in self._reset_info().items():
            put_info(infos, key, value, rows)
        self._render_human()
        return self._observations(), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One tick of every game; ``(observations, rewards, terminations, truncations, infos)``."""
        if self._obs is None or self._mask is None:
            raise RuntimeError("call reset() before step()")
        a = self._check_actions(actions)
        mode = self.autoreset_mode
        if mode == AutoresetMode.DISABLED and self._ended.any():
            g = int(np.flatnonzero(self._ended)[0])
            raise RuntimeError(
                f"game {g} ({self._name_rows(g)}) ended on an earlier step and autoreset_mode is "
                "DISABLED: reset it first with reset(options={'reset_mask': mask}) "
                "(mask a bool array marking it)"
            )
        resetting = self._ended.copy() if mode == AutoresetMode.NEXT_STEP else None
        stepped = ~resetting if resetting is not None else np.ones(self.n_games, bool)
        stepped_rows = stepped[self.row_game]
        illegal = self._mask[np.arange(self.num_envs), a] == 0
        if self.games.illegal_action == "raise" and (illegal & stepped_rows).any():
            r = int(np.flatnonzero(illegal & stepped_rows)[0])
            legal = np.flatnonzero(self._mask[r]).tolist()
            raise ActionError(f"action {int(a[r])} of row {r} is illegal now; legal: {legal}")
        raw = np.zeros((self.players, self.n_games), np.int64)
        raw[self.row_seat, self.row_game] = np.where(stepped_rows, a, 0)
        self._other_actions(raw, np.flatnonzero(stepped))
        self.games.check_legal(raw)
        # Games waiting for their next-step reset count as finished: the engine leaves them
        # as they are and does not report their end again.
        tick, _ = self.games.step_observe(raw, resetting)
        over = tick.over & stepped
        row_over = over[self.row_game]
        rewards = np.where(stepped_rows, tick.rewards[self.row_seat, self.row_game], 0)
        rewards = rewards.astype(np.float32, copy=False)
        terminated = tick.terminated[self.row_game] & stepped_rows
        truncated = tick.truncated[self.row_game] & stepped_rows
        self._gather()
        step_info = self._step_info(tick, over)
        step_info["illegal"] = illegal
        infos: dict[str, Any] = {}
        if mode == AutoresetMode.SAME_STEP and over.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for r in np.flatnonzero(row_over).tolist():
                final_obs[r] = self._one_observation(r)
            final_info: dict[str, Any] = {}
            for key, value in step_info.items():  # a copy: the other rows' infos take these too
                put_info(final_info, key, value.copy(), row_over)  # end keys: every row here ended
            infos.update(
                final_obs=final_obs,
                _final_obs=row_over.copy(),
                final_info=final_info,
                _final_info=row_over.copy(),
            )
            self._restart(np.flatnonzero(over))
            info_rows = ~row_over
        elif resetting is not None and resetting.any():
            self._restart(np.flatnonzero(resetting))
            info_rows = stepped_rows
        else:
            info_rows = np.ones(self.num_envs, bool)
        if mode != AutoresetMode.SAME_STEP:
            self._ended |= over
        for key, value in step_info.items():
            # A game's result is in the info of the step that ended it only.
            put_info(infos, key, value, info_rows & row_over if key in END_KEYS else info_rows)
        if not info_rows.all():
            for key, value in self._reset_info().items():
                put_info(infos, key, value, ~info_rows)
        self._render_human()
        return self._observations(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Each row's legal actions now, int8 ``(num_envs, n_actions)`` (a fresh array)."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def snapshot(self, game: int = 0) -> dict[str, Any]:
        """The public JSON-ready table of game ``game``."""
        return self.games.snapshot(game)

    def render(self) -> tuple[Any, ...] | None:
        """Every game's frame (``ansi``: text, ``rgb_array``: image), as ``SyncVectorEnv`` gives
        them; ``human`` prints every game's table and returns None."""
        if self.render_mode is None:
            return None
        from speed_env.render import modes

        if self.players == 2:
            frames = tuple(
                modes.render_mode(self.games.snapshot(g), self.render_mode)
                for g in range(self.n_games)
            )
        else:  # three or four seats: the n-seat text table or frame
            frames = tuple(
                modes.render_party(self.games.snapshot(g), self.games.table(g), self.render_mode)
                for g in range(self.n_games)
            )
        return None if self.render_mode == "human" else frames

    # ----------------------------------------------------------------- inside
    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()

    def _name_rows(self, game: int) -> str:
        rows = np.flatnonzero(self.row_game == game).tolist()
        return f"row {rows[0]}" if len(rows) == 1 else f"rows {', '.join(map(str, rows))}"

    def _reset_games(self, reset_mask: Any) -> np.ndarray:
        """The games a reset deals: all, or those a ``reset_mask`` (bool, one per row) marks."""
        if reset_mask is None:
            return self._all_games
        mask = np.asarray(reset_mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got "
                f"{mask.dtype} of shape {mask.shape}"
            )
        by_game = np.zeros(self.n_games, bool)
        by_game[self.row_game[mask]] = True
        partial = by_game[self.row_game] & ~mask
        if partial.any():
            r = int(np.flatnonzero(partial)[0])
            raise ValueError(
                f"options['reset_mask'] marks only some rows of game {self.row_game[r]}: "
                f"{self._name_rows(int(self.row_game[r]))} are one game and reset together"
            )
        if not by_game.any():
            raise ValueError("options['reset_mask'] marks no row: nothing to reset")
        return np.flatnonzero(by_game)

    def _seeds(self, seed: Any) -> list[int | None]:
        """One seed (or None) per game from ``reset``'s ``seed``."""
        if seed is None:
            return [None] * self.n_games
        if isinstance(seed, list | tuple):
            if len(seed) != self.n_games:
                raise ValueError(
                    f"a list of seeds needs one per game ({self.n_games}), got {len(seed)}"
                )
            return [check_seed(s) for s in seed]
        base = check_seed(seed)
        assert base is not None
        return [base + g for g in range(self.n_games)]

    def _draw(self, game: int, seed: int | None) -> int:
        """Game ``game``'s next deal seed, from its generator (reseeded by ``seed``)."""
        rng = self._rngs[game]
        if seed is not None:
            rng = seeding.np_random(seed)[0]
        elif rng is None:
            rng = seeding.np_random()[0]
        self._rngs[game] = rng
        return self._deal_seed(game, seed, rng)

    def _restart(self, games: np.ndarray) -> None:
        """Deal the listed games their next game (unseeded) and rewrite their rows."""
        seeds = [self._draw(int(g), None) for g in games]
        self.games.restart_observe(games, seeds)
        self._ended[games] = False
        assert self._obs is not None and self._mask is not None
        rows = self._rows_of_games(games)
        seats, at = self.row_seat[rows], self.row_game[rows]
        self._obs[rows] = rows_of(self.games.obs_buf, seats, at)
        self._mask[rows] = rows_of(self.games.mask_buf, seats, at)

    def _gather(self) -> None:
        """Each row's vector and mask from the engine's buffers, into fresh arrays.

        The vectors go to the caller as they are (the env never reads them
        again after handing them out); the masks stay, and only copies leave.
        """
        self._obs = rows_of(self.games.obs_buf, self.row_seat, self.row_game)
        self._mask = rows_of(self.games.mask_buf, self.row_seat, self.row_game)

    def _observations(self) -> Any:
        assert self._obs is not None and self._mask is not None
        if self.obs_format == "box":
            return self._obs
        return {"observation": self._obs, "action_mask": self._mask.copy()}

    def _one_observation(self, row: int) -> Any:
        assert self._obs is not None and self._mask is not None
        obs, _ = package(self.obs_format, self._obs[row].copy(), self._mask[row].copy())
        return obs

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ActionError(
                f"actions must have shape ({self.num_envs},), one per sub-env, got {a.shape}"
            )
        if not np.issubdtype(a.dtype, np.integer):  # bools are not integers to numpy either
            raise ActionError(f"actions must be an integer array, got dtype {a.dtype}")
        n = self.games.n_actions
        bad = (a < 0) | (a >= n)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ActionError(
                f"action {int(a[r])} of sub-env {r} is outside the action space Discrete({n})"
            )
        return a.astype(np.int64, copy=False)

    def _mask_info(self) -> dict[str, np.ndarray]:
        assert self._mask is not None
        return {"action_mask": self._mask.copy()} if self.obs_format == "box" else {}

    def _rows_of_games(self, games: np.ndarray) -> np.ndarray:
        """The rows of the listed games, in order (``np.isin`` would scan every row)."""
        per_game = self.num_envs // self.n_games
        return (games[:, None] * per_game + np.arange(per_game)).ravel()

    def _winner_names(self, winner: np.ndarray, over: np.ndarray) -> np.ndarray:
        """Each row's game result as ``snapshot()["winner"]`` names it (object array, None for
        games that did not end)."""
        seats = AGENTS if self.players == 2 else [f"player_{p}" for p in range(self.players)]
        names = np.array([None, *seats, "draw"], dtype=object)  # by winner + 1
        out = np.full(self.num_envs, None, dtype=object)
        rows = self._rows_of_games(np.flatnonzero(over))
        out[rows] = names[winner[self.row_game[rows]].astype(np.int64) + 1]
        return out
