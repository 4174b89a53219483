"""The batched rules engine of real-time Speed.

One implementation of the rules (``docs/rules.md``) as pure kernels over a
:class:`State` of fixed-shape numpy arrays with a leading batch axis. The
PettingZoo env is a batch of one over it; ``BatchEnv`` steps thousands.

The kernels are compiled with numba. Numpy pays about a microsecond per call
whatever the array size, which would make a batch of one (the PettingZoo env)
slow; compiled, a game-step costs well under a microsecond at any batch size.
Each kernel loops over the games it is given and runs the scalar rules of one
game, so every game in a batch follows exactly the same code.

Layout of the state (``B`` games, seats 0/1, ``H`` hand slots, piles of up to
54 cards stored bottom first with a count):

=============  ==============  ===================================================
array          shape           meaning
=============  ==============  ===================================================
seed           (B,) uint64     the game's seed (all its randomness derives from it)
clock          (B,) int64      ms; ``phase`` 0 play, 1 stuck, 2 over
flip_at        (B,) int64      time of the pending flip (phase stuck), else -1
placed_at      (B,) int64      time a card was last put on a centre pile (play or flip;
                               0 at the deal): the idle clock of ``idle_flip_ms``
winner         (B,) int8       -1 none, 0/1 the seat, 2 draw
hand           (B,2,H) int16   top card of each hand/layout slot, -1 empty/in flight
stk, stk_n     (B,2,H,3)       cards stacked under a layout slot (``stack_layout``)
draw, draw_n   (B,2,54)        draw pile / stock
side, side_n   (B,2,54)        side pile *k*, beside centre pile *k*
centre, ...n   (B,2,54)        the centre piles; ``top_owner`` who put each top there
fl_*           (B,2,…)         each seat's card(s) in flight: kind, cards, slots,
                               pile (target slot for a stack), landing time
=============  ==============  ===================================================
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import from_dtype, njit
from numba import types as nb_types

from speed_env import rng
from speed_env.reaction import latency_ms
from speed_env.rules import Rules

PILE = 54  # capacity of every pile array: the largest deck
STACK_DEPTH = 3

PLAY, STUCK, OVER = 0, 1, 2
NONE, DRAW = -1, 2
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


def state_dtype() -> np.dtype:
    """The record of one game; a batch is a structured array of these (see the module docstring).

    One record type for every preset: numba compiles each kernel once per type.
    """
    h = HAND_SLOTS
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
            ("hand", np.int16, (2, h)),
            ("stk", np.int16, (2, h, STACK_DEPTH)),
            ("stk_n", np.int8, (2, h)),
            ("draw", np.int16, (2, PILE)),
            ("draw_n", np.int16, (2,)),
            ("side", np.int16, (2, PILE)),
            ("side_n", np.int16, (2,)),
            ("centre", np.int16, (2, PILE)),
            ("centre_n", np.int16, (2,)),
            ("top_owner", np.int8, (2,)),
            ("fl_kind", np.int8, (2,)),
            ("fl_cards", np.int16, (2, 4)),
            ("fl_slots", np.int8, (2, 4)),
            ("fl_n", np.int8, (2,)),
            ("fl_pile", np.int8, (2,)),
            ("fl_land", np.int64, (2,)),
            ("commits", np.int64, (2,)),
            ("played", np.int32, (2,)),
            ("bounced", np.int32, (2,)),
            ("illegal", np.int32, (2,)),
            ("rebuilds", np.int32, (2,)),
            ("idle_rebuilds", np.int32, (2,)),
        ],
        align=True,
    )


# Explicit numba signatures for the per-game kernels: each compiles exactly once
# (lazily typed calls would compile a new version for every literal argument,
# e.g. seat 0 and seat 1, multiplying the first-run compile time).
GAME = from_dtype(state_dtype())
CFG = nb_types.UniTuple(nb_types.int64, N_CFG)
LAT = nb_types.float64[:, ::1]
MASK_ROW = nb_types.int8[::1]
i64, u64, b1, none = nb_types.int64, nb_types.uint64, nb_types.boolean, nb_types.none


def new_state(n: int) -> np.ndarray:
    """``n`` empty game records (deal them with :func:`deal_seeded` or ``table.deal_explicit``)."""
    return np.zeros(n, state_dtype())


def n_actions(rules: Rules) -> int:
    """Size of the action space: wait, rank × pile plays, then any variant moves."""
    r = rules.n_ranks
    return 1 + 2 * r + (r if rules.stack_layout else 0) + (2 * r if rules.multi_play else 0)


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


_RANK_OF = np.array([c % 13 for c in range(52)] + [13, 13], np.int64)


@njit(cache=True, inline="always")
def rank(card: int) -> int:
    """Rank index of a card id (jokers 13); a table look-up, cheaper than ``%``."""
    return _RANK_OF[card]


ALL_RANKS = (1 << 14) - 1


@njit(i64(GAME, CFG, i64, i64), cache=True)
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


@njit(b1(GAME, CFG, i64, i64, i64), cache=True)
def can_play(g: Any, cfg: Config, p: int, r: int, k: int) -> bool:
    """May seat ``p`` put a card of rank ``r`` on centre pile ``k`` now?"""
    return (pile_accepts(g, cfg, p, k) >> r) & 1 != 0


@njit(i64(GAME, CFG, i64), cache=True)
def hand_ranks(g: Any, cfg: Config, p: int) -> int:
    """Bit set of the ranks on top of seat ``p``'s slots."""
    once = 0
    for i in range(cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0:
            once |= 1 << rank(c)
    return once


@njit(i64(GAME, CFG, i64), cache=True)
def hand_pairs(g: Any, cfg: Config, p: int) -> int:
    """Bit set of the ranks (jokers aside) on top of at least two of seat ``p``'s slots."""
    once = 0
    twice = 0
    for i in range(cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0 and c < 52:
            bit = 1 << (c % 13)
            twice |= once & bit
            once |= bit
    return twice


@njit(b1(GAME, CFG, i64), cache=True)
def has_play(g: Any, cfg: Config, p: int) -> bool:
    """Does seat ``p`` hold an ordinary legal play (ignoring any card in flight)?"""
    once = hand_ranks(g, cfg, p)
    return once & (pile_accepts(g, cfg, p, 0) | pile_accepts(g, cfg, p, 1)) != 0


@njit(cache=True, inline="always")
def legal_bits(g: Any, cfg: Config, p: int) -> tuple[int, int, int, int, int]:
    """Seat ``p``'s legal moves now as rank bit sets: plays on pile 0, on pile 1, stacks,
    multi-plays on pile 0, on pile 1 (waiting is always legal). The one statement of
    legality: :func:`legal_row` spells it out as a mask, :func:`is_legal` reads one bit.
    """
    if g.phase == OVER or g.fl_kind[p] != K_NONE:
        return 0, 0, 0, 0, 0
    once = hand_ranks(g, cfg, p)
    if g.phase == STUCK:
        # play-out: a stockless player picks the card to put down at the flip (either pile)
        if cfg[C.play_out] != 0 and g.draw_n[p] == 0:
            return once, once, 0, 0, 0
        return 0, 0, 0, 0, 0
    acc0 = pile_accepts(g, cfg, p, 0)
    acc1 = pile_accepts(g, cfg, p, 1)
    twice = hand_pairs(g, cfg, p) if cfg[C.stack_layout] != 0 or cfg[C.multi_play] != 0 else 0
    stack = twice if cfg[C.stack_layout] != 0 and g.draw_n[p] > 0 else 0
    multi = twice if cfg[C.multi_play] != 0 else 0
    return once & acc0, once & acc1, stack, multi & acc0, multi & acc1


@njit(none(GAME, CFG, i64, MASK_ROW), cache=True)
def legal_row(g: Any, cfg: Config, p: int, out: np.ndarray) -> None:
    """Write seat ``p``'s action mask into ``out`` (int8, length n_actions)."""
    on0, on1, stack, multi0, multi1 = legal_bits(g, cfg, p)
    out[:] = 0
    out[0] = 1
    nr = cfg[C.n_ranks]
    for r in range(nr):
        out[1 + 2 * r] = (on0 >> r) & 1
        out[2 + 2 * r] = (on1 >> r) & 1
    base = 1 + 2 * nr
    if cfg[C.stack_layout] != 0:
        for r in range(13):
            out[base + r] = (stack >> r) & 1
        base += nr
    if cfg[C.multi_play] != 0:
        for r in range(13):
            out[base + 2 * r] = (multi0 >> r) & 1
            out[base + 2 * r + 1] = (multi1 >> r) & 1


@njit(b1(GAME, CFG, i64, i64), cache=True)
def is_legal(g: Any, cfg: Config, p: int, a: int) -> bool:
    """Is action ``a`` (already known to be in the action space) legal for seat ``p``?"""
    if a == 0:
        return True
    on0, on1, stack, multi0, multi1 = legal_bits(g, cfg, p)
    nr = cfg[C.n_ranks]
    base = 1 + 2 * nr
    if a < base:
        r = (a - 1) // 2
        return ((on0 if (a - 1) % 2 == 0 else on1) >> r) & 1 != 0
    if cfg[C.stack_layout] != 0:
        if a < base + nr:
            return (stack >> (a - base)) & 1 != 0
        base += nr
    m = a - base
    return ((multi0 if m % 2 == 0 else multi1) >> (m // 2)) & 1 != 0


@njit(i64(GAME, CFG, i64), cache=True)
def cards_left(g: Any, cfg: Config, p: int) -> int:
    """Cards seat ``p`` still has to get rid of: hand/layout (stacks too), in flight, draw pile."""
    n = g.draw_n[p] + g.fl_n[p]
    for i in range(cfg[C.hand_size]):
        if g.hand[p, i] >= 0:
            n += 1
        n += g.stk_n[p, i]
    return n


@njit(b1(GAME, CFG, i64), cache=True)
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


@njit(b1(GAME, i64, i64), cache=True)
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


@njit(none(GAME, i64), cache=True)
def clear_flight(g: Any, p: int) -> None:
    """Seat ``p`` has nothing in flight."""
    g.fl_kind[p] = K_NONE
    g.fl_n[p] = 0
    g.fl_cards[p, :] = -1
    g.fl_slots[p, :] = -1
    g.fl_pile[p] = -1
    g.fl_land[p] = NEVER


@njit(none(GAME, i64), cache=True)
def end_game(g: Any, winner: int) -> None:
    """The game is over: ``winner`` is a seat or ``DRAW``."""
    g.phase = OVER
    g.winner = winner
    g.flip_at = -1


@njit(none(GAME, CFG), cache=True)
def lock_game(g: Any, cfg: Config) -> None:
    """A locked table ends the game: fewer cards left wins, equal is a draw."""
    n0 = cards_left(g, cfg, 0)
    n1 = cards_left(g, cfg, 1)
    end_game(g, 0 if n0 < n1 else (1 if n1 < n0 else DRAW))


# -------------------------------------------------------------------------- commit


@njit(i64(GAME, CFG, i64, i64, i64), cache=True)
def leftmost(g: Any, cfg: Config, p: int, r: int, start: int) -> int:
    """Leftmost slot at or after ``start`` whose top card has rank ``r``, or -1."""
    for i in range(start, cfg[C.hand_size]):
        c = g.hand[p, i]
        if c >= 0 and rank(c) == r:
            return i
    return -1


@njit(none(GAME, CFG, LAT, i64, i64, i64), cache=True)
def commit(g: Any, cfg: Config, lat: np.ndarray, p: int, a: int, t: int) -> None:
    """Seat ``p`` commits legal action ``a`` (not a wait) at time ``t``: cards go in flight."""
    nr = cfg[C.n_ranks]
    base_stack = 1 + 2 * nr
    base_multi = base_stack + (nr if cfg[C.stack_layout] != 0 else 0)
    if a < base_stack:
        r = (a - 1) // 2
        i = leftmost(g, cfg, p, r, 0)
        g.fl_cards[p, 0] = g.hand[p, i]
        g.fl_slots[p, 0] = i
        g.hand[p, i] = -1
        g.fl_n[p] = 1
        g.fl_pile[p] = (a - 1) % 2
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
        r = m // 2
        n = 0
        for i in range(cfg[C.hand_size]):
            c = g.hand[p, i]
            if c >= 0 and rank(c) == r:
                g.fl_cards[p, n] = c
                g.fl_slots[p, n] = i
                g.hand[p, i] = -1
                n += 1
        g.fl_n[p] = n
        g.fl_pile[p] = m % 2
        g.fl_kind[p] = K_MULTI
    g.fl_land[p] = t + latency_ms(lat[p], g.seed, p, g.commits[p])
    g.commits[p] += 1


# ------------------------------------------------------------------------- landing


@njit(none(GAME, CFG, i64, i64), cache=True)
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


@njit(none(GAME, i64), cache=True)
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


@njit(none(GAME, CFG), cache=True)
def flip_side_piles(g: Any, cfg: Config) -> None:
    """``us``/``pagat`` flip: rebuild or lock when the side piles run out, then flip."""
    if cfg[C.lock] != 0:
        if g.side_n[0] == 0 and g.side_n[1] == 0:
            lock_game(g, cfg)
            return
    else:
        # Both side piles already rebuilt since the last card was placed, and one needs
        # it again: every card has cycled with no play, and would for ever.
        for k in range(2):
            if g.side_n[k] == 0 and g.idle_rebuilds[k] > 0 and g.idle_rebuilds[1 - k] > 0:
                lock_game(g, cfg)
                return
        for k in range(2):
            if g.side_n[k] == 0:
                rebuild(g, k)
    flipped = False
    for k in range(2):
        if g.side_n[k] > 0:
            g.side_n[k] -= 1
            push_centre(g, k, g.side[k, g.side_n[k]], -1)
            g.side[k, g.side_n[k]] = -1
            flipped = True
    if not flipped:
        lock_game(g, cfg)


@njit(i64(GAME, CFG, i64), cache=True)
def leftmost_card(g: Any, cfg: Config, p: int) -> int:
    """Leftmost slot of seat ``p`` holding a card, or -1."""
    for i in range(cfg[C.hand_size]):
        if g.hand[p, i] >= 0:
            return i
    return -1


@njit(none(GAME, CFG), cache=True)
def flip_stocks(g: Any, cfg: Config) -> None:
    """``japanese`` flip: each stock's top onto its owner's pile (or a layout card in play-out)."""
    emptied = np.zeros(2, np.bool_)
    for p in range(2):
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
    if cfg[C.play_out] == 0:
        won0, won1 = emptied[0], emptied[1]
    else:
        won0 = g.draw_n[0] == 0 and layout_empty(g, cfg, 0)
        won1 = g.draw_n[1] == 0 and layout_empty(g, cfg, 1)
    if won0 and won1:
        end_game(g, DRAW)
    elif won0:
        end_game(g, 0)
    elif won1:
        end_game(g, 1)


@njit(none(GAME, CFG), cache=True)
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


@njit(b1(GAME), cache=True)
def flying(g: Any) -> bool:
    """Is an ordinary card in flight (a play-out flip choice does not count)?"""
    return (g.fl_kind[0] != K_NONE and g.fl_kind[0] != K_FLIP) or (
        g.fl_kind[1] != K_NONE and g.fl_kind[1] != K_FLIP
    )


@njit(i64(GAME, CFG), cache=True)
def idle_due(g: Any, cfg: Config) -> int:
    """When the idle period runs out, if it can now (phase play, nothing in flight), else NEVER."""
    if cfg[C.idle_flip_ms] == 0 or g.phase != PLAY or flying(g):
        return int(NEVER)
    return g.placed_at + cfg[C.idle_flip_ms]


@njit(none(GAME, CFG, i64), cache=True)
def stuck_test(g: Any, cfg: Config, e: int) -> None:
    """After an event at time ``e``: start the countdown if nobody can play, or nobody has
    put a card on a centre pile for ``idle_flip_ms``."""
    if g.phase == OVER:
        return
    stuck = not flying(g) and (
        (cfg[C.idle_flip_ms] != 0 and e >= g.placed_at + cfg[C.idle_flip_ms])
        or (not has_play(g, cfg, 0) and not has_play(g, cfg, 1))
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


@njit(none(GAME, CFG, i64), cache=True)
def advance(g: Any, cfg: Config, t_end: int) -> None:
    """Resolve every landing and flip due at or before ``t_end``, in time order."""
    while g.phase != OVER:
        e0 = landing_time(g, 0)
        e1 = landing_time(g, 1)
        ef = g.flip_at if g.phase == STUCK else NEVER
        ei = idle_due(g, cfg)  # never at the time of a landing: it waits for every flight
        e = int(min(e0, e1, ef, ei))
        if e > t_end:
            return
        if e0 == e and e1 == e:
            first = 0 if rng.uniform(g.seed, rng.TIE, g.ties) < 0.5 else 1
            g.ties += 1
            land(g, cfg, first, e)
            stuck_test(g, cfg, e)
            if g.phase != OVER:
                land(g, cfg, 1 - first, e)
        elif e0 == e:
            land(g, cfg, 0, e)
        elif e1 == e:
            land(g, cfg, 1, e)
        elif ef == e:
            flip(g, cfg)
        # else the idle period ran out at e: the stuck test below starts the countdown
        stuck_test(g, cfg, e)


@njit(i64(GAME, CFG), cache=True)
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
    due = min(
        landing_time(g, 0),
        landing_time(g, 1),
        g.flip_at if g.phase == STUCK else NEVER,
        np.int64(idle_due(g, cfg)),
        np.int64(cfg[C.max_game_ms]),
    )
    # Tick m (from 0) is quiet while its end, clock + (m + 1) * tick, comes before ``due``.
    return max(0, (due - g.clock - 1) // cfg[C.tick_ms])


@njit(none(GAME, CFG, LAT, i64, i64), cache=True)
def step_game(g: Any, cfg: Config, lat: np.ndarray, a0: int, a1: int) -> None:
    """One tick of game ``b``: both commits at the clock, then the events of the tick."""
    if g.phase == OVER:
        return
    t = g.clock
    for p in range(2):
        a = a0 if p == 0 else a1
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


@njit(cache=True)
def step_all(
    s: np.ndarray, cfg: Config, lat: np.ndarray, actions: np.ndarray, rewards: np.ndarray
) -> None:
    """Step every game of the batch with ``actions`` (2, B); write rewards (2, B) of ended games."""
    for b in range(s.shape[0]):
        g = s[b]
        was_over = g.phase == OVER
        step_game(g, cfg, lat[b], actions[0, b], actions[1, b])
        rewards[0, b] = 0.0
        rewards[1, b] = 0.0
        if not was_over and g.phase == OVER and g.winner >= 0 and g.winner != DRAW:
            w = g.winner
            rewards[w, b] = 1.0
            rewards[1 - w, b] = -1.0


@njit(cache=True)
def step_some(
    s: np.ndarray,
    cfg: Config,
    lat: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    ended: np.ndarray,
) -> None:
    """Step only games ``games[j]``, with ``actions`` (2, len(games)); flag in ``ended[j]`` those
    that ended on this tick."""
    for j in range(games.shape[0]):
        b = games[j]
        g = s[b]
        was_over = g.phase == OVER
        step_game(g, cfg, lat[b], actions[0, j], actions[1, j])
        ended[j] = (not was_over) and g.phase == OVER


# ------------------------------------------------------------------------- dealing


@njit(none(GAME, u64), cache=True)
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
    for p in range(2):
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


@njit(none(GAME, CFG, b1), cache=True)
def start_game(g: Any, cfg: Config, opening_flip: bool) -> None:
    """After the deal: the ``japanese`` opening flip, then the stuck test at clock 0."""
    if opening_flip:
        for p in range(2):
            if g.draw_n[p] > 0:
                g.draw_n[p] -= 1
                push_centre(g, p, g.draw[p, g.draw_n[p]], p)
                g.draw[p, g.draw_n[p]] = -1
    stuck_test(g, cfg, 0)


@njit(none(GAME, CFG, u64), cache=True)
def deal_seeded(g: Any, cfg: Config, seed: np.uint64) -> None:
    """Deal the game from ``seed`` (layout in docs/rules.md) and start it."""
    clear_game(g, seed)
    hs = cfg[C.hand_size]
    if cfg[C.japanese] != 0:
        for p in range(2):
            red = p == 0
            cards = np.empty(27, np.int16)
            n = 0
            for suit in (1, 2) if red else (0, 3):
                for r in range(13):
                    cards[n] = suit * 13 + r
                    n += 1
            if cfg[C.jokers] != 0:
                cards[n] = 52 if red else 53
                n += 1
            cards = np.sort(cards[:n])
            order = rng.shuffle_order(seed, rng.DEAL_RED if red else rng.DEAL_BLACK, 0, n)
            shuffled = cards[order]
            for i in range(hs):
                g.hand[p, i] = shuffled[i]
            g.draw_n[p] = put_top_first(g.draw[p], shuffled, hs, n)
        start_game(g, cfg, True)
        return
    order = rng.shuffle_order(seed, rng.DEAL, 0, cfg[C.deck_size])
    # The canonical deck is 0..51 (then 52, 53: the jokers), so deck[order] == order.
    d = order.astype(np.int16)
    ds, ss = cfg[C.draw_size], cfg[C.side_size]
    for p in range(2):
        for i in range(hs):
            g.hand[p, i] = d[p * hs + i]
        lo = 2 * hs + p * ds
        g.draw_n[p] = put_top_first(g.draw[p], d, lo, lo + ds)
        lo = 2 * hs + 2 * ds + p * ss
        g.side_n[p] = put_top_first(g.side[p], d, lo, lo + ss)
        g.centre[p, 0] = d[2 * hs + 2 * ds + 2 * ss + p]
        g.centre_n[p] = 1
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
