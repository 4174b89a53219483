"""``chain``: a planning heuristic for real-time Speed, vectorised over the batch.

Every legal play gets a score from the bot's own observation (the published
slices; never hidden state) and the best one is played; it never waits when
it can play. Each observation's ``rules`` field says which rules its game is
played under, so one ``chain`` bot plays every preset and option correctly.
The terms, each measured against ``greedy`` (docs/research/chain.md):

- **keep a run going**: after the play, how many of my other cards follow in
  sequence from the new top (holding 5, 6, 7 on a 4: play the 5 first);
- **don't race for a pile the opponent's card is already flying to**: a card
  committed after theirs lands after theirs, and bounces unless it still fits;
- **leave the opponent less**: how many plays the new top offers the opponent
  compared with the old top, counted from their face-up layout in
  ``japanese`` and estimated from the cards whose place I cannot see otherwise.

Measured with ``speed_lab/chain_ablation.py`` (8,000 paired games a row):
the flying and deny terms carry the edge (each, switched off, costs 3–6
points); the run term helps only when weighted lightly; a fourth idea,
avoiding the pile the opponent can play on now, cost about 2 points and was
dropped.

The ``japanese`` options add moves, planned as follows (``chain:plan=0`` is
the first ``chain``, which scored them blind; see :class:`ChainWeights`):

- **multi-play**: all my cards of a rank go down together, scored as one of
  them on that pile plus ``multi`` per extra card (two cards, two stock
  refills, one reaction);
- **jokers**: my joker onto a pile blocks the opponent there (the deny term
  counts every play it takes from them, their joker's too); it races only
  their joker, since it goes on whatever other card lands first; covering my
  own joker costs ``keep`` (the pile opens to them again);
- **play-out flip choices**: a card that would go under the opponent's flip
  (seat 0 flips first) sets no top, so the card dumped there is the one that
  leads to the fewest of my others; a card that stays on top is scored as a
  play;
- **stack moves** score ``stack`` (0: taken only when no play scores above
  it, as before).

Measured with ``speed_lab/chain_options.py`` against ``chain:plan=0`` (see
docs/research/chain.md): multi-play and jokers gain, stacks and play-out flip choices
show no difference. Tried and measured as no gain, so left out: preferring
stacks to plays or avoiding them (``stack`` from -5 to 3), a bonus for a sure
move (a stack) when one stock card is left, stacking first while the
opponent has no play, and other weights for ``multi``, ``joker``, ``keep``
and ``flip``.
"""

from __future__ import annotations

import functools
from dataclasses import astuple, dataclass

import numpy as np
from numba import njit

from speed_env.observation import RULES_TAG, layout_for_dim
from speed_env.rules import PRESETS, Rules


@dataclass(frozen=True)
class ChainWeights:
    """Weights of the score terms (in units of "one more card in my run")."""

    run: float = 0.3
    """Per card of mine that can follow the new top in sequence."""
    flying: float = 6.0
    """Penalty for playing onto the pile the opponent's card is flying to."""
    deny: float = 0.5
    """Per play the new top takes away from the opponent (gives, if negative)."""
    plan: float = 1.0
    """1 plans the ``japanese`` options' moves with the weights below; 0 scores them as before.

    0 is the first ``chain``, the baseline they were measured against: stack and multi-play
    moves 0, a joker as a card that denies nothing, a play-out flip choice as a play.
    """
    multi: float = 1.0
    """Multi-play: per extra card shed, over playing one card of the rank onto that pile."""
    stack: float = 0.0
    """Score of a stack move (a play scoring less than this is passed over for it)."""
    joker: float = 0.0
    """Added to playing my joker (which blocks the pile from the opponent: the deny term)."""
    keep: float = 1.0
    """Penalty for covering my own joker (it stops blocking the pile)."""
    flip: float = 0.5
    """Play-out flip choice of a card that goes under the opponent's flip: per card it leads to.

    The cost is per card of mine it would have led to, so the card dumped connects least.
    """

    def __post_init__(self) -> None:
        if self.plan not in (0.0, 1.0):
            raise ValueError(f"ChainWeights.plan is 0 or 1, got {self.plan!r}")


