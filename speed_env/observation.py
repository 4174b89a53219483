"""The ego-centric observation vector and its published layout.

Every entry lies in [0, 1] (float32). "Me" is the acting seat, "opp" the
other; centre piles keep their absolute indices 0 and 1, as actions do.
``R`` is the number of ranks (13, or 14 with jokers: index 13). The layout is
published as named slices (:func:`observation_layout`) so a heuristic can
read it without private state; the table below is for ``R = 13`` (obs_dim 138;
146 with jokers):

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
==================  ======  ==========================================================

``rules`` lets one bot or network play any preset from the observation alone,
and lets one built for other rules refuse it instead of misreading it (the
three presets share one length). It comes last, so every earlier slice kept
its offset when it was added; code should find fields by name
(:func:`observation_layout`, :func:`layout_for_dim`), never by offset, since
later fields are appended after it.

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
    C_COUNTDOWN,
    C_DECK,
    C_HAND,
    C_JAP,
    C_JOKERS,
    C_LOCK,
    C_MAXMS,
    C_MULTI,
    C_NRANKS,
    C_PLAYOUT,
    C_SAME,
    C_SIDE,
    C_STACK,
    C_WRAP,
    CFG,
    GAME,
    K_NONE,
    K_STACK,
    STUCK,
    Config,
    legal_row,
    rank,
)
from speed_env.rules import PRESETS, Rules

OBS_ROW = nb_types.float32[::1]
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
)
RULES_TAG = (*PRESETS, "wrap", "same_rank", "jokers", "play_out", "stack_layout",
             "multi_play", "lock")
"""Names of the entries of the observation's ``rules`` field, in order: the preset
one-hot, then the rule flags (``lock``: ``reserve_rule == "lock"``)."""


def _size(spec: int | str, r: int) -> int:
    if isinstance(spec, int):
        return spec
    return {"R": r, "2R": 2 * r, "R+3": r + 3, "TAG": len(RULES_TAG)}[spec]


def _layout(n_ranks: int) -> dict[str, slice]:
    out, at = {}, 0
    for name, spec in _FIELDS:
        n = _size(spec, n_ranks)
        out[name] = slice(at, at + n)
        at += n
    return out


def observation_layout(rules: Rules) -> dict[str, slice]:
    """Named slices of the observation vector for ``rules`` (see the module docstring)."""
    return _layout(rules.n_ranks)


def obs_dim(rules: Rules) -> int:
    """Length of the observation vector for ``rules``."""
    return sum(_size(spec, rules.n_ranks) for _, spec in _FIELDS)


def layout_for_dim(dim: int) -> dict[str, slice]:
    """The layout of an observation of ``dim`` floats, whatever its rules (the length tells
    the number of ranks); read its ``rules`` field to learn the rest. ``ValueError`` when no
    rules of this version of ``speed_env`` give that length."""
    for n_ranks in (13, 14):
        lay = _layout(n_ranks)
        if max(s.stop for s in lay.values()) == dim:
            return lay
    sizes = " or ".join(str(max(s.stop for s in _layout(r).values())) for r in (13, 14))
    raise ValueError(f"an observation of {dim} floats is not one of this speed_env ({sizes} floats)")


def rules_tag(rules: Rules) -> np.ndarray:
    """The ``rules`` field of every observation of a game under ``rules`` (float32, :data:`RULES_TAG`)."""
    flags = {**{p: rules.preset == p for p in PRESETS},
             "wrap": rules.wrap, "same_rank": rules.same_rank, "jokers": rules.jokers,
             "play_out": rules.play_out, "stack_layout": rules.stack_layout,
             "multi_play": rules.multi_play, "lock": rules.reserve_rule == "lock"}
    return np.array([flags[name] for name in RULES_TAG], np.float32)


def tag_label(tag: np.ndarray) -> str:
    """A ``rules`` field as words: the preset, then each flag that differs from the preset's
    default (``japanese (jokers)``, ``us (no wrap)``)."""
    on = np.asarray(tag) > 0.5
    presets = [p for p in PRESETS if on[RULES_TAG.index(p)]]
    if len(presets) != 1:
        return f"unknown rules (tag {np.asarray(tag).tolist()})"
    default = rules_tag(Rules(preset=presets[0])) > 0.5
    diff = [name if on[j] else f"no {name}" for j, name in enumerate(RULES_TAG) if on[j] != default[j]]
    return presets[0] + (f" ({', '.join(diff)})" if diff else "")


@njit(i64(GAME, i64, i64, i64, OBS_ROW, i64), cache=True)
def _flight(g: Any, p: int, t: int, nr: int, out: np.ndarray, at: int) -> int:
    if g.fl_kind[p] != K_NONE:
        out[at + rank(g.fl_cards[p, 0])] = 1.0
        if g.fl_kind[p] != K_STACK:
            out[at + nr + g.fl_pile[p]] = 1.0
        out[at + nr + 2] = min(1.0, max(0.0, (g.fl_land[p] - t) / 1000.0))
    return at + nr + 3


@njit(i64(i64), cache=True)
def _unknown_offset(nr: int) -> int:
    return 2 * nr + 2 * nr + 6 + 2 * (nr + 3) + nr + 6 + 2


@njit(none(GAME, CFG, OBS_ROW), cache=True)
def _public_unknown(g: Any, cfg: Config, out: np.ndarray) -> None:
    """Counts per rank of the cards nobody can place from open information: the deck
    minus every centre card and every card in flight, into ``out``'s ``unknown`` slice."""
    nr = cfg[C_NRANKS]
    u = _unknown_offset(nr)
    for r in range(13):
        out[u + r] = 4.0
    if nr == 14:
        out[u + 13] = 2.0
    for k in range(2):
        for j in range(g.centre_n[k]):
            out[u + rank(g.centre[k, j])] -= 1.0
    for q in range(2):
        for j in range(g.fl_n[q]):
            out[u + rank(g.fl_cards[q, j])] -= 1.0


