"""Training: the recipes at the top, on one toolkit kept in rooms.

A recipe reads top to bottom (settings, seeding, environment, model, loop, finish) and runs
through ``speed`` (most also as ``python -m train.<recipe>``):

- :mod:`~train.ppo`: real-time Speed with sb3-contrib's MaskablePPO (``speed train realtime``).
- :mod:`~train.party_ppo`: that recipe at tables of three or four (``speed train realtime
  --players 4``): its env, model file and evaluation at n seats.
- :mod:`~train.exploit_settings`: an exploiter's settings (``speed exploit``'s flags) and their
  checks.
- :mod:`~train.exploit`: a best response to a frozen agent or a fixed mixture, and its score
  against it (``speed exploit``).
- :mod:`~train.exploit_card`: that exploiter trained for a report card and its line on it
  (``speed evaluate --exploit-minutes``).
- :mod:`~train.vintage_ppo`: Vintage Speed with MaskablePPO (``speed train vintage``).
- :mod:`~train.vintage_expert`: vintage expert iteration: search targets distilled into a policy
  network, in rounds (``speed train-expert``).
- :mod:`~train.vintage_value`: a vintage value network V(obs), fitted on games of cheap bots.
- :mod:`~train.bc`: behaviour cloning: a MaskablePPO policy warm-started by imitating a bot.
- :mod:`~train.bc_data`: behaviour cloning from recorded play, a person's or a bot's, into a kit
  model (``speed train bc``).
- :mod:`~train.rllib_ppo`: multi-agent PPO with RLlib on ``speed_v1`` (``speed train-rllib``,
  the ``[ray]`` extra).

A room a job:

- :mod:`~train.policy`: the policy trained: its masked distribution, the rank-relative network,
  the lean PPO, its checkpoints.
- :mod:`~train.common`: what every recipe shares: settings, run folder, logs, budget, flag
  numbers.
- :mod:`~train.vec_env`: ``SpeedVecEnv``, hundreds of real-time games as one stable-baselines3
  ``VecEnv``, and the opponent pool it samples from.
- :mod:`~train.realtime`: how often an agent makes a person's recorded plays (human-likeness).
- :mod:`~train.vintage`: vintage expert iteration's pieces: search targets, and how a fit is
  judged.
- :mod:`~train.rllib`: RLlib's multi-agent env and masked module for real-time Speed.
- :mod:`~train.league`: ``speed train league``, a population trained against its own
  meta-strategy (PSRO), its members trained by the ``ppo`` recipe.

Floors, bottom up: ``policy``, ``common``, ``vec_env``, behaviour cloning (``bc``, then
``bc_data``: human-likeness and train/vintage_expert.py fit and read as they do), ``realtime``,
``vintage``, ``rllib``, then the other recipes (``party_ppo``, ``ppo``, ``exploit_settings``,
``exploit``, ``vintage_ppo``, ``vintage_value``, ``vintage_expert``, ``rllib_ppo``), and
``league`` over them. A module imports only its own floor and those below
(``tests/kit/test_layout.py``).

Imports torch and stable-baselines3 only inside the modules that need them.
"""
