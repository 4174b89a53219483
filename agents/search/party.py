"""``search`` at a table of three or four (Party Speed): continuations and their score.

:class:`~agents.search.agent.SearchAgent` plays here whenever its rules seat more than
two. Everything else is the two-seat search's: the same decision rule
(:func:`~agents.search.agent.best_actions`: the best mean over the worlds, ``chain``'s
choice kept on a tie, ``z`` and ``wait`` as there), the same spec and the same
thinking charge. What changes with the seat count:

- **worlds**: :func:`speed_env.party_worlds.sample_party_worlds`, from the
  searched seat's own n-seat observation only (hidden cards uniform over the
  cards it does not show); the observation is ego-centric, so every world has
  the searched seat at seat ``0``;
- **continuations**: on the n-seat engine (:class:`speed_env.party_games.PartyGames`),
  ``chain`` (:mod:`agents.chain_party`) playing every other seat, and the
  searched seat after its first tick;
- **score**, on the scale of a win probability, for the searched seat: 1 when
  the continuation ends in its win, 0 in another seat's, ``1/n`` (its share)
  when it ends undecided (a draw, a locked table, the clock). At the depth cut
  the card counts score it: ``softmax(-2 * cards left / scale)`` over the seats,
  taken at the searched seat. With two seats that is exactly the two-seat
  search's ``0.5 + 0.5 * tanh((their cards - mine) / scale)``, and it is never
  more than the seat's share when every seat holds as many cards as it does.
  A seat's reward is linear in its chance to win (+1, or -1/(n-1) to each
  loser), so the best expected score is the best expected reward.
"""

from __future__ import annotations

import numpy as np

from agents.search.playout import play_on_with_chain
from agents.search.settings import SearchSettings
from speed_env import engine
from speed_env.party_games import PartyGames
from speed_env.reaction import make_profile
from speed_env.rules import Rules


def party_continuation_scores(
    rules: Rules,
    worlds: np.ndarray,
    seats: np.ndarray,
    first: np.ndarray,
    settings: SearchSettings,
    seed: int,
) -> np.ndarray:
    """Score of each continuation for seat ``seats[j]`` (module docstring), at n seats.

    Continuation ``j`` starts from n-seat record ``worlds[j]`` with seat
    ``seats[j]`` playing ``first[j]`` on this tick, every other seat ``chain``'s
    choice, then ``chain`` for every seat for ``settings.depth`` ticks (or to
    the end). Records are copied, never changed.
    """
    n, players = len(worlds), rules.players
    prof = make_profile(settings.reaction)
    g = PartyGames(n, rules, tick_ms=settings.tick_ms, reaction=prof)
    g.state[:] = worlds  # a copy into the engine's own records: the caller's stay as they were
    play_on_with_chain(
        g.state,
        g.step_observe,
        lambda live: (g.obs_buf, g.mask_buf),  # every game's rows, rewritten by the step
        g.observe(),
        seats,
        first,
        settings,
        seed,
        rules,
    )
    rows = np.arange(n)
    s = g.state
    # Cards left to each seat: hand slots (-1 is empty), draw pile, in flight.
    left = (s["hand"][:, :, : rules.hand_size] >= 0).sum(axis=2) + s["draw_n"] + s["fl_n"]
    logits = -2.0 * left / settings.scale
    logits -= logits.max(axis=1, keepdims=True)
    share = np.exp(logits)
    score = share[rows, seats] / share.sum(axis=1)
    w = s["winner"].astype(np.int64)
    over = s["phase"] == engine.OVER
    decided = (w >= 0) & (w < players)
    result = np.where(decided, (w == seats).astype(np.float64), 1.0 / players)
    return np.where(over, result, score)
