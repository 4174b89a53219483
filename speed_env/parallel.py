"""Real-time Speed as a PettingZoo ``ParallelEnv`` (``speed_v1``).

Speed has no turns: both players act at every tick. The env samples time in
ticks of ``tick_ms``; at each tick each player may commit one play or wait.
A committed card lands after that player's reaction latency and is checked
again on landing: the faster card wins the pile, the slower one bounces back.
Exact timing rules: ``docs/rules.md``.

Agents
    ``player_0``, ``player_1``. Both act every step until the game ends.
    Rules with ``players=3`` or ``4`` (Party Speed, docs/rules.md) build
    :class:`speed_env.party.PartyParallelEnv` instead: ``player_0`` …
    ``player_{n-1}``, its own spaces and observation (:mod:`speed_env.party`).

Actions (``Discrete(1 + 2R)``, plus variant moves)
    ``0`` waits; ``1 + 2 * r + pile`` plays a card of rank index ``r``
    (A = 0 … K = 12, joker 13 with jokers) onto centre pile ``pile`` (0 or 1),
    taken from the leftmost slot holding that rank. ``us``, ``pagat`` and
    ``japanese`` share 27 actions (29 with ``jokers``: wild cards in
    ``us``/``pagat``, each player's own joker in ``japanese``; ``hand_size``
    3 … 7 changes no space). ``stack_layout`` appends
    ``R`` stack actions, then ``multi_play`` appends ``2R`` multi-play actions
    (docs/rules.md). An illegal in-space action is a wait, counted in
    ``infos[agent]["illegal"]`` (``illegal_action="raise"`` raises instead);
    anything but an integer in the space (``1.0``, ``True``, ``"3"``, ``2**70``;
    numpy integers are fine) raises :class:`~speed_env.ActionError` naming the
    agent, and changes nothing. ``None`` waits. A live agent left out of the
    actions dict waits too, and is counted: ``infos[agent]["missing"]`` (this
    step) and ``infos[agent]["missing_total"]`` (this game). (Waiting rather
    than refusing: waiting is always legal in Speed, so a seat nobody asked
    waits, as a player would; PettingZoo's ``parallel_api_test`` always gives
    every live agent an action, so either choice passes it, and the counts
    make a forgotten agent visible.) ``step()`` before the first ``reset()``
    raises ``RuntimeError`` saying reset has not been called; after the game
    ends it asks for a ``reset()`` too.

Observations
    ``{"observation": float32 vector in [0, 1], "action_mask": int8 vector}``,
    ego-centric, documented as an index table in
    :mod:`speed_env.observation` and published as named slices by
    :func:`speed_env.observation_layout`. The last field, ``rules``, says
    which preset and rule flags the game is played under. With
    ``obs_format="box"`` the observation is the float32 vector alone (a
    ``Box``) and the int8 mask is in ``infos[agent]["action_mask"]`` (after
    ``reset`` and every ``step``): the same numbers, for pipelines that want
    one array (:mod:`speed_env.obs_format`).

Seeding and copies
    ``reset(seed=s)`` deals the game seeded ``s``; later unseeded resets draw
    their seeds from a generator seeded by ``s`` (OS entropy before any seed).
    ``copy.deepcopy`` and ``pickle`` keep the whole game (:mod:`speed_env.pickling`).

Rewards
    +1 win, −1 loss, 0 draw, paid on the step the game ends; truncation at
    ``max_game_ms`` pays 0. An episode is one game. At the end of a ``us`` or
    ``pagat`` game, ``infos[agent]["points"]`` is its match score (winner: the
    loser's cards left; otherwise 0; docs/rules.md "Match points").
    ``max_cycles=N`` (an env argument, not a rule) truncates the episode after
    ``N`` ticks, paying 0, as PettingZoo's ``max_cycles`` does.

Arguments
    ``parallel_env(rules="us", *, tick_ms=50, reaction=None, render_mode=None,
    obs_format="dict", max_cycles=None, illegal_action="wait", **options)``:
    ``rules`` is a preset name, a ``Rules`` or a TOML path; ``options``
    override single rules; ``reaction`` is ms, a profile name/object, or a
    pair of them (player_0, player_1); default: the jittered ``human``
    profile. ``render_mode``: ``"human"`` prints the text table after every
    reset and step, ``"ansi"`` returns it from ``render()``, ``"rgb_array"``
    returns a frame. ``env(...)`` takes the same arguments and gives the AEC
    env. Both are registered with PettingZoo as ``speed_env/speed_v1``
    (``pettingzoo.make("parallel" | "aec", "speed_env/speed_v1", **kwargs)``),
    which seats two: asked for ``players=3`` or ``4`` it refuses, naming
    ``speed_env/speed_party_v0`` (an id has one set of spaces), while the
    functions themselves build whichever game the seat count asks for.

Version history
    A change to the game's rules, its observation or its action space bumps the
    version (PettingZoo's convention); asking for an outdated id raises
    :class:`~speed_env.registration.OutdatedEnvError` naming the current one.

    v1 (kit 1.0.0): the game and observation of v0's last revision, renamed so
    that a result reported on ``speed_v1`` says which game it was measured on:
    the idle rule (``idle_flip_ms``, default 5000 ms) and the 193-float
    observation (205 with jokers) ending in ``rules`` and the five worlds
    fields. ``speed_env/speed_v0`` and ``speed_env/Speed-v0`` now raise.
    Within v1, without changing the game or the observation: a refused
    ``reset`` or ``step`` changes nothing, not the seed generator either; a
    deal giving a seat no cards at all is refused; ``infos`` gain ``missing``
    and ``missing_total``; ``step()`` before ``reset()`` says so. New rule
    options, leaving every earlier game as it was: ``hand_size`` (3 … 7) and
    ``jokers`` for ``us``/``pagat`` (two wild jokers; the spaces of
    ``japanese`` with jokers: 29 actions, 205 floats). The id stays
    ``speed_v1``: an id names the game for each rules value, the spaces follow the
    rules (as they did for ``japanese`` jokers), and no earlier (id, rules) pair
    changed; model and result files record the rules beside the id.

    v0: first release, observation 128 floats (136 with jokers). It then changed
    while keeping the name ``speed_v0``, which is why v1 exists:

    - the observation gained the ``rules`` field at its end (obs_dim 128 → 138,
      136 → 146 with jokers; every earlier slice kept its offset); unseeded
      resets follow the last seed; copies keep the game; non-integer actions,
      bad seeds and options, and out-of-bounds time options are refused;
    - rule option ``idle_flip_ms`` (default 5000 ms; 0 restores the earlier
      behaviour): when no card has been put on a centre pile for that long, the
      table counts down and flips as when stuck, so a seat that only waits
      loses instead of running the game to ``max_game_ms``. Match points:
      ``infos[agent]["points"]`` at the end of a ``us``/``pagat`` game;
      ``snapshot()`` gains ``idle_ms`` (and ``points`` once over), the full
      ``table()`` gains ``placed_ms``. Games whose seats play within 5 s of
      each placement are unchanged;
    - without changing the game or the default observation: ``obs_format``,
      ``max_cycles``, ``render_mode="human"``, the registry entries; the AEC
      env is order-enforced;
    - five more fields after ``rules`` (``my_colour_unseen``, ``opp_stacked``,
      ``side_known``, ``idle_rebuilds``, ``since_placed``; obs_dim 138 → 193,
      146 → 205 with jokers) so that worlds consistent with one seat's view can
      be rebuilt from it (:mod:`speed_env.worlds`).
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
    Games,
    GameStats,
    check_action,
    check_max_cycles,
    check_options,
    check_render_mode,
    check_seed,
    reset_seeds,
)
from speed_env.obs_format import check_obs_format, observation_space, package
from speed_env.party import PartyParallelEnv
from speed_env.pickling import GamePickle
from speed_env.rules import Rules, RulesError, make_rules
from speed_env.settings import table_settings
from speed_env.shown import shown
from speed_env.table import AGENTS


class SpeedParallelEnv(ParallelEnv, GamePickle):
    """Two-player real-time Speed, sampled in ticks (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "speed_v1",
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
        render_mode: str | None = None,
        illegal_action: str = "wait",
        obs_format: str = "dict",
        max_cycles: int | None = None,
        **options: Any,
    ) -> None:
        GamePickle.__init__(self, locals())
        check_render_mode(render_mode, RENDER_MODES)
        self.obs_format = check_obs_format(obs_format)
        self.max_cycles = check_max_cycles(max_cycles)
        settings = table_settings(
            rules, tick_ms=tick_ms, reaction=reaction, illegal_action=illegal_action, **options
        )
        self.games = Games(1, settings)
        self.rules = self.games.rules
        self.illegal_action = settings.illegal_action  # what the AEC env checks a move against
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        vector = spaces.Box(0.0, 1.0, (self.games.obs_dim,), np.float32)
        obs_space = observation_space(self.obs_format, vector, self.games.n_actions)
        self.observation_spaces = dict.fromkeys(AGENTS, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.games.n_actions) for a in AGENTS}
        self.state_space = spaces.Box(0.0, 1.0, (2 * self.games.obs_dim,), np.float32)
        self._obs: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._seeds: np.random.Generator | None = None  # draws unseeded resets' game seeds
        self._cycles = 0
        self._missing = [0, 0]  # steps of this game that left each agent's action out

    # The spaces live in the dicts above, so each call returns the same object
    # (PettingZoo's requirement) without a method cache that would keep every env alive.
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object for both, on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- episode
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        """Deal a new game (seeded, or ``options={"deal": {...}}``); ``(observations, infos)``.

        ``seed=s`` deals the game seeded ``s`` and seeds the generator that later
        unseeded resets draw their games' seeds from (Gymnasium's convention);
        before any seed that generator starts from OS entropy.
        """
        seed = check_seed(seed)
        deal = check_options(options).get("deal")
        # Every check comes before the seed generator is touched: a refused reset changes
        # nothing, not even the games later unseeded resets deal.
        parsed = None if deal is None else parse_deal(self.rules, deal)
        self._seeds, seed = reset_seeds(self._seeds, seed)
        if parsed is not None:
            self.games.deal_explicit(0, parsed, seed)
        else:
            self.games.deal_seeded(np.zeros(1, np.int64), [seed])
        self.agents = list(AGENTS)
        self._cycles = 0
        self._missing = [0, 0]
        self._obs, self._mask = self.games.observe()
        observations, infos = self._observations()
        self._render_human()
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Both players' actions for this tick; returns PettingZoo's five dicts."""
        if self._mask is None:
            raise RuntimeError("reset() has not been called: call reset() before step()")
        if not self.agents:
            raise RuntimeError("the game is over: call reset() before step()")
        if not isinstance(actions, dict):
            raise ActionError(
                f"step() takes a dict of actions by agent, such as {{'player_0': 0, "
                f"'player_1': 3}}, got {shown(actions)}"
            )
        unknown = set(actions) - set(AGENTS)
        if unknown:
            raise ActionError(f"unknown agent(s) {shown(sorted(unknown))}; agents are {AGENTS}")
        raw = np.zeros((2, 1), np.int64)
        for p, agent in enumerate(AGENTS):
            a = actions.get(agent)
            raw[p, 0] = 0 if a is None else check_action(a, self.games.n_actions, agent)
        missing = [agent not in actions for agent in AGENTS]
        self.games.check_legal(raw)
        # One compiled pass steps the game and updates its observation buffers.
        tick, _ = self.games.step_observe(raw)
        self._cycles += 1
        self._obs, self._mask = tick.obs, tick.mask
        illegal = tick.illegal[:, 0].tolist()
        over = bool(tick.over[0])
        trunc = bool(tick.truncated[0])
        # max_cycles cuts the episode short of the game's end: a truncation paying 0.
        cut = not over and self.max_cycles is not None and self._cycles >= self.max_cycles
        observations, infos = self._observations()
        rewards = dict(zip(AGENTS, tick.rewards[:, 0].tolist(), strict=True))
        terminations = dict.fromkeys(AGENTS, over and not trunc)
        truncations = dict.fromkeys(AGENTS, trunc or cut)
        totals = self.games.illegal_totals(0)
        for p, a in enumerate(AGENTS):
            self._missing[p] += missing[p]
            infos[a].update(
                illegal=illegal[p],
                illegal_total=totals[p],
                missing=missing[p],
                missing_total=self._missing[p],
            )
        if cut:
            self.agents = []
        if over:
            end = _game_end(self.games, self.games.stats)
            for p, a in enumerate(AGENTS):
                infos[a].update(end[p])
            self.agents = []
        self._render_human()
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Each agent's observation in ``obs_format`` and infos (with the mask for ``"box"``)."""
        assert self._obs is not None and self._mask is not None
        observations: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for p, a in enumerate(AGENTS):
            observations[a], infos[a] = package(
                self.obs_format, self._obs[p, 0].copy(), self._mask[p, 0].copy()
            )
        return observations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """``agent``'s legal actions now (int8), whatever ``obs_format``."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_mask()")
        return self._mask[AGENTS.index(agent), 0].copy()

    # ----------------------------------------------------------------- views
    def state(self) -> np.ndarray:
        """Global state: player_0's observation then player_1's (together: every open card)."""
        if self._obs is None:
            raise RuntimeError("call reset() before state()")
        return np.concatenate([self._obs[0, 0], self._obs[1, 0]]).astype(np.float32)

    def snapshot(self) -> dict[str, Any]:
        """The whole table as a JSON-ready dict (docs/envs/speed.md, ``snapshot()``)."""
        return self.games.snapshot(0)

    def table(self) -> dict[str, Any]:
        """Every pile in order, hidden ones too (docs/rules.md); for tests and debugging."""
        return self.games.table(0)

    def render(self) -> Any:
        """``human``: print the table as text (returns None); ``ansi``: that text; ``rgb_array``:
        an (H, W, 3) uint8 frame."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='human', 'ansi' or "
                "'rgb_array'"
            )
            return None
        from speed_env.render import modes

        return modes.render_mode(self.games.snapshot(0), self.render_mode)

    def _render_human(self) -> None:
        """In ``human`` mode the table is printed after every reset and step (as in Gymnasium)."""
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        """Nothing to release; present for the PettingZoo API."""


