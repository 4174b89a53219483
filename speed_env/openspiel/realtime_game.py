"""Real-time Speed as an OpenSpiel game: ``pyspiel.load_game("python_speed")``.

A simultaneous-move game of ``players`` (2, 3 or 4) with one joint move per
tick: every player chooses an action at every tick of ``tick_ms`` (``0`` waits;
``1 + n * r + pile`` plays rank ``r`` onto centre pile ``pile``, counted from the
player's own pile with three or four: docs/rules.md, "Party Speed"; as in
:func:`speed_env.parallel_env`),
and the tick is resolved by the kit's own engine (cards land after each
player's reaction latency and are checked again on landing). Each state holds
a :func:`speed_env.parallel_env` and steps it, so its games are the kit's games.

Chance is explicit and happens once: the first node deals, its outcome ``k``
being the game the kit deals with ``reset(seed=seed + k)`` (``k`` in
``[0, deals)``). Everything random after the deal (reaction jitter, stuck
flips) comes from that game's own counter-based streams, so the rest of the
game is fixed by the players' moves: cloning, serialising (the history) and
replaying all give the same game.

Parameters (``pyspiel.load_game("python_speed(preset=japanese,tick_ms=50)")``):

==============  ==========  ======================================================
parameter       default     meaning
==============  ==========  ======================================================
``preset``      ``us``      the deal: ``us``, ``pagat`` or ``japanese``
``players``     2           seats at the table: 2, or Party Speed's 3 and 4 (two decks,
                            a centre pile per player)
``options``     ``""``      rule options as ``name:value`` separated by ``;``, e.g.
                            ``wrap:false;jokers:true`` (OpenSpiel's game strings
                            reserve ``,`` and ``=``)
``tick_ms``     50          the tick
``reaction``    ``""``      every seat's reaction: a profile name or ms, or one per
                            seat separated by ``/`` (``pro/250``); empty: the kit's
                            default jittered human profile
``seed``        0           the first deal's seed (``0`` to ``2**31 - 1``)
``deals``       100000      how many deal seeds the chance node chooses from
                            (``1`` to :data:`MAX_DEALS`)
==============  ==========  ======================================================

A parameter out of its range, an option named twice, a chance outcome the
chance node does not list, a joint move of the wrong length or an action a
player may not take is refused with a ``ValueError`` naming it; so is any move
at a finished game (naming how it ended), a single action at a dealt game (a
tick is a joint move, ``apply_actions``) and a joint move before the deal.

A state serialises as the game string and its action history, replayed
through the rules when it is loaded (:mod:`speed_env.openspiel.state_string`):
a state string is data, never code.

Returns are the env's: +1 win, −1 loss (−1/(n−1) each loser with ``n``
players), 0 draw or truncation (zero-sum). Observation and information-state
tensors are the kit's observation vector of that player (with three or four the
ego-centric one of :mod:`speed_env.party_obs`); the mask is
``legal_actions(player)``. The strings are the kit's text table from that
player's side (the other hands hidden). With ``pyspiel.convert_to_turn_based``
the game is played one seat at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from speed_env.openspiel import state_string
from speed_env.openspiel.game_type import MAX_GAME_LENGTH, game_type, int_param, with_defaults
from speed_env.parallel import SpeedParallelEnv, parallel_env
from speed_env.party import PartyParallelEnv
from speed_env.party_obs import party_obs_dim
from speed_env.rules import PLAYERS, PRESETS

SHORT_NAME = "python_speed"
"""The name ``pyspiel.load_game`` knows this game by."""

AGENTS = ("player_0", "player_1")
"""The agents of the two-player game (``players=n``: ``player_0`` … ``player_{n-1}``)."""

DEFAULT_PARAMS: dict[str, Any] = {
    "preset": "us",
    "players": 2,
    "options": "",
    "tick_ms": 50,
    "reaction": "",
    "seed": 0,
    "deals": 100_000,
}
"""Game parameters and their defaults (module docstring)."""

MAX_DEALS = 1_000_000
"""The most deals a chance node may choose from: its outcomes are listed one by one (a list
of a million pairs takes about a second and 100 MB), so a larger ``deals`` is refused at load."""

MAX_SEED = 2**31 - 1
"""The largest ``seed``: OpenSpiel's integer parameters are 32-bit."""

