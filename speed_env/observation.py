"""The ego-centric observation vector and its published layout.

Every entry lies in [0, 1] (float32). "Me" is the acting seat, "opp" the
other; centre piles keep their absolute indices 0 and 1, as actions do.
``R`` is the number of ranks (13, or 14 with jokers: index 13). The layout is
published as named slices (:func:`observation_layout`) so a heuristic can
read it without private state; the table below is for ``R = 13`` (obs_dim 193;
205 with jokers):

==================  ======  ==========================================================
name                size    meaning
==================  ======  ==========================================================
hand                R       my playable hand/layout cards (slot tops) per rank, / 4
stacked             R       my cards stacked under layout tops per rank, / 4
centre_top          2R      one-hot rank of the top of pile 0, then pile 1
centre_joker        4       a joker on top of pile 0 is mine / theirs; same for pile 1
centre_size         2       cards in each centre pile / deck size
my_flight           R+3     my card in flight: rank one-hot, pile one-hot, ms to land / 1000
opp_flight          R+3     the opponent's card in flight (public: it is in the air)
opp_layout          R       the opponent's face-up layout per rank / 4 (``japanese``; else 0)
my_cards            3       my hand size / H, draw pile / 27, cards left / 27
opp_cards           3       the same for the opponent (counts only: their hand is hidden)
side_piles          2       cards in side pile 0 and 1 / deck size
unknown             R       cards per rank whose place is hidden from me / 4
phase               2       1 while stuck; countdown left / stuck_countdown_ms
seat                1       my seat (0 or 1): my own pile in ``japanese`` flips
clock               1       clock / max_game_ms
rules               10      which rules the game is played under: one-hot preset
                            ``us``, ``pagat``, ``japanese``, then 1 for each of
                            ``wrap``, ``same_rank``, ``jokers``, ``play_out``,
                            ``stack_layout``, ``multi_play`` and ``reserve_rule = "lock"``
                            (:data:`RULES_TAG` names the entries)
my_colour_unseen    R       ``japanese``: my own cards per rank in my face-down stock / 4
opp_stacked         R       ``japanese``: the opponent's cards stacked under layout tops / 4
side_known          2R      side pile 0, then 1, per rank / 4, once rebuilt from the centre
idle_rebuilds       2       side pile 0 / 1 rebuilt since a card was last placed (1 or 0)
since_placed        1       ms since a card was last put on a centre pile / ``idle_flip_ms``
                            (at most 1; 0 with idle flips off)
==================  ======  ==========================================================

``rules`` lets one bot or network play any preset from the observation alone,
and lets one built for other rules refuse it instead of misreading it (the
three presets share one length). It was appended at the end, so every earlier
slice kept its offset; code should find fields by name
(:func:`observation_layout`, :func:`layout_for_dim`), never by offset, since
later fields are appended after it.

The five fields after ``rules`` hold what a player could know from open play
and a world sampler needs (``speed_env.worlds``): which unseen cards are my
own colour in ``japanese`` (the colours split the deck, so the rest of
``unknown`` is the opponent's stock), which of the opponent's face-up cards
are stacked (``opp_layout`` counts tops and stacks together), the cards of a
side pile rebuilt from a centre pile (all seen landing, in unknown order),
whether the lock rule is armed, and how long the idle clock has run.
``unknown`` still counts a rebuilt side pile's cards, as before; subtract
``side_known`` for the cards nobody saw.

``unknown`` counts every card I cannot see now: the deck minus my hand,
stacks and flight, every centre card (all were seen landing), the cards in
flight and the opponent's face-up layout. It is what a player could infer
from the open cards, and it does not change when hidden cards are permuted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba import types as nb_types

from speed_env.engine import (
    CFG,
    GAME,
    K_NONE,
    K_STACK,
    STUCK,
    C,
    Config,
    legal_row,
    rank,
)
from speed_env.rules import PRESETS, Rules

OBS = nb_types.float32[:, :, ::1]
i64, none = nb_types.int64, nb_types.none

_FIELDS = (
    ("hand", "R"),
    ("stacked", "R"),
    ("centre_top", "2R"),
    ("centre_joker", 4),
    ("centre_size", 2),
    ("my_flight", "R+3"),
    ("opp_flight", "R+3"),
    ("opp_layout", "R"),
    ("my_cards", 3),
    ("opp_cards", 3),
    ("side_piles", 2),
    ("unknown", "R"),
    ("phase", 2),
    ("seat", 1),
    ("clock", 1),
    ("rules", "TAG"),
    ("my_colour_unseen", "R"),
    ("opp_stacked", "R"),
    ("side_known", "2R"),
    ("idle_rebuilds", 2),
    ("since_placed", 1),
)
RULES_TAG = (
    *PRESETS,
    "wrap",
    "same_rank",
    "jokers",
    "play_out",
    "stack_layout",
    "multi_play",
    "lock",
)
"""Names of the entries of the observation's ``rules`` field, in order: the preset
one-hot, then the rule flags (``lock``: ``reserve_rule == "lock"``)."""


def _size(spec: int | str, r: int) -> int:
    sizes = {"R": r, "2R": 2 * r, "R+3": r + 3, "TAG": len(RULES_TAG)}
    return spec if isinstance(spec, int) else sizes[spec]


def _layout(n_ranks: int) -> dict[str, slice]:
    out, at = {}, 0
    for name, spec in _FIELDS:
        n = _size(spec, n_ranks)
        out[name] = slice(at, at + n)
        at += n
    return out


def observation_layout(rules: Rules) -> dict[str, slice]:
    """Named slices of the observation vector for ``rules`` (see the module docstring).

    >>> from speed_env import make_rules
    >>> layout = observation_layout(make_rules("us"))
    >>> layout["hand"], layout["rules"]
    (slice(0, 13, None), slice(128, 138, None))
    """
    return _layout(rules.n_ranks)


def obs_dim(rules: Rules) -> int:
    """Length of the observation vector for ``rules``."""
    return _layout(rules.n_ranks)[_FIELDS[-1][0]].stop


def layout_for_dim(dim: int) -> dict[str, slice]:
    """The layout of an observation of ``dim`` floats, whatever its rules (the length tells
    the number of ranks); read its ``rules`` field to learn the rest. ``ValueError`` when no
    rules of this version of ``speed_env`` give that length."""
    for n_ranks in (13, 14):
        lay = _layout(n_ranks)
        if max(s.stop for s in lay.values()) == dim:
            return lay
    sizes = " or ".join(str(max(s.stop for s in _layout(r).values())) for r in (13, 14))
    raise ValueError(
        f"an observation of {dim} floats is not one of this speed_env ({sizes} floats)"
    )


def rules_tag(rules: Rules) -> np.ndarray:
    """The ``rules`` field of every observation of a game under ``rules`` (float32,
    :data:`RULES_TAG`)."""
    options = ("wrap", "same_rank", "jokers", "play_out", "stack_layout", "multi_play")
    flags = {p: rules.preset == p for p in PRESETS} | {o: getattr(rules, o) for o in options}
    flags["lock"] = rules.reserve_rule == "lock"
    return np.array([flags[name] for name in RULES_TAG], np.float32)


def tag_label(tag: np.ndarray) -> str:
    """A ``rules`` field as words: the preset, then each flag that differs from the preset's
    default (``japanese (jokers)``, ``us (no wrap)``)."""
    on = np.asarray(tag) > 0.5
    presets = [p for p in PRESETS if on[RULES_TAG.index(p)]]
    if len(presets) != 1:
        return f"unknown rules (tag {np.asarray(tag).tolist()})"
    default = rules_tag(Rules(preset=presets[0])) > 0.5
    diff = [
        name if on[j] else f"no {name}" for j, name in enumerate(RULES_TAG) if on[j] != default[j]
    ]
    return presets[0] + (f" ({', '.join(diff)})" if diff else "")


# --------------------------------------------------------------------------- kernels


def _starts(n_ranks: int) -> tuple[int, ...]:
    """Where each field of ``_FIELDS`` starts for ``R = n_ranks``, in the table's order."""
    return tuple(s.start for s in _layout(n_ranks).values())


