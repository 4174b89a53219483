"""``PartyVecEnv``: games at tables of three or four as one stable-baselines3 ``VecEnv``.

The n-seat counterpart of :class:`train.vec_env.env.SpeedVecEnv` (Party Speed, docs/rules.md),
on the engine's n-seat records (:class:`speed_env.seats.SeatGames`), every seat of every game
observed in one compiled call (the ego-centric party observation,
:func:`speed_env.party_obs.party_layout`):

- each of the ``n_envs`` slots is one game; the learner sits in a seat drawn per game, and each
  other seat is played by a bot drawn per game from the opponent mix (``greedy``, ``chain*2``
  …, weights as :func:`train.common.settings.weighted` reads them); with ``self`` in the mix,
  a seat is played, ``self_fraction`` of the time, by one of the newest ``max_snapshots``
  snapshots of the learner (:meth:`PartyVecEnv.add_snapshot`; before the first, and otherwise,
  by the bots listed, or random, greedy and chain where none is); each bot's seat is moved
  later by the thinking ``think`` charges it (``None``: off, what it declares, as
  ``chain@think=5ms``; the learner and its snapshots are charged nothing);
- **one step is one decision**: a step applies the learner's actions, then ticks on every game
  where the learner can only wait (the bots acting wherever they have a play), until it has a
  choice again, its game ends, ``max_skip`` ticks have passed, or no more than ``skip_tail``
  of the games still wait (those show their forced state: wait only);
- a finished game pays the learner +1 for a win, ``-1/(N-1)`` for another seat's win (the
  engine's rewards, summing to 0 over the table), 0 for a draw and ``truncation_reward`` for
  a game cut at ``max_game_ms``, and restarts at once: slot ``i``'s ``k``-th game is the deal
  seeded ``seed + i + k * n_envs``. Its info holds ``terminal_observation``,
  ``TimeLimit.truncated``, ``episode`` (``r``, ``l`` in decisions, ``t``), ``is_success``,
  ``seat`` and ``opponents``.

Masks are int8 ``(n_envs, n_actions)`` (``action_masks()``, as MaskablePPO asks).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from agents.think.plan import ThinkPlan
from speed_env import engine
from speed_env.game import ActionError
from speed_env.party_obs import observe_range, party_obs_dim
from speed_env.reaction import make_profile
from speed_env.rules import Rules
from speed_env.seats import SeatGames


def opponent_mix(text: str) -> tuple[list[str], np.ndarray]:
    """The bots of an ``--opponent`` mix and their shares (``greedy,chain*3``); ``self`` alone
    brings the self-play bots (random, greedy, chain)."""
    from train.common.settings import specs, weighted
    from train.vec_env.pool import SELF_PLAY_BOTS

    pairs = [weighted(s) for s in specs(text) if s != "self"]
    if not pairs and "self" in specs(text):
        pairs = [(s, 1.0) for s in SELF_PLAY_BOTS]
    if not pairs:
        raise ValueError("opponent must name at least one agent spec")
    weights = np.array([w for _, w in pairs], np.float64)
    return [s for s, _ in pairs], weights / weights.sum()


class PartyVecEnv(VecEnv):
    """``n_envs`` games of ``rules.players`` seats, the learner in one (module docstring)."""

    def __init__(
        self,
        n_envs: int,
        rules: Rules,
        *,
        opponent: str = "greedy",
        tick_ms: int = 50,
        reaction: Any = None,
        max_skip: int = 200,
        skip_tail: float = 0.05,
        truncation_reward: float = -1.0,
        seed: int = 0,
        think: ThinkPlan | None = None,
    ) -> None:
        import agents
        from agents.think.plan import seat_profile
        from train.common.think import charged_ms

        if rules.players < 3:
            raise ValueError(f"PartyVecEnv seats 3 or 4 players, got players={rules.players}")
        if not 0.0 <= skip_tail < 1.0:
            raise ValueError(f"skip_tail must lie in [0, 1), got {skip_tail!r}")
        self.rules, self.players, self.n = rules, rules.players, int(n_envs)
        self.games = SeatGames(self.n, rules, tick_ms=tick_ms)
        self.profile = make_profile(reaction if reaction is not None else "human")
        self.members, self.shares = opponent_mix(opponent)
        self.n_bots = len(self.members)
        # One bot per member, each with a generator of its own; its reaction: its spec's or ours,
        # moved later by the thinking ``think`` charges it (None: off, what it declares).
        self.bots: list[Any] = [
            agents.make(s, rules, seed=seed + 1 + k) for k, s in enumerate(self.members)
        ]
        self.think_ms = [
            charged_ms(b, s, think) for b, s in zip(self.bots, self.members, strict=True)
        ]
        self.bot_params = [
            seat_profile(b, s, self.profile, think).params()
            for b, s in zip(self.bots, self.members, strict=True)
        ]
        self.self_play = "self" in [s.strip() for s in opponent.split(",")]
        self.self_fraction, self.max_snapshots = 0.5, 8
        self.max_skip, self.skip_tail = int(max_skip), float(skip_tail)
        self.truncation_reward = float(truncation_reward)
        self.tick_ms = tick_ms
        self.obs_dim, self.n_actions = party_obs_dim(rules), engine.n_actions(rules)
        self.cfg = engine.config(rules, tick_ms)
        self.obs = np.zeros((self.players, self.n, self.obs_dim), np.float32)
        self.mask = np.zeros((self.players, self.n, self.n_actions), np.int8)
        self.render_mode = None
        super().__init__(
            self.n,
            spaces.Box(0.0, 1.0, (self.obs_dim,), np.float32),
            spaces.Discrete(self.n_actions),
        )
        self.rng = np.random.default_rng(seed)
        self.base_seed = int(seed)
        self.seat = np.zeros(self.n, np.int64)
        # member[b, p]: the bot at seat p of game b (-1 at the learner's seat)
        self.member = np.full((self.n, self.players), -1, np.int64)
        self.restarts = np.zeros(self.n, np.int64)
        self.ep_len = np.zeros(self.n, np.int64)
        self.ep_start = np.zeros(self.n, np.float64)
        self._actions: np.ndarray | None = None
        self.timing = {"engine_s": 0.0, "opponent_s": 0.0, "step_wait_s": 0.0}
        self.counters = {"ticks": 0, "decisions": 0, "games": 0, "illegal": 0}

    # ----------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        """Deal every slot a new game (slot ``i`` the deal seeded ``seed + i``), run it to a
        decision."""
        if self._seeds[0] is not None:
            self.base_seed = int(self._seeds[0])
        self._reset_seeds()
        self.restarts[:] = 0
        rows = np.arange(self.n)
        self.games.reset([self.base_seed + i for i in range(self.n)])
        self._seat_games(rows)
        self._observe()
        self.ep_len[:], self.ep_start[:] = 0, time.perf_counter()
        waiting = rows[self.mask[self.seat, rows].sum(axis=1) < 2]
        self._run(waiting, np.zeros(waiting.size, np.int64), *self._blank())
        return self.learner_obs()

    def step_async(self, actions: np.ndarray) -> None:
        """Take the learner's action per slot (applied in :meth:`step_wait`)."""
        a = np.asarray(actions).reshape(-1)
        if a.shape[0] != self.n:
            raise ActionError(f"need one action per env ({self.n}), got {a.shape[0]}")
        if (a < 0).any() or (a >= self.n_actions).any():
            raise ActionError(f"actions must lie in Discrete({self.n_actions})")
        self._actions = a.astype(np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        """Apply the actions, run every game to the learner's next decision."""
        if self._actions is None:
            raise RuntimeError("call step_async() (or step()) after reset() first")
        t0 = time.perf_counter()
        rows = np.arange(self.n)
        self.counters["illegal"] += int((self.mask[self.seat, rows, self._actions] == 0).sum())
        self.counters["decisions"] += self.n
        self.ep_len += 1
        rewards, dones, infos = self._blank()
        self._run(rows, self._actions, rewards, dones, infos)
        self._actions = None
        self.timing["step_wait_s"] += time.perf_counter() - t0
        return self.learner_obs(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every slot, int8 ``(n_envs, n_actions)``."""
        return self.mask[self.seat, np.arange(self.n)].copy()

    def learner_obs(self) -> np.ndarray:
        """The learner's observation in every slot, float32 ``(n_envs, obs_dim)``."""
        return self.obs[self.seat, np.arange(self.n)].copy()

    def close(self) -> None:
        """Nothing to release."""

    def has_attr(self, attr_name: str) -> bool:
        """True for attributes of this env (``action_masks`` included)."""
        return hasattr(self, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute, once per listed slot (every slot shares this object)."""
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the env (shared by all slots)."""
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        """``action_masks`` per slot (what MaskablePPO calls); any other method once a slot."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[idx])
        return [getattr(self, method_name)(*args, **kwargs)] * len(idx)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No slot is a wrapped gym env."""
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No rendering here."""
        return [None] * self.n

    def add_snapshot(self, name: str, policy: Any) -> None:
        """Seat ``policy`` (a frozen copy of the learner) in the games dealt from now on; the
        oldest of more than ``max_snapshots`` retires (its games play on to their end)."""
        self.members.append(name)
        self.bots.append(policy)
        self.think_ms.append(0.0)  # the learner's copy, charged nothing as the learner
        self.bot_params.append(self.profile.params())

    def describe(self) -> list[dict[str, Any]]:
        """Who sits in the other seats (JSON-ready, ``pool.json``): each member's kind, its share
        of the bot seats dealt from now on and the thinking charged to its plays (ms)."""
        snaps = len(self.bots) - self.n_bots
        drawn = range(max(0, snaps - self.max_snapshots), snaps) if self.self_play else range(0)
        mine = self.self_fraction if drawn else 0.0
        out = []
        for k, name in enumerate(self.members):
            if k < self.n_bots:
                kind, p = "bot", (1.0 - mine) * float(self.shares[k])
            else:
                kind, p = "snapshot", mine / len(drawn) if k - self.n_bots in drawn else 0.0
            out.append({"name": name, "kind": kind, "p": p, "think_ms": self.think_ms[k]})
        return out

    def throughput(self) -> dict[str, float]:
        """Counters and time spent so far (engine vs the bots)."""
        return {**self.counters, **{k: round(v, 3) for k, v in self.timing.items()}}

    # ----------------------------------------------------------------- inside
    def _blank(self) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
        return np.zeros(self.n, np.float32), np.zeros(self.n, bool), [{} for _ in range(self.n)]

    def _observe(self) -> None:
        # Every seat of every game in one compiled call (the masks come with it).
        observe_range(self.games.state, self.cfg, self.obs, self.mask, 0, self.n)

    def _seat_games(self, rows: np.ndarray) -> None:
        """Draw the learner's seat and the bots of the other seats of games ``rows``."""
        seats = self.rng.integers(self.players, size=rows.size)
        drawn = self.rng.choice(self.n_bots, size=(rows.size, self.players), p=self.shares)
        snaps = len(self.bots) - self.n_bots
        if self.self_play and snaps:  # a seat in self_fraction of them: one of the newest snapshots
            mine = self.rng.random(drawn.shape) < self.self_fraction
            newest = self.rng.integers(max(0, snaps - self.max_snapshots), snaps, size=drawn.shape)
            drawn[mine] = self.n_bots + newest[mine]
        drawn[np.arange(rows.size), seats] = -1
        self.seat[rows], self.member[rows] = seats, drawn
        lat = self.games.lat
        for p in range(self.players):
            for k, params in enumerate(self.bot_params):
                lat[rows[drawn[:, p] == k], p] = params
            lat[rows[seats == p], p] = self.profile.params()

    def _bot_actions(self, pending: np.ndarray) -> np.ndarray:
        """The bots' actions ``(players, len(pending))`` (0 at the learner's seats): each bot
        once, on every seat it holds that has a play."""
        acts = np.zeros((self.players, pending.size), np.int64)
        seat_of = self.member[pending].T  # (players, len(pending))
        free = self.mask[:, pending, 1:].any(axis=2)
        for k, bot in enumerate(self.bots):
            p, j = np.nonzero((seat_of == k) & free)
            if p.size:
                acts[p, j] = bot.act(self.obs[p, pending[j]], self.mask[p, pending[j]])
        return acts

    def _run(
        self,
        pending: np.ndarray,
        mine: np.ndarray,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
    ) -> None:
        """Tick games ``pending`` (the first tick with the learner's ``mine``) on to decisions."""
        tail, ticks = self.skip_tail * self.n, 0
        while pending.size and ticks < self.max_skip:
            t0 = time.perf_counter()
            acts = self._bot_actions(pending)
            t1 = time.perf_counter()
            acts[self.seat[pending], np.arange(pending.size)] = mine
            ended = np.zeros(pending.size, np.bool_)
            engine.step_some(self.games.state, self.cfg, self.games.lat, pending, acts, ended)
            if ended.any():
                self._finish(pending[ended], rewards, dones, infos)
            self._observe()
            self.timing["engine_s"] += time.perf_counter() - t1
            self.timing["opponent_s"] += t1 - t0
            ticks += 1
            self.counters["ticks"] += pending.size
            pending = pending[self.mask[self.seat[pending], pending].sum(axis=1) < 2]
            mine = np.zeros(pending.size, np.int64)
            if pending.size <= tail:
                break

    def _finish(
        self, done: np.ndarray, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]
    ) -> None:
        """Pay the ended games ``done``, note them in ``infos`` and deal their next games."""
        self._observe()  # the terminal observation: the table as it ended
        state, n = self.games.state, self.players
        for b in done:
            g, seat = state[b], int(self.seat[b])
            winner, truncated = int(g["winner"]), bool(g["truncated"])
            if truncated:
                r = self.truncation_reward
            else:
                r = 0.0 if not 0 <= winner < n else 1.0 if winner == seat else -1.0 / (n - 1)
            rewards[b] += r
            dones[b] = True
            infos[b].update(
                terminal_observation=self.obs[seat, b].copy(),
                is_success=winner == seat and not truncated,
                seat=seat,
                opponents=[self.members[m] for m in self.member[b] if m >= 0],
                episode={
                    "r": r,
                    "l": int(self.ep_len[b]),
                    "t": round(time.perf_counter() - self.ep_start[b], 6),
                },
            )
            infos[b]["TimeLimit.truncated"] = False  # a cut game pays truncation_reward, final
            self.restarts[b] += 1
            self.games.reset_game(int(b), self.base_seed + int(b) + int(self.restarts[b]) * self.n)
            self.ep_len[b], self.ep_start[b] = 0, time.perf_counter()
        self.counters["games"] += done.size
        self._seat_games(done)
