"""``search``: fair rollout search over sampled worlds, a plain ``Policy``.

At a decision (two or more legal actions) the agent samples complete worlds
consistent with its own observation (:func:`speed_env.worlds.sample_worlds`:
hidden cards uniform over the cards it has not seen), continues every world
once per legal action on the batch engine, with ``chain`` playing both seats
after that first tick (and the opponent's first tick), and plays the action
with the best mean result. It sees only ``act(obs, mask)``, so it cannot
cheat: the hidden cards it plays against are guesses.

Every action is continued on the same worlds with the same seeds, so their
latencies, tie breaks and rebuild shuffles are common random numbers and the
comparison between actions is not drowned in the noise of whole games. A
continuation runs to the end of the game (``depth=0``) or for ``depth`` ticks,
then is scored by the card lead: ``0.5 + 0.5 * tanh((their cards - mine) /
scale)``; a finished game scores 1, ½ or 0. On a tie ``chain``'s own choice is
kept, so with no information the agent plays as ``chain``; with ``z > 0`` it
leaves ``chain``'s choice only for an action ahead of it by ``z`` standard
errors (paired over the worlds), since the best of several noisy means is
biased up.

Spec: ``search`` or ``search:worlds=16,depth=40,scale=4,z=0,wait=1,ms_per_world=0``
(a bare number is ``worlds``: ``search:32``). ``wait=0`` never searches a wait
where ``chain`` would play: on the ``japanese`` options most of the search's
departures from ``chain`` are waits (a noisy near-tie: one tick later), and
leaving them out is stronger there (docs/research/japanese-options.md). ``@`` still names the seat's
reaction profile, as for every agent (``search:16@pro``).

Thinking costs time. ``ms_per_world`` charges ``worlds * ms_per_world`` ms to
every play the agent makes: its ``think_ms`` is added to its seat's reaction
profile (every quantile moves by that many ms) where the tournament builds
the seats' reactions (:func:`agents.seat_reaction`), which the reaction-delay
experiments use too. So ``speed experiment reaction`` over ``search:...``
specs asks what its thinking is worth in milliseconds.

At a table of three or four the same search plays every seat: worlds from
the seat's n-seat observation, ``chain`` in every other seat, the continuation
scored as a share of a win (:mod:`agents.search.party`).

The perfect-information variant (the same continuations from the true hidden
cards) is a benchmark only: ``speed_lab/search_gap.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.chain import ChainAgent, tied_best
from agents.search.playout import play_on_with_chain
from agents.search.settings import SearchSettings
from speed_env import engine
from speed_env.game import Games
from speed_env.observation import observation_layout
from speed_env.reaction import make_profile
from speed_env.rules import Rules
from speed_env.worlds import sample_worlds


def continuation_scores(
    rules: Rules,
    worlds: np.ndarray,
    seats: np.ndarray,
    first: np.ndarray,
    settings: SearchSettings,
    seed: int,
) -> np.ndarray:
    """Score (1 win, ½ draw, 0 loss, or the depth cut's card-lead score) of each continuation.

    Continuation ``j`` starts from record ``worlds[j]`` with seat ``seats[j]``
    playing ``first[j]`` on this tick, the other seat ``chain``'s choice, then
    ``chain`` for both for ``settings.depth`` ticks (or to the end). Records
    are copied, never changed.
    """
    n = len(worlds)
    prof = make_profile(settings.reaction)
    g = Games(n, rules, tick_ms=settings.tick_ms, reaction=(prof, prof))
    g.state[:] = worlds  # a copy into the engine's own records: the caller's stay as they were
    obs, mask = g.observe()

    def observed(live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g.observe_games(live, obs, mask)
        return obs, mask

    play_on_with_chain(g.state, g.step, observed, (obs, mask), seats, first, settings, seed, rules)
    rows = np.arange(n)
    s = g.state
    # Cards left to each seat: hand slots (-1 is empty), stacked cards, draw pile, in flight.
    left = (
        (s["hand"][:, :, : rules.hand_size] >= 0).sum(axis=2)
        + s["stk_n"].sum(axis=2)
        + s["draw_n"]
        + s["fl_n"]
    )
    mine, theirs = left[rows, seats], left[rows, 1 - seats]
    score = 0.5 + 0.5 * np.tanh((theirs - mine) / settings.scale)
    w = s["winner"].astype(np.int64)
    over = s["phase"] == engine.OVER
    return np.where(over, np.where(w == seats, 1.0, np.where(w == 1 - seats, 0.0, 0.5)), score)


def best_actions(
    rules: Rules,
    worlds: np.ndarray,
    per_row: int,
    seats: np.ndarray,
    masks: np.ndarray,
    default: np.ndarray,
    settings: SearchSettings,
    seed: int,
    scores: Callable[..., np.ndarray] | None = None,
) -> np.ndarray:
    """Per row, the legal action with the best mean score over its ``per_row`` worlds.

    ``worlds`` holds row ``i``'s worlds at ``i * per_row …``; ``default[i]``
    (``chain``'s choice) wins ties. Shared by the agent (sampled worlds) and
    the perfect-information benchmark (copies of the true record). ``scores``
    scores the continuations (:func:`continuation_scores`'s arguments):
    :func:`continuation_scores` by default, the n-seat one
    (:func:`agents.search.party.party_continuation_scores`) at three or four.
    """
    idx: list[int] = []
    acts: list[int] = []
    owner: list[int] = []
    legal = [np.flatnonzero(m) for m in masks]
    for i, actions in enumerate(legal):
        for a in actions:
            idx.extend(range(i * per_row, (i + 1) * per_row))
            acts.extend([int(a)] * per_row)
            owner.extend([i] * per_row)
    idx_a = np.array(idx, np.int64)
    score = (scores or continuation_scores)(
        rules, worlds[idx_a], seats[np.array(owner)], np.array(acts, np.int64), settings, seed
    )
    out = np.array(default, np.int64)
    at = 0
    for i, actions in enumerate(legal):
        per_world = score[at : at + actions.size * per_row].reshape(actions.size, per_row)
        at += actions.size * per_row
        q = per_world.mean(axis=1)
        mine = actions == default[i]
        q[mine] += 1e-9  # keep chain's choice on a tie
        best = int(q.argmax())
        if settings.z > 0 and mine.any() and per_row > 1:
            lead = per_world[best] - per_world[mine][0]
            # The best of several noisy means is biased up: it must clear z standard errors.
            if lead.mean() < settings.z * lead.std(ddof=1) / np.sqrt(per_row):
                continue
        out[i] = actions[best]
    return out


class SearchAgent:
    """Rollout search over worlds sampled from its own observation (see the module docstring)."""

    def __init__(
        self, rules: Rules, seed: int | None = None, settings: SearchSettings | None = None
    ) -> None:
        self.rules = rules
        self.settings = settings or SearchSettings()
        self.chain = ChainAgent(rules, seed)
        self.rng = np.random.default_rng(seed)
        # The two-seat observation names the seat; the n-seat one is ego-centric and its
        # worlds put the searched seat at seat 0 (agents.search.party).
        self._seat = observation_layout(rules)["seat"].start if rules.players == 2 else -1

    @property
    def think_ms(self) -> float:
        """Milliseconds of thinking charged to each play of this agent (see module docstring)."""
        return self.settings.think_ms

    def reseed(self, seed: int) -> None:
        """Restart the world and tie-breaking generators from ``seed``."""
        self.rng = np.random.default_rng(seed)
        self.chain.reseed(seed)

    def best_set(self, obs: np.ndarray, mask: np.ndarray, chosen: np.ndarray) -> np.ndarray:
        """int8 ``(n, n_actions)``: the actions as good as ``chosen``, this agent's choices.

        These are the labels a student is cloned to, in ``train/bc.py``:

        - where the search kept ``chain``'s choice, every action ``chain`` scores as high, since
          its tie-break is a coin, not a finding;
        - where it left it, the one action the search chose.
        """
        ties = tied_best(self.chain.scores(obs, mask.shape[1]), mask)
        rows = np.arange(len(chosen))
        best = np.zeros(mask.shape, np.int8)
        best[rows, chosen] = 1
        kept = ties[rows, chosen]  # chosen is among chain's ties: the search kept chain's choice
        best[kept] = ties[kept]
        return best

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``chain``'s action where at most one action is legal, the search's elsewhere."""
        out = np.asarray(self.chain.act(obs, mask), np.int64)
        if not self.settings.wait:  # where chain plays, waiting is not a candidate
            mask = mask.copy()
            mask[out != 0, 0] = 0
        rows = np.flatnonzero(mask.sum(axis=1) >= 2)
        if rows.size == 0:
            return out
        w = self.settings.worlds
        scores = None
        if self.rules.players == 2:
            worlds = sample_worlds(self.rules, obs[rows], w, self.rng)
            seats = np.rint(obs[rows, self._seat]).astype(np.int64)
        else:
            from agents.search.party import party_continuation_scores
            from speed_env.party_worlds import sample_party_worlds

            worlds = sample_party_worlds(self.rules, obs[rows], w, self.rng)
            seats = np.zeros(rows.size, np.int64)
            scores = party_continuation_scores
        out[rows] = best_actions(
            self.rules,
            worlds,
            w,
            seats,
            mask[rows],
            out[rows],
            self.settings,
            int(self.rng.integers(2**31)),  # one seed per call: the same for every action
            scores,
        )
        return out