# numba cannot read the layout dict, so the kernels get the starts as constant tuples,
# computed here from the same table for both numbers of ranks there are (13, 14 with jokers).
_STARTS_13, _STARTS_14 = _starts(13), _starts(14)


@njit(cache=True, inline="always")
def field_starts(nr: int) -> tuple[int, ...]:
    """Where each field of ``_FIELDS`` starts, for ``R = nr`` (13 or 14), as
    :func:`observation_layout` says."""
    return _STARTS_14 if nr == 14 else _STARTS_13


# Per-rank card counts are kept packed in one int64, four bits a rank (ranks
# 0-13: 56 bits): a count never exceeds the four cards of a rank, and adding
# ``_RANK_UNIT[card]`` counts a card in a register, with no memory round trip.
_RANK_UNIT = np.array([1 << (4 * (c % 13)) for c in range(52)] + [1 << 52, 1 << 52], np.int64)
_FULL_DECK = sum(4 << (4 * r) for r in range(13))  # four of each rank; jokers added per rules
_JOKERS = 2 << 52


@njit(cache=True, inline="always")
def _count(packed: int, r: int) -> int:
    return (packed >> (4 * r)) & 15


_US_SIDE = Rules(preset="us").side_size  # the deals differ by side piles: us 5 cards each, pagat 10


