"""``PartyGymEnv``: one seat of Party Speed (three or four players) as a Gymnasium env.

``Speed-v1`` for a table of three or four: the learner sits at one seat and
every other seat is played inside the env by a :class:`~speed_env.policy.Policy`,
all acting on the same ticks, so every step is the learner's. The game is
:mod:`speed_env.party`'s (the engine's n-seat game through
:class:`~speed_env.seats.SeatGames`), seen through the ego-centric n-seat
observation of :mod:`speed_env.party_obs`; the seat and opponent checks,
the action checks, the thinking charge and a reset's draws are
``Speed-v1``'s own (:mod:`speed_env.learner_seat`).

Seats and rules
    ``players`` (3 or 4) is a rule option, as everywhere: ``PartyGymEnv("us",
    players=4)``, or a :class:`~speed_env.Rules` with ``players=3``. Two
    players are refused, naming ``Speed-v1`` (whose spaces are the two-seat
    ones); any other count, and a preset that does not deal that many, are
    refused by the rules, naming the option. ``seat`` is ``0`` …
    ``players - 1``, or ``"random"`` (drawn at every reset).

Opponents
    ``opponents`` is one Policy for every other seat, or a list of
    ``players - 1`` Policies: the ``i``-th plays the ``i``-th seat after the
    learner's in seat order. Each other seat gets its own generator: one
    Policy given once (or an object listed twice) is deep-copied for each seat
    it plays, and a seeded reset reseeds each seat's policy that has a
    ``reseed(seed)`` method from its own draw of the env's generator. The
    default is a :class:`~speed_env.policy.RandomPolicy` per seat. A spec
    string is refused with the ``agents.make`` call that builds it, as in
    ``Speed-v1``. ``opponent_think`` (ms; one value for every opponent or a
    list of ``players - 1``, in the same order) charges each opponent's
    thinking: its plays land that much later (docs/thinking-time.md).

Actions, observations, rewards
    ``Discrete(1 + n * R)``: ``0`` waits, ``1 + n * r + j`` plays a card of
    rank ``r`` onto pile ``j`` counted from the learner's own pile
    (:mod:`speed_env.party`). ``action_masks()`` gives the int8 mask (also
    ``info["action_mask"]``; in the observation with ``obs_format="dict"``).
    An illegal in-space action is a wait (``info["illegal"]``), or with
    ``illegal_action="raise"`` an :class:`~speed_env.ActionError` raised before
    any opponent is asked; an opponent's illegal action raises there too,
    naming its seat. Rewards are Python floats: +1 if the learner wins,
    ``-1/(n-1)`` if another seat does (every seat's rewards sum to zero), 0
    for a draw or a truncation; flags are Python bools. At the end
    ``info`` gains ``winner`` (a seat, ``n`` for a draw, None when
    truncated) and, in ``us``/``pagat``, the learner's match ``points``.

Seeding, copies, rendering
    ``reset(seed=s)`` seeds the env's generator, which draws the learner's
    seat, the game's seed and the opponents' seeds, so the same seed gives
    the same episode under the same actions. ``copy.deepcopy`` and ``pickle``
    keep the whole game, the opponents and their generators included
    (:mod:`speed_env.pickling`). ``snapshot()`` is the public table as a
    JSON-ready dict (every seat, one centre pile per seat: :mod:`speed_env.party`).
    ``render_mode`` is ``"human"`` (the text
    table printed after every reset and step), ``"ansi"`` (that text from
    ``render()``; :mod:`speed_env.render.party_text`) or ``"rgb_array"`` (an
    ``(H, W, 3)`` uint8 frame of every seat and pile:
    :mod:`speed_env.render.party_image`).

Registered with Gymnasium as ``speed_env/SpeedParty-v0``:
``gymnasium.make("speed_env/SpeedParty-v0", players=4, opponents=policy)``
(through the wrappers, ask ``env.get_wrapper_attr("action_masks")()``, as for
``Speed-v1``). ``gymnasium.make_vec("speed_env/SpeedParty-v0", num_envs=N,
players=3)`` is its native vector env on the batch engine
(:class:`~speed_env.vector.PartyVectorEnv`, docs/vector.md): game ``i`` is
this env reset with ``seed + i``, each opponent seat asked once a step for
every game.

Version history
    v0: first release: one seat of ``speed_party_v0`` (:mod:`speed_env.party`).
"""

