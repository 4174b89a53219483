"""``chain``: a planning heuristic for real-time Speed, vectorised over the batch.

Every legal play gets a score from the bot's own observation (the published
slices; never hidden state) and the best one is played; it never waits when
it can play. The terms, each measured against ``greedy`` (see the README):

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

from dataclasses import dataclass

import numpy as np

from speed_env.observation import observation_layout
from speed_env.rules import Rules


@dataclass(frozen=True)
class ChainWeights:
    """Weights of the score terms (in units of "one more card in my run")."""

    run: float = 0.3
    """Per card of mine that can follow the new top in sequence."""
    flying: float = 6.0
    """Penalty for playing onto the pile the opponent's card is flying to."""
    deny: float = 0.5
    """Per play the new top takes away from the opponent (gives, if negative)."""


def _adjacent(rules: Rules) -> np.ndarray:
    """``adj[t, r]`` = 1 when a card of rank ``r`` may go on a top of rank ``t`` (no jokers)."""
    adj = np.zeros((13, 13))
    for t in range(13):
        for r in range(13):
            d = abs(r - t)
            adj[t, r] = d == 1 or (rules.wrap and d == 12) or (rules.same_rank and d == 0)
    return adj


class ChainAgent:
    """Scores every legal play by run kept, races avoided and plays denied (see the module docstring)."""

    def __init__(self, rules: Rules, seed: int | None = None, weights: ChainWeights | None = None) -> None:
        self.rules = rules
        self.weights = weights or ChainWeights()
        self.lay = observation_layout(rules)
        self.nr = rules.n_ranks
        self.adj = _adjacent(rules)
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Restart the tie-breaking generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def _run_length(self, hand: np.ndarray) -> np.ndarray:
        """``out[:, r]``: the longest sequence of my *other* cards that follows a new top ``r``."""
        n = hand.shape[0]
        best = np.zeros((n, 13))
        for step_dir in (1, -1):
            for r in range(13):
                left = hand[:, :13].copy()
                left[:, r] -= 1  # the card just played
                length = np.zeros(n)
                alive = np.ones(n, bool)
                rank = r
                for _ in range(4):
                    rank += step_dir
                    if not 0 <= rank < 13:
                        if not self.rules.wrap:
                            break
                        rank %= 13
                    alive &= left[:, rank] > 0
                    length += alive
                best[:, r] = np.maximum(best[:, r], length)
        return best

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The highest-scoring legal play per row (random tie-break); wait only when none is legal."""
        n = obs.shape[0]
        lay, w, nr = self.lay, self.weights, self.nr
        hand = np.rint(obs[:, lay["hand"]] * 4)
        tops = obs[:, lay["centre_top"]].reshape(n, 2, nr)[:, :, :13]  # one-hot; all zero on a joker
        opp_flight_pile = obs[:, lay["opp_flight"]][:, nr : nr + 2]
        opp_visible = np.rint(obs[:, lay["opp_layout"]] * 4)[:, :13]
        unknown = np.rint(obs[:, lay["unknown"]] * 4)[:, :13]
        opp_hand_size = obs[:, lay["opp_cards"]][:, 0] * self.rules.hand_size

        # What the opponent can play on a top of each rank: visible layout counts, or the
        # expected count from the hidden cards (their hand is a draw from them).
        if self.rules.is_japanese:
            opp_counts = opp_visible
        else:
            total = np.maximum(unknown.sum(axis=1, keepdims=True), 1.0)
            opp_counts = unknown / total * opp_hand_size[:, None]
        opp_options = opp_counts @ self.adj.T  # (n, 13): plays the opponent has on a top of rank t
        run = self._run_length(hand)  # (n, 13)

        scores = np.full(mask.shape, -np.inf)
        scores[:, 0] = -1e6  # waiting only when nothing else is legal
        for k in range(2):
            top_onehot = tops[:, k]  # (n, 13)
            before = (top_onehot * opp_options).sum(axis=1)  # opponent's plays on this pile now
            for r in range(13):
                a = 1 + 2 * r + k
                s = (
                    w.run * run[:, r]
                    - w.flying * opp_flight_pile[:, k]
                    + w.deny * (before - opp_options[:, r])
                )
                scores[:, a] = s
            if nr == 14:
                scores[:, 1 + 2 * 13 + k] = -w.flying * opp_flight_pile[:, k]
        n_base = 1 + 2 * nr
        scores[:, n_base:] = 0.0  # variant moves (stack, multi-play) are plain plays to this bot
        scores += self.rng.random(scores.shape) * 1e-3
        scores = np.where(mask > 0, scores, -np.inf)
        return scores.argmax(axis=1)
