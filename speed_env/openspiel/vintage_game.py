"""Vintage Speed as an OpenSpiel game: ``pyspiel.load_game("python_vintage_speed")``.

One game of the kit's vintage engine (:mod:`speed_env.vintage.engine`) behind
OpenSpiel's ``pyspiel.Game``/``pyspiel.State`` interface: sequential moves,
imperfect information, explicit chance.

Chance is explicit and card by card, so OpenSpiel's tools see every random draw:

- the cut for the first dealer (unless ``first_dealer`` is set): one chance
  node, uniform over the seats (the kit's cut is symmetric between seats);
- the deal: one chance node per card dealt, from the dealer's left, each
  outcome a card kind with probability proportional to the copies not yet dealt;
- every ``draw``: the player's decision, then one chance node for the card
  drawn, proportional to the kinds in the pack (a rebuilt pack is the discard
  pile less its top, as in the kit). Drawing the top of a uniformly shuffled
  pack and drawing uniformly from its contents are the same distribution, so
  the games are the kit's games.

Parameters (``pyspiel.load_game("python_vintage_speed(players=3,max_turns=500)")``):
``players`` (2–10, default 4), ``may_draw_when_able``, ``rebuild_pack``,
``cut_horse``, ``first_dealer`` (-1: cut for it; else a seat), ``max_turns``
(1 to :data:`MAX_TURNS`), and ``pack`` (a pack file's path; empty: the default
pack): the kit's vintage options. One OpenSpiel game is one game of a match
(``games=1``). A parameter out of its range, a chance outcome the chance node
does not list or an action the player may not take is refused with a
``ValueError`` naming it.

A state serialises as the game string and its action history, replayed
through the rules when it is loaded (:mod:`speed_env.openspiel.state_string`):
a state string is data, never code.

Returns are the AEC env's rewards: +1 to the winner and minus its penalty
points / 100 to every other player (a drawn lock: minus its own penalty / 100
to all); 0 to all when the game is truncated at ``max_turns``.

Observations: the tensor (information state and observation alike) is the
kit's observation vector of that player (:class:`~speed_env.vintage.observation.ObservationLayout`),
the same numbers a kit vintage policy reads. The observation string shows the
same facts as text; the information-state string adds the public action
history (every player's actions; a drawn card stays private). It does not
repeat the player's own past draws, which its hand already holds.

:meth:`VintageSpeedState.resample_from_infostate` deals a world consistent with
the acting player's observation with :func:`speed_env.vintage.sample_world`
(hidden cards uniform over the unseen ones), so a search built on it (for example
OpenSpiel's ``ISMCTSBot``) is fair by construction.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import numpy as np
import pyspiel

from speed_env.openspiel import state_string
from speed_env.openspiel.game_type import game_type, int_param, with_defaults
from speed_env.vintage.actions import Actions
from speed_env.vintage.engine import PLAY, TRUNCATED, Game, apply, legal_actions, penalties
from speed_env.vintage.observation import ObservationLayout, encode
from speed_env.vintage.rules import MAX_PLAYERS, MIN_PLAYERS, VintageRules, make_vintage_rules
from speed_env.vintage.worlds import sample_world

SHORT_NAME = "python_vintage_speed"
"""The name ``pyspiel.load_game`` knows this game by."""

DEFAULT_PARAMS: dict[str, Any] = {
    "players": 4,
    "may_draw_when_able": False,
    "rebuild_pack": True,
    "cut_horse": "lower",
    "first_dealer": -1,
    "max_turns": 2000,
    "pack": "",
}
"""Game parameters and their defaults (OpenSpiel parameters have no None: ``first_dealer``
-1 cuts for the dealer, an empty ``pack`` is the default pack)."""

MAX_TURNS = 1_000_000
"""The largest ``max_turns``: OpenSpiel declares a game's length (two moves a turn) in a C++
``int``, and no game of the kit comes near it (they end in well under a thousand turns)."""

# The engine's rng only serves a pack rebuild, which chance nodes take over here; one shared
# generator keeps it out of every cloned state.
_NO_RNG = np.random.default_rng(0)

_GAME_TYPE = game_type(
    SHORT_NAME,
    "Vintage Speed (the 1930s shedding game), from the Speed RL kit",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    players=(MIN_PLAYERS, MAX_PLAYERS),
    params=DEFAULT_PARAMS,
)


def rules_from_params(params: dict[str, Any]) -> VintageRules:
    """The kit's :class:`VintageRules` (one game) for OpenSpiel parameters."""
    p = with_defaults(SHORT_NAME, params, DEFAULT_PARAMS)
    players = int_param(SHORT_NAME, p, "players", MIN_PLAYERS, MAX_PLAYERS)
    first = int_param(SHORT_NAME, p, "first_dealer", -1, players - 1)
    return make_vintage_rules(
        players,
        1,
        may_draw_when_able=bool(p["may_draw_when_able"]),
        rebuild_pack=bool(p["rebuild_pack"]),
        cut_horse=str(p["cut_horse"]),
        first_dealer=None if first < 0 else first,
        max_turns=int_param(SHORT_NAME, p, "max_turns", 1, MAX_TURNS),
        pack=str(p["pack"]) or None,
    )


class VintageSpeedGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring); built by ``pyspiel.load_game``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        self.rules = rules_from_params(params)
        """The kit's options for one game."""
        self.actions = Actions(self.rules.pack)
        """Action ids and their published names."""
        self.layout = ObservationLayout(self.rules.pack)
        """Named slices of the observation tensor."""
        pack = self.rules.pack
        worst = sum(c * p for c, p in zip(pack.copies, pack.penalties, strict=True))
        n = self.rules.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.actions.n,
            max_chance_outcomes=max(pack.n_kinds, n),
            num_players=n,
            min_utility=-worst * self.rules.packs / 100.0,
            max_utility=1.0,
            utility_sum=None,
            # A turn is at most a card, X and nothing else; draws are one action each.
            max_game_length=2 * self.rules.max_turns,
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> VintageSpeedState:
        """A table before the cut and the deal (chance to act)."""
        return VintageSpeedState(self)

    def deserialize_state(self, text: str) -> VintageSpeedState:
        """The state ``text`` (from :meth:`VintageSpeedState.serialize`) describes, replayed
        through the rules; ValueError naming what is wrong in a string that is not one."""
        state: VintageSpeedState = state_string.load_state(self, text)
        return state

    def state_from_engine(self, engine: Game) -> VintageSpeedState:
        """A state playing on from the kit engine's ``engine`` (a copy of it), dealt already.

        For search from a position, such as a world sampled from one seat's
        observation: the state's OpenSpiel history starts here (empty), so it
        cannot be serialised; everything else works as on a dealt state.
        """
        if engine.rules != self.rules:
            raise ValueError(f"{SHORT_NAME}: the position's rules differ from this game's ({self})")
        state = VintageSpeedState(self)
        state.engine = copy.deepcopy(engine)
        state.to_deal = 0
        state.from_position = True
        return state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> VintageSpeedObserver:
        """The observer behind the state's string and tensor methods."""
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters are not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return VintageSpeedObserver(self.layout, perfect_recall)


