"""``SpeedVectorEnv``: ``gymnasium.make_vec("speed_env/Speed-v1", num_envs=N)`` on the batch engine.

The opponent of ``Speed-v1``'s vector env
    The default, as in ``Speed-v1``, is uniformly random legal play: one
    generator per game, started as ``RandomPolicy(0)`` and reseeded at each
    seeded reset from the game's generator, so even the opponent's draws equal
    ``num_envs`` separate ``Speed-v1`` envs'. ``opponent=`` any
    :class:`~speed_env.policy.Policy` is called once a step on the batch of the
    games being stepped (rows in game order); with a ``reseed`` method it is
    reseeded at a seeded reset from game 0's generator. A policy that draws
    no random numbers plays exactly as in ``num_envs`` single envs; one that
    does (the kit's bots break ties at random) draws them for the whole batch
    at once, so its games differ from separate envs' (still reproducible from
    the seed).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from speed_env.game import Games
from speed_env.party_games import seats_asked
from speed_env.policy import Policy
from speed_env.reaction import check_think_ms
from speed_env.rules import Rules, RulesError
from speed_env.single import charge_opponent, check_seat_and_opponent, speed_v1_keywords
from speed_env.vector.base import GamesVectorEnv, check_num_envs, rows_of
from speed_env.vector.opponents import GameRandom, batch_actions


class SpeedVectorEnv(GamesVectorEnv):
    """``num_envs`` games of ``speed_env/Speed-v1``: the learner in one seat, the opponent inside.

    ``gymnasium.make_vec("speed_env/Speed-v1", num_envs=N, **kwargs)`` builds
    it. It takes ``autoreset_mode`` and every ``Speed-v1`` keyword, with
    :class:`~speed_env.single.SpeedGymEnv`'s defaults: ``rules`` and, in
    ``kwargs``, ``opponent``, ``seat``, ``tick_ms``, ``reaction``, ``opponent_think``,
    ``render_mode``, ``obs_format``, ``illegal_action`` and rule options.
    Infos, as in ``Speed-v1`` sub-env by sub-env: ``action_mask`` (box), ``seat``,
    ``illegal`` (the action was illegal and taken as a wait) and, at a game's
    end, ``winner`` and (``us``/``pagat``) ``points``. See the module docstring.
    """

    games: Games  # two seats: players=3 or 4 is refused in __init__

    def __init__(
        self,
        num_envs: int = 1,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ) -> None:
        n = check_num_envs(num_envs)
        # Bound to SpeedGymEnv's own signature: Speed-v1's keywords and defaults are written
        # once, there, so the vector form cannot drift from the single env.
        settings = speed_v1_keywords(rules, kwargs)
        opponent, seat = settings.pop("opponent"), settings.pop("seat")
        check_seat_and_opponent(
            seat, opponent, f"gymnasium.make_vec('speed_env/Speed-v1', num_envs={n}, opponent={{}})"
        )
        render_mode, obs_format = settings.pop("render_mode"), settings.pop("obs_format")
        think = check_think_ms(settings.pop("opponent_think"), "opponent_think")
        options = settings.pop("options")
        seats = seats_asked(settings["rules"], options)
        if seats != 2:
            # Speed-v1's spaces are the two-seat ones: a table of three or four is SpeedParty-v0,
            # whose vector env draws its games as that single env does.
            raise RulesError(
                f"players={seats}: Speed-v1 seats 2 players; for {seats} use "
                f"gymnasium.make_vec('speed_env/SpeedParty-v0', num_envs=N, players={seats}) "
                f"(the other seats inside, as here) or "
                f"gymnasium.make_vec('speed_env/SpeedPartySelfPlay-v0', num_envs={seats} * games, "
                f"players={seats}) (one row per seat) or speed_env.BatchEnv(n, players={seats})"
            )
        self._setup(n, n, render_mode, obs_format, autoreset_mode, **settings, **options)
        self.opponent: Policy | None = opponent
        self.opponent_think = think
        self._random = GameRandom(n, self.games.n_actions) if opponent is None else None
        self.seat_choice = seat
        self.seat = np.full(n, 0 if seat == "random" else int(seat), np.int64)
        self.row_seat = self.seat  # the same array: a seat drawn at a reset moves the row
        self.row_game = np.arange(n)

    def _deal_seed(self, game: int, seed: int | None, rng: np.random.Generator) -> int:
        # The draws of SpeedGymEnv.reset, in its order: seat, deal, opponent's reseed.
        if self.seat_choice == "random":
            self.seat[game] = int(rng.integers(2))
        if self.opponent_think:  # charged to the opponent's seat of this game
            pair = charge_opponent(self.games.reactions, int(self.seat[game]), self.opponent_think)
            self.games.set_reactions(pair, games=game)
        deal = int(rng.integers(2**63))
        if seed is not None:
            if self._random is not None:
                self._random.reseed(game, int(rng.integers(2**63)))
            elif callable(getattr(self.opponent, "reseed", None)):
                value = int(rng.integers(2**63))
                if game == 0:
                    self.opponent.reseed(value)  # type: ignore[union-attr]
        return deal

    def _other_actions(self, raw: np.ndarray, stepped: np.ndarray) -> None:
        if not stepped.size:
            return
        opp = 1 - self.seat[stepped]
        obs = rows_of(self.games.obs_buf, opp, stepped)
        mask = rows_of(self.games.mask_buf, opp, stepped)
        if self._random is not None:
            raw[opp, stepped] = self._random.act(stepped, mask)
            return
        assert self.opponent is not None
        who = f"the opponent {type(self.opponent).__name__}"
        raw[opp, stepped] = batch_actions(self.opponent, obs, mask, stepped, who)

    def _reset_info(self) -> dict[str, np.ndarray]:
        return {**self._mask_info(), "seat": self.seat.copy()}

    def _step_info(self, tick: Any, ended: np.ndarray) -> dict[str, np.ndarray]:
        # The seat as it was on this step: read before any reset draws a new one.
        info = {**self._mask_info(), "seat": self.seat.copy()}
        if ended.any():
            info["winner"] = self._winner_names(tick.winner, ended)
            if not self.rules.is_japanese:
                info["points"] = tick.points[self.seat, self.row_game]
        return info
