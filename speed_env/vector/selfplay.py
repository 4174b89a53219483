"""``SpeedSelfPlayVectorEnv``: both seats of each game as rows, ``speed_env/SpeedSelfPlay-v1``.

PufferLib's convention for a multi-agent env in one flat batch: row ``2g + s``
is seat ``s`` of game ``g``, one policy acts for every row, no opponent
object. With ``players=3`` or ``4`` (Party Speed) each game has that many
rows: row ``N g + s`` is seat ``s`` of game ``g``. The id has no single-env
form: ``gymnasium.make`` of it raises an error pointing to ``make_vec`` (one
game's seats are ``speed_env.parallel_env``).
"""

from __future__ import annotations

import os
from typing import Any, NoReturn

import numpy as np
from gymnasium import error
from gymnasium.vector import AutoresetMode

from speed_env.party_games import seats_asked
from speed_env.rules import Rules
from speed_env.vector.base import TABLE_KEYS, GamesVectorEnv, check_num_envs

SELF_PLAY_ID = "speed_env/SpeedSelfPlay-v1"
"""The self-play rows env's Gymnasium id (vector only)."""

PARTY_SELF_PLAY_ID = "speed_env/SpeedPartySelfPlay-v0"
"""Its id at three or four seats (Party Speed's spaces: another id, vector only too)."""


class SpeedSelfPlayVectorEnv(GamesVectorEnv):
    """Both seats of ``num_envs // 2`` games as rows: row ``2g + s`` is seat ``s`` of game ``g``.

    ``gymnasium.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=2 * G)``
    builds it. Every row is ego-centric (its seat's own view, as every Speed
    observation is), the caller gives an action for every row, and a game's
    two rows end together (both terminated, rewards +1 / -1, or 0 / 0 for a
    draw; both truncated at ``max_game_ms``). Game ``g`` after ``reset(seed=s)``
    is ``speed_env.parallel_env()`` reset with ``seed=s + g``, and its next
    games are that env's unseeded resets. Keywords: ``rules``,
    ``obs_format`` (``"box"`` by default here), ``render_mode``,
    ``autoreset_mode`` and, in ``settings``, the table's as ``parallel_env``
    takes them: ``tick_ms``, ``reaction``, ``illegal_action`` and rule options
    (:func:`~speed_env.settings.table_settings` checks them). Infos per row,
    as ``parallel_env`` gives them per agent: ``action_mask`` (box),
    ``illegal`` and, at a game's end, ``winner``, ``played``, ``bounced``,
    ``clock_ms`` and (``us``/``pagat``) ``points``.

    ``players=3`` or ``4`` (a rule option, like every other in ``settings``)
    seats that many: ``num_envs = N * G``, row ``N g + s`` seat ``s`` of game
    ``g`` with Party Speed's n-seat observation, a game's rows ending together
    (rewards +1 the winner, ``-1/(N-1)`` each other seat), game ``g`` the one
    ``speed_env.parallel_env(players=N)`` plays reset with ``seed=s + g``. Its
    registered id is then ``speed_env/SpeedPartySelfPlay-v0``
    (``gymnasium.make_vec("speed_env/SpeedPartySelfPlay-v0", num_envs=N * G, players=N)``):
    its spaces are not ``SpeedSelfPlay-v1``'s, which refuses ``players=3`` naming it.
    """

    def __init__(
        self,
        num_envs: int = 2,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        obs_format: str = "box",
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **settings: Any,
    ) -> None:
        n = check_num_envs(num_envs)
        rule_options = {k: v for k, v in settings.items() if k not in TABLE_KEYS}
        seats = seats_asked(rules, rule_options)
        if seats == 2 and n % 2:
            raise ValueError(
                f"num_envs={n} is odd: {SELF_PLAY_ID} has two rows per game (row 2g + s is seat "
                f"s of game g), so num_envs must be even (2 * games)"
            )
        if n % seats:
            raise ValueError(
                f"num_envs={n} is not a multiple of players={seats}: {PARTY_SELF_PLAY_ID} has "
                f"one row per seat (row {seats}g + s is seat s of game g), so num_envs must be "
                f"{seats} * games"
            )
        games = n // seats
        self._setup(games, n, render_mode, obs_format, autoreset_mode, rules=rules, **settings)
        self.row_seat = np.tile(np.arange(seats), games)
        self.row_game = np.repeat(np.arange(games), seats)

    def _deal_seed(self, game: int, seed: int | None, rng: np.random.Generator) -> int:
        # parallel_env deals a seeded reset's own seed and draws only unseeded ones.
        return seed if seed is not None else int(rng.integers(2**63))

    def _reset_info(self) -> dict[str, np.ndarray]:
        return self._mask_info()

    def _step_info(self, tick: Any, ended: np.ndarray) -> dict[str, np.ndarray]:
        info = self._mask_info()
        if ended.any():
            s, g = self.row_seat, self.row_game
            info.update(
                winner=self._winner_names(tick.winner, ended),
                played=tick.played[s, g].astype(np.int64),
                bounced=tick.bounced[s, g].astype(np.int64),
                clock_ms=tick.clock_ms[g].astype(np.int64),
            )
            if not self.rules.is_japanese:
                info["points"] = tick.points[s, g].astype(np.int64)
        return info


def self_play_single(*args: Any, **kwargs: Any) -> NoReturn:
    """Entry point of ``gymnasium.make("speed_env/SpeedSelfPlay-v1")``: refused, naming make_vec."""
    raise error.Error(
        f"{SELF_PLAY_ID} is a vector env only (its rows are both seats of each game, so one "
        f"sub-env alone has no opponent): use gymnasium.make_vec({SELF_PLAY_ID!r}, num_envs=2 * "
        "games); for one game's two seats use speed_env.parallel_env(), for one seat against "
        "an opponent gymnasium.make('speed_env/Speed-v1')"
    )