@njit(cache=True, inline="always")
def _rules_tag(cfg: Config, obs: np.ndarray, q: int, b: int, at: int) -> None:
    """The ``rules`` field (RULES_TAG's order) of row ``obs[q, b]``, from the kernels' config."""
    if cfg[C.japanese] != 0:
        obs[q, b, at + 2] = 1.0
    elif cfg[C.side_size] == _US_SIDE:
        obs[q, b, at] = 1.0
    else:
        obs[q, b, at + 1] = 1.0
    obs[q, b, at + 3] = cfg[C.wrap] != 0
    obs[q, b, at + 4] = cfg[C.same_rank] != 0
    obs[q, b, at + 5] = cfg[C.jokers] != 0
    obs[q, b, at + 6] = cfg[C.play_out] != 0
    obs[q, b, at + 7] = cfg[C.stack_layout] != 0
    obs[q, b, at + 8] = cfg[C.multi_play] != 0
    obs[q, b, at + 9] = cfg[C.lock] != 0


@njit(cache=True, inline="always")
def _flight(
    obs: np.ndarray, q: int, b: int, at: int, nr: int, r: int, pile: int, land: float
) -> None:
    """A card in flight at ``at`` of row ``obs[q, b]``.

    Rank one-hot, pile one-hot (-1: none), time to land.
    """
    obs[q, b, at + r] = 1.0
    if pile >= 0:
        obs[q, b, at + nr + pile] = 1.0
    obs[q, b, at + nr + 2] = land


@njit(cache=True, inline="always")
def _since_placed(g: Any, cfg: Config) -> float:
    """The idle clock as a fraction of ``idle_flip_ms``; past 1 the idle flip is due (it
    waits only for cards in flight), so the cap loses nothing."""
    idle = cfg[C.idle_flip_ms]
    return 0.0 if idle == 0 else min(1.0, max(0.0, (g.clock - g.placed_at) / idle))


