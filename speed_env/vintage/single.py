"""``VintageSingleEnv``: one seat of Vintage Speed as a Gymnasium env, the other seats inside.

For single-agent learners (stable-baselines3, sb3-contrib's MaskablePPO).
The learner sits at one seat of an ``num_players`` table; every other seat
is played by a :class:`~speed_env.policy.Policy` held inside the env, so
every ``step`` is one decision of the learner: the env applies its action,
then plays the other seats until it is the learner's turn again (or the
game ends). An Extra Turn decision (``play X`` or ``pass`` straight after
placing a card) is a step of its own, as in the AEC env.

- Observations: the learner's ego-centric vector of the AEC env (a ``Box``,
  :mod:`speed_env.vintage.observation`), multiplied by ``obs_scale`` when one
  is given (learning likes inputs near 1; a network trained on scaled inputs
  plays raw ones once the scale is folded into its first layer).
- Actions: the AEC env's (``Discrete(48)`` for the default pack).
  ``action_masks()`` returns the int8 mask sb3-contrib's ``MaskablePPO``
  asks for; ``info["action_mask"]`` carries it too.
- An illegal action leaves the table as it was (the learner is asked
  again), with ``info["illegal"] = True``; ``illegal="raise"`` raises the
  AEC env's ``ValueError`` instead. (Gymnasium's checker steps random
  actions, so the default must not raise.)
- Episodes: one game (a match of one game). Rewards are paid on the step
  the game ends, as the AEC env pays them: +1 if the learner won, otherwise
  minus its penalty points / 100; 0 when the game is truncated
  (``max_turns``). Rewards are Python floats, flags Python bools.
- Seeding: ``reset(seed=s)`` seeds the env's generator, which draws the
  learner's seat (with ``seat="random"``) and each game's deal seed; an
  opponent with a ``reseed(seed)`` method is reseeded from it too.
- Refusals change nothing: a bad seed, options or deal is refused before
  anything is drawn (no reseeding, no seat); a deal that ends before the
  learner's first turn is refused after the other seats have played it, and
  the table, the generator, the seat and the opponents' state are put back
  (each opponent stays the same object). An opponent spec string
  (``"vintage-greedy"``) is refused with an error showing ``agents.make``.
- Through ``gymnasium.make("speed_env/VintageSpeed-v0")`` the wrappers hide
  ``action_masks``: use ``env.get_wrapper_attr("action_masks")()`` or
  sb3-contrib's ``get_action_masks(env)`` (``MaskablePPO`` does so itself), or
  ``info["action_mask"]``.

Registered with Gymnasium as ``speed_env/VintageSpeed-v0``.

Version history (the versions of :mod:`speed_env.vintage.aec`'s game: one seat of it)
    v0 (first release; still current in kit 1.0.0): the game, the observation
    and the actions unchanged since the first release; bad seeds and options
    are refused and copies keep the whole game (no change to play).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from speed_env.game import check_options, check_seed
from speed_env.pickling import GamePickle
from speed_env.policy import Policy, RandomPolicy
from speed_env.shown import shown
from speed_env.vintage.aec import raw_env
from speed_env.vintage.deal import game_from_deal
from speed_env.vintage.engine import TRUNCATED, IllegalActionError, legal_mask, penalties


class VintageSingleEnv(gym.Env, GamePickle):
    """The learner plays seat ``seat`` (an int, or ``"random"`` per game); ``opponents`` the rest.

    ``opponents`` is one policy for every other seat, or a list of
    ``num_players - 1`` policies for the seats after the learner's in turn
    order (the first is the learner's next player). None: uniformly random
    legal play. ``options`` are Vintage Speed's rule options
    (:mod:`speed_env.vintage.rules`).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 2}  # noqa: RUF012  (gym.Env declares it)

    def __init__(
        self,
        num_players: int = 4,
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        seat: int | str = "random",
        obs_scale: np.ndarray | None = None,
        illegal: str = "noop",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        GamePickle.__init__(self, locals())
        self.table = raw_env(num_players=num_players, games=1, render_mode=render_mode, **options)
        """The AEC env underneath (its ``game`` is the engine state)."""
        self.rules = self.table.rules
        n = self.rules.num_players
        if seat != "random" and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
        ):
            raise ValueError(f"seat must be 'random' or a seat 0–{n - 1}, got {seat!r}")
        if illegal not in ("noop", "raise"):
            raise ValueError(f"illegal must be 'noop' or 'raise', got {illegal!r}")
        self.opponents = _opponent_list(opponents, n)
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.illegal = illegal
        self.render_mode = render_mode
        layout = self.table.layout
        high = layout.high(self.rules).astype(np.float32)
        if obs_scale is not None:
            scale = np.asarray(obs_scale, dtype=np.float32)
            if (
                scale.shape != (layout.size,)
                or not np.all(np.isfinite(scale))
                or np.any(scale <= 0)
            ):
                raise ValueError(
                    f"obs_scale must be {layout.size} positive finite numbers, "
                    f"got shape {scale.shape}"
                )
            self.obs_scale: np.ndarray | None = scale
            high = high * scale
        else:
            self.obs_scale = None
        self.observation_space = spaces.Box(0.0, high, (layout.size,), np.float32)
        self.action_space = spaces.Discrete(self.table.actions.n)
        self._started = False

    # -- Gymnasium API -----------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        """Deal a new game and play the other seats up to the learner's first turn.

        ``options={"deal": {...}}`` starts from an explicit deal (the AEC env's
        format); such a deal must leave the learner a turn before it ends.
        """
        seed = check_seed(seed)
        deal = check_options(options).get("deal")
        if deal is not None:
            # Checked before anything is drawn: a refused deal neither reseeds nor draws a seat.
            game_from_deal(self.rules, deal, default_dealer=self.rules.first_dealer or 0)
            before = self._state_for_refusal()
        super().reset(seed=seed)
        n = self.rules.num_players
        if self.seat_choice == "random":
            self.seat = int(self.np_random.integers(n))
        if seed is not None:
            for opp in self.opponents:
                reseed = getattr(opp, "reseed", None)
                if callable(reseed):
                    reseed(int(self.np_random.integers(2**63)))
        while True:
            game_seed = int(self.np_random.integers(2**63))
            self.table.reset(seed=game_seed, options={"deal": deal} if deal is not None else None)
            self._play_others()
            if not self.table.game.over:
                break
            if deal is not None:
                seat = self.seat
                self._restore(before)
                raise ValueError(f"the deal ends before the learner (seat {seat}) has a turn")
            # A seeded deal never ends in the first round (every hand holds 5+ cards);
            # draw another if it did.
        self._started = True
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's action, then the other seats up to its next turn or the game's end."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        game = self.table.game
        if game.over:
            raise RuntimeError("the game is over; call reset() to deal the next one")
        act = np.asarray(action)
        if act.size != 1 or not np.issubdtype(act.dtype, np.integer):
            raise ValueError(f"one integer action per step, got {action!r}")
        act_i = int(act.reshape(()))
        mask = legal_mask(game)
        if not 0 <= act_i < len(mask) or mask[act_i] == 0:
            if self.illegal == "raise":
                legal = [int(a) for a in np.flatnonzero(mask)]
                raise IllegalActionError(game, act_i, legal).with_agent(f"player_{self.seat}")
            return self._observe(), 0.0, False, False, self._info(illegal=True)
        self.table.step(act_i)
        self._play_others()
        game = self.table.game
        terminated = game.over and game.status != TRUNCATED
        truncated = game.status == TRUNCATED
        reward = 0.0
        info = self._info()
        if game.over:
            points = penalties(game)
            if terminated:
                reward = 1.0 if game.winner == self.seat else -points[self.seat] / 100.0
            info.update(
                winner=game.winner, status=game.status, penalties=points, penalty=points[self.seat]
            )
        return self._observe(), float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (int8), as sb3-contrib's MaskablePPO asks for.

        Once the game is over only ``pass`` is marked, as in the AEC env, so the mask is never
        empty.
        """
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        game = self.table.game
        if game.over:
            mask = np.zeros(self.table.actions.n, dtype=np.int8)
            mask[self.table.actions.pass_] = 1
            return mask
        return legal_mask(game)

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), every hand shown."""
        if self.render_mode is None:
            return None
        return self.table.render()

    def snapshot(self) -> dict[str, Any]:
        """The whole table as a JSON-ready dict (the AEC env's snapshot)."""
        return self.table.snapshot()

    # -- internals -----------------------------------------------------------------

    def _state_for_refusal(self) -> dict[str, Any]:
        """What a reset from an explicit deal may change before it can tell that the deal ends
        before the learner's turn: the table, the generator, the seat, the opponents' state
        (each opponent object stays the same one; only its attributes are put back)."""
        return copy.deepcopy(
            {
                "table": self.table,
                "np_random": self._np_random,
                "np_random_seed": self._np_random_seed,
                "seat": self.seat,
                "started": self._started,
                "opponents": [vars(p) if hasattr(p, "__dict__") else None for p in self.opponents],
            }
        )

    def _restore(self, saved: dict[str, Any]) -> None:
        """Put back what :meth:`_state_for_refusal` kept: the refused reset changed nothing."""
        self.table = saved["table"]
        self._np_random = saved["np_random"]
        self._np_random_seed = saved["np_random_seed"]
        self.seat = saved["seat"]
        self._started = saved["started"]
        for policy, attributes in zip(self.opponents, saved["opponents"], strict=True):
            if attributes is not None:
                vars(policy).clear()
                vars(policy).update(attributes)

    def _play_others(self) -> None:
        """Let the policies of the other seats act until the learner is to act or the game ends."""
        table, game, n = self.table, self.table.game, self.rules.num_players
        while not game.over and game.current != self.seat:
            agent = table.agent_selection
            view = table.observe(agent)
            policy = self.opponents[(game.current - self.seat - 1) % n]
            actions = np.asarray(policy.act(view["observation"][None], view["action_mask"][None]))
            if actions.shape not in ((1,), ()) or not np.issubdtype(actions.dtype, np.integer):
                raise ValueError(
                    f"the opponent {type(policy).__name__} (seat {game.current}) returned "
                    f"{shown(actions)} of shape {actions.shape}; act(obs, mask) must return one "
                    "integer action per row of obs: an integer array of shape (1,) here"
                )
            table.step(int(actions.reshape(())))

    def _observe(self) -> np.ndarray:
        obs = self.table.observe(f"player_{self.seat}")["observation"]
        return obs * self.obs_scale if self.obs_scale is not None else obs

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat, "illegal": illegal}


def _opponent_list(opponents: Policy | Sequence[Policy] | None, n: int) -> list[Policy]:
    if opponents is None:
        return [RandomPolicy(0)] * (n - 1)
    if isinstance(opponents, Policy):
        return [opponents] * (n - 1)
    if isinstance(opponents, str):
        raise TypeError(
            f"opponents={shown(opponents)} is an agent spec, not a Policy; build the bots with "
            "the agents package: import agents; "
            f"VintageSingleEnv(opponents=agents.make({shown(opponents)}))"
        )
    if isinstance(opponents, bytes) or not isinstance(opponents, Sequence):
        raise TypeError(
            f"opponents must be a Policy or a list of Policies, got {type(opponents).__name__}"
        )
    ops = list(opponents)
    if len(ops) != n - 1:
        raise ValueError(
            f"opponents lists {len(ops)} policies; a {n}-player table needs one or {n - 1}"
        )
    for p in ops:
        if not isinstance(p, Policy):
            raise TypeError(
                "each opponent must have act(obs, mask) -> actions (a Policy), "
                f"got {type(p).__name__}"
            )
    return ops