_FIELDS_READ = (
    "hand",
    "centre_top",
    "centre_joker",
    "opp_flight",
    "opp_layout",
    "unknown",
    "opp_cards",
    "phase",
    "seat",
    "rules",
)
_TAG = {name: j for j, name in enumerate(RULES_TAG)}
_FLAGS = ("japanese", "wrap", "same_rank", "play_out", "stack_layout", "multi_play")
# Hand (or layout) slots of each preset, in RULES_TAG's preset order.
_HAND_SIZES = np.array([Rules(preset=p).hand_size for p in PRESETS], np.float64)


Work = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]


@njit(cache=True)
def work_arrays(n_actions: int) -> Work:
    """Scratch for :func:`_score_row`: a row of scores, per-rank arrays, the rank adjacency.

    The adjacency comes with the rules it was built for: a caller scoring many rows makes the
    scratch once, and the adjacency is rebuilt only when a row's rules differ.
    """
    return (
        np.zeros(n_actions),
        np.zeros(13),
        np.zeros(13),
        np.zeros(13),
        np.zeros(13),
        np.zeros(13),
        np.zeros((13, 13)),
        np.full(1, -1, np.int64),
    )


@njit(cache=True)
def _score_row(
    row: np.ndarray,
    out: np.ndarray,
    at: np.ndarray,
    nr: int,
    hand_sizes: np.ndarray,
    tag: np.ndarray,
    w: np.ndarray,
    work: Work,
) -> None:
    """:func:`_scores` of one observation ``row`` into ``out``; ``work`` from :func:`work_arrays`.

    Entries it leaves alone stay as they are: a caller reusing ``out`` zeroes it first.
    """
    hand_at, top_at, joker_at, flight_at, layout_at = at[0], at[1], at[2], at[3], at[4]
    unknown_at, cards_at, phase_at, seat_at, rules_at = at[5], at[6], at[7], at[8], at[9]
    w_run, w_flying, w_deny, plan = w[0], w[1], w[2], w[3] > 0.5
    w_multi, w_stack, w_joker, w_keep, w_flip = w[4], w[5], w[6], w[7], w[8]
    _, opp, opp_options, run, hand, links, adj, adj_rules = work
    preset = 0
    for p in range(hand_sizes.shape[0]):
        if row[rules_at + p] > 0.5:
            preset = p
    hand_size = hand_sizes[preset]
    japanese = row[rules_at + tag[0]] > 0.5
    wrap = row[rules_at + tag[1]] > 0.5
    same_rank = row[rules_at + tag[2]] > 0.5
    play_out = row[rules_at + tag[3]] > 0.5
    stack_on = row[rules_at + tag[4]] > 0.5
    multi_on = row[rules_at + tag[5]] > 0.5
    # adj[t, r] = 1 when a card of rank r may go on a top of rank t (jokers aside).
    if adj_rules[0] != 2 * wrap + same_rank:
        adj_rules[0] = 2 * wrap + same_rank
        for t in range(13):
            for r in range(13):
                d = abs(r - t)
                adj[t, r] = 1.0 if d == 1 or (wrap and d == 12) or (same_rank and d == 0) else 0.0
    for r in range(13):  # the observation holds counts / 4; rint undoes the float32 rounding
        hand[r] = np.rint(row[hand_at + r] * 4.0)
    # What the opponent can play on a top of each rank: their visible layout, or the
    # expected count from the cards I cannot place (their hand is a draw from those).
    if japanese:
        for r in range(13):
            opp[r] = np.rint(row[layout_at + r] * 4.0)
    else:
        for r in range(13):
            opp[r] = np.rint(row[unknown_at + r] * 4.0)
        scale = row[cards_at] * hand_size / max(opp.sum(), 1.0)
        for r in range(13):
            opp[r] *= scale
    for t in range(13):
        acc = 0.0
        for r in range(13):
            if adj[t, r] != 0.0:  # the other terms add +0.0 (opp >= 0): the same sum
                acc += opp[r] * adj[t, r]
        opp_options[t] = acc
    # Run kept: the longest sequence (up to 4) of my other cards following a new top r.
    # Four steps never come back to r itself, so the card just played needs no removing.
    for r in range(13):
        best = 0.0
        for step in (1, -1):
            length = 0.0
            rank = r
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
    out[0] = -1e6  # waiting only when nothing else is legal
    # A play-out flip choice (stuck, my stock empty): the card is put down at the flip.
    choosing = plan and play_out and row[phase_at] > 0.5
    # Seat 0 flips first: its card goes under seat 1's stock flip (onto pile 1) or under
    # seat 1's own flip choice (in flight to its pile while stuck).
    first = row[seat_at] < 0.5
    if choosing:
        for r in range(13):
            acc = 0.0
            for s in range(13):
                acc += adj[r, s] * (hand[s] - (1.0 if s == r else 0.0))
            links[r] = acc
    opp_joker = np.rint(row[layout_at + 13] * 4.0) if nr == 14 else 0.0  # 14 ranks: jokers
    for k in range(2):
        flying = row[flight_at + nr + k]
        before = 0.0
        for t in range(13):
            before += row[top_at + k * nr + t] * opp_options[t]
        # Covering my own joker gives the pile back to the opponent.
        cover = w_keep if plan and nr == 14 and row[joker_at + 2 * k] > 0.5 else 0.0
        buried = choosing and first and (flying > 0.5 or (k == 1 and row[cards_at + 1] > 0.0))
        for r in range(13):
            if buried:
                out[1 + 2 * r + k] = -w_flip * links[r]
            elif choosing:
                out[1 + 2 * r + k] = w_run * run[r] + w_deny * (before - opp_options[r])
            else:
                out[1 + 2 * r + k] = (
                    w_run * run[r] - w_flying * flying + w_deny * (before - opp_options[r]) - cover
                )
        if nr == 14:
            if not plan:
                out[1 + 2 * 13 + k] = -w_flying * flying
            elif buried:
                out[1 + 2 * 13 + k] = -w_flip * 4.0  # a joker wasted under a flip
            else:
                # My joker on the pile: no opponent card, joker included, may go there. It
                # goes on whatever card of theirs lands first, unless that card is their
                # joker; a flip choice is put down whatever the top.
                race = flying if row[flight_at + 13] > 0.5 and not choosing else 0.0
                joker = w_joker - w_flying * race + w_deny * (before + opp_joker)
                out[1 + 2 * 13 + k] = joker
    if not plan:
        return  # variant moves stay 0: plain plays to the first chain
    base = 1 + 2 * nr
    if stack_on:
        for r in range(13):
            out[base + r] = w_stack
        base += nr
    if multi_on:
        for r in range(13):
            for k in range(2):
                out[base + 2 * r + k] = out[1 + 2 * r + k] + w_multi * (hand[r] - 1.0)


