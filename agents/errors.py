"""The error every agent-spec parser raises, in a module of its own.

So the registries (:mod:`agents.specs.registry`) and the user-agent loader
(:mod:`agents.specs.user_files`), which subclasses it, both import it without importing each
other back; beneath every room, so :mod:`agents.openspiel_bots`, below the registries, too.
"""

from __future__ import annotations


class AgentSpecError(ValueError):
    """An agent spec string names no known agent, or carries a bad reaction profile."""
