"""The agent side of a game, asked of its one agent registry.

Both games answer ``model_kind``, ``env_ids``, ``knows``, ``available`` and ``parse_spec``
the same way, from their :class:`~agents.specs.registry.Registry`: a game's plug-in inherits
:class:`RegistryAgents` and names its registry, so the forwarding is written once.
"""

from __future__ import annotations

from agents.specs.registry import AgentSpec, Registry


class RegistryAgents:
    """What a :class:`agents.tournament.game.Game` asks of its agents, from ``registry``."""

    name: str
    registry: Registry

    @property
    def model_kind(self) -> str | None:
        """The kind that plays a saved model file."""
        return self.registry.model_kind

    def env_ids(self) -> tuple[str, ...]:
        """The registered ids of its envs (the current versions)."""
        from agents.evaluate.protocol import env_ids

        return tuple(env_ids(self.name))

    def knows(self, spec: str) -> bool:
        """Whether ``spec`` names one of its agent kinds."""
        return self.registry.knows(spec)

    def available(self) -> dict[str, str]:
        """Its agent names, a line each."""
        return self.registry.available()

    def parse_spec(self, spec: str) -> AgentSpec:
        """``spec`` checked against its agent kinds (``name[:arg][@...]``, as the game reads it)."""
        return self.registry.parse_spec(spec)


__all__ = ["RegistryAgents"]