from __future__ import annotations

import copy
import inspect
import os
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from speed_env.deal import parse_deal
from speed_env.game import check_options, check_render_mode, check_seed
from speed_env.learner_seat import (
    charged,
    check_policy,
    check_seat,
    checked_action,
    draw_reset,
    policy_action,
)
from speed_env.obs_format import check_obs_format, observation_space, package
from speed_env.party import seat_reactions
from speed_env.party_obs import observe_seat, party_obs_dim
from speed_env.pickling import GamePickle
from speed_env.policy import Policy, RandomPolicy
from speed_env.reaction import check_think_ms
from speed_env.rules import Rules, RulesError, make_rules
from speed_env.seats import SeatGames
from speed_env.settings import ILLEGAL_POLICIES

CALL = "PartyGymEnv(players=3, opponents={})"
"""How the errors about an agent spec show the call that passes a bot."""


def opponent_seats(opponents: object, players: int, call: str = CALL) -> list[Policy]:
    """One Policy per other seat from ``opponents`` (None, one Policy, or a list of
    ``players - 1``), each a distinct object: a Policy playing more than one seat is
    deep-copied for each seat after its first. ``call`` shows how to pass a bot, for the
    error that meets an agent spec string."""
    others = players - 1
    if opponents is None:
        return [RandomPolicy(i) for i in range(others)]
    if isinstance(opponents, list | tuple):
        if len(opponents) != others:
            raise ValueError(
                f"opponents lists {len(opponents)} policies; a {players}-player table needs "
                f"one Policy or a list of {others}"
            )
        given = list(opponents)
        for i, policy in enumerate(given):
            check_policy(policy, f"opponents[{i}]", call)
    else:
        check_policy(opponents, "opponents", call)
        given = [opponents] * others  # type: ignore[list-item]
    seats: list[Policy] = []
    for policy in given:
        seats.append(copy.deepcopy(policy) if any(policy is s for s in seats) else policy)
    return seats


def think_costs(opponent_think: object, players: int) -> list[float]:
    """Each opponent's thinking in ms from one value or a list of ``players - 1``, checked."""
    others = players - 1
    if isinstance(opponent_think, list | tuple):
        if len(opponent_think) != others:
            raise ValueError(
                f"opponent_think lists {len(opponent_think)} values; a {players}-player table "
                f"needs one value or a list of {others}"
            )
        return [check_think_ms(v, f"opponent_think[{i}]") for i, v in enumerate(opponent_think)]
    return [check_think_ms(opponent_think, "opponent_think")] * others


