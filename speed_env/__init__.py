"""speed_env: real-time Speed as PettingZoo / Gymnasium environments over one batched engine.

Entry points: :func:`parallel_env` (PettingZoo ``ParallelEnv``), :func:`env`
(AEC), :class:`BatchEnv` (thousands of games at once), :class:`SpeedGymEnv`
(single agent, opponent inside, for stable-baselines3), :class:`SpeedVectorEnv`
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
"""

from speed_env import vintage
from speed_env._version import __version__ as __version__
from speed_env.batch import BatchEnv
from speed_env.cards import CardError, card_str, parse_card, parse_cards
from speed_env.deal import Deal, DealError, deal_from_seed, parse_deal
from speed_env.game import ActionError
from speed_env.observation import RULES_TAG, layout_for_dim, obs_dim, observation_layout, rules_tag
from speed_env.parallel import SpeedParallelEnv, env, parallel_env
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
    "vintage",
]