@njit(none(GAME, CFG, OBS, i64), cache=True)
def observe_game(g: Any, cfg: Config, obs: np.ndarray, b: int) -> None:
    """Both seats' observations of one game into rows ``obs[0, b]`` and ``obs[1, b]``.

    Every entry of both rows is written (they may come from ``np.empty``). Each
    fact is read from the record once and written to both rows: what is
    "mine" in one is "the opponent's" in the other. Per-rank counts are
    summed in registers (``_RANK_UNIT``) and each entry is written once. Rows
    are addressed by index, never bound to array variables, and the record's
    fields are bound once: both keep numba from reference-counting views
    inside the loops, which cost more than the writes themselves.
    """
    nr = cfg[C.n_ranks]
    hs = cfg[C.hand_size]
    deck = float(cfg[C.deck_size])
    jap = cfg[C.japanese] != 0
    t = g.clock
    hand, stk, stk_n = g.hand, g.stk, g.stk_n
    centre, centre_n, top_owner = g.centre, g.centre_n, g.top_owner
    fl_kind, fl_cards, fl_n, fl_pile, fl_land = g.fl_kind, g.fl_cards, g.fl_n, g.fl_pile, g.fl_land
    draw_n, side_n = g.draw_n, g.side_n
    (
        _,
        at_stacked,
        at_top,
        at_joker,
        at_size,
        at_my_fl,
        at_opp_fl,
        at_layout,
        at_cards,
        _,
        at_side,
        u,
        at_phase,
        at_seat,
        at_clock,
        at_rules,
        at_mine,
        at_opp_stk,
        at_known,
        at_idle,
        at_since,
    ) = field_starts(nr)
    for q in range(2):
        for j in range(obs.shape[2]):
            obs[q, b, j] = 0.0
    # Cards everyone has seen: the centre piles and the cards in the air.
    seen = 0
    for k in range(2):
        for j in range(centre_n[k]):
            seen += _RANK_UNIT[centre[k, j]]
    for q in range(2):
        for j in range(fl_n[q]):
            seen += _RANK_UNIT[fl_cards[q, j]]
    tops = (0, 0)
    stacks = (0, 0)
    for q in range(2):
        o = 1 - q
        top = 0  # this seat's slot tops, per rank
        under = 0  # its stacked cards, per rank
        in_hand = 0
        stacked = 0
        for i in range(hs):
            c = hand[q, i]
            if c >= 0:
                in_hand += 1
                top += _RANK_UNIT[c]
            for j in range(stk_n[q, i]):
                stacked += 1
                under += _RANK_UNIT[stk[q, i, j]]
        if q == 0:
            tops = (top, tops[1])
            stacks = (under, stacks[1])
        else:
            tops = (tops[0], top)
            stacks = (stacks[0], under)
        left = in_hand + stacked + draw_n[q] + fl_n[q]
        held = in_hand / hs
        drawn = min(1.0, draw_n[q] / 27.0)
        togo = min(1.0, left / 27.0)
        obs[q, b, at_cards] = held  # my_cards in my row, opp_cards in theirs
        obs[q, b, at_cards + 1] = drawn
        obs[q, b, at_cards + 2] = togo
        obs[o, b, at_cards + 3] = held
        obs[o, b, at_cards + 4] = drawn
        obs[o, b, at_cards + 5] = togo
        kind = fl_kind[q]
        if kind != K_NONE:
            r = rank(fl_cards[q, 0])
            pile = -1 if kind == K_STACK else int(fl_pile[q])
            land = min(1.0, max(0.0, (fl_land[q] - t) / 1000.0))
            _flight(obs, q, b, at_my_fl, nr, r, pile, land)
            _flight(obs, o, b, at_opp_fl, nr, r, pile, land)
    deck_left = _FULL_DECK + (_JOKERS if nr == 14 else 0)
    for q in range(2):
        o = 1 - q
        # ``unknown``: the deck less what this seat can see (its own cards, the
        # seen ones, and in ``japanese`` the opponent's face-up layout).
        hidden = deck_left - seen - tops[q] - stacks[q]
        layout = tops[o] + stacks[o] if jap else 0
        hidden -= layout
        for r in range(nr):
            obs[q, b, r] = 0.25 * _count(tops[q], r)
            obs[q, b, at_stacked + r] = 0.25 * _count(stacks[q], r)
            obs[q, b, at_layout + r] = 0.25 * _count(layout, r)
            obs[q, b, u + r] = _count(hidden, r) / 4.0
            if jap:
                obs[q, b, at_opp_stk + r] = 0.25 * _count(stacks[o], r)
        if jap:  # my own stock: its cards are my colour, which everyone can tell
            mine = 0
            for j in range(draw_n[q]):
                mine += _RANK_UNIT[g.draw[q, j]]
            for r in range(nr):
                obs[q, b, at_mine + r] = 0.25 * _count(mine, r)
    for k in range(2):
        n = centre_n[k]
        size = n / deck
        side = side_n[k] / deck
        top = rank(centre[k, n - 1]) if n > 0 else -1
        owner = top_owner[k]
        for q in range(2):
            if top >= 0:
                obs[q, b, at_top + k * nr + top] = 1.0
                if top == 13 and owner >= 0:  # whose joker: mine, then theirs
                    obs[q, b, at_joker + 2 * k + (0 if owner == q else 1)] = 1.0
            obs[q, b, at_size + k] = size
            obs[q, b, at_side + k] = side
    stuck = g.phase == STUCK
    cd = cfg[C.countdown_ms]
    left_ms = 0.0 if not stuck or cd <= 0 else min(1.0, max(0.0, (g.flip_at - t) / cd))
    clock = min(1.0, t / cfg[C.max_game_ms])
    for q in range(2):
        if stuck:
            obs[q, b, at_phase] = 1.0
            obs[q, b, at_phase + 1] = left_ms
        obs[q, b, at_seat] = float(q)
        obs[q, b, at_clock] = clock
        _rules_tag(cfg, obs, q, b, at_rules)
    for k in range(2):
        if g.rebuilds[k] > 0:  # a rebuilt side pile holds only cards that were in the centre
            known = 0
            for j in range(side_n[k]):
                known += _RANK_UNIT[g.side[k, j]]
            for r in range(nr):
                obs[0, b, at_known + k * nr + r] = 0.25 * _count(known, r)
                obs[1, b, at_known + k * nr + r] = 0.25 * _count(known, r)
        armed = 1.0 if g.idle_rebuilds[k] > 0 else 0.0
        obs[0, b, at_idle + k] = armed
        obs[1, b, at_idle + k] = armed
    since = _since_placed(g, cfg)
    obs[0, b, at_since] = since
    obs[1, b, at_since] = since


