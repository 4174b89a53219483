"""The rules of one game of Vintage Speed: a plain scalar engine.

The state is a small mutable :class:`Game` (seats are integers here; agent
names live only in the PettingZoo env). Three functions carry the rules:

- :func:`legal_actions` / :func:`legal_mask`: what the player to act may do.
- :func:`apply`: do one legal action, in place; the only randomness (the
  rebuild of an empty pack) comes from the ``rng`` passed in.
- :func:`penalties`: points each seat's hand counts against it.

How the rules (the docstring of :mod:`speed_env.vintage.aec`) map onto the state:

- ``discard`` empty: the player to act leads and may place any card but X.
- ``called`` is the set index of the last Lightning's call, or -1. A call is
  active exactly while a Lightning is the top card: placing the called set
  (or X) covers it, another Lightning replaces it, drawing leaves it.
- ``extra_pending``: the player to act has just placed a card and holds X;
  only ``play X`` and ``pass`` are legal, and that pass ends the turn
  without counting towards a locked game.
- A top X lets the next player place any card but X (X is never a turn's
  first card).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress

import numpy as np

from speed_env.vintage.actions import Actions
from speed_env.vintage.pack import Pack
from speed_env.vintage.rules import VintageRules

PLAY = "play"
OUT = "out"
LOCKED = "locked"
TRUNCATED = "truncated"


@dataclass
class Game:
    """The whole table of one game. Mutated in place by :func:`apply`."""

    rules: VintageRules
    """Options and pack in use."""
    hands: list[list[int]]
    """Per seat, the count of each card kind held."""
    pack: list[int]
    """Face-down pack as kinds, top first."""
    discard: list[int]
    """Discard pile as kinds, top first."""
    dealer: int
    """Seat that dealt; the seat on its left leads."""
    current: int
    """Seat to act (the last to act once the game is over)."""
    called: int = -1
    """Set index called by the top Lightning, or -1."""
    extra_pending: bool = False
    """The player to act has just placed a card and may add X."""
    passes: int = 0
    """Passes in a row; every player passing in a row locks the game."""
    turns: int = 0
    """Turns completed."""
    status: str = PLAY
    """``play``, ``out`` (a player went out), ``locked`` or ``truncated``."""
    winner: int | None = None
    """Seat that won; None while playing, on a drawn lock and on truncation."""
    stuck: list[bool] = field(default_factory=list)
    """Per seat: its last turn ended without placing a card (a draw or a locking pass).
    Public, as at a real table; filled with False for every seat when empty."""
    history: list[tuple[int, int]] = field(default_factory=list)
    """(seat, action) of every action taken, in order."""

    def __post_init__(self) -> None:
        if not self.stuck:
            self.stuck = [False] * len(self.hands)

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        # Every field is an int, a bool, a str, the immutable rules, or a list of those (hands
        # a list of lists): slicing copies it exactly, several times faster than the generic
        # deepcopy (OpenSpiel clones a search state this way at every simulated step).
        return self.copy(history=True)

    def copy(self, history: bool = True) -> Game:
        """An independent copy to play on; ``history=False`` leaves its history empty (what a
        rollout that never reads it wants: no list of every action to copy)."""
        return Game(
            rules=self.rules,
            hands=[h[:] for h in self.hands],
            pack=self.pack[:],
            discard=self.discard[:],
            dealer=self.dealer,
            current=self.current,
            called=self.called,
            extra_pending=self.extra_pending,
            passes=self.passes,
            turns=self.turns,
            status=self.status,
            winner=self.winner,
            stuck=self.stuck[:],
            history=self.history[:] if history else [],
        )

    @property
    def over(self) -> bool:
        """True once the game has ended (out, locked or truncated)."""
        return self.status != PLAY

    @property
    def n_players(self) -> int:
        """Seats at the table."""
        return len(self.hands)

    @property
    def top(self) -> int:
        """Kind of the discard pile's top card, or -1 when it is empty."""
        return self.discard[0] if self.discard else -1


def can_draw(game: Game) -> bool:
    """True when a draw would find a card (the pack, or a rebuild of the discard)."""
    if game.pack:
        return True
    return game.rules.rebuild_pack and len(game.discard) > 1


def playable_kinds(game: Game) -> list[int]:
    """Kinds the player to act may place as the first card of a turn.

    On an empty pile (the lead) or on X: anything but X. Under a call (a top
    Lightning): the called set or another Lightning. Otherwise a card of the
    top's set or sharing a number with it (``Pack.matches``), or a Lightning.
    X is never a turn's first card.
    """
    pack = game.rules.pack
    L, X = pack.L, pack.X
    hand = game.hands[game.current]
    # compress: the kinds held, in order, at C speed (rollout search calls this millions of times)
    held = list(compress(range(len(hand)), hand))
    if hand[X]:
        held.remove(X)
    top = game.discard[0] if game.discard else -1
    if top < 0 or top == X:
        return held
    if top == L:
        called, set_of = game.called, pack.set_of
        return [k for k in held if k == L or set_of[k] == called]
    row = pack.followers_of[top]
    return [k for k in held if k == L or row[k]]


