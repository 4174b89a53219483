"""Real-time Speed as PettingZoo / Gymnasium environments over one batched engine.

Entry points: :func:`parallel_env` (PettingZoo ``ParallelEnv``), :func:`env`
(AEC), :class:`BatchEnv` (thousands of games at once), :class:`SpeedGymEnv`
(single agent, opponent inside, for stable-baselines3), :class:`PartyGymEnv` (the same
for three or four players), :class:`SpeedVectorEnv`
and :class:`SpeedSelfPlayVectorEnv` (Gymnasium vector envs over the batch
engine, what ``gymnasium.make_vec`` builds), and
``speed_env.vintage`` (the unrelated 1930s turn-based game). Rules:
:class:`Rules` / :func:`make_rules`; reaction profiles:
:mod:`speed_env.reaction` (fitted to measured latencies by
:mod:`speed_env.latency_fit`); worlds consistent with one seat's view, for fair
search: :func:`sample_worlds`. Importing this package loads numpy, gymnasium,
pettingzoo and numba only (no torch, no matplotlib), and registers the envs
with PettingZoo's and Gymnasium's registries (:mod:`speed_env.registration`):
``pettingzoo.make("parallel", "speed_env/speed_v1")``,
``gymnasium.make("speed_env/Speed-v1", opponent=...)`` ….
``__version__`` is the kit's version (semantic versioning; ``CHANGELOG.md``).

The envs:

- :mod:`~speed_env.parallel`: the PettingZoo ``ParallelEnv`` (``speed_v1``).
- :mod:`~speed_env.party`: the ``ParallelEnv`` of three or four players (``speed_party_v0``;
  ``parallel_env(..., players=3)``; ``env(...)`` the AEC env over it).
- :mod:`~speed_env.aec`: the AEC env: the parallel env, one seat's turn at a time.
- :mod:`~speed_env.single`: :class:`SpeedGymEnv`, one seat as a Gymnasium env, the opponent
  inside.
- :mod:`~speed_env.party_single`: :class:`PartyGymEnv`, one seat of three or four as a Gymnasium
  env, the other seats inside (``SpeedParty-v0``).
- :mod:`~speed_env.learner_seat`: what the single-seat envs share: the seat and opponent checks,
  the learner's and the opponents' actions, the thinking charge, a reset's draws.
- :mod:`~speed_env.batch`: :class:`BatchEnv`, ``n`` games stepped at once, seat-major.
- :mod:`~speed_env.vector`: Gymnasium vector envs over the batch engine (``make_vec``).
- :mod:`~speed_env.obs_format`: the two observation formats every env offers, dict and box.
- :mod:`~speed_env.pickling`: ``pickle`` and ``copy.deepcopy`` of every env, the whole game kept.
- :mod:`~speed_env.registration`: the envs in PettingZoo's and Gymnasium's registries.
- :mod:`~speed_env.render`: the table drawn as text or as an RGB frame.

The game:

- :mod:`~speed_env.engine`: the batched rules engine, compiled kernels.
- :mod:`~speed_env.step_observe`: one tick of a batch as one compiled pass: step, then observe.
- :mod:`~speed_env.game`: :class:`Games`, a batch of games with their settings, over the engine.
- :mod:`~speed_env.seats`: :class:`SeatGames`, games of two, three or four players straight on
  the engine (what Party Speed's parallel env runs).
- :mod:`~speed_env.party_games`: :class:`PartyGames`, a batch of three- or four-seat games with
  their settings, for ``BatchEnv`` and the vector envs.
- :mod:`~speed_env.party_step`: one tick of a batch of three- or four-seat games as one compiled
  pass: step, then observe.
- :mod:`~speed_env.settings`: :class:`TableSettings`, what every env is built from, checked once.
- :mod:`~speed_env.rules`: the rules as one frozen value, its presets and loaders.
- :mod:`~speed_env.cards`: cards as integer ids, their notation and parsing.
- :mod:`~speed_env.deal`: the seeded deal of each preset, and explicit deals given by a user.
- :mod:`~speed_env.table`: readable views of one game of an engine state, and explicit deals.
- :mod:`~speed_env.rng`: counter-based randomness: a draw is a pure function of (game seed,
  stream, counter).
- :mod:`~speed_env.observation`: the ego-centric observation vector and its published layout.
- :mod:`~speed_env.party_obs`: the ego-centric observation of a seat at a table of three or
  four.
- :mod:`~speed_env.policy`: the ``Policy`` protocol every agent satisfies.
- :mod:`~speed_env.worlds`: worlds consistent with one seat's observation, for fair search.
- :mod:`~speed_env.party_worlds`: worlds consistent with one seat's view of a table of three
  or four, for fair search.
- :mod:`~speed_env.reaction`: reaction-latency profiles: how long after a commit a card lands.
- :mod:`~speed_env.latency_fit`: a reaction profile fitted to measured latencies.
- :mod:`~speed_env.batch_size`: how many games one batch may hold, and the memory it takes.

What the kit's reading of user input shares:

- :mod:`~speed_env.shown`: a value as an error message quotes it, cut to a readable length.
- :mod:`~speed_env.user_file`: the one reader of a user's file (cards, records, rules, profiles,
  deals, manifests): regular files only, bounded, strict JSON, TOML; errors name the file.
- :mod:`~speed_env.strict_json`: JSON as the standard defines it (no key twice, no NaN).
- :mod:`~speed_env._version`: the kit's version, from ``pyproject.toml``'s ``version`` line.

The other game, and a bridge:

- :mod:`~speed_env.vintage`: Vintage Speed, the 1930s turn-based game: engine, envs, worlds.
- :mod:`~speed_env.openspiel`: both games as OpenSpiel games (the ``[openspiel]`` extra).
"""

