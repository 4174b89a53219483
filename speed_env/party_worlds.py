"""Complete worlds consistent with one seat's view of a table of three or four (Party Speed).

The n-seat twin of :mod:`speed_env.worlds` (which stays the two-seat sampler,
unchanged), the sampler fair search needs at a party table.
:func:`sample_party_worlds` takes one seat's n-seat observations
(:mod:`speed_env.party_obs`; nothing else: no engine record, no seed) and
returns complete n-seat engine records that agree with them, every hidden card
drawn uniformly from the cards the observation does not show::

    worlds = sample_party_worlds(rules, obs, 16, seed=1)   # obs: (n, obs_dim) of one seat
    games = PartyGames(len(worlds), rules)
    games.state[:] = worlds                                # row i * 16 + w: world w of obs[i]

The observation is ego-centric and names no seat, so every world puts the
observing seat at seat ``0`` (seat ``i`` of the observation is seat ``i`` of
the world, pile ``j`` is pile ``j``): the table is the same under a rotation
of the seats, and observing a world from seat ``0`` gives back the same
observation and mask, float for float.

What is exact: the clock, the phase and the flip countdown, my hand by rank,
every centre top and pile size, every seat's card in flight (rank, pile,
landing time), every seat's hand, draw pile and side pile counts, when a card
was last placed (past ``idle_flip_ms`` the observation caps it, and a world
starts it exactly ``idle_flip_ms`` back: the idle flip is due either way).

What is sampled, because the observation does not hold it:

- the hidden cards (other seats' hands, every draw pile and side pile, the
  cards under each centre top): one uniform random permutation of the cards
  the observation does not show (the two decks less my hand, the centre tops
  and the cards in flight), dealt into those places with the observed counts.
  The n-seat observation keeps no memory of cards played and buried or of
  side piles rebuilt from the centre (the two-seat one does), so the sampler
  does not use one: it knows less than a player with a perfect memory, never
  more than the seat sees;
- suits and which of the two decks a card comes from (they never matter for
  play), and which slot holds which card (actions name ranks);
- whether a side pile was rebuilt since a card was last placed (it only
  decides when a table that cycles with no play at all locks): worlds start
  with none, and counters that only name random draws or statistics start at
  0; each world gets its own seed, so its latencies, tie breaks and rebuild
  shuffles are fresh draws;
- a landing more than 1000 ms away (the observation clips it) lands at 1000.

``us`` and ``pagat`` (with or without wild jokers, any hand size) are
supported. ``japanese`` at three or four seats is refused: each seat's
layout and stock hold only its own suit, which one pool of unshown cards does
not model, and the n-seat observation does not say whose joker tops a pile
(only its owner may cover it), so a world could disagree with the mask. An observation
no table can produce raises :class:`~speed_env.worlds.WorldError`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speed_env import engine
from speed_env.party_obs import RANK_COPIES, party_layout, party_obs_dim
from speed_env.rules import Rules
from speed_env.worlds import WorldError, blank_record

_RANK_OF = np.array(
    [c % engine.PILE % 13 if c % engine.PILE < 52 else 13 for c in range(2 * engine.PILE)]
)


@dataclass
class PartyView:
    """What one n-seat observation row says about the table (seat 0 is the observer)."""

    clock: int
    stuck: bool
    flip_at: int
    placed_at: int
    hand: np.ndarray
    """My slot cards per rank."""
    tops: list[int]
    """Rank of each centre pile's top card."""
    centre_n: list[int]
    side_n: list[int]
    flights: list[tuple[int, int, int]]
    """Per seat: (rank or -1, pile or -1, ms to land)."""
    in_hand: list[int]
    """Cards on each seat's hand slots (not counting one in flight)."""
    draw_n: list[int]


