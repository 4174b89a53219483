"""The batched rules engine of real-time Speed.

One implementation of the rules (``docs/rules.md``) as pure kernels over a
:class:`State` of fixed-shape numpy arrays with a leading batch axis. The
PettingZoo env is a batch of one over it; ``BatchEnv`` steps thousands.

The kernels are compiled with numba. Numpy pays about a microsecond per call
whatever the array size, which would make a batch of one (the PettingZoo env)
slow; compiled, a game-step costs well under a microsecond at any batch size.
Each kernel loops over the games it is given and runs the scalar rules of one
game, so every game in a batch follows exactly the same code.

Layout of the state (``B`` games, ``S`` seats, ``H`` hand slots, piles of up to
54 cards stored bottom first with a count). Seats and piles are array
dimensions: a game of ``S`` players lives in a record with ``S`` seats and
``S`` centre and side piles, of 54 cards for two players and 108 for three or
four (Party Speed: two decks). Every kernel is the same code for each, looping
over the record's seats (:func:`seats`), and is compiled once per record
type, so the seat count is a constant of each compiled kernel (the two-player
loops unroll as they did when two was the only count). The two-seat record's
kernels compile at import, the three- and four-seat ones only when a game of
that many seats is first built (:func:`compile_seats`):

=============  ==============  ===================================================
array          shape           meaning
=============  ==============  ===================================================
seed           (B,) uint64     the game's seed (all its randomness derives from it)
clock          (B,) int64      ms; ``phase`` 0 play, 1 stuck, 2 over
flip_at        (B,) int64      time of the pending flip (phase stuck), else -1
placed_at      (B,) int64      time a card was last put on a centre pile (play or flip;
                               0 at the deal): the idle clock of ``idle_flip_ms``
winner         (B,) int8       -1 none, the winning seat, or ``n`` (the number of
                               players: :data:`DRAW` with two) for a draw
hand           (B,S,H) int16   top card of each hand/layout slot, -1 empty/in flight
stk, stk_n     (B,S,H,3)       cards stacked under a layout slot (``stack_layout``)
draw, draw_n   (B,S,P)         draw pile / stock
side, side_n   (B,S,P)         side pile *k*, beside centre pile *k*
centre, ...n   (B,S,P)         the centre piles; ``top_owner`` who put each top there
fl_*           (B,S,…)         each seat's card(s) in flight: kind, cards, slots,
                               pile (target slot for a stack), landing time
=============  ==============  ===================================================
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np
from numba import from_dtype, njit
from numba import types as nb_types

from speed_env import rng
from speed_env.reaction import latency_ms
from speed_env.rules import Rules

PILE = 54  # capacity of every pile array of a two-seat record: the largest deck
STACK_DEPTH = 3
SEAT_COUNTS = (2, 3, 4)  # a record type each; three and four hold two decks (piles of 2 * PILE)

PLAY, STUCK, OVER = 0, 1, 2
NONE, DRAW = -1, 2  # DRAW: a two-player game's draw; with n players a draw is n (draw_code)
# in-flight kinds
K_NONE, K_PLAY, K_STACK, K_MULTI, K_FLIP = -1, 0, 1, 2, 3
NEVER = np.int64(1) << 62


class ConfigFields(NamedTuple):
    """The names of the ints the kernels read, in the order of the config tuple (:func:`config`).

    The kernels get a plain tuple of ints and read a field as ``cfg[C.wrap]``,
    ``C`` holding each field's index: a constant, so that read compiles to
    reading one register. A tuple, not an array or a record: numba passes it
    by value, so the many small kernel calls pay no reference counting for
    it; a plain one, not this named tuple: numba types a plain tuple of ints
    in C, a named tuple in Python (about 1.5 us more a kernel call, which a
    batch of one, or of a few hundred games, would feel).
    ``ConfigFields(*cfg)`` names a config's values in Python.
    """

    japanese: int
    """1 under the ``japanese`` preset (own stocks, no side piles), else 0."""
    wrap: int
    """1 when K-A-2 wraps."""
    same_rank: int
    """1 when a card goes on its own rank."""
    jokers: int
    """1 when the deck holds two jokers."""
    play_out: int
    """1 when the game ends only once a seat has no card at all."""
    stack_layout: int
    """1 when ``japanese`` layout cards stack."""
    multi_play: int
    """1 when several cards of one rank go in one move."""
    lock: int
    """1 when ``reserve_rule == "lock"``."""
    countdown_ms: int
    """``stuck_countdown_ms``."""
    max_game_ms: int
    """A game still running then is truncated."""
    tick_ms: int
    """Length of one step."""
    hand_size: int
    """Hand/layout slots used (at most :data:`HAND_SLOTS`)."""
    n_ranks: int
    """13, or 14 with jokers."""
    n_actions: int
    """Size of the action space (:func:`n_actions`)."""
    draw_size: int
    """Cards in each draw pile at the deal."""
    side_size: int
    """Cards in each side pile at the deal."""
    deck_size: int
    """Cards in the deck."""
    idle_flip_ms: int
    """The idle rule's period (0: off)."""


N_CFG = len(ConfigFields._fields)
C = ConfigFields(*range(N_CFG))
"""Each config field's index in the tuple: ``cfg[C.wrap]``."""
Config = tuple[int, ...]

HAND_SLOTS = 7  # room for the largest hand (rules.HAND_SIZES); only cfg[C.hand_size] are used


