"""The failure a job reports: an agent that failed a call, with the spec to blame.

It lives with the run plumbing (:mod:`agents.runtime.jobs` keeps a job's failure and goes on,
:mod:`agents.runtime.ray_jobs` carries it back from a Ray task) so the plumbing needs nothing
from the agent layer; :mod:`agents.specs.guarded` raises it around every call into an agent.
"""

from __future__ import annotations


class AgentFailure(RuntimeError):
    """An agent failed a call (raised, exited, answered wrongly or too late).

    ``str()`` is one line: the agent spec, the call, where it was played and
    what went wrong. ``spec`` is the agent to blame. It pickles with both, so it
    crosses worker processes and Ray tasks intact.
    """

    def __init__(self, message: str, spec: str = "") -> None:
        super().__init__(message, spec)

    @property
    def message(self) -> str:
        """The one-line description."""
        return str(self.args[0])

    @property
    def spec(self) -> str:
        """The agent spec the failure is blamed on."""
        return str(self.args[1])

    def __str__(self) -> str:
        return self.message