from speed_env._version import __version__ as __version__
from speed_env.batch import BatchEnv
from speed_env.cards import CardError, card_str, parse_card, parse_cards
from speed_env.deal import Deal, DealError, deal_from_seed, parse_deal
from speed_env.game import ActionError
from speed_env.observation import RULES_TAG, layout_for_dim, obs_dim, observation_layout, rules_tag
from speed_env.parallel import SpeedParallelEnv, env, parallel_env
from speed_env.party_single import PartyGymEnv
from speed_env.policy import Policy, RandomPolicy
from speed_env.reaction import PRESETS as REACTION_PRESETS
from speed_env.reaction import ReactionError, ReactionProfile, make_profile
from speed_env.registration import register_all as _register_all
from speed_env.rules import PRESETS, Rules, RulesError, make_rules
from speed_env.single import SpeedGymEnv
from speed_env.vector import SpeedSelfPlayVectorEnv, SpeedVectorEnv
from speed_env.worlds import WorldError, sample_worlds

_register_all()

__all__ = [
    "PRESETS",
    "REACTION_PRESETS",
    "RULES_TAG",
    "ActionError",
    "BatchEnv",
    "CardError",
    "Deal",
    "DealError",
    "PartyGymEnv",
    "Policy",
    "RandomPolicy",
    "ReactionError",
    "ReactionProfile",
    "Rules",
    "RulesError",
    "SpeedGymEnv",
    "SpeedParallelEnv",
    "SpeedSelfPlayVectorEnv",
    "SpeedVectorEnv",
    "WorldError",
    "card_str",
    "deal_from_seed",
    "env",
    "layout_for_dim",
    "make_profile",
    "make_rules",
    "obs_dim",
    "observation_layout",
    "parallel_env",
    "parse_card",
    "parse_cards",
    "parse_deal",
    "rules_tag",
    "sample_worlds",
    # 1.0.0 listed the other game's package; importing speed_env.registration (above) loads it
    "vintage",
]
