"""``SpeedGymEnv``: one seat of real-time Speed as a Gymnasium env, the opponent inside.

For single-agent learners (stable-baselines3, sb3-contrib's MaskablePPO):
the opponent is any :class:`~speed_env.policy.Policy` and acts on the same
ticks, so every step is the learner's. Observations are the learner's
ego-centric vector (a ``Box``); ``action_masks()`` returns the int8 mask
sb3-contrib's ``MaskablePPO`` asks for, and ``info["action_mask"]`` carries
it too. Rewards are Python floats, flags Python bools. An action must be an
integer in the space (numpy integers are fine); anything else raises
:class:`~speed_env.ActionError` and changes nothing. An in-space action that
is illegal now is a wait (``info["illegal"]``), or with
``illegal_action="raise"`` an :class:`~speed_env.ActionError` naming the
legal ones, the game unchanged. ``copy.deepcopy`` and
``pickle`` keep the whole game, the opponent and its generator included.

``obs_format`` is ``"box"`` here by default (this env's observation has
always been the flat vector, which single-agent learners want);
``obs_format="dict"`` gives PettingZoo's ``{"observation", "action_mask"}``
dict instead (the mask is then in the observation, not in ``info``;
``action_masks()`` still works). ``render_mode`` is
``"human"`` (the text table printed after every reset and step), ``"ansi"``
or ``"rgb_array"``.

The opponent
    ``opponent`` is any :class:`~speed_env.policy.Policy`. The default is
    ``RandomPolicy(0)``: uniformly random legal play, reseeded from the env's
    generator at every seeded reset. The kit's bots are built from their spec
    by the ``agents`` package: ``SpeedGymEnv(opponent=agents.make("greedy"))``.
    A spec string (``opponent="greedy"``) is refused with an error showing
    that call: ``speed_env`` never imports ``agents`` (``agents`` depends on
    ``speed_env``, not the other way round). An opponent whose ``act``
    returns anything but one integer action per row (shape ``(1,)`` here)
    is refused by name. Under ``illegal_action="raise"`` the learner's
    action is checked before the opponent is asked, so a refused step moves
    nothing, the opponent's generator included. ``opponent_think`` (ms, default 0)
    charges the opponent for its thinking: every play it makes lands that much later, its
    seat's reaction profile moved by the constant (:func:`speed_env.reaction.delayed`;
    docs/thinking-time.md).

Registered with Gymnasium as ``speed_env/Speed-v1``:
``gymnasium.make("speed_env/Speed-v1", rules="us", opponent=policy)``.

Masks through wrappers
    ``gymnasium.make`` wraps the env (``OrderEnforcing``,
    ``PassiveEnvChecker``) and Gymnasium 1.x wrappers do not forward
    attributes, so ``gymnasium.make(...).action_masks()`` is an
    ``AttributeError``. Ask through the wrappers instead, as sb3-contrib
    does: ``env.get_wrapper_attr("action_masks")()``, or sb3-contrib's
    ``get_action_masks(env)`` (which calls it); ``info["action_mask"]``
    holds the same mask after every reset and step. ``MaskablePPO`` finds
    the masks of a ``gymnasium.make`` env by itself::

        import gymnasium, torch
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.utils import get_action_masks
        import speed_env

        torch.set_num_threads(1)  # see "Training speed" below
        env = gymnasium.make("speed_env/Speed-v1")
        model = MaskablePPO("MlpPolicy", env, seed=0).learn(4096)
        obs, info = env.reset(seed=0)
        action, _ = model.predict(obs, action_masks=get_action_masks(env))

Training speed
    This env steps in microseconds, so a small MLP policy's cost is torch's
    own overhead, and torch's default of one thread per core makes every
    small matrix product pay for thread hand-offs. Call
    ``torch.set_num_threads(1)`` before training (the worked examples in
    ``examples/`` do). A plain ``MaskablePPO("MlpPolicy", SpeedGymEnv())``
    with sb3-contrib's defaults, on 2 cores: 143 steps/s with torch's default
    threads, 673 steps/s with one thread (idle machine). On the same
    2 cores shared with other jobs (load average 14–17), learning 4,096 steps
    took 934 s with the default 2 threads (4 steps/s) and 61 s with one
    (67 steps/s): threads that wait for a busy core cost the most. Measured
    with this script, once as shown and once without the ``set_num_threads``
    line (``nice -n 10 python measure.py``)::

        import time, torch
        torch.set_num_threads(1)
        from sb3_contrib import MaskablePPO
        import speed_env

        model = MaskablePPO("MlpPolicy", speed_env.SpeedGymEnv("us"), seed=0)
        start = time.perf_counter()
        model.learn(4096)
        print(f"{4096 / (time.perf_counter() - start):.0f} steps/s")

Version history (the versions of :mod:`speed_env.parallel`'s game: one seat of it)
    v1 (kit 1.0.0): the game and observation of ``speed_v1`` (the idle rule
    ``idle_flip_ms``; 193 floats, 205 with jokers). ``speed_env/Speed-v0`` now
    raises :class:`~speed_env.registration.OutdatedEnvError` naming ``Speed-v1``.

    v0: first release (128 floats). Changed while keeping its name, with
    ``speed_v0``: the ``rules`` field (138 floats), the idle rule, the five
    worlds fields (193 floats); ``obs_format="dict"``, ``render_mode="human"``
    and the registry entry added without changing the game.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from speed_env.deal import parse_deal
from speed_env.game import RENDER_MODES, Games, check_options, check_render_mode, check_seed
from speed_env.learner_seat import (
    charged,
    check_policy,
    check_seat,
    checked_action,
    draw_reset,
    policy_action,
)
from speed_env.obs_format import check_obs_format, observation_space, package
from speed_env.pickling import GamePickle
from speed_env.policy import Policy, RandomPolicy
from speed_env.reaction import ReactionProfile, check_think_ms
from speed_env.rules import Rules
from speed_env.settings import table_settings


def charge_opponent(
    reactions: tuple[ReactionProfile, ReactionProfile], learner: int, think_ms: float
) -> tuple[ReactionProfile, ReactionProfile]:
    """Both seats' profiles with the opponent's (the seat not ``learner``) moved ``think_ms``."""
    first, second = charged(reactions, learner, [think_ms])
    return first, second


def check_seat_and_opponent(seat: object, opponent: object, call: str) -> None:
    """Refuse a ``seat`` other than 0, 1 or ``"random"`` and an ``opponent`` that is not a
    :class:`~speed_env.policy.Policy`; ``call`` shows how to pass a bot (``{}`` for the
    ``agents.make(...)`` expression), for the error that meets an agent spec string."""
    check_seat(seat, 2)
    if opponent is not None:
        check_policy(opponent, "opponent", call)


class SpeedGymEnv(gym.Env, GamePickle):
    """The learner plays seat ``seat`` (0, 1, or ``"random"`` per episode) against ``opponent``."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 20}  # noqa: RUF012  (gym.Env declares it)

    def __init__(
        self,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        opponent: Policy | None = None,
        seat: int | str = "random",
        tick_ms: int = 50,
        reaction: Any = None,
        render_mode: str | None = None,
        obs_format: str = "box",
        illegal_action: str = "wait",
        opponent_think: float = 0.0,
        **options: Any,
    ) -> None:
        GamePickle.__init__(self, locals())
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.obs_format = check_obs_format(obs_format)
        check_seat_and_opponent(seat, opponent, "SpeedGymEnv(opponent={})")
        settings = table_settings(
            rules, tick_ms=tick_ms, reaction=reaction, illegal_action=illegal_action, **options
        )
        self.opponent_think = check_think_ms(opponent_think, "opponent_think")
        self.games = Games(1, settings)
        self.rules = self.games.rules
        self.opponent: Policy = opponent if opponent is not None else RandomPolicy(0)
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.render_mode = render_mode
        vector = spaces.Box(0.0, 1.0, (self.games.obs_dim,), np.float32)
        self.observation_space = observation_space(self.obs_format, vector, self.games.n_actions)
        self.action_space = spaces.Discrete(self.games.n_actions)
        self._obs: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """Deal a new game; with ``seat="random"`` the learner's seat is drawn from the env's
        RNG.

        The seed, options and deal are checked first: a refused reset neither reseeds nor
        draws a seat."""
        seed = check_seed(seed)
        deal = check_options(options).get("deal")
        # Every check comes before anything is drawn: a refused reset neither reseeds nor
        # draws the learner's seat.
        parsed = None if deal is None else parse_deal(self.rules, deal)
        super().reset(seed=seed)
        self.seat, game_seed = draw_reset(
            self.np_random, self.seat_choice, 2, [self.opponent], seed is not None
        )
        if self.opponent_think:  # the opponent's seat moves with the learner's
            self.games.set_reactions(
                charge_opponent(self.games.reactions, self.seat, self.opponent_think)
            )
        if parsed is not None:
            self.games.deal_explicit(0, parsed, game_seed)
        else:
            self.games.deal_seeded(np.zeros(1, np.int64), [game_seed])
        self._obs, self._mask = self.games.observe()
        obs, info = self._view(self.seat)
        info["seat"] = self.seat
        self._render_human()
        return obs, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (int8), as sb3-contrib's MaskablePPO asks for."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask[self.seat, 0].copy()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's action for this tick; the opponent acts on the same tick."""
        if self._obs is None or self._mask is None:
            raise RuntimeError("call reset() before step()")
        me, opp = self.seat, 1 - self.seat
        raw = np.zeros((2, 1), np.int64)
        # Refused (under "raise") before the opponent is asked: its generator does not move.
        raw[me, 0], illegal = checked_action(
            action, self._mask[me, 0], self.games.illegal_action, f"the learner (seat {me})"
        )
        raw[opp, 0] = self._opponent_action(opp)
        self.games.check_legal(raw)  # now only the opponent's action can be refused
        rewards = self.games.step(raw)
        self._obs, self._mask = self.games.observe()
        over = bool(self.games.over[0])
        truncated = bool(self.games.truncated[0])
        obs, info = self._view(me)
        info.update(illegal=illegal, seat=me)
        if over:
            info["winner"] = self.games.snapshot(0)["winner"]
            points = self.games.match_points()
            if points is not None:
                info["points"] = int(points[me, 0])  # this seat's match points (us/pagat)
        self._render_human()
        return obs, float(rewards[me, 0]), over and not truncated, truncated, info

    def _opponent_action(self, opp: int) -> int:
        """The opponent's action for this tick, checked: one integer in the action space."""
        assert self._obs is not None and self._mask is not None
        who = f"the opponent {type(self.opponent).__name__} (seat {opp})"
        return policy_action(self.opponent, self._obs[opp], self._mask[opp], who)

    def _view(self, seat: int) -> tuple[Any, dict[str, Any]]:
        """``seat``'s observation in ``obs_format`` and its info entries (fresh arrays)."""
        assert self._obs is not None and self._mask is not None
        return package(self.obs_format, self._obs[seat, 0].copy(), self._mask[seat, 0].copy())

    def snapshot(self) -> dict[str, Any]:
        """The whole table as a JSON-ready dict."""
        return self.games.snapshot(0)

    def render(self) -> Any:
        """``human``: print the text table (returns None); ``ansi``: that text; ``rgb_array``:
        a frame."""
        if self.render_mode is None:
            return None
        from speed_env.render import modes

        return modes.render_mode(self.games.snapshot(0), self.render_mode)

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()


_SPEED_V1 = inspect.signature(SpeedGymEnv)


def speed_v1_keywords(rules: object, keywords: dict[str, Any]) -> dict[str, Any]:
    """``Speed-v1``'s arguments by name: ``rules`` and ``keywords`` bound to :class:`SpeedGymEnv`.

    Every keyword gets its value or the single env's default; ``"options"``
    holds the rule options. The vector form of ``Speed-v1`` takes its keywords
    through this, so they are declared once, in ``SpeedGymEnv.__init__``.
    """
    bound = _SPEED_V1.bind(rules, **keywords)
    bound.apply_defaults()
    return dict(bound.arguments)
