"""``BatchEnv``: ``n`` games of real-time Speed stepped at once, seat-major.

For training and tournaments. Arrays put the seat first: observations are
float32 ``(2, n, obs_dim)``, masks int8 ``(2, n, n_actions)``, actions int
``(2, n)``. Game ``i`` of a batch reset with ``seed`` is the game that
``parallel_env`` plays when reset with ``seed + i``; a finished game restarts
at once (Gymnasium vector envs' same-step autoreset), its ``k``-th restart
being the game seeded ``seed + i + k * n``. With ``autoreset=False`` a
finished game stays over (only waiting is legal, nothing changes) and reports
its end once: tournaments play each deal exactly once that way. The finished game's last
observation and result are in ``infos``:

===============  ===========================  =======================================
key              shape                        meaning
===============  ===========================  =======================================
``final_obs``    (2, n, obs_dim) float32      last observation of games that ended
``_final_obs``   (n,) bool                    which games ended on this step
``winner``       (n,) int8                    -1 running, 0 / 1 the winning seat, 2 draw
``played``       (2, n) int32                 cards each seat played in the ended game
``bounced``      (2, n) int32                 cards each seat had bounce back
``clock_ms``     (n,) int64                   length of the ended game
``points``       (2, n) int64                 match points of the ended game (``us``/``pagat``
                                              only; 0 for games that did not end)
``illegal``      (2, n) bool                  the action was illegal and taken as a wait
===============  ===========================  =======================================
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from speed_env.game import Games, check_options, check_seed
from speed_env.rules import Rules


class BatchEnv:
    """``n`` real-time Speed games stepped together with auto-reset (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "speed_batch_v0"}

    def __init__(
        self,
        n: int,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        tick_ms: int = 50,
        reaction: Any = None,
        illegal_action: str = "wait",
        autoreset: bool = True,
        **options: Any,
    ) -> None:
        self.autoreset = autoreset
        self.games = Games(n, rules, tick_ms=tick_ms, reaction=reaction, illegal_action=illegal_action, **options)
        self.n = self.games.n
        self.rules = self.games.rules
        self.n_actions = self.games.n_actions
        self.obs_dim = self.games.obs_dim
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.obs_dim,), np.float32)
        self.single_action_space = spaces.Discrete(self.n_actions)
        self._seed = 0
        self._restarts = np.zeros(self.n, np.int64)
        self._finished = np.zeros(self.n, bool)
        self._mask: np.ndarray | None = None
        self._seeds: np.random.Generator | None = None  # draws unseeded resets' seeds

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Deal every game afresh: game ``i`` is the one seeded ``seed + i``. Returns ``(obs, mask)``.

        Without a seed, ``seed`` is drawn from a generator seeded by the last
        ``reset(seed=s)`` (OS entropy before any), as Gymnasium does.
        ``options`` may not hold a ``deal``: a batch deals seeded games only.
        """
        seed = check_seed(seed)
        check_options(options, deal=False, env="BatchEnv")
        if seed is not None:
            self._seeds = seeding.np_random(seed)[0]
        elif self._seeds is None:
            self._seeds = seeding.np_random()[0]
        self._seed = seed if seed is not None else int(self._seeds.integers(2**63))
        self._restarts[:] = 0
        self._finished[:] = False
        idx = np.arange(self.n)
        self.games.deal_seeded(idx, [self._seed + i for i in range(self.n)])
        obs, self._mask = self.games.observe()
        return obs, self._mask.copy()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One tick of every game. Returns ``(obs, mask, rewards, terminated, truncated, infos)``."""
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        a = self.games.check_actions(actions)
        self.games.check_legal(a, self._mask)
        illegal = np.take_along_axis(self._mask, a[..., None], axis=2)[..., 0] == 0
        rewards = self.games.step(a)
        st = self.games.state
        # Games that ended on this step; with autoreset=False a finished game stays
        # over but reports its end only once.
        over = (st["phase"] == 2) & ~self._finished
        truncated = st["truncated"] & over
        terminated = over & ~truncated
        if not self.autoreset:
            self._finished |= over
        obs, mask = self.games.observe()
        infos: dict[str, Any] = {"illegal": illegal, "_final_obs": over}
        if over.any():
            done = np.flatnonzero(over)
            final = np.zeros_like(obs)
            final[:, done] = obs[:, done]
            infos["final_obs"] = final
            infos["winner"] = np.where(over, st["winner"], -1).astype(np.int8)
            infos["played"] = np.where(over[None], st["played"].T, 0)
            infos["bounced"] = np.where(over[None], st["bounced"].T, 0)
            infos["clock_ms"] = np.where(over, st["clock"], 0)
            points = self.games.match_points()
            if points is not None:
                infos["points"] = np.where(over[None], points, 0)
            if self.autoreset:
                self._restarts[done] += 1
                seeds = [self._seed + int(i) + int(self._restarts[i]) * self.n for i in done]
                self.games.deal_seeded(done, seeds)
                self.games.observe_games(done, obs, mask)
        else:
            infos["winner"] = np.full(self.n, -1, np.int8)
        self._mask = mask
        return obs, mask.copy(), rewards, terminated, truncated, infos

    @property
    def all_finished(self) -> bool:
        """With ``autoreset=False``: has every game of the batch ended?"""
        return bool(self._finished.all())

    def table(self, i: int = 0) -> dict[str, Any]:
        """The full table of game ``i``, hidden piles included (docs/rules.md)."""
        return self.games.table(i)

    def snapshot(self, i: int = 0) -> dict[str, Any]:
        """The public JSON-ready table of game ``i``."""
        return self.games.snapshot(i)
