"""Complete worlds consistent with one seat's observation: the sampler fair search needs.

A player of real-time Speed sees only part of the table: in ``us``/``pagat``
the opponent's hand, both draw piles and the side piles are face down; in
``japanese`` both stocks are. :func:`sample_worlds` takes one seat's
observation vectors (nothing else: no engine record, no seed) and returns
complete engine records (``speed_env.engine``) that agree with them, with
every hidden card drawn uniformly from the cards that seat has not seen.
A batch engine continues them like any other game::

    worlds = sample_worlds(rules, obs, 16, seed=1)        # obs: (n, obs_dim) of one seat
    games = Games(len(worlds), rules)
    games.state[:] = worlds                               # row i * 16 + w: world w of obs[i]

What is exact (read from the observation by name, :func:`observation_layout`):
the clock; the phase and the flip countdown; my hand/layout and stacked cards
by rank; both centre tops (a joker's owner too) and pile sizes; both cards in
flight (rank, pile or stack, count, landing time); the opponent's face-up
layout and stacks (``japanese``); every count (hands, draw piles, stocks, side
piles); side piles rebuilt from the centre (their cards, in random order);
whether the lock rule is armed; when a card was last placed (the idle clock;
past ``idle_flip_ms`` the observation caps it, and a world starts it exactly
``idle_flip_ms`` back, which plays the same: the idle flip is due either way).
Observing a sampled world from the same seat
gives back the same observation and mask, float for float.

What is sampled, because the observation does not hold it:

- the hidden cards (opponent's hand, both draw piles or stocks, side piles
  never rebuilt): a uniform random permutation of the unseen cards dealt into
  those places with the observed counts. In ``japanese`` my stock is drawn
  from my colour's unseen cards (``my_colour_unseen``), the opponent's from
  the rest, since each player's stock holds only their own colour;
- suits (they never matter for play): each card of a rank is one of that
  rank's cards not placed elsewhere, at random; the snapshot's suits differ;
- the cards under each centre top: the observation gives all centre cards
  together (through ``unknown``), so they are split at random between the
  piles with the right sizes; this only matters when a side pile is rebuilt;
- which slot holds which card (actions name ranks, so only the default
  ``play_out`` flip, the leftmost layout card, can notice);
- counters that only name random draws or statistics (``commits``,
  ``played``, ``bounced``, ``ties``, ``flips``, ``reshuffles``, the number of
  rebuilds) start again at 0, and each world gets its own seed, so its
  latencies, tie breaks and rebuild shuffles are fresh draws;
- a landing more than 1000 ms away (the observation clips it) lands at 1000.

Every preset and every ``japanese`` option (jokers, stack_layout, multi_play,
play_out, same_rank, wrap) is supported. An observation that no table can
produce (wrong length, counts that do not add up) raises :class:`WorldError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env import engine
from speed_env.cards import RED_SUITS
from speed_env.observation import obs_dim, observation_layout
from speed_env.rules import Rules

_COUNT_SCALE = 27  # the observation divides draw pile and cards-left counts by 27


class WorldError(ValueError):
    """An observation is not one that ``rules`` can produce, so no world agrees with it."""


@dataclass
class View:
    """What one observation row says about the table (absolute seats; counts per rank)."""

    seat: int
    clock: int
    stuck: bool
    flip_at: int
    hand: np.ndarray
    """My slot tops per rank."""
    stacked: np.ndarray
    tops: tuple[int, int]
    joker_owner: tuple[int, int]
    """Owner seat of a joker on top of pile k, else -1."""
    centre_n: tuple[int, int]
    flights: list[tuple[int, int, int, int]]
    """Per seat (0, 1): (rank or -1, pile or -1 for a stack, card count, ms to land)."""
    layout: np.ndarray
    """The opponent's face-up slot tops per rank (``japanese``)."""
    opp_stacked: np.ndarray
    in_hand: tuple[int, int]
    draw_n: tuple[int, int]
    side_n: tuple[int, int]
    unknown: np.ndarray
    mine_unseen: np.ndarray
    side_known: tuple[np.ndarray, np.ndarray]
    idle: tuple[int, int]
    placed_at: int
    """When a card was last put on a centre pile (the idle clock's start)."""


