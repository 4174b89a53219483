"""Training: two recipes on one toolkit.

The recipes read top to bottom (settings, seeding, environment, model, loop,
finish) and run as modules: ``python -m train.ppo`` (real-time Speed) and
``python -m train.vintage_ppo`` (Vintage Speed), or ``speed train realtime`` /
``speed train vintage`` (:mod:`train.common.cli_args`). What they share:
:mod:`train.common.settings` (the settings dataclasses and the flags made from them),
:mod:`train.common.run_folder` (``OUT``: config, state, summary), :mod:`train.common.run`
(checkpoints, evaluations, the SB3 callback, the progress bar, the loop),
:mod:`train.common.curves` (``eval.csv``, ``curves.png``), :mod:`train.common.checkpoint`
and :mod:`train.bc` (behaviour cloning). :mod:`train.vec_env.env` steps real-time
games on the batch engine; :mod:`train.rllib_ppo` is the RLlib recipe.

Imports torch and stable-baselines3 only inside the modules that need them.
"""
