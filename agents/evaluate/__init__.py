"""``speed evaluate``: a fixed protocol, a report card, ratings anchored on a reference pool.

- :mod:`~agents.evaluate.protocol`: the evaluation protocol, versioned data, the card's
  manifest, and the registry of each game's card (:class:`CardGame`).
- :mod:`~agents.evaluate.plan`: the games a card plays, as a plan of chunked jobs.
- :mod:`~agents.evaluate.summary`: a played plan's numbers, per pairing or table.
- :mod:`~agents.evaluate.make_card`: play an agent through the protocol and make its card.
- :mod:`~agents.evaluate.card_folder`: a card's life in its output folder, played as a
  tournament's (lock, chunk log, an interrupted card going on where it stopped).
- :mod:`~agents.evaluate.rating`: ratings anchored on the reference pool.
- :mod:`~agents.evaluate.alpharank`: α-Rank of the agent among the reference pool.
- :mod:`~agents.evaluate.make_anchors`: the reference pool's round robin (``python -m``).
- :mod:`~agents.evaluate.agent_files`: the data files building an agent reads, and their SHA-256.
- :mod:`~agents.evaluate.card_check`: a card re-verified from its counts before anyone ranks it.
- :mod:`~agents.evaluate.exploiter`: the exploiter's line of a card (``--exploit-minutes``): its
  section, its lines on the card's page and its column on the leaderboard.
- :mod:`~agents.evaluate.report`: a card as files a person reads, and the leaderboard.
- :mod:`~agents.evaluate.realtime`: real-time Speed's card, as the shared card code asks it.
- :mod:`~agents.evaluate.vintage`: Vintage Speed's card: its protocol, tables, results,
  checks and page.
- :mod:`~agents.evaluate.thinking`: real-time protocol 2, every agent's thinking charged: the
  costs, the plan's charged and free pairings, the card's check and its page section.
- :mod:`~agents.evaluate.think_costs`: the reference bots' thinking calibrated, shipped as
  protocol 2's costs (``python -m``).
- :mod:`~agents.evaluate.report_text`: the text a card shows: escaped, cut at a word, in units.
- :mod:`~agents.evaluate.replications`: cards of one agent on a leaderboard, marked as such.

The package re-exports the public names of the module it replaced (``agents.evaluate``).
"""

from __future__ import annotations

from agents.evaluate.make_card import CARDS, anchors_file, card, decision_cost, load_anchors, rate
from agents.evaluate.plan import (
    EvaluationError,
    Plan,
    make_plan,
    plan_realtime,
    run_plan,
)
from agents.evaluate.summary import summarise_realtime

__all__ = [
    "CARDS",
    "EvaluationError",
    "Plan",
    "anchors_file",
    "card",
    "decision_cost",
    "load_anchors",
    "make_plan",
    "plan_realtime",
    "rate",
    "run_plan",
    "summarise_realtime",
]