def _counts(x: np.ndarray, scale: float) -> np.ndarray:
    return np.rint(np.asarray(x, np.float64) * scale).astype(np.int64)


def read_view(rules: Rules, row: np.ndarray) -> View:
    """Decode one observation row into a :class:`View` (fields found by name)."""
    lay = observation_layout(rules)
    nr = rules.n_ranks
    deck = float(rules.deck_size)
    hs = rules.hand_size

    def f(name: str) -> np.ndarray:
        return np.asarray(row[lay[name]], np.float64)

    seat = round(f("seat")[0])
    me, opp = seat, 1 - seat
    top = f("centre_top").reshape(2, nr)
    cj = f("centre_joker").reshape(2, 2)
    size = _counts(f("centre_size"), deck)
    if (top.sum(axis=1) != 1).any() or (size < 1).any():
        raise WorldError("the observation shows a centre pile without exactly one top card")
    tops = (int(top[0].argmax()), int(top[1].argmax()))
    owners = [
        (me if cj[k, 0] > 0.5 else opp if cj[k, 1] > 0.5 else -1) if tops[k] == 13 else -1
        for k in range(2)
    ]
    joker_owner = (int(owners[0]), int(owners[1]))
    clock = round(float(f("clock")[0]) * rules.max_game_ms)
    phase = f("phase")
    stuck = phase[0] > 0.5
    flip_at = clock + round(float(phase[1]) * rules.stuck_countdown_ms) if stuck else -1
    cap = (hs, _COUNT_SCALE, _COUNT_SCALE)
    my_cards = tuple(round(x * c) for x, c in zip(f("my_cards"), cap, strict=True))
    op_cards = tuple(round(x * c) for x, c in zip(f("opp_cards"), cap, strict=True))
    hand = _counts(f("hand"), 4)
    stacked = _counts(f("stacked"), 4)
    opp_stacked = _counts(f("opp_stacked"), 4)
    layout_all = _counts(f("opp_layout"), 4)
    flights: list[tuple[int, int, int, int]] = [(-1, -1, 0, 0), (-1, -1, 0, 0)]
    for who, name, cards, on_top, under in (
        (me, "my_flight", my_cards, int(hand.sum()), int(stacked.sum())),
        (opp, "opp_flight", op_cards, op_cards[0], int(opp_stacked.sum())),
    ):
        fl = f(name)
        if fl[:nr].max() > 0.5:
            n = cards[2] - on_top - under - cards[1]
            pile = int(fl[nr : nr + 2].argmax()) if fl[nr : nr + 2].max() > 0.5 else -1
            flights[who] = (int(fl[:nr].argmax()), pile, n, round(float(fl[nr + 2]) * 1000))
    side_known = _counts(f("side_known"), 4).reshape(2, nr)
    return View(
        seat=seat,
        clock=clock,
        stuck=bool(stuck),
        flip_at=flip_at,
        hand=hand,
        stacked=stacked,
        tops=tops,
        joker_owner=joker_owner,
        centre_n=(int(size[0]), int(size[1])),
        flights=flights,  # type: ignore[arg-type]
        layout=layout_all - opp_stacked,
        opp_stacked=opp_stacked,
        in_hand=(my_cards[0], op_cards[0]) if me == 0 else (op_cards[0], my_cards[0]),
        draw_n=(my_cards[1], op_cards[1]) if me == 0 else (op_cards[1], my_cards[1]),
        side_n=tuple(int(x) for x in _counts(f("side_piles"), deck)),  # type: ignore[arg-type]
        unknown=_counts(f("unknown"), 4),
        mine_unseen=_counts(f("my_colour_unseen"), 4),
        side_known=(side_known[0], side_known[1]),
        idle=tuple(int(x > 0.5) for x in f("idle_rebuilds")),  # type: ignore[arg-type]
        placed_at=clock - round(float(f("since_placed")[0]) * rules.idle_flip_ms),
    )


