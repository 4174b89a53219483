"""Human play as data: play records, Minari datasets and reaction profiles.

Above ``speed_env`` and ``agents``, below ``train``, ``speed_table`` and ``speed_cli``:

- :mod:`~speed_data.records`: the versioned play record format and its schema check.
- :mod:`~speed_data.recorder`: building records step by step (the table's recorder).
- :mod:`~speed_data.replay`: replaying a record in ``Speed-v1``, compared step by step.
- :mod:`~speed_data.generate`: records from bot play, or a simulated person's
  (``speed data generate``).
- :mod:`~speed_data.person`: a simulated person with known reaction times and a habit.
- :mod:`~speed_data.profile`: a person's reaction profile from their records, by maximum
  likelihood.
- :mod:`~speed_data.minari_env`: the ``Speed-v1`` a Minari dataset recovers.
- :mod:`~speed_data.minari_export`: records as a Minari dataset (the ``[data]`` extra).

Importing this package loads neither Minari nor torch.
"""
