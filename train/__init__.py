"""Training: the recipes at the top, on one toolkit kept in rooms.

A recipe reads top to bottom (settings, seeding, environment, model, loop, finish) and runs
through ``speed`` (most also as ``python -m train.<recipe>``):

- :mod:`~train.ppo`: real-time Speed with sb3-contrib's MaskablePPO (``speed train realtime``).
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

- :mod:`~train.common`: what every recipe shares: settings, run folder, logs, checkpoints,
  budget.
- :mod:`~train.vec_env`: ``SpeedVecEnv``, hundreds of real-time games as one stable-baselines3
  ``VecEnv``.
- :mod:`~train.realtime`: real-time training's own pieces: the opponent pool, the rank-relative
  policy, human-likeness.
- :mod:`~train.vintage`: vintage expert iteration's pieces: search targets, and how a fit is
  judged.
- :mod:`~train.rllib`: RLlib's multi-agent env and masked module for real-time Speed.

Imports torch and stable-baselines3 only inside the modules that need them.
"""
