"""
# Vintage Speed

A turn-based shedding game of the 1930s for 2–10 players, played with its own
45-card pack (Aeroplane, Train, Ship, Motor, Horse, Lightning, Extra Turn), as a
PettingZoo AEC environment. The rules: "Description" below.

| Import             | `from speed_env.vintage import env`                    |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete(48) for the default pack                      |
| Agents             | `player_0` … `player_{n-1}`, seated clockwise          |
| Observation shape  | `{"observation": (174,) float32, "action_mask": (48,) int8}` |
| Name               | `vintage_speed_v0`                                     |

## Description

Each player in turn covers the top card of the discard pile with a card of
the same set or bearing the same number; a Horse bears two numbers and matches
on either. The player left of the dealer leads any card but the Extra Turn.
A player who cannot follow draws one card, which ends the turn. A Lightning
card may be placed on anything on your turn and calls a set (A, T, S, M or H)
that every following player must place, or draw, until someone does; another
Lightning replaces the call. The Extra Turn card may only be placed straight
after placing a card in the same turn, after which the next player may place
any card and any call is over. An empty pack is rebuilt from the discard pile
but its top; with nothing left to draw a player passes, and when every player
passes in a row the game ends *locked* (lowest penalty wins). When a player
goes out the others count the cards they hold against them: a card counts its
number (a Horse both numbers), Lightning 15, Extra Turn 20. A match is
`games` games (default 5); the deal passes left each game and the lowest
total wins.

## Arguments

``env(num_players=4, games=5, render_mode=None, **options)``

* `num_players`: 2–10. 2–3 players are dealt 6 cards, 4–5 players 5, and
  6–10 players 6 from two packs shuffled together.
* `games`: games in a match (penalty points carry from game to game).
* `render_mode`: `None` or `"ansi"` (`render()` returns the table as text,
  every hand shown).
* `options` (:mod:`speed_env.vintage.rules`): `may_draw_when_able=False`,
  `rebuild_pack=True`, `cut_horse="lower"`, `first_dealer=None` (cut),
  `max_turns=2000`, `pack=None` (the default `pack.toml`, or the path of your
  own pack file). Each [assumption] of the rules is one of these or an entry
  of the pack file.

## Episodes and reset

One episode is one game. `reset(seed=s)` starts a new match: the first dealer
is cut for (unless `first_dealer`), and all randomness of the match (cut,
deals, pack rebuilds) comes from a numpy Generator seeded with `s`; later
unseeded resets go on drawing from it (OS entropy before any seed). A seed
must be a whole number in `[0, 2**64)` and `options` a dict (or None).
`copy.deepcopy` and `pickle` keep the whole game, generator included.
`reset(options={"next_game": True})` deals the next game of the match: the
deal passes left, penalty points carry; after the match's last game (or before
any match) it starts a new match instead. An unfinished game left this way
counts as played, scoring nothing.

`reset(options={"deal": {"hands": [[...], ...], "pack": [...], "discard": [...],
"dealer": 0}})` starts from an explicit deal, cards as tokens, pack and discard
listed top first. Together they must hold every card in play (one pack, two for
6–10 players) exactly once; hands may be short but not empty. The seat left of
`dealer` acts first and must follow the discard's top; when that top is `L`,
give its call as `"called": "S"`. With `"next_game": True` as well, the deal
is the next game of the match. A bad deal raises a `ValueError` naming the
card, count or key and leaves the env as it was. Unknown option keys are ignored.

## Actions

Cards are named, not hand positions (default pack):

| Action  | Name                      | Meaning                                 |
|---------|---------------------------|-----------------------------------------|
| 0–8     | `play A1` … `play A9`     | Aeroplanes                              |
| 9–17    | `play T1` … `play T9`     | Trains                                  |
| 18–25   | `play S1` … `play S8`     | Ships                                   |
| 26–33   | `play M1` … `play M8`     | Motors                                  |
| 34–39   | `play H1/4` … `play H6/9` | Horses                                  |
| 40–44   | `play L call A` … `H`     | a Lightning, calling that set           |
| 45      | `play X`                  | the Extra Turn card                     |
| 46      | `draw`                    | draw one card (ends the turn)           |
| 47      | `pass`                    | end the turn without a card             |

`env.unwrapped.action_name(i)` and `env.unwrapped.action_index(name)` convert.
After placing a card while holding X the same agent acts again with only
`play X` and `pass` legal (that pass keeps X and ends the turn). `draw` is
legal only when no card can be placed (unless `may_draw_when_able`) and a card
can be drawn; `pass` only when neither is possible, so the mask is never empty.
An illegal action raises a `ValueError` naming the legal ones.

## Observations

`{"observation": float32 vector, "action_mask": int8 vector}`, ego-centric:
"me" is the observing seat and the others follow in turn order from the next
player to act after me, padded to 9 so the layout is the same for any table.
Entries are raw counts. For the default pack (K = 42 card kinds in the
order of the actions: 40 numbered, then `L` = 40, `X` = 41; S = 5 sets):

| Index    | Slice        | Content                                                     |
|----------|--------------|-------------------------------------------------------------|
| 0–41     | `hand`       | how many of each card kind I hold                           |
| 42–83    | `top`        | one-hot of the discard pile's top card (all 0: empty)       |
| 84       | `lead`       | 1 when the discard pile is empty (the player to act leads)  |
| 85–89    | `called`     | one-hot of the set called by the top Lightning              |
| 90       | `extra`      | 1 when I have just placed a card and may add X              |
| 91–132   | `discard`    | how many of each kind lie in the discard pile               |
| 133      | `pack`       | cards in the face-down pack                                 |
| 134–142  | `hand_sizes` | cards held by the next 9 seats in turn order (0 past table) |
| 143–151  | `seated`     | 1 for each of those slots that is at the table              |
| 152–160  | `stuck`      | 1 for each of those seats whose last turn placed no card    |
| 161–170  | `scores`     | match penalty points so far: mine, then in turn order       |
| 171–172  | `game`       | games of the match finished before this one; match length   |
| 173      | `passes`     | passes in a row so far                                      |

`env.unwrapped.layout` (an :class:`~speed_env.vintage.observation.ObservationLayout`)
gives these slices by name for any pack. The mask is all 0 for an agent
that is not to act; once the game is over every agent's mask holds only `pass`
(PettingZoo steps finished agents with `None`; the mask is never empty).

## Rewards

Paid on the step the game ends: +1 to the game's winner and, to every other
player, minus its penalty points divided by 100 (the match is scored by
penalties, so shedding costly cards pays even in a lost game). A locked game
that ends with equal lowest penalties is a draw: every player gets minus its
penalty / 100. A game truncated at `max_turns` pays 0 to all and scores nothing.

## Snapshot

`env.unwrapped.snapshot()` is the whole table as a JSON-ready dict: `players`
(each with `agent`, `hand` as a list of tokens and `score`, the match's
penalty points so far), `pack` (a count), `discard_top` (a token or `None`),
`discard` (a count), `called` (a set letter or `None`), `extra_pending`,
`current` (the agent to act, `None` once the game is over), `winner` (`None`,
an agent, or `"draw"`), `status` (`play`, `out`, `locked`, `truncated`),
`dealer`, `turns`, `game` and `games`, and `match_winner` (once the match's
last game is over).

## Version History

A change to the game's rules, its observation or its action space bumps the
version (PettingZoo's convention; the real-time env went to `speed_v1` that
way). Registered as `speed_env/vintage_speed_v0` (PettingZoo) and
`speed_env/VintageSpeed-v0` (Gymnasium, one seat).

* v0 (first release; still current in kit 1.0.0): the game, the 45-card pack,
  the observation (174 floats for the default pack and 4 players) and the
  actions (`Discrete(48)`) are those of the first release; the git history of
  `speed_env/vintage/` shows no change to them since, only refusals of bad
  input (seeds and options checked and named), copies that keep the whole game,
  and faster engine code that plays the same games. In kit 1.0.0 `metadata["name"]`
  became the registry's `vintage_speed_v0` (it read `speed_vintage_v0`; a name only).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from speed_env.aec import RefusalSafeOrderEnforcing
from speed_env.game import check_options, check_render_mode, check_seed
from speed_env.pickling import GamePickle
from speed_env.vintage.actions import Actions
from speed_env.vintage.deal import cut_for_dealer, deal_game, game_from_deal
from speed_env.vintage.engine import (
    TRUNCATED,
    Game,
    IllegalActionError,
    apply,
    legal_actions,
    legal_mask,
    penalties,
)
from speed_env.vintage.observation import ObservationLayout, encode
from speed_env.vintage.render import hand_tokens, render_text
from speed_env.vintage.rules import VintageRules, make_vintage_rules


def env(
    num_players: int = 4, games: int = 5, render_mode: str | None = None, **options: Any
) -> AECEnv:
    """The Vintage Speed AEC env, wrapped to enforce PettingZoo's call order."""
    return RefusalSafeOrderEnforcing(
        raw_env(num_players=num_players, games=games, render_mode=render_mode, **options)
    )


