"""The error every agent-spec parser raises, in a module of its own, beneath the rooms.

So the registries (:mod:`agents.specs.registry`), the user-agent loader
(:mod:`agents.specs.user_files`), which subclasses it, and the parsers below the registries
(:mod:`agents.openspiel_bots`'s ``BOT`` argument) all import it without importing each other
back, nor a room above their own.
"""

from __future__ import annotations


class AgentSpecError(ValueError):
    """An agent spec string names no known agent, or carries a bad reaction profile."""
