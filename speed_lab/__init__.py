"""Experiments on the kit: what reaction time is worth, and where the bots' strength comes from.

Beside the library (it imports ``speed_env``, ``agents`` and ``train``; nothing
there imports it). Each study runs as ``python -m speed_lab.<name>`` and prints
its table; the research notes (docs/research/) quote their results with the command that made them.
A study ends as ``speed`` does (:func:`agents.runtime.entry.run_main`): Ctrl-C or SIGTERM with
one line (exit 130 or 143), a reader of its table gone (``| head``) quietly with 141.
The reaction sweep (``speed experiment reaction``: win rate against reaction latency, with a
logistic fit) lives in :mod:`agents.reaction_sweep`, since the evaluation card plays one too.

- :mod:`~speed_lab.chain_ablation`: ``chain`` with each score term switched off.
- :mod:`~speed_lab.chain_options`: ``chain``'s planning of the ``japanese`` options.
- :mod:`~speed_lab.variant_matches`: variants of a bot against one opponent on paired deals,
  the rows of the ``chain_*`` studies.
- :mod:`~speed_lab.doomed_race`: racing a card the opponent will beat, or waiting.
- :mod:`~speed_lab.forks`: the decision states the rollout studies continue.
- :mod:`~speed_lab.rollout_gap`: what a rollout-best action gains over ``chain``'s.
- :mod:`~speed_lab.search_gap`: fair and perfect-information search against ``chain``.
- :mod:`~speed_lab.search_departures`: where an agent leaves ``chain``'s choice, and how often
  it leaves it to wait.
- :mod:`~speed_lab.selfplay_probe`: what a learned policy does at its decisions: does it wait,
  which card does it pick?
- :mod:`~speed_lab.idle_waiter`: a seat that only waits cannot stall a game to a draw.
- :mod:`~speed_lab.clone_sample_size`: how many recorded games a behaviour clone needs to beat
  chance on held-out games.
- :mod:`~speed_lab.paired_tables`: two agents' gauntlets at the same n-seat table, their
  difference deal by deal.
"""
