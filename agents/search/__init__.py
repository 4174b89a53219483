"""``search``: fair rollout search over worlds sampled from the seat's own view, any seat count.

- :mod:`~agents.search.settings`: its budget and world model, parsed from its spec.
- :mod:`~agents.search.agent`: the agent, its decision rule and the two-seat continuations.
- :mod:`~agents.search.party`: its continuations and their score at a table of three or four.
- :mod:`~agents.search.playout`: a continuation played on by ``chain``, at any seat count.

The public names are re-exported here (``from agents.search import SearchAgent``).
"""

from __future__ import annotations

from agents.search.agent import SearchAgent, best_actions, continuation_scores
from agents.search.settings import SearchSettings, parse_settings

__all__ = [
    "SearchAgent",
    "SearchSettings",
    "best_actions",
    "continuation_scores",
    "parse_settings",
]