def state_dtype(seats: int = 2) -> np.dtype:
    """The record of one game; a batch is a structured array of these (see the module docstring).

    One record type per seat count (:data:`SEAT_COUNTS`), whatever the preset:
    numba compiles each kernel once per type.
    """
    h = HAND_SLOTS
    n = seats
    pile = PILE if seats == 2 else 2 * PILE
    return np.dtype(
        [
            ("seed", np.uint64),
            ("clock", np.int64),
            ("flip_at", np.int64),
            ("placed_at", np.int64),
            ("phase", np.int8),
            ("winner", np.int8),
            ("truncated", np.bool_),
            ("flips", np.int32),
            ("reshuffles", np.int32),
            ("ties", np.int32),
            ("hand", np.int16, (n, h)),
            ("stk", np.int16, (n, h, STACK_DEPTH)),
            ("stk_n", np.int8, (n, h)),
            ("draw", np.int16, (n, pile)),
            ("draw_n", np.int16, (n,)),
            ("side", np.int16, (n, pile)),
            ("side_n", np.int16, (n,)),
            ("centre", np.int16, (n, pile)),
            ("centre_n", np.int16, (n,)),
            ("top_owner", np.int8, (n,)),
            ("fl_kind", np.int8, (n,)),
            ("fl_cards", np.int16, (n, 4)),
            ("fl_slots", np.int8, (n, 4)),
            ("fl_n", np.int8, (n,)),
            ("fl_pile", np.int8, (n,)),
            ("fl_land", np.int64, (n,)),
            ("commits", np.int64, (n,)),
            ("played", np.int32, (n,)),
            ("bounced", np.int32, (n,)),
            ("illegal", np.int32, (n,)),
            ("rebuilds", np.int32, (n,)),
            ("idle_rebuilds", np.int32, (n,)),
        ],
        align=True,
    )


# Explicit numba signatures for the per-game kernels: each compiles exactly once per
# record type (lazily typed calls would compile a new version for every literal argument,
# e.g. seat 0 and seat 1, multiplying the first-run compile time). Only the two-seat record
# compiles at import; the three- and four-seat ones when a game of that many seats is first
# built (:func:`compile_seats`), so a two-player user never compiles them.
GAME = from_dtype(state_dtype())
GAMES = tuple(from_dtype(state_dtype(n)) for n in SEAT_COUNTS)
"""The record of a game of each seat count, as numba types it (``GAMES[0] is GAME``'s twin)."""
CFG = nb_types.UniTuple(nb_types.int64, N_CFG)
LAT = nb_types.float64[:, ::1]
MASK_ROW = nb_types.int8[::1]
i64, u64, b1, none = nb_types.int64, nb_types.uint64, nb_types.boolean, nb_types.none

_PER_GAME: list[tuple[Any, Any, tuple[Any, ...]]] = []  # (kernel, ret, args), callees first
_COMPILED_SEATS = {2}  # record types every per-game kernel has now
_COMPILING = threading.Lock()  # two threads building a first 3-seat game compile it once


def per_game(ret: Any, *args: Any) -> Any:
    """Decorator: a per-game kernel ``ret(game, *args)``, compiled (and cached) now for the
    two-seat record and by :func:`compile_seats` for the others."""

    def wrap(func: Any) -> Any:
        kernel = njit([ret(GAMES[0], *args)], cache=True)(func)
        _PER_GAME.append((kernel, ret, args))
        return kernel

    return wrap


def compile_seats(seats: int) -> None:
    """Give every per-game kernel its ``seats``-seat version (from numba's cache when there).

    Called before the first record of that many seats exists (:func:`new_state`);
    afterwards a no-op. The kernels go in definition order, callees before
    callers, each alone allowed to compile: a caller then types its calls
    against its callees' explicit versions only, as at import.
    """
    if seats in _COMPILED_SEATS:
        return
    if seats not in SEAT_COUNTS:
        raise ValueError(f"a game seats one of {SEAT_COUNTS} players, got {seats!r}")
    game = GAMES[SEAT_COUNTS.index(seats)]
    with _COMPILING:
        if seats in _COMPILED_SEATS:
            return
        for kernel, ret, args in _PER_GAME:
            kernel.disable_compile(False)
            try:
                kernel.compile(ret(game, *args))
            finally:
                kernel.disable_compile(True)
        _COMPILED_SEATS.add(seats)


def new_state(n: int, seats: int = 2) -> np.ndarray:
    """``n`` empty game records (deal them with :func:`deal_seeded` or ``table.deal_explicit``);
    the kernels for ``seats`` seats are compiled first if they are not yet."""
    compile_seats(seats)
    return np.zeros(n, state_dtype(seats))


def n_actions(rules: Rules) -> int:
    """Size of the action space: wait, rank × pile plays, then any variant moves."""
    r = rules.n_ranks
    n = rules.players  # one centre pile per player
    return 1 + n * r + (r if rules.stack_layout else 0) + (n * r if rules.multi_play else 0)


def config(rules: Rules, tick_ms: int) -> Config:
    """The rules and tick as the tuple of ints the kernels read (:class:`ConfigFields`)."""
    named = ConfigFields(
        japanese=int(rules.is_japanese),
        wrap=int(rules.wrap),
        same_rank=int(rules.same_rank),
        jokers=int(rules.jokers),
        play_out=int(rules.play_out),
        stack_layout=int(rules.stack_layout),
        multi_play=int(rules.multi_play),
        lock=int(rules.reserve_rule == "lock"),
        countdown_ms=int(rules.stuck_countdown_ms),
        max_game_ms=int(rules.max_game_ms),
        tick_ms=int(tick_ms),
        hand_size=int(rules.hand_size),
        n_ranks=int(rules.n_ranks),
        n_actions=n_actions(rules),
        draw_size=int(rules.draw_size),
        side_size=int(rules.side_size),
        deck_size=int(rules.deck_size),
        idle_flip_ms=int(rules.idle_flip_ms),
    )
    return tuple(named)


