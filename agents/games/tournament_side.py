"""The tournament side of a game, asked of its one chunk module.

Every game's tournament answers ``result_type``, ``chunk_deals``, ``agents``, ``plan``,
``agent_files``, ``run`` and ``summarise`` the same way, from its chunk module
(:mod:`agents.tournament.realtime`, :mod:`agents.tournament.vintage`,
:mod:`agents.tournament.party`), and the line-up games (a table of more than two) answer
``games_used``, ``describe``, ``write``, ``leaderboard`` and ``games_played`` from it and
their report module too. A game's tournament inherits :class:`ChunkModuleTournament` and
names its modules (imported on first use, so listing the games stays light): the forwarding
is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
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

    def report_module(self) -> ModuleType:
        """The module that writes the result files and the leaderboard (the chunk module's own
        by default)."""
        return self.chunks()

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

    @property
    def games_used(self) -> tuple[int, str, str]:
        """Games per line-up: whole deals, each once per seat rotation (a game of pairings
        says its own)."""
        s = self.settings
        why = f"{s.deals} deals, each once per seat rotation of {s.players} players"
        return s.deals * s.players, "line-up", why

    def describe(self, chunk: Chunk) -> str:
        """The line-up a chunk seats."""
        said: str = self.chunks().describe_lineup(self.settings, chunk)
        return said

    def write(self, out: Path, summary: dict[str, Any], results: list[Any]) -> list[Path]:
        """The result files (no replays are kept)."""
        written: list[Path] = self.report_module().write_outputs(out, summary)
        return written

    def leaderboard(self, summary: dict[str, Any]) -> str:
        """The leaderboard (Markdown)."""
        board: str = self.report_module().leaderboard(summary)
        return board

    def games_played(self, summary: dict[str, Any]) -> int:
        """Games played, as the settings count them (a pairwise row counts comparisons, several
        a game at a table of more than two)."""
        games: int = summary["settings"]["games_played"]
        return games


__all__ = ["ChunkModuleTournament"]
