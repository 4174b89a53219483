"""``PartyVectorEnv``: ``gymnasium.make_vec("speed_env/SpeedParty-v0", num_envs=N, players=n)``.

``SpeedParty-v0`` (:class:`~speed_env.party_single.PartyGymEnv`) ``N`` times
on the batch engine: game ``i`` is sub-env ``i``, the learner in one seat of a
table of three or four, every other seat played inside by ``opponents``.

The opponents
    ``opponents`` is what ``SpeedParty-v0`` takes: one Policy for every other
    seat or a list of ``players - 1`` (the ``i``-th plays the ``i``-th seat
    after the learner's). Each opponent seat is asked once a step, on the
    batch of the games being stepped (rows in game order), so a step costs
    ``players - 1`` calls whatever ``N``. The default, as in ``SpeedParty-v0``,
    is uniformly random legal play with one generator per seat and game
    (``RandomPolicy(i)`` for the ``i``-th seat, reseeded at each seeded reset
    from the game's generator), so its draws equal ``N`` separate envs'. A
    given Policy with a ``reseed`` method is reseeded at a seeded reset from
    game 0's generator. A policy that draws no random numbers plays exactly as
    in ``N`` single envs; one that does (the kit's bots break ties at random)
    draws them for the whole batch at once, so its games differ from separate
    envs' (still reproducible from the seed).

Draws
    A reset of game ``i`` draws from game ``i``'s generator exactly what
    ``PartyGymEnv.reset`` draws (:func:`~speed_env.learner_seat.draw_reset`):
    the learner's seat (``seat="random"``), the game's seed, then at a seeded
    reset one seed per opponent with a ``reseed`` method. So game ``i`` after
    ``reset(seed=s)`` is ``PartyGymEnv`` reset with ``s + i``, and its later
    games are that env's unseeded resets (tests/env/test_party_vector.py).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from speed_env.learner_seat import charged, check_seat
from speed_env.party_games import PartyGames
from speed_env.party_single import opponent_seats, party_keywords, think_costs
from speed_env.policy import Policy
from speed_env.rules import Rules, RulesError, make_rules
from speed_env.vector.base import GamesVectorEnv, check_num_envs, rows_of
from speed_env.vector.opponents import GameRandom, batch_actions

PARTY_VEC_CALL = (
    "gymnasium.make_vec('speed_env/SpeedParty-v0', num_envs=N, players=3, opponents={})"
)
"""How the errors about an agent spec show the call that passes a bot."""


class PartyVectorEnv(GamesVectorEnv):
    """``num_envs`` games of ``speed_env/SpeedParty-v0``: the learner in one seat of three or
    four, the others inside.

    ``gymnasium.make_vec("speed_env/SpeedParty-v0", num_envs=N, players=n, **kwargs)``
    builds it. It takes ``autoreset_mode`` and every ``SpeedParty-v0`` keyword
    with :class:`~speed_env.party_single.PartyGymEnv`'s defaults: ``rules``
    and, in ``kwargs``, ``opponents``, ``seat``, ``tick_ms``, ``reaction``,
    ``opponent_think``, ``obs_format`` (``"box"``), ``illegal_action``, ``render_mode``, rule
    options (``players`` 3 or 4 among them; two players are refused, naming
    ``Speed-v1``). ``render_mode`` ``"ansi"``, ``"human"`` or ``"rgb_array"`` draws
    every game as ``SpeedParty-v0`` does (the n-seat text or frame), and
    ``snapshot(i)`` gives game ``i``'s table. Infos, as ``SpeedParty-v0`` gives them
    sub-env by sub-env:
    ``action_mask`` (box, int8), ``seat``, ``illegal`` and, at a game's end,
    ``winner`` (the winning seat, ``players`` for a draw, None when truncated)
    and (``us``/``pagat``) the learner's ``points``. See the module docstring.
    """

    games: PartyGames

    def __init__(
        self,
        num_envs: int = 1,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ) -> None:
        n = check_num_envs(num_envs)
        settings = party_keywords(rules, kwargs)
        options = settings.pop("options")
        players = make_rules(settings["rules"], **options).players  # a bad rule named here
        if players == 2:
            raise RulesError(
                "SpeedParty-v0 seats 3 or 4 players (rule option players=3 or players=4); two "
                "players play gymnasium.make_vec('speed_env/Speed-v1', num_envs=N)"
            )
        seat = settings.pop("seat")
        check_seat(seat, players)
        opponents = settings.pop("opponents")
        policies = None if opponents is None else opponent_seats(opponents, players, PARTY_VEC_CALL)
        think = think_costs(settings.pop("opponent_think"), players)
        render_mode, obs_format = settings.pop("render_mode"), settings.pop("obs_format")
        self._setup(n, n, render_mode, obs_format, autoreset_mode, **settings, **options)
        self.opponents: list[Policy] | None = policies
        self.opponent_think = think
        n_actions = self.games.n_actions
        # RandomPolicy(i) plays the i-th other seat of SpeedParty-v0 by default: one per game.
        self._random = (
            [GameRandom(n, n_actions, seed=i) for i in range(players - 1)]
            if policies is None
            else None
        )
        self.seat_choice = seat
        self.seat = np.full(n, 0 if seat == "random" else int(seat), np.int64)
        self.row_seat = self.seat  # the same array: a seat drawn at a reset moves the row
        self.row_game = np.arange(n)

    def _deal_seed(self, game: int, seed: int | None, rng: np.random.Generator) -> int:
        # The draws of PartyGymEnv.reset (learner_seat.draw_reset), in its order: seat, deal,
        # then at a seeded reset each opponent's reseed.
        if self.seat_choice == "random":
            self.seat[game] = int(rng.integers(self.players))
        if any(self.opponent_think):  # charged to this game's opponent seats
            profiles = charged(self.games.reactions, int(self.seat[game]), self.opponent_think)
            self.games.set_reactions(profiles, games=game)
        deal = int(rng.integers(2**63))
        if seed is None:
            return deal
        if self._random is not None:
            for seat_random in self._random:
                seat_random.reseed(game, int(rng.integers(2**63)))
            return deal
        assert self.opponents is not None
        for policy in self.opponents:
            reseed = getattr(policy, "reseed", None)
            if callable(reseed):
                value = int(rng.integers(2**63))
                if game == 0:
                    reseed(value)
        return deal

    def _other_actions(self, raw: np.ndarray, stepped: np.ndarray) -> None:
        if not stepped.size:
            return
        for i in range(self.players - 1):
            seats = (self.seat[stepped] + 1 + i) % self.players
            mask = rows_of(self.games.mask_buf, seats, stepped)
            if self._random is not None:
                raw[seats, stepped] = self._random[i].act(stepped, mask)
                continue
            assert self.opponents is not None
            policy = self.opponents[i]
            obs = rows_of(self.games.obs_buf, seats, stepped)
            who = f"the opponent {type(policy).__name__} (opponents[{i}])"
            raw[seats, stepped] = batch_actions(policy, obs, mask, stepped, who)

    def _reset_info(self) -> dict[str, np.ndarray]:
        return {**self._mask_info(), "seat": self.seat.copy()}

    def _step_info(self, tick: Any, ended: np.ndarray) -> dict[str, np.ndarray]:
        # The seat as it was on this step: read before any reset draws a new one.
        info = {**self._mask_info(), "seat": self.seat.copy()}
        if ended.any():
            winner = np.full(self.num_envs, None, dtype=object)
            for g in np.flatnonzero(ended).tolist():
                w = int(tick.winner[g])
                winner[g] = None if w < 0 else w  # SpeedParty-v0's: None when truncated
            info["winner"] = winner
            if not self.rules.is_japanese:
                info["points"] = tick.points[self.seat, self.row_game].astype(np.int64)
        return info
