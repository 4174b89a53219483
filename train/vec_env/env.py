"""``SpeedVecEnv``: hundreds of Speed games as one stable-baselines3 ``VecEnv``, opponents inside.

Each of the ``n_envs`` slots is one game on the batched engine (the same
:class:`speed_env.game.Games` that ``BatchEnv`` steps), with the learner in
one seat (drawn per game, so it learns both) and an opponent from an
:class:`~train.vec_env.pool.OpponentPool` in the other (drawn per game, so a mix or a
self-play pool is sampled per game). ``action_masks()`` (and
``env_method("action_masks")``, which sb3-contrib's ``MaskablePPO`` calls)
gives the learner's legal actions.

**One step is one decision.** In about 92% of ticks the learner can only
wait (its card is in the air, or nothing fits). With ``skip_forced=True`` (the
default) the env plays those waits itself: a step applies the learner's
action at its game's current tick, then runs that game on, tick by tick with
the opponent acting every tick, until the learner again has a choice (two or
more legal actions), the game ends, or ``max_skip`` ticks have passed. Once no more than
``skip_tail`` of the games are still waiting, the step ends and those few
present their forced state (mask: wait only) rather than hold up the batch:
the opponents' policies are called once per tick of the loop where one of them
has a play, so a long tail costs more than the few wasted samples. The loop's
ticks run compiled (:func:`train.vec_env.skip_loop.play_forced`), jumping over the
ticks where a game's clock alone moves: Python is visited only where an
opponent policy that runs in Python has a play, and to pay and deal the
games that ended (:mod:`train.vec_env.deal`). The
game is exactly the one a tick-by-tick player would see; only the samples
where the learner had no choice are left out, so PPO's updates spend their
time on decisions (a game is about 250 ticks but about 20 decisions per
seat). Games advance independently, so this steps a subset of the batch
(:meth:`speed_env.game.Games.step_games`).
``skip_forced=False`` makes every tick a step (as ``BatchEnv`` does).

Finished games restart at once, as SB3 expects: the step that ends a game
returns ``done`` with the learner's reward (+1 win, -1 loss, 0 draw or
truncated) and the first observation of the next game, and its info holds
``terminal_observation``, ``TimeLimit.truncated``, ``episode`` (``r`` the
game's result, ``l`` its length in decisions, ``t``), ``is_success``,
``opponent``, ``seat`` and ``ticks``.

Two training-only reward options guard against *stalling*, for rules with the
idle rule off (``idle_flip_ms=0``): then a player who holds a legal play and
waits freezes the table (it is not stuck, so nothing flips), and a policy
that finds waiting no worse than losing can turn lost games into truncated
draws. With the default idle rule the table flips anyway and a waiting seat
loses, so neither is needed. ``wait_penalty`` is paid on each step where the
learner waits with a play available; ``truncation_reward`` (e.g. -1) makes a
truncated game a terminal outcome instead of a time-limit cut (by default it
pays 0 and is flagged ``TimeLimit.truncated`` so SB3 bootstraps).

``shaping`` adds potential-based shaping: the potential is ``shaping`` times
the learner's lead in cards left (a card is 1/27), zero once a game is over,
and each step pays its change. A card that lands pays at once, a bounce or
an opponent's play costs at once; over a whole game the shaping sums to zero,
so with ``gamma = 1`` the best policy is unchanged.
Slot ``i``'s ``k``-th game is the deal seeded ``seed + i + k * n_envs``, as in
``BatchEnv``. ``rules`` may list several presets (``"japanese,us"``): the
slots are split between them evenly (they must share one observation and
action signature).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from speed_env.game import ActionError, Games
from speed_env.observation import observation_layout
from speed_env.policy import Policy
from speed_env.reaction import make_pair
from speed_env.rules import Rules, make_rules
from train.vec_env.deal import Group, Restarts
from train.vec_env.pool import OpponentPool
from train.vec_env.skip_loop import compiled_chain, tick_forced


def parse_rules_list(
    rules: str | os.PathLike[str] | Rules | Sequence[Any], **options: Any
) -> list[Rules]:
    """One or several rules (``"japanese,us"`` or a list), each with the same overrides."""
    if isinstance(rules, str) and "," in rules:
        items: Sequence[Any] = [r.strip() for r in rules.split(",") if r.strip()]
    elif isinstance(rules, (str, os.PathLike, Rules)):
        items = [rules]
    else:
        items = list(rules)
    if not items:
        raise ValueError("rules lists no preset")
    return [make_rules(r, **options) for r in items]


class SpeedVecEnv(Restarts, VecEnv):
    """``n_envs`` games, the learner in one seat, pool opponents in the other (module docstring)."""

    def __init__(
        self,
        n_envs: int,
        rules: str | os.PathLike[str] | Rules | Sequence[Any] = "us",
        *,
        opponent: str | Policy | OpponentPool = "random",
        seat: int | str = "random",
        tick_ms: int = 50,
        reaction: Any = None,
        skip_forced: bool = True,
        max_skip: int = 200,
        skip_tail: float = 0.05,
        wait_penalty: float = 0.0,
        truncation_reward: float | None = None,
        shaping: float = 0.0,
        seed: int = 0,
        **options: Any,
    ) -> None:
        if isinstance(n_envs, bool) or not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ValueError(f"n_envs must be a whole number >= 1, got {n_envs!r}")
        if seat not in (0, 1, "random", "alternate"):
            raise ValueError(f"seat must be 0, 1, 'random' or 'alternate', got {seat!r}")
        if max_skip < 1:
            raise ValueError(f"max_skip must be >= 1, got {max_skip!r}")
        if not 0.0 <= skip_tail < 1.0:
            raise ValueError(f"skip_tail must lie in [0, 1), got {skip_tail!r}")
        self.rules_list = parse_rules_list(rules, **options)
        if len(self.rules_list) > n_envs:
            raise ValueError(
                f"{len(self.rules_list)} rules need at least as many envs, got n_envs={n_envs}"
            )
        # The learner's profile, and the opponent's unless its spec names one (chain@pro).
        self.reactions = make_pair(reaction)
        # One group of slots per rules preset, as even as whole numbers allow.
        bounds = np.linspace(0, n_envs, len(self.rules_list) + 1).round().astype(int)
        self.groups = [
            Group(
                k,
                int(lo),
                int(hi),
                Games(int(hi - lo), r, tick_ms=tick_ms, reaction=self.reactions),
            )
            for k, (lo, hi, r) in enumerate(
                zip(bounds[:-1], bounds[1:], self.rules_list, strict=True)
            )
        ]
        sigs = {(g.games.obs_dim, g.games.n_actions) for g in self.groups}
        if len(sigs) != 1:
            raise ValueError(
                f"rules {[r.preset for r in self.rules_list]} differ in observation/action size: "
                f"{sigs}"
            )
        obs_dim, n_actions = sigs.pop()
        self.obs_dim, self.n_actions = obs_dim, n_actions
        self.tick_ms = tick_ms
        self.pool = OpponentPool.from_spec(opponent, self.rules_list, seed=seed)
        self.seat_choice = seat
        self.skip_forced = skip_forced
        self.max_skip = int(max_skip)
        self.skip_tail = float(skip_tail)
        self.wait_penalty = float(wait_penalty)
        self.truncation_reward = truncation_reward
        self.shaping = float(shaping)
        self.base_seed = int(seed)
        self.n = int(n_envs)
        self.render_mode = None
        super().__init__(
            self.n, spaces.Box(0.0, 1.0, (obs_dim,), np.float32), spaces.Discrete(n_actions)
        )
        self.rng = np.random.default_rng(seed)
        self.seat = np.zeros(self.n, np.int64)
        self.member = np.zeros(self.n, np.int64)
        self.restarts = np.zeros(self.n, np.int64)
        self.game_no = np.zeros(self.n, np.int64)
        self.ep_return = np.zeros(self.n, np.float64)
        self.ep_len = np.zeros(self.n, np.int64)
        self.ep_start = np.zeros(self.n, np.float64)
        self.learner_obs = np.zeros((self.n, obs_dim), np.float32)
        self.learner_mask = np.zeros((self.n, n_actions), np.int8)
        self._actions: np.ndarray | None = None
        layout = observation_layout(self.rules_list[0])
        self._left = (layout["my_cards"].start + 2, layout["opp_cards"].start + 2)
        self.potential = np.zeros(self.n, np.float32)
        # Empty: its length differs from the pool's, so the first deal builds it.
        self._opp_params = np.zeros((0, 5))
        self._seed = int(seed)
        self._resets = 0
        # Wall seconds, and the CPU seconds of step_wait's thread (a loaded machine inflates
        # those less).
        self.timing = {
            "engine_s": 0.0,
            "opponent_s": 0.0,
            "step_wait_s": 0.0,
            "step_wait_cpu_s": 0.0,
        }
        self.counters = {
            "ticks": 0,
            "loop_ticks": 0,
            "passes": 0,
            "decisions": 0,
            "forced": 0,
            "games": 0,
            "illegal": 0,
            "jumps": 0,
            "quiet_ticks": 0,
        }
        self._quiet = np.zeros(2, np.int64)  # play_forced's jumps and the game-ticks they covered

    # ----------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        """Deal every slot a new game and run it to a decision.

        Slot ``i`` gets the deal seeded ``seed + i``.
        """
        if self._seeds[0] is not None:
            self._seed = int(self._seeds[0])
        elif self._resets:
            # Unseeded, a later reset moves the base 7919 x n on, so its first deals are not
            # the last reset's.
            self._seed = self.base_seed + 7_919 * self._resets * self.n
        self._resets += 1
        # As SB3's VecEnv: a seed given by seed() serves one reset only.
        self._reset_seeds()
        self.restarts[:] = 0
        self.game_no[:] = 0
        for g in self.groups:
            slots = np.arange(g.lo, g.hi)
            self._new_games(g, g.rows, slots)
            obs, mask = g.games.observe()
            g.obs[:], g.mask[:] = obs, mask
            if self.skip_forced:
                self._run(
                    g,
                    None,
                    np.zeros(self.n, np.float32),
                    np.zeros(self.n, bool),
                    [{} for _ in range(self.n)],
                )
            self._gather(g)
        self.ep_return[:] = 0
        self.ep_len[:] = 0
        self.ep_start[:] = time.perf_counter()
        self.potential = self._potential(self.learner_obs)
        self.reset_infos = [{} for _ in range(self.n)]
        return self.learner_obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Take the learner's action per slot (applied in :meth:`step_wait`)."""
        a = np.asarray(actions).reshape(-1)
        if a.shape[0] != self.n:
            raise ActionError(f"need one action per env ({self.n}), got {a.shape[0]}")
        # Float actions pass when they are whole numbers.
        if not np.issubdtype(a.dtype, np.integer) and not np.all(np.mod(a, 1) == 0):
            raise ActionError(f"actions must be integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
        bad = (a < 0) | (a >= self.n_actions)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ActionError(
                f"action {int(a[i])} of env {i} is outside the action space "
                f"Discrete({self.n_actions})"
            )
        self._actions = a

    def step_wait(self) -> VecEnvStepReturn:
        """Apply the actions, run every game to the learner's next decision.

        Returns ``(obs, rewards, dones, infos)``.
        """
        if self._actions is None:
            raise RuntimeError("call step_async() (or step()) after reset() first")
        t0, c0 = time.perf_counter(), time.thread_time()
        rewards = np.zeros(self.n, np.float32)
        dones = np.zeros(self.n, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.n)]
        chosen = self.learner_mask[np.arange(self.n), self._actions]
        choice = self.learner_mask.sum(axis=1) >= 2
        self.counters["forced"] += int((~choice).sum())
        if self.wait_penalty:
            # Only a wait chosen when a play was possible: a forced wait costs nothing.
            rewards -= np.float32(self.wait_penalty) * (choice & (self._actions == 0))
        self.counters["illegal"] += int((chosen == 0).sum())
        self.ep_len += 1
        self.counters["decisions"] += self.n
        for g in self.groups:
            self._run(g, self._actions[g.lo : g.hi], rewards, dones, infos)
            self._gather(g)
        self._actions = None
        if self.shaping:
            # Potential-based shaping, zero at the end of a game: it moves credit earlier
            # without changing which policy is best (with gamma = 1, a game's shaping sums to 0).
            new = self._potential(self.learner_obs)
            rewards += np.where(dones, 0.0, new) - self.potential
            self.potential = new
        self.timing["step_wait_s"] += time.perf_counter() - t0
        self.timing["step_wait_cpu_s"] += time.thread_time() - c0
        return self.learner_obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot, int8 ``(n_envs, n_actions)``."""
        return self.learner_mask.copy()

    def close(self) -> None:
        """Nothing to release (no subprocesses)."""

    def has_attr(self, attr_name: str) -> bool:
        """True for attributes of this env (``action_masks`` included: masking is supported)."""
        return hasattr(self, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute, once per listed slot (every slot shares this object)."""
        if attr_name == "render_mode":
            return [None] * len(list(self._get_indices(indices)))
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the env (shared by all slots)."""
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` per slot (what MaskablePPO calls); any other method once per slot."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            # Rows of one fresh copy: nothing the env writes to later (MaskablePPO stacks them).
            return list(self.learner_mask[idx])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No slot is a wrapped gym env."""
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No rendering here; use ``snapshot(i)`` and ``speed_env.render.modes``."""
        return [None] * self.n

    def snapshot(self, i: int) -> dict[str, Any]:
        """The public table of slot ``i``'s game."""
        g = self._group_of(i)
        return g.games.snapshot(i - g.lo)

    # ----------------------------------------------------------------- inside
    def _group_of(self, i: int) -> Group:
        for g in self.groups:
            if g.lo <= i < g.hi:
                return g
        raise IndexError(f"env index {i} out of range 0..{self.n - 1}")

    def _gather(self, g: Group) -> None:
        seat = self.seat[g.lo : g.hi]
        self.learner_obs[g.lo : g.hi] = g.obs[seat, g.rows]
        self.learner_mask[g.lo : g.hi] = g.mask[seat, g.rows]

    def _run(
        self,
        g: Group,
        actions: np.ndarray | None,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
    ) -> None:
        """Tick group ``g``'s games: the first tick with ``actions``, then on to decisions.

        Each pass of the loop is a tick of the games still forced to wait: the
        opponents that have a play act (one call per pool member, its games in row
        order), then one compiled call (:func:`train.vec_env.skip_loop.play_forced`) steps
        and observes those games, lists the ones still forced, and takes the
        following ticks itself while no policy in Python has anything to choose
        (a ``chain`` opponent it plays itself), jumping over the ticks where a
        game's clock alone moves. The games that ended are paid and dealt anew
        after it in one round (:meth:`_finish`), their seats and opponents drawn
        a tick's games at a time, as the tick-by-tick loop did."""
        seat_all = self.seat[g.lo : g.hi]
        if actions is None:  # from a fresh deal: only the games where the learner has no choice yet
            pending = g.rows[g.mask[seat_all, g.rows].sum(axis=1) < 2]
            mine = np.zeros(pending.size, np.int64)
        else:
            pending, mine = g.rows, actions
        chain = compiled_chain(self.pool, g.index, self.obs_dim)
        # Where the opponent has a play (its policy is called there), unless the kernel plays it.
        free = None if chain else g.mask[1 - seat_all[pending], pending, 1:].any(axis=1)
        # Without skipping, one tick a step, as the plain env steps.
        ticks_left = self.max_skip if self.skip_forced else 1
        # Once no more than skip_tail of the games still wait, the step ends: a few long waits
        # (a stuck countdown) must not hold up the whole batch.
        tail = self.skip_tail * g.m if self.skip_forced else np.inf
        while pending.size and ticks_left:
            theirs = np.zeros(pending.size, np.int64)
            t0 = time.perf_counter()
            choice = np.flatnonzero(free) if free is not None else ()
            if len(choice):  # the opponent acts only where it has a play
                rows = pending[choice]
                opp = 1 - seat_all[rows]
                theirs[choice] = self.pool.act(
                    g.obs[opp, rows], g.mask[opp, rows], self.member[rows + g.lo], g.index
                )
            t1 = time.perf_counter()
            pending, kept_free, parts, ticks, stepped = tick_forced(
                g, pending, seat_all, mine, theirs, ticks_left, tail, chain, self._quiet
            )
            free = None if chain else kept_free
            self.counters["loop_ticks"] += ticks
            self.counters["passes"] += 1
            self.counters["ticks"] += stepped
            self.counters["jumps"], self.counters["quiet_ticks"] = self._quiet.tolist()
            if parts:
                self._finish(g, parts, rewards, dones, infos)
            self.timing["engine_s"] += time.perf_counter() - t1
            self.timing["opponent_s"] += t1 - t0
            ticks_left -= ticks
            mine = np.zeros(pending.size, np.int64)
            if pending.size <= tail:
                break

    def _potential(self, obs: np.ndarray) -> np.ndarray:
        """``shaping`` times the learner's lead in cards left (fraction of 27), per slot."""
        if not self.shaping:
            return np.zeros(len(obs), np.float32)
        return (self.shaping * (obs[:, self._left[1]] - obs[:, self._left[0]])).astype(np.float32)

    def throughput(self) -> dict[str, float]:
        """Counters and time spent so far (engine stepping/observing vs opponent policies)."""
        return {**self.counters, **{k: round(v, 3) for k, v in self.timing.items()}}
