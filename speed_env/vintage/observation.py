"""The observation vector of Vintage Speed, as named slices.

Observations are ego-centric: "me" is the seat observing, and the other
seats are listed in turn order starting with the next player to act after
me, padded to 9 so the vector has one shape for 2–10 players (one policy can
play any table size). Every entry is a raw count (not normalised), float32.
With ``K`` card kinds and ``S`` sets (default K = 42, S = 5, 174 entries):

==============  =====  ==============================================================
slice           size   content
==============  =====  ==============================================================
``hand``        K      how many of each card kind I hold (kind order: see ``pack.py``)
``top``         K      one-hot of the discard pile's top card; all 0 when it is empty
``lead``        1      1 when the discard pile is empty (the player to act leads)
``called``      S      one-hot of the set called by the top Lightning; all 0 when none
``extra``       1      1 when I have just placed a card and may add X (play X or pass)
``discard``     K      how many of each kind lie in the discard pile (top included)
``pack``        1      cards in the face-down pack
``hand_sizes``  9      cards held by the next seats in turn order; 0 past the table
``seated``      9      1 for each of those 9 slots that is a player at this table
``stuck``       9      1 for each of those seats whose last turn ended without placing
                       a card (it drew, or passed with nothing to draw)
``scores``      10     match penalty points so far: mine, then the others in turn order
``game``        2      games of this match finished before this one; games in the match
``passes``      1      passes in a row (the game locks when every player has passed)
==============  =====  ==============================================================

Everything here is public to the observer: its own hand, the discard pile
(placed face up), counts of other hands and of the pack, the call and the
match score. Cards not in ``hand`` or ``discard`` are in the pack or in
other hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from speed_env.vintage.engine import Game
from speed_env.vintage.pack import Pack
from speed_env.vintage.rules import MAX_PLAYERS, VintageRules

OTHERS = MAX_PLAYERS - 1


@dataclass(frozen=True)
class ObservationLayout:
    """Where each named piece lies in the observation vector of one pack."""

    pack: Pack

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Name -> slice of the vector, in vector order."""
        return _slices(self.pack)

    @cached_property
    def size(self) -> int:
        """Length of the vector (174 for the default pack)."""
        return next(reversed(self.slices.values())).stop

    def __getitem__(self, name: str) -> slice:
        """The slice named ``name`` (``layout["hand"]``)."""
        return self.slices[name]

    def high(self, rules: VintageRules) -> np.ndarray:
        """Upper bound of every entry under ``rules`` (for the Box space)."""
        high = np.zeros(self.size, dtype=np.float32)
        s = self.slices
        total = float(rules.total_cards)
        for name in ("hand", "discard", "pack", "hand_sizes"):
            high[s[name]] = total
        for name in ("top", "lead", "called", "extra", "seated", "stuck"):
            high[s[name]] = 1.0
        max_game_points = sum(
            c * p for c, p in zip(rules.pack.copies, rules.pack.penalties, strict=True)
        )
        high[s["scores"]] = float(max(1, max_game_points * rules.packs * rules.games))
        high[s["game"]] = float(rules.games)
        high[s["passes"]] = float(rules.num_players)
        return high


def _slices(pack: Pack) -> dict[str, slice]:
    sizes = [
        ("hand", pack.n_kinds),
        ("top", pack.n_kinds),
        ("lead", 1),
        ("called", pack.n_sets),
        ("extra", 1),
        ("discard", pack.n_kinds),
        ("pack", 1),
        ("hand_sizes", OTHERS),
        ("seated", OTHERS),
        ("stuck", OTHERS),
        ("scores", MAX_PLAYERS),
        ("game", 2),
        ("passes", 1),
    ]
    out: dict[str, slice] = {}
    start = 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def encode(
    game: Game, seat: int, scores: list[int], games_finished: int, layout: ObservationLayout
) -> np.ndarray:
    """The observation vector of ``seat`` (ego-centric, float32)."""
    # Built as one Python list and converted once: a dozen small numpy writes
    # cost more than the whole list at this size.
    pack = game.rules.pack
    k, n = pack.n_kinds, game.n_players
    top = [0] * k
    discard = [0] * k
    for kind in game.discard:
        discard[kind] += 1
    if game.discard:
        top[game.discard[0]] = 1
    called = [0] * pack.n_sets
    if game.called >= 0:
        called[game.called] = 1
    others = [(seat + j) % n for j in range(1, n)]
    pad = [0] * (OTHERS - len(others))
    extra = int(game.extra_pending and game.current == seat and not game.over)
    values = [
        *game.hands[seat],
        *top,
        int(not game.discard),
        *called,
        extra,
        *discard,
        len(game.pack),
        *(sum(game.hands[o]) for o in others),
        *pad,
        *([1] * len(others)),
        *pad,
        *(int(game.stuck[o]) for o in others),
        *pad,
        scores[seat],
        *(scores[o] for o in others),
        *pad,
        games_finished,
        game.rules.games,
        game.passes,
    ]
    return np.asarray(values, dtype=np.float32)
