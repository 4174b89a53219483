"""Thinking time charged as latency: every agent pays for its own compute (docs/thinking-time.md).

- :mod:`~agents.think.plan`: the modes (``off``, ``declared``, ``calibrated``, ``measured``),
  :class:`ThinkPlan` and the reaction profile a seat plays with once its thinking is charged.
- :mod:`~agents.think.declared`: a cost an agent declares, ``@think=5ms`` in its spec or a
  ``think_ms`` attribute.
- :mod:`~agents.think.states`: the fixed decision states every agent is calibrated on.
- :mod:`~agents.think.calibrate`: an agent's ``act`` timed at batch one on those states, and the
  machine's facts.
- :mod:`~agents.think.record`: the calibration file (``think.json``), written and read back.
- :mod:`~agents.think.measured`: each decision's own wall time, charged as it happens.
"""

from __future__ import annotations