_GAME_TYPE = game_type(
    SHORT_NAME,
    "Speed (real time, sampled in ticks), from the Speed RL kit",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    players=(PLAYERS[0], PLAYERS[-1]),
    params=DEFAULT_PARAMS,
)


def parse_options(text: str) -> dict[str, Any]:
    """``"wrap:false;jokers:true"`` -> ``{"wrap": False, "jokers": True}`` (ints and floats too)."""
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, raw = item.partition(":")
        if not sep or not name.strip():
            raise ValueError(
                f"{SHORT_NAME}: option {item!r} must be name:value (e.g. wrap:false), "
                "options separated by ';'"
            )
        if name.strip() in options:  # which one would win is a guess: refuse it
            raise ValueError(f"{SHORT_NAME}: option {name.strip()!r} is given twice in {text!r}")
        options[name.strip()] = _value(raw.strip())
    return options


def _value(raw: str) -> Any:
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return raw


def options_string(rules: Any) -> str:
    """The ``options`` parameter that gives ``rules`` on top of its preset (``wrap:false;...``)."""
    from dataclasses import fields

    from speed_env.rules import make_rules

    base = make_rules(rules.preset)
    parts = []
    for f in fields(rules):
        value = getattr(rules, f.name)
        if f.name != "preset" and value != getattr(base, f.name):
            parts.append(f"{f.name}:{str(value).lower() if isinstance(value, bool) else value}")
    return ";".join(parts)


def parse_reaction(text: str) -> Any:
    """``""`` -> None (the default profile); ``"pro"``, ``"250"``; ``"pro/250"`` a pair."""
    if not text:
        return None
    parts = [_value(p.strip()) for p in text.split("/")]
    return parts[0] if len(parts) == 1 else tuple(parts)


def env_kwargs(params: dict[str, Any]) -> dict[str, Any]:
    """:func:`speed_env.parallel_env`'s arguments for OpenSpiel parameters (checked by it)."""
    p = with_defaults(SHORT_NAME, params, DEFAULT_PARAMS)
    if p["preset"] not in PRESETS:
        raise ValueError(f"{SHORT_NAME}: preset {p['preset']!r} is not one of {', '.join(PRESETS)}")
    players = int_param(SHORT_NAME, p, "players", PLAYERS[0], PLAYERS[-1])
    options = parse_options(str(p["options"]))
    if "players" in options:  # two places for one number: which would win is a guess
        raise ValueError(
            f"{SHORT_NAME}: give the seat count as the game's parameter "
            f"players={options['players']}, not as an option"
        )
    kwargs = {
        "rules": p["preset"],
        "tick_ms": int_param(SHORT_NAME, p, "tick_ms", 1, MAX_GAME_LENGTH),
        "reaction": parse_reaction(str(p["reaction"])),
        **options,
    }
    if players != 2:  # two seats: the arguments every earlier game string made
        kwargs["players"] = players
    return kwargs


def agents(players: int) -> tuple[str, ...]:
    """The env's agents at a table of ``players``: ``player_0`` … ``player_{players-1}``."""
    return tuple(f"player_{p}" for p in range(players))


def make_env(kwargs: dict[str, Any]) -> SpeedParallelEnv | PartyParallelEnv:
    """The kit env a state steps: the two-seat env drawing ``ansi`` text, or Party Speed's."""
    if kwargs.get("players", 2) == 2:
        return SpeedParallelEnv(**kwargs, render_mode="ansi")
    return parallel_env(**kwargs)


class SpeedGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring); built by ``pyspiel.load_game``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        self.env_kwargs = env_kwargs(params)
        """The arguments each state's :func:`speed_env.parallel_env` is made with."""
        self.players = int(params["players"])
        """Seats at the table (2, 3 or 4)."""
        self.seed = int_param(SHORT_NAME, params, "seed", 0, MAX_SEED)
        """Deal ``k`` is the kit's game seeded ``seed + k``."""
        self.deals = int_param(SHORT_NAME, params, "deals", 1, MAX_DEALS)
        """How many deals the chance node chooses from."""
        probe = make_env(self.env_kwargs)
        self.n_actions = int(probe.games.n_actions)
        """Actions per player (27 with two, 40 with three, 53 with four; more with jokers and
        the layout options)."""
        self.obs_dim = int(
            probe.games.obs_dim
            if isinstance(probe, SpeedParallelEnv)
            else party_obs_dim(probe.rules)
        )
        """Length of the observation tensor."""
        rules = probe.rules
        self.n_ranks = int(rules.n_ranks)
        """Ranks the play actions name (13, or 14 with jokers)."""
        ticks = -(-int(rules.max_game_ms) // self.env_kwargs["tick_ms"])
        if ticks + 1 > MAX_GAME_LENGTH:
            raise ValueError(
                f"{SHORT_NAME}: max_game_ms {rules.max_game_ms} at tick_ms "
                f"{self.env_kwargs['tick_ms']} makes {ticks} ticks, more than OpenSpiel's longest "
                f"game ({MAX_GAME_LENGTH} moves); raise tick_ms or lower max_game_ms"
            )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.n_actions,
            max_chance_outcomes=self.deals,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=ticks + 1,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> SpeedState:
        """A table before the deal (chance to act)."""
        return SpeedState(self)

    def deserialize_state(self, text: str) -> SpeedState:
        """The state ``text`` (from :meth:`SpeedState.serialize`) describes, replayed through the
        rules; ValueError naming what is wrong in a string that is not one."""
        state: SpeedState = state_string.load_state(self, text)
        return state

    def state_from_world(self, record: np.ndarray) -> SpeedState:
        """A state playing on from one engine record (a row of ``Games.state``), dealt already.

        For asking a bot about a position, such as a world sampled from one
        seat's observation (:func:`speed_env.worlds.sample_worlds`): the
        state's OpenSpiel history starts here (empty), so it cannot be
        serialised; everything else works as on a dealt state.
        """
        state = SpeedState(self)
        env = make_env(self.env_kwargs)
        env.reset(seed=0)
        env.games.state[0] = record
        if isinstance(env, SpeedParallelEnv):
            # The env keeps its observation buffers in step with the engine; a record put in
            # by hand makes them stale, so they are rebuilt from it (the engine's full observe).
            env.games._synced = False
            env._obs, env._mask = env.games.observe()
        else:  # Party Speed observes from the record at each call: only the masks are kept
            env._mask = env.games.masks()
        state.env = env
        state.deal_seed = -1  # no deal of this game's chance node: not serialisable
        state._obs, _ = env._observations()
        return state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SpeedObserver:
        """The observer behind the state's string and tensor methods."""
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters are not supported: {params}")
        return SpeedObserver(self.obs_dim)


class SpeedState(pyspiel.State):
    """One game in progress: a kit parallel env, dealt by the chance node."""

    def __init__(self, game: SpeedGame) -> None:
        super().__init__(game)
        self.env: SpeedParallelEnv | PartyParallelEnv | None = None
        """The kit's env this state steps, made and reset by the chance node (made there, not
        here: OpenSpiel clones a state by making a new one and copying this one into it)."""
        self._env_kwargs = game.env_kwargs
        self.deal_seed: int | None = None
        """The kit seed of this game's deal, once dealt."""
        self._obs: dict[str, Any] = {}
        self._agents = agents(game.players)
        self._returns = [0.0] * game.players
        self._over = False
        self._seed0 = game.seed
        self._deals = game.deals
        self._n_ranks = game.n_ranks

    # -- OpenSpiel API -----------------------------------------------------

    def current_player(self) -> int:
        """CHANCE before the deal, SIMULTANEOUS while playing, TERMINAL at the end."""
        if self._over:
            return pyspiel.PlayerId.TERMINAL
        if self.deal_seed is None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.SIMULTANEOUS

    def _legal_actions(self, player: int) -> list[int]:
        """The actions ``player``'s mask allows now (waiting, 0, always among them)."""
        mask = self._obs[self._agents[player]]["action_mask"]
        return [int(a) for a in np.flatnonzero(mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deal: ``k`` in ``[0, deals)``, uniform."""
        p = 1.0 / self._deals
        return [(k, p) for k in range(self._deals)]

    def _refuse_after_end(self) -> None:
        """A move at a finished game is refused, naming how it ended: the env would take it
        as a step after the end, and a chance outcome would deal a new game into this one."""
        if not self._over:
            return
        assert self.env is not None
        table = self.env.table()
        result = "a draw" if table["winner"] == "draw" else f"won by player_{table['winner']}"
        if table["winner"] is None:
            result = "truncated at max_game_ms"
        raise ValueError(
            f"{SHORT_NAME}: the game is over ({result} at {table['clock_ms']} ms): no move "
            "applies after its end; start a new game with game.new_initial_state()"
        )

    def _apply_action(self, action: int) -> None:
        self._refuse_after_end()
        if self.deal_seed is not None:  # OpenSpiel calls this for any single action it is given
            raise ValueError(
                f"{SHORT_NAME}: the game is dealt and every tick is a joint move: "
                f"state.apply_actions([action_of_player_0, action_of_player_1, …]), not "
                f"apply_action({action})"
            )
        if not 0 <= action < self._deals:  # OpenSpiel applies any number it is given
            raise ValueError(
                f"{SHORT_NAME}: chance outcome {action} is not a deal this chance node lists "
                f"(0 to {self._deals - 1})"
            )
        self.deal_seed = self._seed0 + int(action)
        self.env = make_env(self._env_kwargs)
        self._obs, _ = self.env.reset(seed=self.deal_seed)

    def _apply_actions(self, actions: list[int]) -> None:
        self._refuse_after_end()
        if self.env is None:
            raise ValueError(
                f"{SHORT_NAME}: the game is not dealt yet: apply a chance outcome (the deal, "
                "state.apply_action(k) for k in [0, deals)) before the first joint move"
            )
        if len(actions) != len(self._agents):
            raise ValueError(
                f"{SHORT_NAME}: a joint move is one action per player ({len(self._agents)}), "
                f"got {len(actions)}: {list(actions)[:8]}"
            )
        for p, a in enumerate(actions):
            legal = self._legal_actions(p)
            if a not in legal:  # the kit's env would take it as a wait; OpenSpiel's games refuse
                raise ValueError(
                    f"{SHORT_NAME}: action {a} of player {p} is not legal here (legal: {legal})"
                )
        joint = {self._agents[p]: int(a) for p, a in enumerate(actions)}
        self._obs, rewards, terms, truncs, _ = self.env.step(joint)
        n = len(self._agents)
        for p, agent in enumerate(self._agents):
            r = float(rewards[agent])
            # A loss is -1/(n-1) exactly (the env's float32 -1/3 would not sum to zero)
            self._returns[p] += r if r >= 0 else -1.0 / (n - 1)
        self._over = any(terms.values()) or any(truncs.values())

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {self._seed0 + action}"
        if action == 0:
            return "wait"
        n = len(self._agents)
        if action > n * self._n_ranks:
            return f"variant move {action}"
        r, pile = divmod(action - 1, n)
        return f"play rank {r} on pile {pile}"

    def is_terminal(self) -> bool:
        """True once the game is won, drawn or truncated."""
        return self._over

    def serialize(self) -> str:
        """The game string and the action history, one action a line (no pickle:
        :mod:`speed_env.openspiel.state_string`); :meth:`SpeedGame.deserialize_state` reads it."""
        if self.deal_seed == -1:
            raise ValueError(
                f"{SHORT_NAME}: a state made from an engine record (state_from_world) has no "
                "history from the deal, so it cannot be serialised"
            )
        return state_string.dump_state(self)

    def returns(self) -> list[float]:
        """+1 / −1 / 0 at the end (zeros before it)."""
        return list(self._returns)

    def __str__(self) -> str:
        if self.env is None:
            return "(not dealt)"
        if isinstance(self.env, PartyParallelEnv):  # no drawing for n seats: the whole table
            return table_text(self.env.table())
        return str(self.env.render())

    # -- kit view ------------------------------------------------------------

    def kit_observation(self, player: int) -> np.ndarray:
        """The kit's observation vector of ``player`` (float32, a fresh array)."""
        if self.deal_seed is None:
            return np.zeros(self.get_game().obs_dim, np.float32)  # type: ignore[attr-defined]
        return np.array(self._obs[self._agents[player]]["observation"], dtype=np.float32)

    def snapshot(self) -> dict[str, Any]:
        """The kit's :meth:`snapshot` of the table (the whole table: for tests and logs); with
        three or four players its full table (docs/rules.md, "The full table")."""
        if self.env is None:
            raise ValueError(f"{SHORT_NAME}: the game is not dealt yet (a chance node)")
        if isinstance(self.env, PartyParallelEnv):
            return self.env.table()
        return self.env.snapshot()


class SpeedObserver:
    """OpenSpiel's PyObserver for this game: the kit's observation vector and a text view."""

    def __init__(self, obs_dim: int) -> None:
        self.tensor = np.zeros(obs_dim, np.float32)
        """The kit's observation vector of the last ``set_from`` player."""
        self.dict = {"observation": self.tensor}
        """The tensor under one name (the kit publishes its slices: ``observation_layout``)."""

    def set_from(self, state: SpeedState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = state.kit_observation(player)

    def string_from(self, state: SpeedState, player: int) -> str:
        """What ``player`` sees: its hand, the centre, counts, both cards in flight."""
        if state.env is None:
            return f"p{player} (not dealt)"
        if isinstance(state.env, PartyParallelEnv):
            return seat_text(state.env.table(), player)
        snap = state.env.snapshot()
        me, them = snap["players"][player], snap["players"][1 - player]
        centre = " ".join(str(c["top"]) for c in snap["centre"])
        return (
            f"p{player} t={snap['clock_ms']} {snap['phase']} centre[{centre}] "
            f"hand{me['hand']} draw {me['draw_pile']} side {me['side_pile']} "
            f"flight {me['in_flight']} | opp cards {sum(h is not None for h in them['hand'])} "
            f"draw {them['draw_pile']} flight {them['in_flight']}"
        )


def table_text(table: dict[str, Any]) -> str:
    """A game of three or four players as text, every pile (its full table, top first)."""
    centre = " ".join(f"{p[0] if p else '-'}/{len(p)}" for p in table["centre"])
    sides = " ".join(str(len(p)) for p in table["side_piles"])
    lines = [f"t={table['clock_ms']} {table['phase']} centre[{centre}] side[{sides}]"]
    for i, pl in enumerate(table["players"]):
        lines.append(
            f"p{i} hand{pl['hand']} draw{pl['draw_pile']} flight {pl['in_flight']} "
            f"played {pl['played']} bounced {pl['bounced']}"
        )
    if table["winner"] is not None or table["truncated"]:
        lines.append(f"over: winner {table['winner']} truncated {table['truncated']}")
    return "\n".join(lines)


def seat_text(table: dict[str, Any], player: int) -> str:
    """What ``player`` sees at a table of three or four: its hand, the centre, counts, every
    card in flight (the other hands hidden)."""
    me = table["players"][player]
    centre = " ".join(f"{p[0]}" for p in table["centre"])
    others = [
        f"p{q} cards {sum(h is not None for h in pl['hand'])} draw {len(pl['draw_pile'])} "
        f"flight {pl['in_flight']}"
        for q, pl in enumerate(table["players"])
        if q != player
    ]
    return (
        f"p{player} t={table['clock_ms']} {table['phase']} centre[{centre}] hand{me['hand']} "
        f"draw {len(me['draw_pile'])} side {[len(p) for p in table['side_piles']]} flight "
        f"{me['in_flight']} | " + " | ".join(others)
    )


pyspiel.register_game(_GAME_TYPE, SpeedGame)
