"""Vintage Speed: the 1930s turn-based shedding game for 2–10 players (rules in ``aec.py``).

``env(num_players=4, games=5, render_mode=None, **options)`` is its PettingZoo
AEC environment; :mod:`speed_env.vintage.aec` is the documentation page
(actions, observations, rewards, options). The pieces, one concern each:

- :mod:`~speed_env.vintage.aec`: the PettingZoo AEC env, and the game's documentation page.
- :mod:`~speed_env.vintage.single`: :class:`VintageSingleEnv`, one seat as a Gymnasium env, the
  other seats inside.
- :mod:`~speed_env.vintage.pack`: the pack as a data file (``pack.toml``), card kinds and tokens.
- :mod:`~speed_env.vintage.rules`: the options, validated.
- :mod:`~speed_env.vintage.actions`: action ids and their names.
- :mod:`~speed_env.vintage.engine`: the rules of one game on a plain state.
- :mod:`~speed_env.vintage.deal`: the cut, shuffled and explicit deals.
- :mod:`~speed_env.vintage.observation`: the observation vector's layout.
- :mod:`~speed_env.vintage.render`: the table as text.
- :mod:`~speed_env.vintage.worlds`: complete games consistent with one seat's
  observation (hidden cards uniform over the unseen ones), for fair search.
"""

from speed_env.vintage.actions import Actions
from speed_env.vintage.aec import env, raw_env
from speed_env.vintage.deal import DealError
from speed_env.vintage.observation import ObservationLayout
from speed_env.vintage.pack import Pack, PackError, VintageCardError, default_pack, load_pack
from speed_env.vintage.rules import VintageRules, VintageRulesError, make_vintage_rules
from speed_env.vintage.worlds import WorldError, sample_world, sample_worlds

__all__ = [
    "Actions",
    "DealError",
    "ObservationLayout",
    "Pack",
    "PackError",
    "VintageCardError",
    "VintageRules",
    "VintageRulesError",
    "WorldError",
    "default_pack",
    "env",
    "load_pack",
    "make_vintage_rules",
    "raw_env",
    "sample_world",
    "sample_worlds",
]
