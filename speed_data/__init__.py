"""Human play as data: play records, Minari datasets and reaction profiles.

Above ``speed_env`` and ``agents``, below ``train``, ``speed_table`` and ``speed_cli``:

- :mod:`~speed_data.records`: the versioned play record format and its schema check.
- :mod:`~speed_data.record_check`: a record checked against the game it claims to be (every
  read), and a folder's bad records kept apart.
- :mod:`~speed_data.recorder`: building records step by step (the table's recorder).
- :mod:`~speed_data.replay`: replaying a record in ``Speed-v1``, compared step by step.
- :mod:`~speed_data.generate`: records from bot play, or a simulated person's
  (``speed data generate``).
- :mod:`~speed_data.person`: a simulated person with known reaction times and a habit.
- :mod:`~speed_data.profile`: a person's reaction profile from their records, by maximum
  likelihood.
- :mod:`~speed_data.minari_env`: the ``Speed-v1`` a Minari dataset recovers (the recorded
  opponent replayed, or a kit bot the user names; never an agent the data names).
- :mod:`~speed_data.minari_export`: records as Minari episodes (the ``[data]`` extra).
- :mod:`~speed_data.minari_sink`: a Minari dataset written whole or not at all, streamed.
- :mod:`~speed_data.minari_target`: a dataset's destination checked before play; its staging
  folder.
- :mod:`~speed_data.minari_writer`: Minari's HDF5 writing in a child process.

Importing this package loads neither Minari nor torch.
"""