_US_SIDE = Rules(preset="us").side_size  # the deals differ by side piles: us 5 cards each, pagat 10


@njit(none(CFG, OBS_ROW, i64), cache=True)
def _rules_tag(cfg: Config, out: np.ndarray, at: int) -> None:
    """The ``rules`` field (RULES_TAG's order), from the config the kernels play by."""
    if cfg[C_JAP] != 0:
        out[at + 2] = 1.0
    elif cfg[C_SIDE] == _US_SIDE:
        out[at] = 1.0
    else:
        out[at + 1] = 1.0
    out[at + 3] = cfg[C_WRAP] != 0
    out[at + 4] = cfg[C_SAME] != 0
    out[at + 5] = cfg[C_JOKERS] != 0
    out[at + 6] = cfg[C_PLAYOUT] != 0
    out[at + 7] = cfg[C_STACK] != 0
    out[at + 8] = cfg[C_MULTI] != 0
    out[at + 9] = cfg[C_LOCK] != 0


@njit(none(GAME, CFG, i64, OBS_ROW), cache=True)
def _observe_private(g: Any, cfg: Config, p: int, out: np.ndarray) -> None:
    """Everything but the shared part of ``unknown`` (already in ``out``), which is finished here."""
    nr = cfg[C_NRANKS]
    hs = cfg[C_HAND]
    deck = float(cfg[C_DECK])
    o = 1 - p
    t = g.clock
    u = _unknown_offset(nr)
    out[:u] = 0.0
    out[u + nr :] = 0.0
    # hand and stacked
    at = 0
    for i in range(hs):
        c = g.hand[p, i]
        if c >= 0:
            out[at + rank(c)] += 0.25
            out[u + rank(c)] -= 1.0
        for j in range(g.stk_n[p, i]):
            out[at + nr + rank(g.stk[p, i, j])] += 0.25
            out[u + rank(g.stk[p, i, j])] -= 1.0
    at += 2 * nr
    # centre
    for k in range(2):
        n = g.centre_n[k]
        if n > 0:
            top = g.centre[k, n - 1]
            out[at + k * nr + rank(top)] = 1.0
            if rank(top) == 13 and g.top_owner[k] >= 0:
                out[at + 2 * nr + 2 * k + (0 if g.top_owner[k] == p else 1)] = 1.0
        out[at + 2 * nr + 4 + k] = n / deck
    at += 2 * nr + 6
    # flights
    at = _flight(g, p, t, nr, out, at)
    at = _flight(g, o, t, nr, out, at)
    # the opponent's face-up layout
    if cfg[C_JAP] != 0:
        for i in range(hs):
            c = g.hand[o, i]
            if c >= 0:
                out[at + rank(c)] += 0.25
                out[u + rank(c)] -= 1.0
            for j in range(g.stk_n[o, i]):
                out[at + rank(g.stk[o, i, j])] += 0.25
                out[u + rank(g.stk[o, i, j])] -= 1.0
    at += nr
    # card counts
    for q in (p, o):
        in_hand = 0
        stacked = 0
        for i in range(hs):
            if g.hand[q, i] >= 0:
                in_hand += 1
            stacked += g.stk_n[q, i]
        left = in_hand + stacked + g.draw_n[q] + g.fl_n[q]
        out[at] = in_hand / hs
        out[at + 1] = min(1.0, g.draw_n[q] / 27.0)
        out[at + 2] = min(1.0, left / 27.0)
        at += 3
    out[at] = g.side_n[0] / deck
    out[at + 1] = g.side_n[1] / deck
    at += 2
    for r in range(nr):
        out[at + r] = max(0.0, out[at + r]) / 4.0
    at += nr
    if g.phase == STUCK:
        out[at] = 1.0
        cd = cfg[C_COUNTDOWN]
        out[at + 1] = 0.0 if cd <= 0 else min(1.0, max(0.0, (g.flip_at - t) / cd))
    at += 2
    out[at] = float(p)
    out[at + 1] = min(1.0, t / cfg[C_MAXMS])
    at += 2
    _rules_tag(cfg, out, at)


@njit(none(GAME, CFG, OBS_ROW, OBS_ROW), cache=True)
def _observe_game(g: Any, cfg: Config, out0: np.ndarray, out1: np.ndarray) -> None:
    """Both seats' observations of one game; the shared part of ``unknown`` is counted once."""
    _public_unknown(g, cfg, out0)
    u = _unknown_offset(cfg[C_NRANKS])
    out1[u : u + cfg[C_NRANKS]] = out0[u : u + cfg[C_NRANKS]]
    _observe_private(g, cfg, 0, out0)
    _observe_private(g, cfg, 1, out1)


@njit(cache=True)
def observe_all(s: np.ndarray, cfg: Config, obs: np.ndarray, mask: np.ndarray) -> None:
    """Fill ``obs`` (2, B, obs_dim) and ``mask`` (2, B, n_actions) for every game."""
    for b in range(s.shape[0]):
        _observe_game(s[b], cfg, obs[0, b], obs[1, b])
        legal_row(s[b], cfg, 0, mask[0, b])
        legal_row(s[b], cfg, 1, mask[1, b])


@njit(cache=True)
def observe_games(s: np.ndarray, cfg: Config, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
    """Refill the rows of ``obs`` and ``mask`` for the listed games only."""
    for j in range(games.shape[0]):
        b = games[j]
        _observe_game(s[b], cfg, obs[0, b], obs[1, b])
        legal_row(s[b], cfg, 0, mask[0, b])
        legal_row(s[b], cfg, 1, mask[1, b])