class VintageSpeedState(pyspiel.State):
    """One game in progress: the kit's engine :class:`Game` plus the deal still to come."""

    def __init__(self, game: VintageSpeedGame) -> None:
        super().__init__(game)
        rules = game.rules
        self.rules = rules
        """The kit's options for this game."""
        n = rules.num_players
        self.engine = Game(
            rules=rules,
            hands=[[0] * rules.pack.n_kinds for _ in range(n)],
            pack=list(rules.pack.cards(rules.packs)),
            discard=[],
            dealer=rules.first_dealer if rules.first_dealer is not None else -1,
            current=0,
        )
        """The kit's engine state; before the deal ends its ``pack`` holds the cards not dealt."""
        self.to_deal = rules.hand_size * n if rules.first_dealer is not None else -1
        """Cards still to deal; -1 until the cut has chosen the dealer."""
        self.drawing = False
        """The player to act chose ``draw``: chance picks the card."""
        self.from_position = False
        """Made from an engine position (:meth:`VintageSpeedGame.state_from_engine`): its history
        does not start at the root, so it cannot be serialised."""

    # -- OpenSpiel API -----------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE during the cut, the deal and a draw, or TERMINAL."""
        if self.engine.status != PLAY:
            return pyspiel.PlayerId.TERMINAL
        if self.to_deal != 0 or self.drawing:
            return pyspiel.PlayerId.CHANCE
        return self.engine.current

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions for the seat to act, ascending."""
        return legal_actions(self.engine) if player == self.engine.current else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability): a dealer seat during the cut, else a card kind."""
        if self.to_deal < 0:
            n = self.rules.num_players
            return [(s, 1.0 / n) for s in range(n)]
        counts = Counter(self._draw_pool())
        total = sum(counts.values())
        return [(k, c / total) for k, c in sorted(counts.items())]

    def _apply_action(self, action: int) -> None:
        game = self.engine
        if self.is_terminal():  # no player acts: "not legal here (legal: [])" would not say why
            raise ValueError(
                f"{SHORT_NAME}: the game is over (returns {self.returns()}): no move applies "
                "after its end; start a new game with game.new_initial_state()"
            )
        if self.current_player() == pyspiel.PlayerId.CHANCE:
            # OpenSpiel applies any number it is given: a seat or card the node does not list
            # would deal a card that is not there.
            cut = self.to_deal < 0  # the outcomes chance_outcomes lists, without the list
            if not (0 <= action < self.rules.num_players if cut else action in self._draw_pool()):
                listed = [k for k, _ in self.chance_outcomes()]
                raise ValueError(
                    f"{SHORT_NAME}: chance outcome {action} is not one this chance node lists "
                    f"({listed})"
                )
        elif action not in legal_actions(game):  # checked before ``draw`` waits for its card
            raise ValueError(
                f"{SHORT_NAME}: action {action} of player {game.current} is not legal here "
                f"(legal: {legal_actions(game)})"
            )
        if self.to_deal < 0:
            game.dealer = int(action)
            self.to_deal = self.rules.hand_size * self.rules.num_players
        elif self.to_deal > 0:
            dealt = self.rules.hand_size * self.rules.num_players - self.to_deal
            seat = (game.dealer + 1 + dealt) % self.rules.num_players
            game.pack.remove(int(action))
            game.hands[seat][int(action)] += 1
            self.to_deal -= 1
            if self.to_deal == 0:
                game.current = (game.dealer + 1) % self.rules.num_players
        elif self.drawing:
            self._rebuild_if_empty()
            game.pack.remove(int(action))
            game.pack.insert(0, int(action))
            self.drawing = False
            apply(game, self.actions.draw, _NO_RNG, check=False)
        else:
            action = int(action)
            if action == self.actions.draw:
                self.drawing = True
            else:
                apply(game, action, _NO_RNG, check=False)  # checked above

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.to_deal < 0:
                return f"dealer player_{action}"
            return f"card {self.rules.pack.tokens[action]}"
        return self.actions.name(action)

    def is_terminal(self) -> bool:
        """True once a player went out, the game locked, or it was truncated."""
        return self.engine.status != PLAY

    def serialize(self) -> str:
        """The game string and the action history, one action a line (no pickle:
        :mod:`speed_env.openspiel.state_string`); :meth:`VintageSpeedGame.deserialize_state`
        reads it."""
        if self.from_position:
            raise ValueError(
                f"{SHORT_NAME}: a state made from an engine position (state_from_engine) has no "
                "history from the deal, so it cannot be serialised"
            )
        return state_string.dump_state(self)

    def returns(self) -> list[float]:
        """The AEC env's rewards at the end (module docstring); zeros before it."""
        game = self.engine
        n = self.rules.num_players
        if game.status in (PLAY, TRUNCATED):
            return [0.0] * n
        points = penalties(game)
        return [1.0 if s == game.winner else -points[s] / 100.0 for s in range(n)]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Any, *, infer: bool = False
    ) -> VintageSpeedState:
        """A state the acting ``player_id`` cannot tell from this one, dealt by the kit's fair
        world sampler from that player's observation alone (module docstring); ``infer`` also
        uses what the stuck seats reveal (:func:`speed_env.vintage.sample_world`)."""
        if player_id != self.current_player():
            raise ValueError(
                f"{SHORT_NAME} resamples the acting player's information state only "
                f"(player {self.current_player()} acts; asked for {player_id})"
            )
        seed = int(probability_sampler() * 2**63)
        obs = self.kit_observation(player_id)
        world = sample_world(obs, np.random.default_rng(seed), rules=self.rules, infer=infer)
        out = self.clone()
        n = self.rules.num_players
        game = out.engine
        for j in range(n):
            seat = (player_id + j) % n
            game.hands[seat] = world.hands[j][:]
        game.pack = world.pack[:]
        game.discard = world.discard[:]
        return out

    def __str__(self) -> str:
        game = self.engine
        pack = self.rules.pack
        hands = " | ".join(
            " ".join(t for k, t in enumerate(pack.tokens) for _ in range(h[k])) for h in game.hands
        )
        top = pack.tokens[game.top] if game.discard else "-"
        return f"hands: {hands}; top {top}; pack {len(game.pack)}; to act {self.current_player()}"

    # -- kit view ------------------------------------------------------------

    def kit_observation(self, player: int) -> np.ndarray:
        """The kit's observation vector of ``player`` (float32, a fresh array)."""
        return encode(self.engine, player, [0] * self.rules.num_players, 0, self.game_layout)

    @property
    def game_layout(self) -> ObservationLayout:
        """The observation vector's named slices."""
        return ObservationLayout(self.rules.pack)

    @property
    def actions(self) -> Actions:
        """Action ids and names of this pack."""
        return Actions(self.rules.pack)

    def _draw_pool(self) -> list[int]:
        game = self.engine
        if game.pack or self.to_deal > 0:
            return game.pack
        # An empty pack is rebuilt from the discard pile less its top (rebuild_pack).
        return game.discard[1:]

    def _rebuild_if_empty(self) -> None:
        game = self.engine
        if not game.pack:
            game.pack = game.discard[1:]
            del game.discard[1:]


