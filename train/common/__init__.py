"""What every training recipe shares: settings, run folder, logs, budget, flag numbers.

- :mod:`~train.common.settings`: a run's settings and the flags made from them.
- :mod:`~train.common.sizes`: the sizes a run may ask for (layers, stored decisions, memory),
  refused by flag before anything is allocated.
- :mod:`~train.common.recipes`: the training recipes, by game: the one place that lists them.
- :mod:`~train.common.cli_args`: ``speed train``'s parser, a subcommand a game.
- :mod:`~train.common.run`: the mechanics of a run, the same for both recipes.
- :mod:`~train.common.progress`: a run's progress bar (tqdm), the lines it prints above it.
- :mod:`~train.common.throughput`: a run's timesteps a second and where the loop's time went.
- :mod:`~train.common.run_folder`: what a run leaves in ``--out``, and resuming from it.
- :mod:`~train.common.run_logs`: SB3's logs, continued on resume, not truncated.
- :mod:`~train.common.numbers`: the numbers of flags, refused unless they can be meant.
- :mod:`~train.common.curves`: ``eval.csv`` and ``curves.png``.
- :mod:`~train.common.global_rng`: the global random generators, put back after an
  evaluation in the loop, so evaluating never changes what is trained.
- :mod:`~train.common.paired_score`: a model's score against agents over paired deals, with
  its interval.
- :mod:`~train.common.snapshots`: self-play snapshots of the learner, saved in the run's pool
  and loaded again on resume.
- :mod:`~train.common.warm_start`: a warm start's model, checked against the network it is to
  start.
- :mod:`~train.common.budget`: the numbers a run uses, and the line when they are not the ones
  asked.
- :mod:`~train.common.target_cost`: a frozen target's ``act`` timed before a run, and the
  training rate it leaves (the estimate ``speed exploit`` prints).
- :mod:`~train.common.think`: thinking time charged to the frozen agents a learner trains
  against (``speed exploit``, the league).
"""

from __future__ import annotations