@njit(none(GAME, CFG, OBS, i64), cache=True)
def observe_clock(g: Any, cfg: Config, obs: np.ndarray, b: int) -> None:
    """Rewrite only the entries of rows ``obs[:, b]`` that move with the clock alone.

    They are the time to land of each card in the air, the stuck countdown,
    the clock and the idle clock (the only entries :func:`observe_game` computes from
    ``g.clock``). Everything else changes only when something happens (a
    commit, a landing, a flip, a change of phase), and then the caller
    rewrites the rows with :func:`observe_game`; a test checks the two ways
    agree on every step of many games.
    """
    nr = cfg[C.n_ranks]
    (
        _,
        _,
        _,
        _,
        _,
        at_my_fl,
        at_opp_fl,
        _,
        _,
        _,
        _,
        _,
        at_phase,
        _,
        at_clock,
        _,
        _,
        _,
        _,
        _,
        at_since,
    ) = field_starts(nr)
    t = g.clock
    for q in range(2):
        if g.fl_kind[q] != K_NONE:
            land = min(1.0, max(0.0, (g.fl_land[q] - t) / 1000.0))
            obs[q, b, at_my_fl + nr + 2] = land
            obs[1 - q, b, at_opp_fl + nr + 2] = land
    if g.phase == STUCK:
        cd = cfg[C.countdown_ms]
        left_ms = 0.0 if cd <= 0 else min(1.0, max(0.0, (g.flip_at - t) / cd))
        obs[0, b, at_phase + 1] = left_ms
        obs[1, b, at_phase + 1] = left_ms
    clock = min(1.0, t / cfg[C.max_game_ms])
    obs[0, b, at_clock] = clock
    obs[1, b, at_clock] = clock
    since = _since_placed(g, cfg)
    obs[0, b, at_since] = since
    obs[1, b, at_since] = since


@njit(cache=True)
def observe_all(s: np.ndarray, cfg: Config, obs: np.ndarray, mask: np.ndarray) -> None:
    """Fill ``obs`` (2, B, obs_dim) and ``mask`` (2, B, n_actions) for every game."""
    for b in range(s.shape[0]):
        observe_game(s[b], cfg, obs, b)
        legal_row(s[b], cfg, 0, mask[0, b])
        legal_row(s[b], cfg, 1, mask[1, b])


@njit(cache=True)
def observe_games(
    s: np.ndarray, cfg: Config, games: np.ndarray, obs: np.ndarray, mask: np.ndarray
) -> None:
    """Refill the rows of ``obs`` and ``mask`` for the listed games only."""
    for j in range(games.shape[0]):
        b = games[j]
        observe_game(s[b], cfg, obs, b)
        legal_row(s[b], cfg, 0, mask[0, b])
        legal_row(s[b], cfg, 1, mask[1, b])
