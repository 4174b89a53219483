"""``chain`` at a table of three or four (Party Speed): its terms over every opponent and pile.

:class:`agents.chain.ChainAgent` plays here whenever its rules seat more than two; it reads
the n-seat observation (:func:`speed_env.party_obs.party_layout`: ego-centric, seat ``0`` me,
pile ``j`` the ``j``-th from my own) and scores a play of rank ``r`` onto pile ``j`` (action
``1 + n * r + j``) with the two-player terms, each taken over the whole table:

- **keep a run going**: how many of my other cards follow in sequence from ``r``;
- **don't race**: the penalty ``flying`` when any opponent's card is flying to pile ``j``;
- **leave the opponents less**: the plays the old top of ``j`` offered all my opponents
  together, less those ``r`` offers them. The n-seat observation shows no count of the
  cards I cannot place, so it is estimated: the two decks' copies of each rank, less my hand,
  the centre tops and the cards in flight; each opponent's hand is a draw of its size from
  those.

Jokers (``jokers=True``) are wild, as the engine plays them: a joker goes on any card and
any card on a joker, so a joker top offers the opponents every card they hold (``joker`` is
added to playing one). There are no ``japanese`` options at more than two seats, so
``plan``, ``multi``, ``stack``, ``keep`` and ``flip`` have nothing to score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from speed_env.party_obs import party_layout
from speed_env.rules import Rules

COPIES = 8.0
"""Cards of one rank in two decks."""
JOKER_COPIES = 4.0
"""Jokers in two decks (two a deck)."""
_FIELDS_READ = ("hand", "centre_top", "flight", "cards")


def party_args(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`party_scores` needs of ``rules``: the starts of the fields it reads, and
    ``(seats, ranks, hand size, wrap, same_rank)`` as ints."""
    lay = party_layout(rules)
    at = np.array([lay[k].start for k in _FIELDS_READ], np.int64)
    facts = np.array(
        [rules.players, rules.n_ranks, rules.hand_size, int(rules.wrap), int(rules.same_rank)],
        np.int64,
    )
    return at, facts


@njit(cache=True)
def _follows(t: int, r: int, nr: int, wrap: bool, same_rank: bool) -> bool:
    """May a card of rank ``r`` go on a top of rank ``t`` (13: a wild joker)?"""
    if t == 13 or r == 13:
        return True  # a wild joker takes any card and goes on any
    d = abs(r - t)
    return d == 1 or (wrap and d == 12) or (same_rank and d == 0)


@njit(cache=True)
def party_scores(
    obs: np.ndarray, n_actions: int, at: np.ndarray, facts: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Score of every action per row of n-seat observations ``obs`` (before masking).

    ``at``, ``facts``: :func:`party_args`; ``w``: the weights in ``ChainWeights``' order
    (``run``, ``flying``, ``deny`` first; ``joker`` seventh). Waiting scores -1e6, so it is
    played only when nothing else is legal.
    """
    hand_at, top_at, flight_at, cards_at = at[0], at[1], at[2], at[3]
    n, nr, hand_size = facts[0], facts[1], facts[2]
    wrap, same_rank = facts[3] != 0, facts[4] != 0
    w_run, w_flying, w_deny, w_joker = w[0], w[1], w[2], w[6]
    seat_len = nr + n + 1  # one seat's flight entry: rank one-hot, pile one-hot, ms
    out = np.zeros((obs.shape[0], n_actions))
    hand = np.zeros(nr)
    unknown = np.zeros(nr)
    options = np.zeros(nr)
    run = np.zeros(nr)
    tops = np.zeros(n, np.int64)
    raced = np.zeros(n)
    for i in range(obs.shape[0]):
        row = obs[i]
        for r in range(nr):  # the observation holds counts / 8; rint undoes float32 rounding
            hand[r] = np.rint(row[hand_at + r] * COPIES)
            unknown[r] = (JOKER_COPIES if r == 13 else COPIES) - hand[r]
        for j in range(n):
            tops[j] = -1
            for r in range(nr):
                if row[top_at + j * nr + r] > 0.5:
                    tops[j] = r
            if tops[j] >= 0:
                unknown[tops[j]] -= 1.0
            raced[j] = 0.0
        held = 0.0  # cards in my opponents' hands
        for s in range(n):
            base = flight_at + s * seat_len
            for r in range(nr):
                if row[base + r] > 0.5:
                    unknown[r] -= 1.0  # a card in flight is a card I can place
            if s > 0:
                held += np.rint(row[cards_at + 3 * s] * hand_size)
                for j in range(n):
                    if row[base + nr + j] > 0.5:
                        raced[j] = 1.0
        total = 0.0
        for r in range(nr):
            unknown[r] = max(unknown[r], 0.0)
            total += unknown[r]
        scale = held / max(total, 1.0)
        # options[t]: the plays a top of rank t offers my opponents, all together (expected).
        for t in range(nr):
            acc = 0.0
            for r in range(nr):
                if _follows(t, r, nr, wrap, same_rank):
                    acc += unknown[r]
            options[t] = acc * scale
        # run[r]: the longest sequence (up to 4) of my other cards following a new top r.
        for r in range(nr):
            best = 0.0
            if r < 13:  # after a joker any card follows: no run to keep
                for step in (1, -1):
                    length, rank = 0.0, r
                    for _ in range(4):
                        rank += step
                        if rank < 0 or rank >= 13:
                            if not wrap:
                                break
                            rank %= 13
                        if hand[rank] <= 0:
                            break
                        length += 1.0
                    best = max(best, length)
            run[r] = best
        out[i, 0] = -1e6
        for j in range(n):
            before = options[tops[j]] if tops[j] >= 0 else 0.0
            for r in range(nr):
                score = w_run * run[r] - w_flying * raced[j] + w_deny * (before - options[r])
                if r == 13:
                    score += w_joker
                out[i, 1 + n * r + j] = score
    return out