@njit(cache=True)
def _scores(
    obs: np.ndarray,
    n_actions: int,
    at: np.ndarray,
    nr: int,
    hand_sizes: np.ndarray,
    tag: np.ndarray,
    w: np.ndarray,
) -> np.ndarray:
    """Score of every action per row (before masking and tie-breaks); ``at`` holds slice starts.

    ``at`` = the starts of the observation slices ``_FIELDS_READ``; ``tag`` =
    where, inside the ``rules`` field, the flags ``_FLAGS`` are; ``w`` = the
    weights in ``ChainWeights``' order. Each row's rules come from its own
    ``rules`` field. Compiled: :meth:`ChainAgent.act` is called once per tick of
    a Python env's games, where numpy's per-call overhead on these small (n, 13)
    arrays cost about 2 ms a call (the training env's kernel scores its rows one
    at a time by :func:`act_row`, through the same :func:`_score_row`).
    """
    out = np.zeros((obs.shape[0], n_actions))
    work = work_arrays(n_actions)
    for i in range(obs.shape[0]):
        _score_row(obs[i], out[i], at, nr, hand_sizes, tag, w, work)
    return out


def tied_best(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """bool ``(n, n_actions)``: the legal actions scoring within 1e-9 of the row's best.

    That is the set ``chain`` breaks at random: a clone is taught the set, not the coin.
    """
    legal = mask > 0
    scores = np.where(legal, scores, -np.inf)
    return (scores >= scores.max(axis=1, keepdims=True) - 1e-9) & legal


@functools.lru_cache(maxsize=8)  # read on every call; building the layout costs ~30 us
def _slices(dim: int) -> tuple[np.ndarray, int]:
    """Starts of the fields the bot reads, and the rank count, for ``dim``-float observations.

    The array is shared between calls: read it, never write it.
    """
    lay = layout_for_dim(dim)
    return np.array([lay[k].start for k in _FIELDS_READ], np.int64), lay["hand"].stop - lay[
        "hand"
    ].start


@njit(cache=True)
def act_row(
    obs: np.ndarray,
    b: int,
    legal: np.ndarray,
    at: np.ndarray,
    nr: int,
    hand_sizes: np.ndarray,
    tag: np.ndarray,
    w: np.ndarray,
    rng: np.random.Generator,
    work: Work,
) -> int:
    """:meth:`ChainAgent.act` on row ``b`` of ``obs`` alone, for a compiled caller.

    It draws the same tie-breaks from ``rng`` as ``act`` on a batch whose row
    this is (a draw per action, in order), so a caller that plays the rows of
    a batch in order gets, action for action, what one call of ``act`` gives.
    The other arguments are :meth:`ChainAgent.kernel_args`, and ``work`` the
    caller's :func:`work_arrays` (made once for many calls: making them costs
    about as much as the scoring).
    """
    scores = work[0]
    scores[:] = 0.0
    _score_row(obs[b], scores, at, nr, hand_sizes, tag, w, work)
    best, pick = -np.inf, 0
    for a in range(legal.shape[0]):
        # A draw for every action, legal or not, in order: act's draws on a batch, row by row.
        v = scores[a] + rng.random() * 1e-3
        if legal[a] > 0 and v > best:
            best, pick = v, a
    return pick


class ChainAgent:
    """Scores every legal play by run kept, races avoided and plays denied (see module docstring).

    It plays any two-player rules: each observation says which (its ``rules`` field). With
    more than two players (``rules.players``) it reads the n-seat observation of ``rules``
    (:mod:`agents.chain_party`).
    """

    def __init__(
        self, rules: Rules, seed: int | None = None, weights: ChainWeights | None = None
    ) -> None:
        self.rules = rules
        self.weights = weights or ChainWeights()
        self._tag = np.array([_TAG[flag] for flag in _FLAGS], np.int64)
        self._w_of: ChainWeights | None = None
        self._w = np.zeros(0)
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Restart the tie-breaking generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def kernel_args(
        self, dim: int
    ) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, np.random.Generator]:
        """What :func:`act_row` needs besides the row, for ``dim``-float observations.

        That is the layout, the weights as they are now, and the bot's own tie-breaking
        generator.
        """
        if self._w_of is not self.weights:  # weights may be swapped between calls
            self._w_of, self._w = self.weights, np.array(astuple(self.weights), np.float64)
        at, nr = _slices(dim)
        return at, nr, _HAND_SIZES, self._tag, self._w, self.rng

    def scores(self, obs: np.ndarray, n_actions: int) -> np.ndarray:
        """Every action's score per row of ``obs`` (float64 ``(n, n_actions)``, before masking).

        With more than two players (``rules.players``) ``obs`` is the n-seat observation and
        the terms are :mod:`agents.chain_party`'s, over every opponent and pile.
        """
        obs = np.ascontiguousarray(obs, np.float32)
        if self.rules.players > 2:
            return self._party_scores(obs, int(n_actions))
        at, nr, hand_sizes, tag, w, _ = self.kernel_args(obs.shape[1])
        return _scores(obs, int(n_actions), at, nr, hand_sizes, tag, w)

    def _party_scores(self, obs: np.ndarray, n_actions: int) -> np.ndarray:
        """:meth:`scores` at a table of three or four (:func:`agents.chain_party.party_scores`)."""
        from agents.chain_party import party_args, party_scores
        from speed_env.party_obs import party_obs_dim

        dim = party_obs_dim(self.rules)
        if obs.ndim != 2 or obs.shape[1] != dim:
            raise ValueError(
                f"chain at {self.rules.players} players reads the n-seat observation of "
                f"{dim} floats a row (speed_env.party_obs), got shape {obs.shape}"
            )
        at, facts = party_args(self.rules)
        w = np.array(astuple(self.weights), np.float64)
        return party_scores(obs, n_actions, at, facts, w)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The highest-scoring legal play per row (random tie-break); wait only if none is legal."""
        scores = self.scores(obs, mask.shape[1])
        scores += self.rng.random(scores.shape) * 1e-3  # the tie-break; act_row draws the same
        scores = np.where(mask > 0, scores, -np.inf)
        return scores.argmax(axis=1)
