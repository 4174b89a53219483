"""The tournament side of a game, asked of its one chunk module.

Both games' tournaments answer ``result_type``, ``chunk_deals``, ``agents``, ``plan``,
``agent_files``, ``run`` and ``summarise`` the same way, from their chunk module
(:mod:`agents.tournament.realtime`, :mod:`agents.tournament.vintage`): a game's tournament
inherits :class:`ChunkModuleTournament` and names its module (imported on first use, so
listing the games stays light), so the forwarding is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from agents.runtime.jobs import Backend
from agents.tournament.harness import Chunk
from speed_env.policy import Policy


class ChunkModuleTournament:
    """What :class:`agents.tournament.game.Tournament` asks that a chunk module answers."""

    settings: Any

    def chunks(self) -> ModuleType:
        """The module that plans, plays and summarises this game's chunks."""
        raise NotImplementedError

    def builder(self, spec: str) -> Callable[[], Policy]:
        """What builds the agent ``spec`` (for the files it reads)."""
        raise NotImplementedError

    def run_options(self) -> dict[str, Any]:
        """The game's own keyword arguments to its module's ``run`` (none by default)."""
        return {}

    @property
    def result_type(self) -> type:
        """The chunk result's class."""
        result_type: type = self.chunks().ChunkResult
        return result_type

    @property
    def chunk_deals(self) -> int:
        """Deals a chunk holds."""
        deals: int = self.chunks().CHUNK_DEALS
        return deals

    @property
    def agents(self) -> tuple[str, ...]:
        """The agent specs."""
        agents: tuple[str, ...] = self.settings.agents
        return agents

    def plan(self) -> list[Chunk]:
        """The chunks, line-up by line-up."""
        chunks: list[Chunk] = self.chunks().plan(self.settings)
        return chunks

    def agent_files(self) -> dict[str, dict[str, str]]:
        """Per agent, the files building it reads (a missing model file fails here)."""
        from agents.evaluate.agent_files import spec_files

        return {spec: spec_files(spec, self.builder(spec)) for spec in self.agents}

    def run(
        self,
        *,
        workers: int,
        progress: Callable[[int, int], None] | None,
        backend: Backend | None,
        done: Mapping[int, Any] | None,
        on_result: Callable[[Any], None] | None,
    ) -> tuple[list[Any], bool]:
        """Play the chunks not ``done``."""
        played: tuple[list[Any], bool] = self.chunks().run(
            self.settings,
            workers=workers,
            progress=progress,
            backend=backend,
            done=done,
            on_result=on_result,
            **self.run_options(),
        )
        return played

    def summarise(self, results: list[Any]) -> dict[str, Any]:
        """The ``results.json`` document."""
        summary: dict[str, Any] = self.chunks().summarise(self.settings, results)
        return summary


__all__ = ["ChunkModuleTournament"]