def parallel_env(
    rules: str | os.PathLike[str] | Rules = "us",
    *,
    tick_ms: int = 50,
    reaction: Any = None,
    render_mode: str | None = None,
    obs_format: str = "dict",
    max_cycles: int | None = None,
    **options: Any,
) -> SpeedParallelEnv | PartyParallelEnv:
    """Real-time Speed as a PettingZoo ``ParallelEnv`` (see :mod:`speed_env.parallel`).

    Rules with ``players=3`` or ``4`` build Party Speed's n-seat env
    (:class:`speed_env.party.PartyParallelEnv`: agents ``player_0`` …, its own
    spaces; ``reaction`` one value or one per seat; its own n-seat text and frame).

    >>> env = parallel_env("us", reaction=250)
    >>> obs, infos = env.reset(seed=0)
    >>> env.agents, obs["player_0"]["observation"].shape, obs["player_0"]["action_mask"].shape
    (['player_0', 'player_1'], (193,), (27,))
    >>> obs, rewards, terminations, truncations, infos = env.step({"player_0": 0, "player_1": 0})
    >>> rewards
    {'player_0': 0.0, 'player_1': 0.0}
    """
    if _seat_count(rules, options) != 2:
        return PartyParallelEnv(
            rules,
            tick_ms=tick_ms,
            reaction=reaction,
            obs_format=obs_format,
            max_cycles=max_cycles,
            render_mode=render_mode,
            **options,
        )
    return SpeedParallelEnv(
        rules,
        tick_ms=tick_ms,
        reaction=reaction,
        render_mode=render_mode,
        obs_format=obs_format,
        max_cycles=max_cycles,
        **options,
    )


env = as_aec(parallel_env)


def _seat_count(rules: object, options: dict[str, Any]) -> int:
    """The seat count ``rules`` and ``options`` ask for; 2 when they are bad (the two-seat
    env's checks then refuse them, naming what was wrong, as before)."""
    rule_options = {k: v for k, v in options.items() if k != "illegal_action"}  # not a rule
    try:
        return make_rules(rules, **rule_options).players  # type: ignore[arg-type]
    except (RulesError, TypeError, ValueError, OSError):
        return 2


def _game_end(games: Games, stats: GameStats) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each seat's end-of-game infos of game 0: the result, its counts and, under ``us`` and
    ``pagat`` match scoring, its match points (docs/rules.md)."""
    result = games.snapshot(0)["winner"]
    points = games.match_points()  # None for japanese
    ends = []
    for p in range(2):
        end = {
            "winner": result,
            "played": int(stats.played[p, 0]),
            "bounced": int(stats.bounced[p, 0]),
            "clock_ms": int(stats.clock_ms[0]),
        }
        if points is not None:
            end["points"] = int(points[p, 0])
        ends.append(end)
    return ends[0], ends[1]