class PartyGymEnv(gym.Env, GamePickle):
    """The learner plays seat ``seat`` at a table of three or four; ``opponents`` the others."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 20}  # noqa: RUF012  (gym.Env declares it)

    def __init__(
        self,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        seat: int | str = "random",
        tick_ms: int = 50,
        reaction: Any = None,
        render_mode: str | None = None,
        obs_format: str = "box",
        illegal_action: str = "wait",
        opponent_think: float | Sequence[float] = 0.0,
        **options: Any,
    ) -> None:
        GamePickle.__init__(self, locals())
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.obs_format = check_obs_format(obs_format)
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_POLICIES}, got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        checked = make_rules(rules, **options)
        n = checked.players
        if n == 2:
            raise RulesError(
                "SpeedParty-v0 seats 3 or 4 players (rule option players=3 or players=4); "
                "two players play speed_env/Speed-v1 (speed_env.SpeedGymEnv)"
            )
        check_seat(seat, n)
        self.opponents = opponent_seats(opponents, n)
        self.opponent_think = think_costs(opponent_think, n)
        self.games = SeatGames(1, checked, tick_ms=tick_ms, reactions=seat_reactions(reaction, n))
        self.rules = self.games.rules
        self.n_players = n
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.render_mode = render_mode
        vector = spaces.Box(0.0, 1.0, (party_obs_dim(self.rules),), np.float32)
        self.observation_space = observation_space(self.obs_format, vector, self.games.n_actions)
        self.action_space = spaces.Discrete(self.games.n_actions)
        self._mask: np.ndarray | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict]:
        """Deal a new game (seeded, or ``options={"deal": {...}}``); with ``seat="random"`` the
        learner's seat is drawn from the env's generator.

        The seed, options and deal are checked first: a refused reset draws nothing."""
        seed = check_seed(seed)
        deal = check_options(options).get("deal")
        parsed = None if deal is None else parse_deal(self.rules, deal)
        super().reset(seed=seed)
        self.seat, game_seed = draw_reset(
            self.np_random, self.seat_choice, self.n_players, self.opponents, seed is not None
        )
        # The opponents' seats move with the learner's: their charge is set at every reset.
        self.games.set_reactions(charged(self.games.reactions, self.seat, self.opponent_think))
        if parsed is not None:
            self.games.start(0, parsed, game_seed)
        else:
            self.games.reset_game(0, game_seed)
        self._mask = self.games.masks()
        obs, info = self._view()
        info["seat"] = self.seat
        self._render_human()
        return obs, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (int8), as sb3-contrib's MaskablePPO asks for."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask[self.seat, 0].copy()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """The learner's action for this tick; every other seat acts on the same tick."""
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        if bool(self.games.over[0]):
            raise RuntimeError("the game is over: call reset() before step()")
        me, n = self.seat, self.n_players
        raw = np.zeros((n, 1), np.int64)
        # Refused (under "raise") before any opponent is asked: no generator moves.
        raw[me, 0], illegal = checked_action(
            action, self._mask[me, 0], self.illegal_action, f"the learner (seat {me})"
        )
        for i, policy in enumerate(self.opponents):
            p = (me + 1 + i) % n
            raw[p, 0] = self._opponent_action(policy, p)
        rewards = self.games.step(raw)
        self._mask = self.games.masks()
        over = bool(self.games.over[0])
        truncated = bool(self.games.state["truncated"][0])
        obs, info = self._view()
        info.update(illegal=illegal, seat=me)
        if over:
            info["winner"] = None if truncated else int(self.games.state["winner"][0])
            points = self.games.points()
            if points is not None:
                info["points"] = int(points[me, 0])  # this seat's match points (us/pagat)
        self._render_human()
        return obs, float(rewards[me, 0]), over and not truncated, truncated, info

    def _opponent_action(self, policy: Policy, p: int) -> int:
        """Seat ``p``'s action from ``policy``: one integer in the space, legal under
        ``illegal_action="raise"``."""
        assert self._mask is not None
        who = f"the opponent {type(policy).__name__} (seat {p})"
        obs = observe_seat(self.games.state[0], self.rules, p)[None]
        mask = self._mask[p].copy()  # (1, n_actions): the policy cannot write into the env's
        action = policy_action(policy, obs, mask, who)
        return checked_action(action, mask[0], self.illegal_action, who)[0]

    def _view(self) -> tuple[Any, dict[str, Any]]:
        """The learner's observation in ``obs_format`` and its info entries (fresh arrays)."""
        assert self._mask is not None
        vector = observe_seat(self.games.state[0], self.rules, self.seat)
        return package(self.obs_format, vector, self._mask[self.seat, 0].copy())

    def snapshot(self) -> dict[str, Any]:
        """The public table as a JSON-ready dict (docs/envs/speed.md, ``snapshot()``): every seat
        in seat order, centre pile *k* beside seat *k*'s side pile."""
        return self.games.snapshot(0)

    def table(self) -> dict[str, Any]:
        """Every pile in order, hidden ones too (docs/rules.md, "The full table")."""
        return self.games.table(0)

    def render(self) -> Any:
        """``human``: print the text table (returns None); ``ansi``: that text; ``rgb_array``:
        an (H, W, 3) uint8 frame."""
        if self.render_mode is None:
            return None
        from speed_env.render.modes import render_party

        return render_party(self.snapshot(), self.table(), self.render_mode)

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()


_PARTY_V0 = inspect.signature(PartyGymEnv)


def party_keywords(rules: object, keywords: dict[str, Any]) -> dict[str, Any]:
    """``SpeedParty-v0``'s arguments by name: ``rules`` and ``keywords`` bound to
    :class:`PartyGymEnv` (every keyword its value or the single env's default; ``"options"``
    the rule options), so its vector env takes them as declared once, here."""
    bound = _PARTY_V0.bind(rules, **keywords)
    bound.apply_defaults()
    return dict(bound.arguments)