def read_party_view(rules: Rules, row: np.ndarray) -> PartyView:
    """Decode one n-seat observation row into a :class:`PartyView` (fields found by name)."""
    lay = party_layout(rules)
    n, nr, hs = rules.players, rules.n_ranks, rules.hand_size
    deck = float(rules.deck_size)
    draw_size = max(1, rules.draw_size)

    def f(name: str) -> np.ndarray:
        return np.asarray(row[lay[name]], np.float64)

    top = f("centre_top").reshape(n, nr)
    centre_n = [round(x * deck) for x in f("centre_size")]
    if (top.sum(axis=1) != 1).any() or min(centre_n) < 1:
        raise WorldError("the observation shows a centre pile without exactly one top card")
    clock = round(float(f("clock")[0]) * rules.max_game_ms)
    phase = f("phase")
    stuck = bool(phase[0] > 0.5)
    width = nr + n + 1
    fl = f("flight").reshape(n, width)
    flights = []
    for q in range(n):
        if fl[q, :nr].max() > 0.5:
            pile = int(fl[q, nr : nr + n].argmax()) if fl[q, nr : nr + n].max() > 0.5 else -1
            flights.append((int(fl[q, :nr].argmax()), pile, round(float(fl[q, nr + n]) * 1000)))
        else:
            flights.append((-1, -1, 0))
    cards = f("cards").reshape(n, 3)
    in_hand = [round(x * hs) for x in cards[:, 0]]
    draw_n = [round(x * draw_size) for x in cards[:, 1]]
    for q in range(n):
        left = round(float(cards[q, 2]) * (hs + draw_size))
        if left != in_hand[q] + draw_n[q] + int(flights[q][0] >= 0):
            raise WorldError(
                f"seat {q} of the observation holds {in_hand[q]} cards, {draw_n[q]} to draw and "
                f"{int(flights[q][0] >= 0)} in flight, but {left} cards left"
            )
    return PartyView(
        clock=clock,
        stuck=stuck,
        flip_at=clock + round(float(phase[1]) * rules.stuck_countdown_ms) if stuck else -1,
        placed_at=clock - round(float(f("since_placed")[0]) * rules.idle_flip_ms),
        hand=np.rint(f("hand") * RANK_COPIES).astype(np.int64),
        tops=[int(t) for t in top.argmax(axis=1)],
        centre_n=centre_n,
        side_n=[round(x * deck) for x in f("side_piles")],
        flights=flights,
        in_hand=in_hand,
        draw_n=draw_n,
    )


def _take(free: dict[int, list[int]], r: int, what: str) -> int:
    """One free card of rank ``r`` (the lists are shuffled: a random one)."""
    if not free.get(r):
        raise WorldError(
            f"the observation places more cards of rank index {r} ({what}) than the decks hold"
        )
    return free[r].pop()