class _Cards:
    """The card ids still free, per rank (and per colour in ``japanese``), taken in random order."""

    def __init__(self, rules: Rules, rng: np.random.Generator) -> None:
        self.japanese = rules.is_japanese
        self.free: dict[tuple[int, int], list[int]] = {}
        for r in range(13):
            for s in range(4):
                colour = 0 if s in RED_SUITS else 1
                self.free.setdefault((colour if self.japanese else 0, r), []).append(s * 13 + r)
        if rules.jokers:  # in japanese the red one is seat 0's; in us/pagat either may be anywhere
            self.free[(0, 13)] = [52]
            self.free[(1, 13)] = [53]
        for ids in self.free.values():
            rng.shuffle(ids)

    def take(self, r: int, n: int, colour: int, what: str) -> list[int]:
        """``n`` free cards of rank ``r`` (of ``colour`` in ``japanese``; any colour when -1)."""
        out: list[int] = []
        keys = [(colour, r)] if self.japanese and colour >= 0 else [(0, r), (1, r)]
        for key in keys:
            ids = self.free.get(key, [])
            while ids and len(out) < n:
                out.append(ids.pop())
        if len(out) < n:
            raise WorldError(
                f"the observation places more cards of rank index {r} ({what}) than the deck holds"
            )
        return out

    def take_counts(self, counts: np.ndarray, colour: int, what: str) -> list[int]:
        """Cards by rank count (``counts[r]`` of rank ``r``)."""
        return [c for r in range(len(counts)) for c in self.take(r, int(counts[r]), colour, what)]

    def remaining(self, colour: int) -> list[int]:
        """Every free card (of ``colour`` in ``japanese``)."""
        keys = [k for k in self.free if not self.japanese or colour < 0 or k[0] == colour]
        return [c for k in keys for c in self.free[k]]


def _place_slots(
    rec: np.ndarray,
    seat: int,
    cards: list[int],
    flight: tuple[int, int, int, int],
    stacked: np.ndarray,
    hs: int,
    rng: np.random.Generator,
    cards_pool: _Cards,
    colour: int,
    rank_of: np.ndarray,
) -> None:
    """Put ``seat``'s slot tops, its flight and its stacked cards into ``rec``."""
    r_fl, pile, n_fl, _ = flight
    slots = list(rng.permutation(hs))
    if len(cards) + n_fl > hs:
        raise WorldError(
            f"seat {seat} would hold {len(cards)} slot cards and {n_fl} in flight: "
            f"more than {hs} slots"
        )
    fl_slots = [int(slots.pop()) for _ in range(n_fl)]
    for c in cards:
        rec["hand"][seat, slots.pop()] = c
    # Stacked cards share their slot top's rank (or the rank of the card flying from that slot).
    for r in np.flatnonzero(stacked):
        under = [
            i for i in range(hs) if rec["hand"][seat, i] >= 0 and rank_of[rec["hand"][seat, i]] == r
        ]
        if r_fl == r and pile >= 0:
            under += fl_slots
        ids = cards_pool.take(int(r), int(stacked[r]), colour, "stacked")
        for c in ids:
            fit = [i for i in under if rec["stk_n"][seat, i] < engine.STACK_DEPTH]
            if not fit:
                raise WorldError(
                    f"seat {seat} has stacked cards of rank index {r} with no slot top of that rank"
                )
            i = fit[int(rng.integers(len(fit)))]
            rec["stk"][seat, i, rec["stk_n"][seat, i]] = c
            rec["stk_n"][seat, i] += 1
    if n_fl:
        ids = cards_pool.take(r_fl, n_fl, colour, "in flight")
        rec["fl_n"][seat] = n_fl
        rec["fl_cards"][seat, :n_fl] = ids
        rec["fl_slots"][seat, :n_fl] = fl_slots
        if pile < 0:  # a stack: it lands on a slot showing the same rank
            same = [
                i
                for i in range(hs)
                if rec["hand"][seat, i] >= 0 and rank_of[rec["hand"][seat, i]] == r_fl
            ]
            if not same:
                raise WorldError(
                    f"seat {seat} stacks a card of rank index {r_fl} with no slot top of that rank"
                )
            rec["fl_kind"][seat] = engine.K_STACK
            rec["fl_pile"][seat] = same[int(rng.integers(len(same)))]
        else:
            rec["fl_pile"][seat] = pile
            if rec["phase"] == engine.STUCK:
                rec["fl_kind"][seat] = engine.K_FLIP
            else:
                rec["fl_kind"][seat] = engine.K_MULTI if n_fl > 1 else engine.K_PLAY
        rec["fl_land"][seat] = (
            rec["flip_at"] if rec["fl_kind"][seat] == engine.K_FLIP else rec["clock"] + flight[3]
        )


