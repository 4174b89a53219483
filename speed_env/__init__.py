"""speed_env: real-time Speed as PettingZoo / Gymnasium environments over one batched engine.

Entry points: :func:`parallel_env` (PettingZoo ``ParallelEnv``), :func:`env`
(AEC), :class:`BatchEnv` (thousands of games at once), :class:`SpeedGymEnv`
(single agent, opponent inside, for stable-baselines3), and
``speed_env.vintage`` (the unrelated 1930s turn-based game). Rules:
:class:`Rules` / :func:`make_rules`; reaction profiles:
:mod:`speed_env.reaction`. Importing this package loads numpy, gymnasium,
pettingzoo and numba only (no torch, no matplotlib).
"""

from speed_env import vintage
from speed_env.batch import BatchEnv
from speed_env.cards import CardError, card_str, parse_card, parse_cards
from speed_env.deal import Deal, DealError, deal_from_seed, parse_deal
from speed_env.game import ActionError
from speed_env.observation import RULES_TAG, layout_for_dim, obs_dim, observation_layout, rules_tag
from speed_env.parallel import SpeedParallelEnv, env, parallel_env
from speed_env.policy import Policy, RandomPolicy
from speed_env.reaction import PRESETS as REACTION_PRESETS
from speed_env.reaction import ReactionError, ReactionProfile, make_profile
from speed_env.rules import PRESETS, Rules, RulesError, make_rules
from speed_env.single import SpeedGymEnv

__version__ = "0.1.0"

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
    "vintage",
]
