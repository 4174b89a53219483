"""Speed bots behind the batch ``Policy`` protocol, built from spec strings.

``make("greedy")``, ``make("chain@pro")``, ``make("random@200")``: a name, then optionally ``@``
and a reaction profile (ms or a preset name) that the tournament gives the bot's seat.
``available()`` lists the names with a line each; ``make`` builds any game's agent, the game
whose registry knows the name (:mod:`agents.games.registry`).

Real-time bots, at the top:

- :mod:`~agents.greedy`: ``greedy``, plays a legal card as soon as it can.
- :mod:`~agents.chain_party`: ``chain``'s terms at a table of three or four (Party Speed).
- :mod:`~agents.chain`: ``chain``, a planning heuristic, vectorised over the batch.
- :mod:`~agents.search`: ``search``, fair rollout search over sampled worlds, any seat count.
- :mod:`~agents.openspiel_bots`: any OpenSpiel bot as a seat (``openspiel:``).

The error every spec parser raises, in a room beneath the bots and the registries:

- :mod:`~agents.errors`: :class:`AgentSpecError`, the one error every spec parser raises.

Statistics both games' results use:

- :mod:`~agents.stats`: 95% intervals, clustered means, Bradley–Terry ratings, bootstraps.
- :mod:`~agents.alpharank`: α-Rank beside Bradley–Terry, a ranking that sees cycles.

A room a job:

- :mod:`~agents.specs`: spec strings to agents, the registry grammar, calls into an agent.
- :mod:`~agents.vintage`: Vintage Speed's bots, search and value network.
- :mod:`~agents.model_io`: learned policies on disk, for both games.
- :mod:`~agents.league`: a population's meta-strategy (Nash by a linear program, α-Rank) and the
  ``league:DIR`` agent that plays it.
- :mod:`~agents.tournament`: tournaments of both games, their chunk log and their reports.
- :mod:`~agents.evaluate`: ``speed evaluate``: the protocol, report cards, anchored ratings.
- :mod:`~agents.games`: each game as one object the commands ask (``load_game``), and
  ``make`` over every game's agents.
- :mod:`~agents.reaction_sweep`: ``speed experiment reaction``: win rate against latency.
- :mod:`~agents.think_sweep`: ``speed experiment think``: what search is worth once it pays for
  its thinking.
- :mod:`~agents.runtime`: job backends, run locks, safe files, progress bars, figures.
- :mod:`~agents.think`: thinking time charged as latency: declared, calibrated or measured.

Floors, bottom up: ``errors``, ``runtime``, ``stats``, ``alpharank``, ``model_io``, the bots
(``greedy``, ``chain``, ``search``, ``openspiel_bots``), ``think``, ``league``, ``specs``,
``vintage``, ``tournament``, ``reaction_sweep``, ``think_sweep``, ``evaluate``. A module imports
only its own floor and those below (``tests/kit/test_layout.py``, which names the two arrows
still against it).

Data: ``models/`` (the bundled learned agents) and ``cards/`` (the rating anchors and the
bundled agents' report cards).
"""

from __future__ import annotations

from agents.errors import AgentSpecError
from agents.games.registry import available, make, parse_spec
from agents.specs.realtime import REALTIME, register, seat_reaction
from agents.specs.registry import AgentEntry, AgentSpec

__all__ = [
    "REALTIME",
    "AgentEntry",
    "AgentSpec",
    "AgentSpecError",
    "available",
    "make",
    "parse_spec",
    "register",
    "seat_reaction",
]