# --------------------------------------------------------------------------- rules


@njit(cache=True, inline="always")
def seats(g: Any) -> int:
    """Players at game ``g``'s table, and centre piles: the record's seat dimension, a constant
    of each compiled kernel."""
    return g.fl_kind.shape[0]


_RANK_OF = np.array(([c % 13 for c in range(52)] + [13, 13]) * 2, np.int64)  # two decks


@njit(cache=True, inline="always")
def rank(card: int) -> int:
    """Rank index of a card id (jokers 13); a table look-up, cheaper than ``%``."""
    return _RANK_OF[card]


ALL_RANKS = (1 << 14) - 1


@per_game(i64, CFG, i64, i64)
def pile_accepts(g: Any, cfg: Config, p: int, k: int) -> int:
    """Bit set of the ranks seat ``p`` may put on centre pile ``k`` now (bit 13: joker).

    One test per pile, then a bit ``and`` per card: the mask, the stuck test
    and the landing check all go through here.
    """
    top = g.centre[k, g.centre_n[k] - 1]
    tr = rank(top)
    if tr == 13:
        if cfg[C.japanese] == 0:
            return ALL_RANKS  # a wild joker (us/pagat): any card goes on it, a joker too
        # japanese: only the player who put the joker there may cover it, with anything.
        return ALL_RANKS if g.top_owner[k] == p else 0
    bits = 1 << 13  # a joker goes on any non-joker top
    if tr > 0:
        bits |= 1 << (tr - 1)
    if tr < 12:
        bits |= 1 << (tr + 1)
    if cfg[C.wrap] != 0 and (tr == 0 or tr == 12):
        bits |= 1 << (12 - tr)  # K–A–2: A accepts K, K accepts A
    if cfg[C.same_rank] != 0:
        bits |= 1 << tr
    return bits


@per_game(b1, CFG, i64, i64, i64)
def can_play(g: Any, cfg: Config, p: int, r: int, k: int) -> bool:
    """May seat ``p`` put a card of rank ``r`` on centre pile ``k`` now?"""
    return (pile_accepts(g, cfg, p, k) >> r) & 1 != 0


