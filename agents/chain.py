"""``chain``: a planning heuristic for real-time Speed, vectorised over the batch.

Every legal play gets a score from the bot's own observation (the published
slices; never hidden state) and the best one is played; it never waits when
it can play. Each observation's ``rules`` field says which rules its game is
played under, so one ``chain`` bot plays every preset and option correctly. The terms, each measured against ``greedy`` (see the README):

- **keep a run going**: after the play, how many of my other cards follow in
  sequence from the new top (holding 5, 6, 7 on a 4: play the 5 first);
- **don't race for a pile the opponent's card is already flying to**: a card
  committed after theirs lands after theirs, and bounces unless it still fits;
- **leave the opponent less**: how many plays the new top offers the opponent
  compared with the old top, counted from their face-up layout in
  ``japanese`` and estimated from the cards whose place I cannot see otherwise.

Measured with ``benchmarks/chain_ablation.py`` (8,000 paired games a row):
the flying and deny terms carry the edge (each, switched off, costs 3–6
points); the run term helps only when weighted lightly; a fourth idea,
avoiding the pile the opponent can play on now, cost about 2 points and was
dropped.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

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


_FIELDS_READ = ("hand", "centre_top", "opp_flight", "opp_layout", "unknown", "opp_cards", "rules")
_TAG = {name: j for j, name in enumerate(RULES_TAG)}
# Hand (or layout) slots of each preset, in RULES_TAG's preset order.
_HAND_SIZES = np.array([Rules(preset=p).hand_size for p in PRESETS], np.float64)


@njit(cache=True)
def _scores(obs: np.ndarray, n_actions: int, at: np.ndarray, nr: int, hand_sizes: np.ndarray,
            tag: np.ndarray, w_run: float, w_flying: float, w_deny: float) -> np.ndarray:
    """Score of every action per row (before masking and tie-breaks); ``at`` holds slice starts.

    ``at`` = the starts of the observation slices ``_FIELDS_READ``; ``tag`` =
    where, inside the ``rules`` field, the flags ``japanese``, ``wrap`` and
    ``same_rank`` are. Each row's rules come from its own ``rules`` field.
    Compiled: the bot is called once per tick of every training rollout, where
    numpy's per-call overhead on these small (n, 13) arrays cost about 2 ms a call.
    """
    hand_at, top_at, flight_at, layout_at, unknown_at, cards_at = at[0], at[1], at[2], at[3], at[4], at[5]
    rules_at = at[6]
    n = obs.shape[0]
    out = np.zeros((n, n_actions))
    opp = np.zeros(13)
    opp_options = np.zeros(13)
    run = np.zeros(13)
    hand = np.zeros(13)
    adj = np.zeros((13, 13))
    for i in range(n):
        row = obs[i]
        preset = 0
        for p in range(hand_sizes.shape[0]):
            if row[rules_at + p] > 0.5:
                preset = p
        hand_size = hand_sizes[preset]
        japanese = row[rules_at + tag[0]] > 0.5
        wrap = row[rules_at + tag[1]] > 0.5
        same_rank = row[rules_at + tag[2]] > 0.5
        # adj[t, r] = 1 when a card of rank r may go on a top of rank t (jokers aside).
        for t in range(13):
            for r in range(13):
                d = abs(r - t)
                adj[t, r] = 1.0 if d == 1 or (wrap and d == 12) or (same_rank and d == 0) else 0.0
        for r in range(13):
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
        out[i, 0] = -1e6  # waiting only when nothing else is legal
        for k in range(2):
            flying = row[flight_at + nr + k]
            before = 0.0
            for t in range(13):
                before += row[top_at + k * nr + t] * opp_options[t]
            for r in range(13):
                out[i, 1 + 2 * r + k] = w_run * run[r] - w_flying * flying + w_deny * (before - opp_options[r])
            if nr == 14:
                out[i, 1 + 2 * 13 + k] = -w_flying * flying
        # Variant moves (stack, multi-play) past 1 + 2 * nr stay 0: plain plays to this bot.
    return out


@functools.cache
def _slices(dim: int) -> tuple[np.ndarray, int]:
    """Starts of the fields the bot reads, and the number of ranks, for observations of ``dim`` floats."""
    lay = layout_for_dim(dim)
    return np.array([lay[k].start for k in _FIELDS_READ], np.int64), lay["hand"].stop - lay["hand"].start


class ChainAgent:
    """Scores every legal play by run kept, races avoided and plays denied (see the module docstring).

    It plays any rules: each observation says which (its ``rules`` field), so
    ``rules`` is taken only for the signature every agent builder shares.
    """

    def __init__(self, rules: Rules, seed: int | None = None, weights: ChainWeights | None = None) -> None:
        self.rules = rules
        self.weights = weights or ChainWeights()
        self._tag = np.array([_TAG["japanese"], _TAG["wrap"], _TAG["same_rank"]], np.int64)
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Restart the tie-breaking generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def scores(self, obs: np.ndarray, n_actions: int) -> np.ndarray:
        """Every action's score per row of ``obs`` (float64 ``(n, n_actions)``, before masking)."""
        w = self.weights
        obs = np.ascontiguousarray(obs, np.float32)
        at, nr = _slices(obs.shape[1])
        return _scores(obs, int(n_actions), at, nr, _HAND_SIZES, self._tag,
                       float(w.run), float(w.flying), float(w.deny))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The highest-scoring legal play per row (random tie-break); wait only when none is legal."""
        scores = self.scores(obs, mask.shape[1])
        scores += self.rng.random(scores.shape) * 1e-3
        scores = np.where(mask > 0, scores, -np.inf)
        return scores.argmax(axis=1)
