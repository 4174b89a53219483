"""``BatchEnv``: ``n`` games of real-time Speed stepped at once, seat-major.

For training and tournaments. Arrays put the seat first: observations are
float32 ``(2, n, obs_dim)``, masks int8 ``(2, n, n_actions)``, actions int
``(2, n)``. With ``players=3`` or ``4`` (Party Speed, docs/rules.md) every
``2`` of this page is the number of players ``N``: observations ``(N, n,
obs_dim)`` (each seat's ego-centric n-seat vector,
:func:`speed_env.party_obs.party_layout`), masks, actions, rewards (+1 the
winner, ``-1/(N-1)`` each other seat), ``played``, ``bounced``, ``points``
and ``illegal`` ``(N, n)``, ``winner`` ``N`` for a draw.

Game ``i`` of a batch reset with ``seed`` is the game that
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

Every array ``reset`` and ``step`` return is fresh, the caller's to keep or
change. ``copy=False`` (as in Gymnasium's vector envs) opts out for the two
big ones: ``obs`` and ``mask`` are then the env's own two buffers, the same
two arrays on every call, updated in place by the next ``step`` or ``reset``.
Only the entries a tick changed are rewritten (where nothing but the clock
moved, the clock entries alone), so anything written into them carries over:
read them, copy what you keep, never write into them. Everything else
(rewards, flags, ``infos``) stays fresh. At n = 4096 this saves writing
about 6.5 MB a step.

Observation formats. With the default ``obs_format="dict"`` the two fields of
the classic ``{"observation", "action_mask"}`` dict come back side by side as
two arrays: ``reset -> (obs, mask)`` and ``step -> (obs, mask, rewards,
terminated, truncated, infos)``. With ``obs_format="box"`` the mask travels in
``infos["action_mask"]`` (int8 ``(2, n, n_actions)``, the same numbers) and the
calls return what a Gymnasium vector env returns: ``reset -> (obs, infos)``
and ``step -> (obs, rewards, terminated, truncated, infos)`` (with ``copy=False`` that
mask is the env's own buffer, as ``mask`` is otherwise).

``n`` is at most :data:`~speed_env.batch_size.MAX_GAMES` (2**20), and the
memory the batch would take must be available: a larger batch is refused
before anything is allocated, naming both (:mod:`speed_env.batch_size`).

``threads=k`` shares every step out among ``k`` threads (the games split in
equal parts; each game is stepped by one thread, so the results are the same
for any ``k``). It pays from about a thousand games, on as many free cores.
"""

from __future__ import annotations

import mmap
import os
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from speed_env.game import Games, check_options, check_seed
from speed_env.obs_format import check_obs_format
from speed_env.party_games import PartyGames, seats_asked
from speed_env.rules import Rules
from speed_env.settings import table_settings
from speed_env.shown import shown


def _zeros_on_touch(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A zeroed array in a fresh anonymous mapping: the system zeroes a page when first touched.

    ``final_obs`` is (2, n, obs_dim) but holds only the few games that ended on
    a step; ``np.zeros`` would clear all of it (the allocator hands back reused
    memory at these sizes), which at n = 4096 cost more than the step itself.
    """
    count = int(np.prod(shape))
    buf = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(buf, dtype, count).reshape(shape)


class BatchEnv:
    """``n`` real-time Speed games stepped together with auto-reset (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "speed_batch_v1"}

    def __init__(
        self,
        n: int,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        tick_ms: int = 50,
        reaction: Any = None,
        illegal_action: str = "wait",
        autoreset: bool = True,
        copy: bool = True,
        threads: int = 1,
        obs_format: str = "dict",
        **options: Any,
    ) -> None:
        self.obs_format = check_obs_format(obs_format)
        if not isinstance(copy, bool):
            raise TypeError(f"copy must be True or False, got {copy!r}")
        if not isinstance(autoreset, bool):  # "no" would be truthy: restarts the user refused
            raise TypeError(f"autoreset must be True or False, got {shown(autoreset)}")
        self.autoreset = autoreset
        self.copy = copy
        self.games: Games | PartyGames
        if seats_asked(rules, options) != 2:
            self.games = PartyGames(
                n,
                rules,
                threads=threads,
                tick_ms=tick_ms,
                reaction=reaction,
                illegal_action=illegal_action,
                **options,
            )
        else:
            settings = table_settings(
                rules, tick_ms=tick_ms, reaction=reaction, illegal_action=illegal_action, **options
            )
            self.games = Games(n, settings, threads=threads)
        self.players = self.games.rules.players
        self.n = self.games.n
        self.rules = self.games.rules
        self.n_actions = self.games.n_actions
        self.obs_dim = self.games.obs_dim
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.obs_dim,), np.float32)
        self.single_action_space = spaces.Discrete(self.n_actions)
        self._seed = 0
        self._restarts = np.zeros(self.n, np.int64)
        self._finished = np.zeros(self.n, bool)
        self._started = False
        self._seeds: np.random.Generator | None = None  # draws unseeded resets' seeds

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, ...]:
        """Deal every game afresh: game ``i`` is the one seeded ``seed + i``.

        Returns ``(obs, mask)``, or ``(obs, {"action_mask": mask})`` with ``obs_format="box"``.

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
        self.games.observe()
        self._started = True
        obs, mask = self._hand_out()
        if self.obs_format == "box":
            return obs, {"action_mask": mask}
        return obs, mask

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        """One tick of every game. Returns ``(obs, mask, rewards, terminated, truncated, infos)``.

        With ``obs_format="box"``: ``(obs, rewards, terminated, truncated, infos)``, the mask
        in ``infos["action_mask"]``.

        Every array returned is fresh, the caller's to keep or change, except
        ``obs`` and ``mask`` with ``copy=False`` (see the module docstring).
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = self.games.check_actions(actions)
        self.games.check_legal(a)
        # One compiled pass steps and observes every game. With autoreset=False a
        # finished game stays over but reports its end only once.
        tick, n_over = self.games.step_observe(a, self._finished, fresh=self.copy)
        infos: dict[str, Any] = {
            "illegal": tick.illegal,
            "_final_obs": tick.over,
            "winner": tick.winner,
        }
        if n_over:
            done = np.flatnonzero(tick.over)
            final = _zeros_on_touch((self.players, self.n, self.obs_dim), np.float32)
            final[:, done] = tick.obs[:, done]
            infos.update(
                final_obs=final, played=tick.played, bounced=tick.bounced, clock_ms=tick.clock_ms
            )
            if not self.rules.is_japanese:  # match points: us / pagat only
                infos["points"] = tick.points
            if self.autoreset:
                self._restarts[done] += 1
                seeds = [self._seed + int(i) + int(self._restarts[i]) * self.n for i in done]
                self.games.restart_observe(done, seeds, tick)
            else:
                self._finished[done] = True
        obs, mask = tick.obs, tick.mask  # fresh arrays, or with copy=False the buffers
        if self.obs_format == "box":
            infos["action_mask"] = mask
            return obs, tick.rewards, tick.terminated, tick.truncated, infos
        return obs, mask, tick.rewards, tick.terminated, tick.truncated, infos

    def _hand_out(self) -> tuple[np.ndarray, np.ndarray]:
        """The current observations and masks: copies, or with ``copy=False`` the buffers."""
        return self.games.copy_buffers() if self.copy else (self.games.obs_buf, self.games.mask_buf)

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
