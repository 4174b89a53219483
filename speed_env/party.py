"""Party Speed (three or four players) as a PettingZoo ``ParallelEnv``.

``speed_env.parallel_env("us", players=3)`` builds this env; two players keep
:class:`speed_env.parallel.SpeedParallelEnv`, unchanged. It runs one game on
the engine through :class:`speed_env.seats.SeatGames` (the very kernels the
two-seat envs run) and the n-seat observation of :mod:`speed_env.party_obs`.

Agents
    ``player_0`` … ``player_{n-1}``; all act every step until the game ends.

Actions (``Discrete(1 + n * R)``)
    ``0`` waits; ``1 + n * r + j`` plays a card of rank index ``r`` onto centre
    pile ``j``, counted from the pile the player's own side pile feeds (its
    own pile) in seat order (docs/rules.md, "Party Speed"). An illegal
    in-space action is a wait, counted in ``infos[agent]["illegal"]``
    (``illegal_action="raise"`` raises instead); anything but an integer in
    the space raises :class:`~speed_env.ActionError` naming the agent. A live
    agent left out of the dict waits, counted as ``missing``.

Observations
    ``{"observation": float32 vector in [0, 1], "action_mask": int8 vector}``
    (``obs_format="box"``: the vector alone, the mask in
    ``infos[agent]["action_mask"]``), ego-centric: self first, then the others
    in seat order after self, then the centre piles from the player's own
    (:func:`speed_env.party_obs.party_layout`).

Rewards
    On the step the game is won: +1 the winner, ``-1/(n-1)`` each other seat
    (they sum to zero); a draw or a truncation pays 0. The idle rule and
    ``max_game_ms`` truncation are the two-seat game's; ``max_cycles`` cuts the
    episode as there. At the end of a game ``infos[agent]`` gains ``winner``
    (a seat, ``n`` for a draw, None when truncated), ``played``, ``bounced``
    and, in ``us``/``pagat``, ``points`` (the winner scores the cards every
    other seat still holds).

Snapshot
    ``snapshot()`` is the public table as a JSON-ready dict with the two-seat
    snapshot's keys (docs/envs/speed.md): ``players`` lists every seat in seat
    order, ``centre`` one pile per seat, player *k*'s ``side_pile`` the one
    beside centre pile *k*; ``table()`` adds every hidden pile in order.
    ``speed demo --option players=3`` prints a game of bots as text.
    ``render_mode`` is ``"human"`` (the full table as text, printed after every
    reset and step), ``"ansi"`` (that text from ``render()``) or
    ``"rgb_array"`` (an ``(H, W, 3)`` uint8 frame, every seat in a row under
    the centre piles: :func:`speed_env.render.party_image.render_party_rgb`).

Registration
    Its spaces differ from ``speed_v1``'s, so it has its own versioned id
    (PettingZoo's rule): ``pettingzoo.make("parallel" | "aec",
    "speed_env/speed_party_v0", players=n)`` builds :class:`PartyParallelEnv`
    or :func:`env` (the AEC env over it, one turn per seat each tick); the
    single seat, the other seats inside, is ``speed_env/SpeedParty-v0``
    (:mod:`speed_env.party_single`). ``players`` is a rule option with no
    default here: two players are refused, naming ``speed_v1``.
    ``speed_env.parallel_env(..., players=n)`` and ``speed_env.env(...,
    players=n)`` build the same envs. Model and result files of party games
    record ``speed_party_v0`` (:data:`speed_env.registration.PARTY_ID`).

Version history
    v0: first release (``metadata["name"]`` ``speed_party_v0``).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from speed_env.aec import as_aec
from speed_env.deal import parse_deal
from speed_env.game import (
    RENDER_MODES,
    ActionError,
    check_action,
    check_max_cycles,
    check_options,
    check_render_mode,
    check_seed,
    reset_seeds,
)
from speed_env.obs_format import check_obs_format, observation_space, package
from speed_env.party_obs import observe_seats, party_obs_dim
from speed_env.pickling import GamePickle
from speed_env.reaction import ReactionProfile
from speed_env.rules import Rules, RulesError, make_rules
from speed_env.seats import SeatGames
from speed_env.settings import ILLEGAL_POLICIES
from speed_env.shown import shown


def seat_reactions(reaction: Any, players: int) -> list[Any]:
    """One reaction per seat from ``reaction``: None (``human`` for all), one value for all,
    or a list/tuple of exactly ``players`` values; else a ``ValueError`` naming the count."""
    if reaction is None:
        return ["human"] * players
    if isinstance(reaction, list | tuple) and not isinstance(reaction, ReactionProfile):
        if len(reaction) != players:
            raise ValueError(
                f"reaction must be one value or one per seat ({players}), got {len(reaction)}"
            )
        return list(reaction)
    return [reaction] * players


class PartyParallelEnv(ParallelEnv, GamePickle):
    """Real-time Speed for three or four players, sampled in ticks (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "speed_party_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 20,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        rules: str | os.PathLike[str] | Rules = "us",
        *,
        tick_ms: int = 50,
        reaction: Any = None,
        illegal_action: str = "wait",
        obs_format: str = "dict",
        max_cycles: int | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        GamePickle.__init__(self, locals())
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_POLICIES}, got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.obs_format = check_obs_format(obs_format)
        self.max_cycles = check_max_cycles(max_cycles)
        checked = make_rules(rules, **options)
        n = checked.players
        if n == 2:
            raise RulesError(
                "speed_party_v0 seats 3 or 4 players (rule option players=3 or players=4); "
                "two players play speed_env/speed_v1 (speed_env.parallel_env)"
            )
        self.games = SeatGames(1, checked, tick_ms=tick_ms, reactions=seat_reactions(reaction, n))
        self.rules = self.games.rules
        self.n_players = n
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self.agents: list[str] = []
        n_actions = self.games.n_actions
        vector = spaces.Box(0.0, 1.0, (party_obs_dim(self.rules),), np.float32)
        obs_space = observation_space(self.obs_format, vector, n_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._mask: np.ndarray | None = None
        self._seeds: np.random.Generator | None = None
        self._cycles = 0
        self._missing = [0] * n  # steps of this game that left each agent's action out
        self._illegal = [0] * n  # illegal actions of this game, taken as waits

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        """Deal a new game (seeded, or ``options={"deal": {...}}``); ``(observations, infos)``.

        ``seed=s`` deals the game seeded ``s`` and seeds the generator later unseeded resets
        draw their seeds from, as the two-seat env does.
        """
        seed = check_seed(seed)
        deal = check_options(options).get("deal")
        parsed = None if deal is None else parse_deal(self.rules, deal)
        self._seeds, seed = reset_seeds(self._seeds, seed)
        if parsed is not None:
            self.games.start(0, parsed, seed)
        else:
            self.games.reset_game(0, seed)
        self.agents = list(self.possible_agents)
        self._cycles = 0
        self._missing = [0] * self.n_players
        self._illegal = [0] * self.n_players
        self._mask = self.games.masks()
        observed = self._observations()
        self._render_human()
        return observed

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every player's action for this tick; returns PettingZoo's five dicts."""
        if self._mask is None:
            raise RuntimeError("reset() has not been called: call reset() before step()")
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        if not isinstance(actions, dict):
            raise ActionError(f"step() takes a dict of actions by agent, got {shown(actions)}")
        agents = self.possible_agents
        unknown = set(actions) - set(agents)
        if unknown:
            raise ActionError(f"unknown agent(s) {shown(sorted(unknown))}; agents are {agents}")
        raw = np.zeros((self.n_players, 1), np.int64)
        for p, agent in enumerate(agents):
            a = actions.get(agent)
            raw[p, 0] = 0 if a is None else check_action(a, self.games.n_actions, agent)
            if self.illegal_action == "raise" and self._mask[p, 0, raw[p, 0]] == 0:
                legal = [int(x) for x in self._mask[p, 0].nonzero()[0]]
                raise ActionError(f"action {raw[p, 0]} of {agent} is illegal now; legal: {legal}")
        illegal = [int(self._mask[p, 0, raw[p, 0]] == 0) for p in range(self.n_players)]
        rewards_row = self.games.step(raw)
        self._cycles += 1
        self._mask = self.games.masks()
        over = bool(self.games.over[0])
        trunc = bool(self.games.state["truncated"][0])
        cut = not over and self.max_cycles is not None and self._cycles >= self.max_cycles
        observations, infos = self._observations()
        rewards = dict(zip(agents, rewards_row[:, 0].tolist(), strict=True))
        for p, a in enumerate(agents):
            self._missing[p] += a not in actions
            self._illegal[p] += illegal[p]
            infos[a].update(
                illegal=illegal[p],
                illegal_total=self._illegal[p],
                missing=a not in actions,
                missing_total=self._missing[p],
            )
        if over:
            self._end(infos)
        if over or cut:
            self.agents = []
        terminations = dict.fromkeys(agents, over and not trunc)
        truncations = dict.fromkeys(agents, trunc or cut)
        self._render_human()
        return observations, rewards, terminations, truncations, infos

    def _end(self, infos: dict[str, dict[str, Any]]) -> None:
        """The end-of-game infos: the result, each seat's counts and match points."""
        g = self.games.state[0]
        winner = None if g["truncated"] else int(g["winner"])
        points = self.games.points()
        for p, a in enumerate(self.possible_agents):
            infos[a].update(
                winner=winner,
                played=int(g["played"][p]),
                bounced=int(g["bounced"][p]),
                clock_ms=int(g["clock"]),
            )
            if points is not None:
                infos[a]["points"] = int(points[p, 0])

    def _observations(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Each agent's own fresh observation (and mask) in ``obs_format``, and infos."""
        assert self._mask is not None
        seen = observe_seats(self.games.state, self.rules)  # (seats, 1, dim), one compiled call
        observations: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for p, a in enumerate(self.possible_agents):
            vector = seen[p, 0].copy()  # its own buffer, not a view of the others
            observations[a], infos[a] = package(self.obs_format, vector, self._mask[p, 0].copy())
        return observations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """``agent``'s legal actions now (int8), whatever ``obs_format``."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_mask()")
        return self._mask[self.possible_agents.index(agent), 0].copy()

    def snapshot(self) -> dict[str, Any]:
        """The public table as a JSON-ready dict (docs/envs/speed.md, ``snapshot()``): every seat
        in seat order, centre pile *k* beside seat *k*'s side pile."""
        return self.games.snapshot(0)

    def table(self) -> dict[str, Any]:
        """Every pile in order, hidden ones too (docs/rules.md, "The full table")."""
        return self.games.table(0)

    def render(self) -> Any:
        """``human``: print the table as text (returns None); ``ansi``: that text (the full
        table: :mod:`speed_env.render.party_text`); ``rgb_array``: an (H, W, 3) uint8 frame of
        every seat and pile (:mod:`speed_env.render.party_image`)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='human', 'ansi' or "
                "'rgb_array'"
            )
            return None
        from speed_env.render.modes import render_party

        return render_party(self.snapshot(), self.table(), self.render_mode)

    def _render_human(self) -> None:
        """In ``human`` mode the table is printed after every reset and step (as in Gymnasium)."""
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        """Nothing to release; present for the PettingZoo API."""


env = as_aec(PartyParallelEnv)
"""Party Speed as a PettingZoo AEC env: :class:`PartyParallelEnv`'s arguments, one turn per seat
each tick (``pettingzoo.make("aec", "speed_env/speed_party_v0", players=n)``)."""