def _put_pile(rec: np.ndarray, field: str, k: int, top_first: list[int]) -> None:
    rec[field][k, : len(top_first)] = top_first[::-1]
    rec[field + "_n"][k] = len(top_first)


def blank_record(view: Any, seats: int, more_fields: tuple[str, ...] = ()) -> np.ndarray:
    """One game record holding no card, at the view's clock and phase (the worlds' start).

    Every card field (and ``more_fields``) is ``-1``, nothing is in flight, nobody has won;
    ``view`` gives ``clock``, ``stuck``, ``flip_at`` and ``placed_at``. Shared by the two-seat
    worlds here and the n-seat ones of :mod:`speed_env.party_worlds`.
    """
    rec: np.ndarray = engine.new_state(1, seats)[0]  # np.void, typed as the array it views
    cards = ("hand", "draw", "side", "centre", "fl_cards", "fl_slots", "top_owner", "fl_pile")
    for name in (*cards, *more_fields):
        rec[name] = -1
    rec["fl_kind"] = engine.K_NONE
    rec["fl_land"] = engine.NEVER
    rec["winner"] = -1
    rec["clock"] = view.clock
    rec["phase"] = engine.STUCK if view.stuck else engine.PLAY
    rec["flip_at"] = view.flip_at
    rec["placed_at"] = view.placed_at
    return rec


def _template(
    rules: Rules, v: View, rng: np.random.Generator
) -> tuple[np.ndarray, list[tuple[str, int, int]], list[list[int]]]:
    """A world's public part, its hidden places ``(field, seat or pile, count)``, their card pools.

    One pool feeds every place, or in ``japanese`` one pool per stock (``pools[0]`` mine).
    """
    hs = rules.hand_size
    jap = rules.is_japanese
    rank_of = np.array([c % 13 for c in range(52)] + [13, 13])
    cards = _Cards(rules, rng)
    rec = blank_record(v, seats=2, more_fields=("stk",))
    me, opp = v.seat, 1 - v.seat
    colour = (
        (me, opp) if jap else (-1, -1)
    )  # in japanese, seat 0 holds red (colour 0), seat 1 black
    _place_slots(
        rec,
        me,
        cards.take_counts(v.hand, colour[0], "my hand"),
        v.flights[me],
        v.stacked,
        hs,
        rng,
        cards,
        colour[0],
        rank_of,
    )
    layout = cards.take_counts(v.layout, colour[1], "the opponent's layout") if jap else []
    _place_slots(
        rec, opp, layout, v.flights[opp], v.opp_stacked, hs, rng, cards, colour[1], rank_of
    )
    for k, known in enumerate(v.side_known):
        if known.any():
            if known.sum() != v.side_n[k]:
                raise WorldError(
                    f"side pile {k} holds {v.side_n[k]} cards but {int(known.sum())} are known"
                )
            ids = cards.take_counts(known, -1, f"side pile {k}")
            _put_pile(rec, "side", k, [ids[i] for i in rng.permutation(len(ids))])
            rec["rebuilds"][k] = 1
        rec["idle_rebuilds"][k] = v.idle[k]
    # The centre holds every card that is neither placed yet nor unseen.
    hidden = v.unknown - v.side_known[0] - v.side_known[1]
    centre: list[int] = []
    for r in range(rules.n_ranks):
        if jap:
            mine = len(cards.free.get((me, r), [])) - int(v.mine_unseen[r])
            theirs = len(cards.free.get((opp, r), [])) - int(hidden[r] - v.mine_unseen[r])
            if min(mine, theirs) < 0:
                raise WorldError(
                    f"the observation's unseen counts of rank index {r} exceed the cards left"
                )
            centre += cards.take(r, mine, me, "centre") + cards.take(r, theirs, opp, "centre")
        else:
            n = sum(len(ids) for (_, rr), ids in cards.free.items() if rr == r) - int(hidden[r])
            if n < 0:
                raise WorldError(
                    f"the observation's unseen counts of rank index {r} exceed the cards left"
                )
            centre += cards.take(r, n, -1, "centre")
    if len(centre) != v.centre_n[0] + v.centre_n[1]:
        raise WorldError(
            f"the centre piles hold {v.centre_n[0]} and {v.centre_n[1]} cards, but the observation "
            f"leaves {len(centre)} seen cards for them"
        )
    centre = [centre[i] for i in rng.permutation(len(centre))]
    tops = []
    for k in range(2):
        r, owner = v.tops[k], v.joker_owner[k]
        fits = [c for c in centre if rank_of[c] == r and (owner < 0 or not jap or c == 52 + owner)]
        if not fits:
            raise WorldError(f"no card of rank index {r} is left for the top of centre pile {k}")
        tops.append(fits[0])
        centre.remove(fits[0])
        if jap:
            rec["top_owner"][k] = owner if owner >= 0 else int(fits[0] not in _RED)
        elif r == 13:
            rec["top_owner"][k] = owner
    cut = v.centre_n[0] - 1
    for k, below in enumerate((centre[:cut], centre[cut:])):
        _put_pile(rec, "centre", k, [tops[k], *below])
    if jap:
        places = [("draw", me, v.draw_n[me]), ("draw", opp, v.draw_n[opp])]
        pools = [cards.remaining(me), cards.remaining(opp)]
    else:
        free = hs - int((rec["hand"][opp, :hs] >= 0).sum()) - int(max(rec["fl_n"][opp], 0))
        if v.in_hand[opp] > free:
            raise WorldError(f"the opponent holds {v.in_hand[opp]} cards but has {free} free slots")
        places = [
            ("hand", opp, v.in_hand[opp]),
            ("draw", me, v.draw_n[me]),
            ("draw", opp, v.draw_n[opp]),
        ]
        places += [("side", k, v.side_n[k]) for k in range(2) if not v.side_known[k].any()]
        pools = [cards.remaining(-1)]
    want = [
        sum(n for _, who, n in places if len(pools) == 1 or who == seat)
        for seat in (me, opp)[: len(pools)]
    ]
    if [len(p) for p in pools] != want:
        raise WorldError(
            f"the observation has {want} hidden places but {[len(p) for p in pools]} unseen cards"
        )
    return rec, places, pools