@per_game(i64, CFG, i64)
def hand_ranks(g: Any, cfg: Config, p: int) -> int:
    """Bit set of the ranks on top of seat ``p``'s slots."""
    once = 0
    for i in range(cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0:
            once |= 1 << rank(c)
    return once


@per_game(i64, CFG, i64)
def hand_pairs(g: Any, cfg: Config, p: int) -> int:
    """Bit set of the ranks (jokers aside) on top of at least two of seat ``p``'s slots."""
    once = 0
    twice = 0
    for i in range(cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0 and rank(c) < 13:  # either deck's cards (ids 54 … with three or four)
            bit = 1 << rank(c)
            twice |= once & bit
            once |= bit
    return twice


@per_game(b1, CFG, i64)
def has_play(g: Any, cfg: Config, p: int) -> bool:
    """Does seat ``p`` hold an ordinary legal play (ignoring any card in flight)?"""
    accepts = 0
    for k in range(seats(g)):
        accepts |= pile_accepts(g, cfg, p, k)
    return hand_ranks(g, cfg, p) & accepts != 0


@njit(cache=True, inline="always")
def pile_of(g: Any, cfg: Config, p: int, j: int) -> int:
    """The centre pile seat ``p``'s actions call ``j``: with two players the pile itself; with
    more, counted from ``p``'s own pile in seat order (docs/rules.md, "Party Speed")."""
    n = seats(g)
    return j if n == 2 else (p + j) % n


@njit(cache=True, inline="always")
def may_move(g: Any, p: int) -> bool:
    """Seat ``p`` may commit now: the game runs and nothing of its own is in flight."""
    return g.phase != OVER and g.fl_kind[p] == K_NONE


@njit(cache=True, inline="always")
def flip_choice(g: Any, cfg: Config, p: int) -> bool:
    """In phase stuck, a stockless ``play_out`` player picks the card put down at the flip."""
    return cfg[C.play_out] != 0 and g.draw_n[p] == 0


@per_game(none, CFG, i64, MASK_ROW)
def legal_row(g: Any, cfg: Config, p: int, out: np.ndarray) -> None:
    """Write seat ``p``'s action mask into ``out`` (int8, length n_actions).

    The one statement of legality with :func:`is_legal`, which reads one
    action of it: wait always; ``1 + n * r + j`` a card of rank ``r`` onto
    pile :func:`pile_of` ``j``; then stacks and multi-plays (``japanese``).
    """
    out[:] = 0
    out[0] = 1
    if not may_move(g, p):
        return
    once = hand_ranks(g, cfg, p)
    n = seats(g)
    nr = cfg[C.n_ranks]
    if g.phase == STUCK:
        if flip_choice(g, cfg, p):  # any layout card onto any pile
            for r in range(nr):
                for j in range(n):
                    out[1 + n * r + j] = (once >> r) & 1
        return
    # Piles 0 … n-1 as the seat counts them, at most four: one pass over the ranks
    # writes each rank's n entries side by side.
    on0 = once & pile_accepts(g, cfg, p, pile_of(g, cfg, p, 0))
    on1 = once & pile_accepts(g, cfg, p, pile_of(g, cfg, p, 1))
    on2 = once & pile_accepts(g, cfg, p, pile_of(g, cfg, p, 2)) if n > 2 else 0
    on3 = once & pile_accepts(g, cfg, p, pile_of(g, cfg, p, 3)) if n > 3 else 0
    for r in range(nr):
        at = 1 + n * r
        out[at] = (on0 >> r) & 1
        out[at + 1] = (on1 >> r) & 1
        if n > 2:
            out[at + 2] = (on2 >> r) & 1
        if n > 3:
            out[at + 3] = (on3 >> r) & 1
    if cfg[C.stack_layout] == 0 and cfg[C.multi_play] == 0:
        return
    twice = hand_pairs(g, cfg, p)
    base = 1 + n * nr
    if cfg[C.stack_layout] != 0:
        stack = twice if g.draw_n[p] > 0 else 0
        for r in range(13):
            out[base + r] = (stack >> r) & 1
        base += nr
    if cfg[C.multi_play] != 0:
        for j in range(n):
            multi = twice & pile_accepts(g, cfg, p, pile_of(g, cfg, p, j))
            for r in range(13):
                out[base + n * r + j] = (multi >> r) & 1


@per_game(b1, CFG, i64, i64)
def is_legal(g: Any, cfg: Config, p: int, a: int) -> bool:
    """Is action ``a`` (already known to be in the action space) legal for seat ``p``?"""
    if a == 0:
        return True
    if not may_move(g, p):
        return False
    n = seats(g)
    nr = cfg[C.n_ranks]
    base = 1 + n * nr
    if a < base:
        r = (a - 1) // n
        if (hand_ranks(g, cfg, p) >> r) & 1 == 0:
            return False
        if g.phase == STUCK:
            return flip_choice(g, cfg, p)
        return (pile_accepts(g, cfg, p, pile_of(g, cfg, p, (a - 1) % n)) >> r) & 1 != 0
    if g.phase == STUCK:
        return False
    twice = hand_pairs(g, cfg, p)
    if cfg[C.stack_layout] != 0:
        if a < base + nr:
            return g.draw_n[p] > 0 and (twice >> (a - base)) & 1 != 0
        base += nr
    m = a - base
    r = m // n
    if (twice >> r) & 1 == 0:
        return False
    return (pile_accepts(g, cfg, p, pile_of(g, cfg, p, m % n)) >> r) & 1 != 0


@per_game(i64, CFG, i64)
def cards_left(g: Any, cfg: Config, p: int) -> int:
    """Cards seat ``p`` still has to get rid of: hand/layout (stacks too), in flight, draw pile."""
    n = g.draw_n[p] + g.fl_n[p]
    for i in range(cfg[C.hand_size]):
        if g.hand[p, i] >= 0:
            n += 1
        n += g.stk_n[p, i]
    return n


@per_game(b1, CFG, i64)
def layout_empty(g: Any, cfg: Config, p: int) -> bool:
    """No card in seat ``p``'s hand/layout (stacks included) and none in flight."""
    if g.fl_n[p] > 0:
        return False
    for i in range(cfg[C.hand_size]):
        if g.hand[p, i] >= 0 or g.stk_n[p, i] > 0:
            return False
    return True


# ----------------------------------------------------------------- piles and slots


@njit(cache=True, inline="always")
def push_centre(g: Any, k: int, card: int, owner: int) -> None:
    """Put ``card`` on top of centre pile ``k``."""
    g.centre[k, g.centre_n[k]] = card
    g.centre_n[k] += 1
    g.top_owner[k] = owner


@per_game(b1, i64, i64)
def refill_slot(g: Any, p: int, i: int) -> bool:
    """Fill emptied slot ``i``: a stacked card shows, else the draw pile's top.

    Returns True when this refill emptied the draw pile / stock.
    """
    if g.stk_n[p, i] > 0:
        g.stk_n[p, i] -= 1
        g.hand[p, i] = g.stk[p, i, g.stk_n[p, i]]
        g.stk[p, i, g.stk_n[p, i]] = -1
        return False
    if g.draw_n[p] > 0:
        g.draw_n[p] -= 1
        g.hand[p, i] = g.draw[p, g.draw_n[p]]
        g.draw[p, g.draw_n[p]] = -1
        return g.draw_n[p] == 0
    return False


@per_game(none, i64)
def clear_flight(g: Any, p: int) -> None:
    """Seat ``p`` has nothing in flight."""
    g.fl_kind[p] = K_NONE
    g.fl_n[p] = 0
    g.fl_cards[p, :] = -1
    g.fl_slots[p, :] = -1
    g.fl_pile[p] = -1
    g.fl_land[p] = NEVER


@njit(cache=True, inline="always")
def draw_code(g: Any) -> int:
    """``winner`` of a drawn game: the number of players (:data:`DRAW`, 2, with two), one past
    the last seat."""
    return seats(g)


@per_game(none, i64)
def end_game(g: Any, winner: int) -> None:
    """The game is over: ``winner`` is a seat or the draw code (:func:`draw_code`)."""
    g.phase = OVER
    g.winner = winner
    g.flip_at = -1


@per_game(none, CFG)
def lock_game(g: Any, cfg: Config) -> None:
    """A locked table ends the game: the fewest cards left wins, a tie for the fewest is a
    draw."""
    best = -1
    fewest = 0
    tied = False
    for p in range(seats(g)):
        left = cards_left(g, cfg, p)
        if best < 0 or left < fewest:
            best, fewest, tied = p, left, False
        elif left == fewest:
            tied = True
    end_game(g, draw_code(g) if tied else best)


# -------------------------------------------------------------------------- commit


@per_game(i64, CFG, i64, i64, i64)
def leftmost(g: Any, cfg: Config, p: int, r: int, start: int) -> int:
    """Leftmost slot at or after ``start`` whose top card has rank ``r``, or -1."""
    for i in range(start, cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0 and rank(c) == r:
            return i
    return -1


@per_game(none, CFG, LAT, i64, i64, i64)
def commit(g: Any, cfg: Config, lat: np.ndarray, p: int, a: int, t: int) -> None:
    """Seat ``p`` commits legal action ``a`` (not a wait) at time ``t``: cards go in flight."""
    nr = cfg[C.n_ranks]
    n_piles = seats(g)
    base_stack = 1 + n_piles * nr
    base_multi = base_stack + (nr if cfg[C.stack_layout] != 0 else 0)
    if a < base_stack:
        r = (a - 1) // n_piles
        i = leftmost(g, cfg, p, r, 0)
        g.fl_cards[p, 0] = g.hand[p, i]
        g.fl_slots[p, 0] = i
        g.hand[p, i] = -1
        g.fl_n[p] = 1
        g.fl_pile[p] = pile_of(g, cfg, p, (a - 1) % n_piles)
        if g.phase == STUCK:
            # A play-out flip choice is put down at the flip itself: no latency draw.
            g.fl_kind[p] = K_FLIP
            g.fl_land[p] = g.flip_at
            return
        g.fl_kind[p] = K_PLAY
    elif a < base_multi:
        r = a - base_stack
        i = leftmost(g, cfg, p, r, 0)
        g.fl_cards[p, 0] = g.hand[p, i]
        g.fl_slots[p, 0] = i
        g.hand[p, i] = -1
        g.fl_n[p] = 1
        g.fl_pile[p] = leftmost(g, cfg, p, r, i + 1)  # the slot stacked onto
        g.fl_kind[p] = K_STACK
    else:
        m = a - base_multi
        r = m // n_piles
        n = 0
        for i in range(cfg[C.hand_size]):
            c = g.hand[p, i]
            if c >= 0 and rank(c) == r:
                g.fl_cards[p, n] = c
                g.fl_slots[p, n] = i
                g.hand[p, i] = -1
                n += 1
        g.fl_n[p] = n
        g.fl_pile[p] = pile_of(g, cfg, p, m % n_piles)
        g.fl_kind[p] = K_MULTI
    g.fl_land[p] = t + latency_ms(lat[p], g.seed, p, g.commits[p])
    g.commits[p] += 1


# ------------------------------------------------------------------------- landing


@per_game(none, CFG, i64, i64)
def land(g: Any, cfg: Config, p: int, e: int) -> None:
    """Resolve seat ``p``'s card(s) landing at time ``e``: placed if still legal, else bounced."""
    kind = g.fl_kind[p]
    n = g.fl_n[p]
    emptied = False
    if kind == K_STACK:
        i = g.fl_slots[p, 0]
        j = g.fl_pile[p]
        g.stk[p, j, g.stk_n[p, j]] = g.hand[p, j]
        g.stk_n[p, j] += 1
        g.hand[p, j] = g.fl_cards[p, 0]
        clear_flight(g, p)
        emptied = refill_slot(g, p, i)
    else:
        k = g.fl_pile[p]
        if can_play(g, cfg, p, rank(g.fl_cards[p, 0]), k):
            for j in range(n):
                push_centre(g, k, g.fl_cards[p, j], p)
            g.played[p] += n
            g.idle_rebuilds[:] = 0
            g.placed_at = e
            slots = g.fl_slots[p].copy()
            clear_flight(g, p)
            for j in range(n):
                if refill_slot(g, p, slots[j]):
                    emptied = True
        else:
            for j in range(n):
                g.hand[p, g.fl_slots[p, j]] = g.fl_cards[p, j]
            g.bounced[p] += n
            clear_flight(g, p)
            return
    # Win checks for the landing player.
    if cfg[C.japanese] == 0:
        if g.draw_n[p] == 0 and layout_empty(g, cfg, p):
            end_game(g, p)
    elif cfg[C.play_out] == 0:
        if emptied:
            end_game(g, p)
    elif g.draw_n[p] == 0 and layout_empty(g, cfg, p):
        end_game(g, p)


# --------------------------------------------------------------------------- flips


@per_game(none, i64)
def rebuild(g: Any, k: int) -> None:
    """Side pile ``k`` is rebuilt from centre pile ``k``: all but its top, shuffled."""
    m = g.centre_n[k] - 1
    order = rng.shuffle_order(g.seed, rng.REBUILD + k, 64 * g.rebuilds[k], m)
    # order lists the new pile top first; the array is stored bottom first.
    for i in range(m):
        g.side[k, i] = g.centre[k, order[m - 1 - i]]
    g.side_n[k] = m
    top = g.centre[k, m]
    g.centre[k, :] = -1
    g.centre[k, 0] = top
    g.centre_n[k] = 1
    g.rebuilds[k] += 1
    g.idle_rebuilds[k] += 1
    g.reshuffles += 1


@njit(cache=True, inline="always")
def all_empty(g: Any, n: int) -> bool:
    """Are the first ``n`` side piles all empty?"""
    for k in range(n):
        if g.side_n[k] > 0:
            return False
    return True


@per_game(none, CFG)
def flip_side_piles(g: Any, cfg: Config) -> None:
    """``us``/``pagat`` flip: rebuild or lock when the side piles run out, then flip."""
    n = seats(g)
    empty = False  # a side pile is empty
    cycled = True  # every side pile has been rebuilt since the last card was placed
    for k in range(n):
        empty |= g.side_n[k] == 0
        cycled &= g.idle_rebuilds[k] > 0
    if cfg[C.lock] != 0:
        if all_empty(g, n):
            lock_game(g, cfg)
            return
    else:
        # Every side pile already rebuilt since the last card was placed, and one needs
        # it again: every card has cycled with no play, and would for ever.
        if empty and cycled:
            lock_game(g, cfg)
            return
        for k in range(n):
            if g.side_n[k] == 0:
                rebuild(g, k)
    flipped = False
    for k in range(n):
        if g.side_n[k] > 0:
            g.side_n[k] -= 1
            push_centre(g, k, g.side[k, g.side_n[k]], -1)
            g.side[k, g.side_n[k]] = -1
            flipped = True
    if not flipped:
        lock_game(g, cfg)


@per_game(i64, CFG, i64)
def leftmost_card(g: Any, cfg: Config, p: int) -> int:
    """Leftmost slot of seat ``p`` holding a card, or -1."""
    for i in range(cfg[C.hand_size]):
        if g.hand[p, i] >= 0:
            return i
    return -1


@per_game(none, CFG)
def flip_stocks(g: Any, cfg: Config) -> None:
    """``japanese`` flip: each stock's top onto its owner's pile (or a layout card in play-out)."""
    n = seats(g)
    emptied = np.zeros(n, np.bool_)
    for p in range(n):
        if g.draw_n[p] > 0:
            g.draw_n[p] -= 1
            push_centre(g, p, g.draw[p, g.draw_n[p]], p)
            g.draw[p, g.draw_n[p]] = -1
            emptied[p] = g.draw_n[p] == 0
        elif cfg[C.play_out] != 0:
            if g.fl_kind[p] == K_FLIP:
                card, i, k = g.fl_cards[p, 0], g.fl_slots[p, 0], g.fl_pile[p]
                clear_flight(g, p)
            else:
                i = leftmost_card(g, cfg, p)
                if i < 0:
                    continue
                card, k = g.hand[p, i], p
                g.hand[p, i] = -1
            push_centre(g, k, card, p)
            refill_slot(g, p, i)
    # One seat out of cards at the flip wins; two or more at once: a draw (docs/rules.md).
    winner = -1
    for p in range(n):
        # play-out: no card left at all; else the stock's last card went down at this flip
        won = (g.draw_n[p] == 0 and layout_empty(g, cfg, p)) if cfg[C.play_out] else emptied[p]
        if won:
            winner = p if winner < 0 else draw_code(g)
    if winner >= 0:
        end_game(g, winner)


@per_game(none, CFG)
def flip(g: Any, cfg: Config) -> None:
    """The simultaneous flip that ends a stuck countdown.

    Every flip that does not end the game puts a card on a centre pile, so it
    restarts the idle clock.
    """
    g.flips += 1
    g.placed_at = g.flip_at
    g.phase = PLAY
    g.flip_at = -1
    if cfg[C.japanese] != 0:
        flip_stocks(g, cfg)
    else:
        flip_side_piles(g, cfg)


@per_game(b1, CFG)
def flying(g: Any, cfg: Config) -> bool:
    """Is an ordinary card in flight (a play-out flip choice does not count)?"""
    for p in range(seats(g)):
        if g.fl_kind[p] != K_NONE and g.fl_kind[p] != K_FLIP:
            return True
    return False


@njit(cache=True, inline="always")
def nobody_can_play(g: Any, cfg: Config) -> bool:
    """No seat holds an ordinary legal play."""
    for p in range(seats(g)):
        if has_play(g, cfg, p):
            return False
    return True


@per_game(i64, CFG)
def idle_due(g: Any, cfg: Config) -> int:
    """When the idle period runs out, if it can now (phase play, nothing in flight), else NEVER."""
    if cfg[C.idle_flip_ms] == 0 or g.phase != PLAY or flying(g, cfg):
        return int(NEVER)
    return g.placed_at + cfg[C.idle_flip_ms]


@per_game(none, CFG, i64)
def stuck_test(g: Any, cfg: Config, e: int) -> None:
    """After an event at time ``e``: start the countdown if nobody can play, or nobody has
    put a card on a centre pile for ``idle_flip_ms``."""
    if g.phase == OVER:
        return
    stuck = not flying(g, cfg) and (
        (cfg[C.idle_flip_ms] != 0 and e >= g.placed_at + cfg[C.idle_flip_ms])
        or nobody_can_play(g, cfg)
    )
    if stuck and g.phase == PLAY:
        g.phase = STUCK
        g.flip_at = e + cfg[C.countdown_ms]
    elif not stuck and g.phase == STUCK:
        g.phase = PLAY
        g.flip_at = -1


# ------------------------------------------------------------------------ the step


@njit(cache=True, inline="always")
def landing_time(g: Any, p: int) -> np.int64:
    """When seat ``p``'s ordinary flight lands (flip choices land with the flip)."""
    k = g.fl_kind[p]
    if k == K_NONE or k == K_FLIP:
        return NEVER
    return g.fl_land[p]


@per_game(none, CFG, i64)
def advance(g: Any, cfg: Config, t_end: int) -> None:
    """Resolve every landing and flip due at or before ``t_end``, in time order."""
    n = seats(g)
    while g.phase != OVER:
        el = NEVER  # the next landing, the seats landing then (bits) and how many
        due = 0
        tied = 0
        for p in range(n):
            lp = landing_time(g, p)
            if lp < el:
                el, due, tied = lp, 1 << p, 1
            elif lp == el:
                due |= 1 << p
                tied += 1
        ef = g.flip_at if g.phase == STUCK else NEVER
        ei = idle_due(g, cfg)  # never at the time of a landing: it waits for every flight
        e = int(min(el, ef, ei))
        if e > t_end:
            return
        if el == e:
            # Of the seats landing now, the i-th in seat order lands first: i uniform among
            # them (two seats: seat 0 first when u < 0.5). The others land on the next turns
            # of this loop, each after the stuck test, with a draw of their own while tied.
            i = 0
            if tied > 1:
                i = min(int(rng.uniform(g.seed, rng.TIE, g.ties) * tied), tied - 1)
                g.ties += 1
            for _ in range(i):
                due &= due - 1  # drop the lowest seat: the i-th of them lands first
            p = 0
            while (due >> p) & 1 == 0:
                p += 1
            land(g, cfg, p, e)
        elif ef == e:
            flip(g, cfg)
        # else the idle period ran out at e: the stuck test below starts the countdown
        stuck_test(g, cfg, e)


@per_game(i64, CFG)
def quiet_ticks(g: Any, cfg: Config) -> int:
    """How many ticks from now only move the clock if both seats wait: no landing, flip or
    idle countdown falls due in them and the game is not truncated at their end.

    Such a tick of :func:`step_game` commits nothing, finds the first event
    (:func:`advance`) after its end and only sets the clock, so ``k`` of them
    are exactly ``g.clock += k * tick_ms``: nothing else of the record, and
    so of either seat's mask, changes. 0 for a game that is over.
    """
    if g.phase == OVER:
        return 0
    landing = NEVER
    for p in range(seats(g)):
        landing = min(landing, landing_time(g, p))
    due = min(
        landing,
        g.flip_at if g.phase == STUCK else NEVER,
        np.int64(idle_due(g, cfg)),
        np.int64(cfg[C.max_game_ms]),
    )
    # Tick m (from 0) is quiet while its end, clock + (m + 1) * tick, comes before ``due``.
    return max(0, (due - g.clock - 1) // cfg[C.tick_ms])


@njit(cache=True, inline="always")
def tick(g: Any, cfg: Config, lat: np.ndarray, a0: int, a1: int, a2: int, a3: int) -> None:
    """One tick of a game: every seat's commit at the clock (seat order; ``a2``, ``a3`` only
    with three or four players), then the events of the tick."""
    if g.phase == OVER:
        return
    t = g.clock
    for p in range(seats(g)):
        a = a0 if p == 0 else (a1 if p == 1 else (a2 if p == 2 else a3))
        if a != 0:
            if is_legal(g, cfg, p, a):
                commit(g, cfg, lat, p, a, t)
            else:
                g.illegal[p] += 1
    t_end = t + cfg[C.tick_ms]
    advance(g, cfg, t_end)
    g.clock = t_end
    if g.phase != OVER and t_end >= cfg[C.max_game_ms]:
        g.phase = OVER
        g.truncated = True
        g.flip_at = -1


@per_game(none, CFG, LAT, i64, i64)
def step_game(g: Any, cfg: Config, lat: np.ndarray, a0: int, a1: int) -> None:
    """One tick of a two-player game: both commits at the clock, then the events of the tick."""
    tick(g, cfg, lat, a0, a1, 0, 0)


@per_game(none, CFG, LAT, i64, i64, i64, i64)
def step_seats(g: Any, cfg: Config, lat: np.ndarray, a0: int, a1: int, a2: int, a3: int) -> None:
    """One tick of a game of any seat count (:func:`tick`)."""
    tick(g, cfg, lat, a0, a1, a2, a3)


@njit(cache=True)
def step_all(
    s: np.ndarray, cfg: Config, lat: np.ndarray, actions: np.ndarray, rewards: np.ndarray
) -> None:
    """Step every game of the batch with ``actions`` (seats, B); write rewards (seats, B) of the
    games that ended: +1 the winner, -1/(n-1) each other seat (so they sum to 0)."""
    for b in range(s.shape[0]):
        g = s[b]
        n = seats(g)
        was_over = g.phase == OVER
        if n == 2:  # known when this compiles: the two-seat kernel, as it always was
            step_game(g, cfg, lat[b], actions[0, b], actions[1, b])
        else:
            a3 = actions[3, b] if n > 3 else 0
            step_seats(g, cfg, lat[b], actions[0, b], actions[1, b], actions[2, b], a3)
        for p in range(n):
            rewards[p, b] = 0.0
        if not was_over and g.phase == OVER and 0 <= g.winner < n:
            for p in range(n):
                rewards[p, b] = 1.0 if p == g.winner else -1.0 / (n - 1)


@njit(cache=True)
def step_some(
    s: np.ndarray,
    cfg: Config,
    lat: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    ended: np.ndarray,
) -> None:
    """Step only games ``games[j]``, with ``actions`` (seats, len(games)); flag in ``ended[j]``
    those that ended on this tick."""
    for j in range(games.shape[0]):
        b = games[j]
        g = s[b]
        was_over = g.phase == OVER
        n = seats(g)
        if n == 2:  # known when this compiles: the two-seat kernel, as it always was
            step_game(g, cfg, lat[b], actions[0, j], actions[1, j])
        else:
            a3 = actions[3, j] if n > 3 else 0
            step_seats(g, cfg, lat[b], actions[0, j], actions[1, j], actions[2, j], a3)
        ended[j] = (not was_over) and g.phase == OVER


# ------------------------------------------------------------------------- dealing


@per_game(none, u64)
def clear_game(g: Any, seed: np.uint64) -> None:
    """Empty table, clock 0, statistics 0, with a new seed."""
    g.seed = seed
    g.clock = 0
    g.phase = PLAY
    g.flip_at = -1
    g.placed_at = 0
    g.winner = -1
    g.truncated = False
    g.hand[:] = -1
    g.stk[:] = -1
    g.stk_n[:] = 0
    g.draw[:] = -1
    g.draw_n[:] = 0
    g.side[:] = -1
    g.side_n[:] = 0
    g.centre[:] = -1
    g.centre_n[:] = 0
    g.top_owner[:] = -1
    for p in range(g.fl_kind.shape[0]):
        clear_flight(g, p)
    g.commits[:] = 0
    g.played[:] = 0
    g.bounced[:] = 0
    g.illegal[:] = 0
    g.flips = 0
    g.reshuffles = 0
    g.ties = 0
    g.rebuilds[:] = 0
    g.idle_rebuilds[:] = 0


@njit(cache=True)
def put_top_first(dst: np.ndarray, cards: np.ndarray, lo: int, hi: int) -> int:
    """Store ``cards[lo:hi]`` (listed top first) in a bottom-first pile array; return the count."""
    n = hi - lo
    for i in range(n):
        dst[i] = cards[hi - 1 - i]
    return n


@per_game(none, CFG, b1)
def start_game(g: Any, cfg: Config, opening_flip: bool) -> None:
    """After the deal: the ``japanese`` opening flip, then the stuck test at clock 0."""
    if opening_flip:
        for p in range(seats(g)):
            if g.draw_n[p] > 0:
                g.draw_n[p] -= 1
                push_centre(g, p, g.draw[p, g.draw_n[p]], p)
                g.draw[p, g.draw_n[p]] = -1
    stuck_test(g, cfg, 0)


_JAPANESE_SUITS = np.array([1, 0, 2, 3], np.int16)  # deal.JAPANESE_SUITS: H, S, D, C
_JAPANESE_JOKERS = np.array([52, 53, PILE + 52, PILE + 53], np.int16)  # the seat's own joker


@per_game(none, CFG, u64)
def deal_seeded(g: Any, cfg: Config, seed: np.uint64) -> None:
    """Deal the game from ``seed`` (layout in docs/rules.md) and start it."""
    clear_game(g, seed)
    hs = cfg[C.hand_size]
    if cfg[C.japanese] != 0:
        players = seats(g)
        for p in range(players):
            red = p % 2 == 0
            cards = np.empty(27, np.int16)
            n = 0
            if players == 2:  # one colour each
                for suit in (1, 2) if red else (0, 3):
                    for r in range(13):
                        cards[n] = suit * 13 + r
                        n += 1
            else:  # one suit of both decks each (deal.japanese_cards)
                for copy in range(2):
                    for r in range(13):
                        cards[n] = copy * PILE + _JAPANESE_SUITS[p] * 13 + r
                        n += 1
            if cfg[C.jokers] != 0:
                cards[n] = _JAPANESE_JOKERS[p]
                n += 1
            cards = np.sort(cards[:n])
            stream = rng.DEAL_RED if red else rng.DEAL_BLACK
            order = rng.shuffle_order(seed, stream, 64 * (p // 2), n)  # deal.japanese_stream
            shuffled = cards[order]
            for i in range(hs):
                g.hand[p, i] = shuffled[i]
            g.draw_n[p] = put_top_first(g.draw[p], shuffled, hs, n)
        start_game(g, cfg, True)
        return
    order = rng.shuffle_order(seed, rng.DEAL, 0, cfg[C.deck_size])
    n = seats(g)
    if n == 2:
        # The canonical deck is 0..51 (then 52, 53: the jokers), so deck[order] == order.
        d = order.astype(np.int16)
    else:
        # Two decks: ids 0 … 53 and 54 … 107, less the jokers (ids 52, 53 of each) without.
        deck = np.empty(cfg[C.deck_size], np.int16)
        m = 0
        for c in range(2 * PILE):
            if cfg[C.jokers] != 0 or c % PILE < 52:
                deck[m] = c
                m += 1
        d = deck[order]
    ds, ss = cfg[C.draw_size], cfg[C.side_size]
    # what the side piles cannot split evenly lies under the centre starts (docs/rules.md)
    under = cfg[C.deck_size] - n * (hs + ds + ss + 1)
    starts = n * (hs + ds + ss) + under  # cut order: hands, draws, sides, under, starts
    for p in range(n):
        for i in range(hs):
            g.hand[p, i] = d[p * hs + i]
        lo = n * hs + p * ds
        g.draw_n[p] = put_top_first(g.draw[p], d, lo, lo + ds)
        lo = n * (hs + ds) + p * ss
        g.side_n[p] = put_top_first(g.side[p], d, lo, lo + ss)
        if p < under:  # face up under the start card, out of play until a rebuild
            g.centre[p, 0] = d[n * (hs + ds + ss) + p]
            g.centre_n[p] = 1
        g.centre[p, g.centre_n[p]] = d[starts + p]
        g.centre_n[p] += 1
    start_game(g, cfg, False)


@njit(cache=True)
def deal_many(s: np.ndarray, cfg: Config, games: np.ndarray, seeds: np.ndarray) -> None:
    """Deal each game ``games[j]`` from ``seeds[j]``."""
    for j in range(games.shape[0]):
        deal_seeded(s[games[j]], cfg, seeds[j])


@njit(cache=True)
def clear_one(s: np.ndarray, b: int, seed: np.uint64) -> None:
    """:func:`clear_game` on game ``b`` of a batch (for explicit deals laid from Python)."""
    clear_game(s[b], seed)


@njit(cache=True)
def start_one(s: np.ndarray, cfg: Config, b: int, opening_flip: bool) -> None:
    """:func:`start_game` on game ``b`` of a batch."""
    start_game(s[b], cfg, opening_flip)
