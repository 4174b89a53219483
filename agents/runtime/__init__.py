"""Run plumbing shared by tournaments, sweeps, evaluations and training runs.

- :mod:`~agents.runtime.jobs`: independent deterministic jobs, here or on Ray; Ctrl-C keeps what
  finished.
- :mod:`~agents.runtime.failures`: :class:`AgentFailure`, an agent that failed a call, the spec to
  blame.
- :mod:`~agents.runtime.ray_jobs`: the ``ray`` backend of :func:`~agents.runtime.jobs.run_jobs`.
- :mod:`~agents.runtime.run_lock`: one writer per output folder for the whole run.
- :mod:`~agents.runtime.run_identity`: which run a folder holds (``run.json``), so a finished
  result is never replaced.
- :mod:`~agents.runtime.files`: the one atomic writer (a user's file is read by
  :mod:`speed_env.user_file`).
- :mod:`~agents.runtime.progress`: the progress bar of chunked runs.
- :mod:`~agents.runtime.plotting`: matplotlib set up once, figures written atomically.
- :mod:`~agents.runtime.interrupts`: SIGTERM raised as Ctrl-C is; both held back over a block
  and raised when it ends.
- :mod:`~agents.runtime.entry`: a program's entry point: how a Ctrl-C, a SIGTERM and a reader
  gone from stdout end it.
- :mod:`~agents.runtime.flags`: command-line flags made from a settings dataclass, one a field.
"""

from __future__ import annotations