def legal_actions(game: Game) -> list[int]:
    """Legal action ids for the player to act, ascending; empty once the game is over."""
    if game.status != PLAY:
        return []
    pack = game.rules.pack
    n_numbered, n_sets = pack.n_numbered, pack.n_sets
    play_x = n_numbered + n_sets
    if game.extra_pending:
        return [play_x, play_x + 2]
    legal: list[int] = []
    for k in playable_kinds(game):
        if k == pack.L:
            legal.extend(range(n_numbered, n_numbered + n_sets))
        else:
            legal.append(k)
    if (not legal or game.rules.may_draw_when_able) and can_draw(game):
        legal.append(play_x + 1)
    if not legal:
        legal.append(play_x + 2)
    return legal


def legal_mask(game: Game) -> np.ndarray:
    """int8 mask over all actions, 1 where legal for the player to act."""
    mask = np.zeros(Actions(game.rules.pack).n, dtype=np.int8)
    mask[legal_actions(game)] = 1
    return mask


def hand_penalty(pack: Pack, hand: list[int]) -> int:
    """Points a hand counts against its holder (Horse both numbers, X 20, L 15 by default)."""
    return sum(c * p for c, p in zip(hand, pack.penalties, strict=True))


def penalties(game: Game) -> list[int]:
    """Points each seat's hand counts against it now."""
    return [hand_penalty(game.rules.pack, h) for h in game.hands]


class IllegalActionError(ValueError):
    """An action that is not legal for the player to act; ``legal`` lists those that are."""

    def __init__(
        self, game: Game, action: object, legal: list[int], who: str | None = None
    ) -> None:
        acts = Actions(game.rules.pack)
        names = ", ".join(f"{a} ({acts.name(a)})" for a in legal) or "none (the game is over)"
        if isinstance(action, int) and 0 <= action < acts.n:
            shown = f"{action} ({acts.name(action)})"
        else:
            shown = repr(action)
        who = who or f"seat {game.current}"
        super().__init__(f"illegal action {shown} for {who}; legal: {names}")
        self.game = game
        self.action = action
        self.legal = legal

    def with_agent(self, agent: str) -> IllegalActionError:
        """The same error, naming the player by its agent name."""
        return IllegalActionError(self.game, self.action, self.legal, who=agent)


def apply(game: Game, action: int, rng: np.random.Generator, *, check: bool = True) -> None:
    """Take legal ``action`` for the player to act; raises IllegalActionError if it is not.

    ``check=False`` skips that check, for callers that picked ``action`` from
    :func:`legal_actions` of this very state (rollout search, millions of times).
    """
    if check:
        legal = legal_actions(game)
        if action not in legal:
            raise IllegalActionError(game, action, legal)
    game.history.append((game.current, action))
    pack = game.rules.pack
    acts = Actions(pack)
    hand = game.hands[game.current]
    if action == acts.draw:
        _draw(game, rng)
        game.passes = 0
        game.stuck[game.current] = True
        _end_turn(game)
    elif action == acts.pass_:
        if game.extra_pending:
            # Declining X ends a turn in which a card was placed: not a locking pass.
            game.extra_pending = False
        else:
            game.passes += 1
            game.stuck[game.current] = True
            if game.passes >= game.n_players:
                _finish_locked(game)
                return
        _end_turn(game)
    elif action == acts.play_x:
        _place(game, pack.X)
        game.called = -1
        game.extra_pending = False
        if not _went_out(game):
            _end_turn(game)
    else:
        kind = pack.L if acts.is_call(action) else action
        _place(game, kind)
        game.called = action - pack.n_numbered if kind == pack.L else -1
        if _went_out(game):
            return
        if hand[pack.X] > 0:
            game.extra_pending = True
        else:
            _end_turn(game)


def _place(game: Game, kind: int) -> None:
    game.stuck[game.current] = False
    game.hands[game.current][kind] -= 1
    game.discard.insert(0, kind)
    game.passes = 0


def _draw(game: Game, rng: np.random.Generator) -> None:
    if not game.pack:
        # Rebuild from the discard pile except its top, shuffled ([assumption]: rebuild_pack).
        rest = game.discard[1:]
        order = rng.permutation(len(rest))
        game.pack = [rest[i] for i in order]
        del game.discard[1:]
    kind = game.pack.pop(0)
    game.hands[game.current][kind] += 1


def _went_out(game: Game) -> bool:
    if any(game.hands[game.current]):
        return False
    game.status = OUT
    game.winner = game.current
    game.extra_pending = False
    return True


def _finish_locked(game: Game) -> None:
    game.status = LOCKED
    points = penalties(game)
    low = min(points)
    lowest = [s for s, p in enumerate(points) if p == low]
    game.winner = lowest[0] if len(lowest) == 1 else None


def _end_turn(game: Game) -> None:
    game.turns += 1
    if game.turns >= game.rules.max_turns:
        game.status = TRUNCATED
        return
    game.current = (game.current + 1) % game.n_players