class raw_env(AECEnv, GamePickle):
    """Vintage Speed as an unwrapped PettingZoo AEC env (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "vintage_speed_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self, num_players: int = 4, games: int = 5, render_mode: str | None = None, **options: Any
    ) -> None:
        GamePickle.__init__(self, locals())
        AECEnv.__init__(self)  # explicit: GamePickle.__init__ takes the arguments
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.rules: VintageRules = make_vintage_rules(num_players, games, **options)
        """Options and pack in use."""
        self.actions = Actions(self.rules.pack)
        """Action ids and names of this pack."""
        self.layout = ObservationLayout(self.rules.pack)
        """Named slices of the observation vector."""
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        high = self.layout.high(self.rules)
        # One space object per agent, each its own (seeding one must not seed another).
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0, high=high, shape=(self.layout.size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(
                        low=0, high=1, shape=(self.actions.n,), dtype=np.int8
                    ),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.actions.n) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._game: Game | None = None
        self._scores = [0] * num_players
        self._games_finished = 0
        self._scored = False

    # -- PettingZoo API ---------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match, or the match's next game with ``{"next_game": True}``.

        ``seed=s`` seeds the generator of this and every later unseeded reset
        (Gymnasium's convention); before any seed it starts from OS entropy.
        """
        seed = check_seed(seed)
        options = check_options(options)
        n = self.rules.num_players
        next_game = (
            bool(options.get("next_game"))
            and self._game is not None
            and (self._games_finished + 1 < self.rules.games)
        )
        deal = options.get("deal")
        if next_game:
            dealer = (self.game.dealer + 1) % n
        else:
            dealer = self.rules.first_dealer if self.rules.first_dealer is not None else 0
        # Parse an explicit deal before touching any state: a bad deal changes nothing.
        explicit = (
            game_from_deal(self.rules, deal, default_dealer=dealer) if deal is not None else None
        )
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if next_game:
            self._games_finished += 1
        else:
            self._scores = [0] * n
            self._games_finished = 0
            if explicit is None and self.rules.first_dealer is None:
                dealer = cut_for_dealer(self.rules, self._rng)
        self._game = explicit if explicit is not None else deal_game(self.rules, dealer, self._rng)
        self._scored = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._game.current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` of ``agent`` (see the module docstring)."""
        game = self.game
        seat = self.possible_agents.index(agent)
        obs = encode(game, seat, self._scores, self._games_finished, self.layout)
        if game.over:
            mask = np.zeros(self.actions.n, dtype=np.int8)
            mask[self.actions.pass_] = 1
        elif seat == game.current:
            mask = legal_mask(game)
        else:
            mask = np.zeros(self.actions.n, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        """Take ``action`` (an int) for the agent to act; ValueError if it is illegal."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if not isinstance(action, int | np.integer) or isinstance(action, bool):
            raise IllegalActionError(game, action, legal_actions(game)).with_agent(agent)
        try:
            apply(game, int(action), self._rng)
        except IllegalActionError as exc:
            raise exc.with_agent(agent) from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if game.over:
            self._finish_game()
            self.agent_selection = self.possible_agents[(game.current + 1) % game.n_players]
        else:
            self.agent_selection = self.possible_agents[game.current]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        return render_text(self.game, self._scores, self._games_finished + 1)

    def close(self) -> None:
        """Nothing to release: the env holds no windows or files."""

    # -- Vintage extras ----------------------------------------------------

    @property
    def game(self) -> Game:
        """The engine state of the game in play (raises before the first reset)."""
        if self._game is None:
            raise RuntimeError("call reset() before reading the game")
        return self._game

    def action_name(self, action: int) -> str:
        """Published name of action id ``action`` (``play T5``, ``play L call S``, ``draw`` …)."""
        return self.actions.name(int(action))

    def action_index(self, name: str) -> int:
        """Action id of a published name (``play H2/5`` -> 35)."""
        return self.actions.index(name)

    def legal_action_names(self) -> list[str]:
        """Names of the legal actions of the agent to act."""
        return [self.actions.name(a) for a in legal_actions(self.game)]

    def snapshot(self) -> dict[str, Any]:
        """The whole table as a JSON-ready dict (see the module docstring)."""
        game = self.game
        pack = self.rules.pack
        winner: str | None
        if game.winner is not None:
            winner = self.possible_agents[game.winner]
        elif game.over and game.status != TRUNCATED:
            winner = "draw"
        else:
            winner = None
        match_over = game.over and self._games_finished + 1 >= self.rules.games
        return {
            "players": [
                {"agent": a, "hand": hand_tokens(game, s), "score": self._scores[s]}
                for s, a in enumerate(self.possible_agents)
            ],
            "pack": len(game.pack),
            "discard_top": pack.tokens[game.top] if game.discard else None,
            "discard": len(game.discard),
            "called": pack.set_letters[game.called] if game.called >= 0 else None,
            "extra_pending": game.extra_pending,
            "current": None if game.over else self.possible_agents[game.current],
            "winner": winner,
            "status": game.status,
            "dealer": self.possible_agents[game.dealer],
            "turns": game.turns,
            "game": self._games_finished + 1,
            "games": self.rules.games,
            "match_winner": self._match_winner() if match_over else None,
        }

    # -- internals ---------------------------------------------------------

    def _finish_game(self) -> None:
        game = self.game
        if game.status == TRUNCATED:
            for a in self.agents:
                self.truncations[a] = True
            return
        points = penalties(game)
        for s, a in enumerate(self.possible_agents):
            self.terminations[a] = True
            self.rewards[a] = 1.0 if s == game.winner else -points[s] / 100.0
        if not self._scored:
            # Everyone adds what they hold: nothing for a player who went out, and on a
            # locked game the winner's own (lowest) penalty too.
            self._scores = [sc + p for sc, p in zip(self._scores, points, strict=True)]
            self._scored = True

    def _match_winner(self) -> str:
        low = min(self._scores)
        lowest = [a for a, sc in zip(self.possible_agents, self._scores, strict=True) if sc == low]
        return lowest[0] if len(lowest) == 1 else "draw"