_RED = frozenset(s * 13 + r for s in RED_SUITS for r in range(13)) | {52}


def sample_worlds(
    rules: Rules, obs: np.ndarray, worlds: int, seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """``worlds`` complete engine records per observation row, consistent with it.

    ``obs`` is one seat's observation, ``(obs_dim,)`` or ``(n, obs_dim)``;
    the result has ``n * worlds`` records, world ``w`` of row ``i`` at
    ``i * worlds + w``, each with a fresh seed. Put them in a
    :class:`~speed_env.game.Games` (``games.state[:] = records``) to step
    them. See the module docstring for what is exact and what is sampled.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    rows = np.atleast_2d(np.asarray(obs, np.float32))
    if rows.ndim != 2 or rows.shape[1] != obs_dim(rules):
        raise WorldError(
            f"observations for rules {rules.preset!r} have length {obs_dim(rules)}; got shape "
            f"{np.shape(obs)}"
        )
    if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
        raise WorldError(f"worlds must be a whole number >= 1, got {worlds!r}")
    out = engine.new_state(rows.shape[0] * worlds)
    for i, row in enumerate(rows):
        view = read_view(rules, row)
        rec, places, pools = _template(rules, view, rng)
        block = out[i * worlds : (i + 1) * worlds]
        block[:] = rec
        block["seed"] = rng.integers(0, 2**63, size=worlds, dtype=np.int64).astype(np.uint64)
        for g, pool in enumerate(pools):
            # one uniform permutation of the pool per world, dealt into this pool's places in order
            deal = rng.permuted(np.tile(np.asarray(pool, np.int16), (worlds, 1)), axis=1)
            at = 0
            for field, who, n in places:
                if len(pools) > 1 and (who == view.seat) != (g == 0):
                    continue
                cards = deal[:, at : at + n]
                at += n
                if field == "hand":
                    taken = set(rec["fl_slots"][who].tolist())
                    free = [
                        i
                        for i in range(rules.hand_size)
                        if rec["hand"][who, i] < 0 and i not in taken
                    ]
                    block["hand"][:, who, free[:n]] = cards
                else:
                    block[field][:, who, :n] = cards[:, ::-1]
                    block[field + "_n"][:, who] = n
    return out


__all__ = ["View", "WorldError", "read_view", "sample_worlds"]