class VintageSpeedObserver:
    """OpenSpiel's PyObserver for this game: the kit's observation vector and its text."""

    def __init__(self, layout: ObservationLayout, perfect_recall: bool) -> None:
        self.layout = layout
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        """The kit's observation vector of the last ``set_from`` player."""
        self.dict = {name: self.tensor[s] for name, s in layout.slices.items()}
        """Named views of :attr:`tensor` (the layout's slices)."""

    def set_from(self, state: VintageSpeedState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = state.kit_observation(player)

    def string_from(self, state: VintageSpeedState, player: int) -> str:
        """``player``'s observation as text; with perfect recall, plus the public history."""
        game = state.engine
        pack = state.rules.pack
        n = state.rules.num_players
        hand = " ".join(t for k, t in enumerate(pack.tokens) for _ in range(game.hands[player][k]))
        top = pack.tokens[game.top] if game.discard else "-"
        called = pack.set_letters[game.called] if game.called >= 0 else "-"
        others = [(player + j) % n for j in range(1, n)]
        sizes = ",".join(str(sum(game.hands[o])) for o in others)
        stuck = "".join("s" if game.stuck[o] else "." for o in others)
        extra = int(game.extra_pending and game.current == player)
        text = (
            f"p{player} hand[{hand}] top {top} call {called} extra {extra} "
            f"discard {len(game.discard)} pack {len(game.pack)} others[{sizes}] "
            f"stuck[{stuck}] passes {game.passes}"
        )
        if self.perfect_recall:
            acts = state.actions
            played = [
                f"{step.player}:{acts.name(step.action)}"
                for step in state.full_history()
                if step.player >= 0
            ]
            text += " history[" + ";".join(played) + "]"
        return text


pyspiel.register_game(_GAME_TYPE, VintageSpeedGame)