def _template(
    rules: Rules, v: PartyView, rng: np.random.Generator
) -> tuple[np.ndarray, list[tuple[str, int, int]], np.ndarray, list[list[int]]]:
    """A world's shown part; its hidden places ``(field, seat or pile, count)``; the unshown
    cards; the free hand slots of each seat."""
    n, hs = rules.players, rules.hand_size
    free: dict[int, list[int]] = {}
    for c in range(2 * engine.PILE):
        if rules.jokers or c % engine.PILE < 52:
            free.setdefault(int(_RANK_OF[c]), []).append(c)
    for ids in free.values():
        rng.shuffle(ids)
    rec = blank_record(v, seats=n)
    slots_free = []
    for q in range(n):
        slots = [int(i) for i in rng.permutation(hs)]
        r, pile, ms = v.flights[q]
        if r >= 0:
            i = slots.pop()
            rec["fl_kind"][q] = engine.K_PLAY
            rec["fl_cards"][q, 0] = _take(free, r, "in flight")
            rec["fl_slots"][q, 0] = i
            rec["fl_n"][q] = 1
            rec["fl_pile"][q] = pile
            rec["fl_land"][q] = v.clock + ms
        if q == 0:
            mine = [_take(free, r, "my hand") for r in range(len(v.hand)) for _ in range(v.hand[r])]
            if len(mine) != v.in_hand[0] or len(mine) > len(slots):
                raise WorldError(
                    f"my hand shows {len(mine)} cards by rank but {v.in_hand[0]} by count"
                )
            for c in mine:
                rec["hand"][0, slots.pop()] = c
        elif v.in_hand[q] > len(slots):
            raise WorldError(f"seat {q} holds {v.in_hand[q]} cards but has {len(slots)} free slots")
        slots_free.append(slots)
    tops = [_take(free, r, f"top of centre pile {k}") for k, r in enumerate(v.tops)]
    places = [("hand", q, v.in_hand[q]) for q in range(1, n)]
    places += [("draw", q, v.draw_n[q]) for q in range(n)]
    places += [("side", k, v.side_n[k]) for k in range(n)]
    places += [("centre", k, v.centre_n[k] - 1) for k in range(n)]
    unseen = np.array(sorted(c for ids in free.values() for c in ids), np.int16)
    want = sum(m for _, _, m in places)
    if want != unseen.size:
        raise WorldError(
            f"the observation has {want} hidden places but {unseen.size} cards it does not show"
        )
    for k, c in enumerate(tops):
        rec["centre"][k, v.centre_n[k] - 1] = c  # stored bottom first: the top is the last
        rec["centre_n"][k] = v.centre_n[k]
    return rec, places, unseen, slots_free


def sample_party_worlds(
    rules: Rules, obs: np.ndarray, worlds: int, seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """``worlds`` complete n-seat engine records per observation row, consistent with it.

    ``obs`` is one seat's n-seat observation, ``(obs_dim,)`` or ``(n, obs_dim)``;
    the result has ``n * worlds`` records, world ``w`` of row ``i`` at
    ``i * worlds + w``, the observer at seat 0, each with a fresh seed. Put them
    in a :class:`~speed_env.party_games.PartyGames` (``games.state[:] = records``)
    to step them. See the module docstring for what is exact and what is sampled.
    """
    if rules.players < 3:
        raise WorldError(
            f"sample_party_worlds samples tables of three or four, not {rules.players}; "
            "two seats: speed_env.worlds.sample_worlds"
        )
    if rules.is_japanese:
        raise WorldError(
            f"worlds of japanese at {rules.players} players are not sampled (each seat's own "
            "suit; the observation does not show whose joker tops a pile); us and pagat are"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    rows = np.atleast_2d(np.asarray(obs, np.float32))
    dim = party_obs_dim(rules)
    if rows.ndim != 2 or rows.shape[1] != dim:
        raise WorldError(
            f"n-seat observations for rules {rules.preset!r} at {rules.players} players have "
            f"length {dim}; got shape {np.shape(obs)}"
        )
    if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
        raise WorldError(f"worlds must be a whole number >= 1, got {worlds!r}")
    out = engine.new_state(rows.shape[0] * worlds, rules.players)
    for i, row in enumerate(rows):
        rec, places, unseen, slots_free = _template(rules, read_party_view(rules, row), rng)
        block = out[i * worlds : (i + 1) * worlds]
        block[:] = rec
        block["seed"] = rng.integers(0, 2**63, size=worlds, dtype=np.int64).astype(np.uint64)
        # one uniform permutation of the unshown cards per world, dealt into the places in order
        deal = rng.permuted(np.tile(unseen, (worlds, 1)), axis=1)
        at = 0
        for field, who, m in places:
            cards = deal[:, at : at + m]
            at += m
            if field == "hand":
                block["hand"][:, who, slots_free[who][:m]] = cards
            elif field == "centre":  # under the top, which stays the last card
                block["centre"][:, who, :m] = cards
            else:
                block[field][:, who, :m] = cards[:, ::-1]
                block[field + "_n"][:, who] = m
    return out


__all__ = ["PartyView", "read_party_view", "sample_party_worlds"]
