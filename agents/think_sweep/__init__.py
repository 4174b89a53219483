"""What search is worth once it pays for its thinking: ``speed experiment think``.

Each budget (``search`` at several world counts, and a network) plays ``chain`` on paired deals
with its thinking off and charged at multiples of its calibrated cost (and at fixed costs); the
win rates, each budget's break-even cost and the best budget at each level are the results
(docs/think-experiment.md).

- :mod:`~agents.think_sweep.sweep`: the settings, the calibration on choice states and the
  points played (``run_sweep``).
- :mod:`~agents.think_sweep.summary`: the points as the JSON document (``summarise``): win rates,
  break-even costs, the best budget, the network against each search.
- :mod:`~agents.think_sweep.report`: the summary as files: the CSV, the table, the plot.
"""

from __future__ import annotations
