"""Real-time Speed at tables of three or four as a :class:`agents.tournament.game.Tournament`.

:class:`agents.games.realtime.RealtimeGame` hands a request for ``--players 3`` or ``4`` here;
the chunks are :mod:`agents.tournament.party`'s (each deal once per seat rotation, shared by
every line-up), the extra files :mod:`agents.tournament.party_report`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from agents.runtime.jobs import Backend
from agents.specs.realtime import REALTIME
from agents.tournament.harness import Chunk


@dataclass
class PartyTournament:
    """A real-time tournament of line-ups at tables of three or four (a :class:`Tournament`)."""

    settings: Any
    """Its :class:`agents.tournament.party.PartySettings`."""
    label: str = "tournament"
    result_type: type = field(init=False)
    chunk_deals: int = field(init=False)

    def __post_init__(self) -> None:
        from agents.tournament import party

        self.result_type = party.PartyChunkResult
        self.chunk_deals = party.CHUNK_DEALS

    @property
    def agents(self) -> tuple[str, ...]:
        """The agent specs."""
        agents: tuple[str, ...] = self.settings.agents
        return agents

    @property
    def header(self) -> dict[str, Any]:
        """The chunk log's header entries, by flag (a resume must give the same)."""
        s = self.settings
        return {
            "--players": s.players,
            "--rules/--option": s.rules.to_dict(),
            "--reaction": s.reaction.label(),
            "--tick-ms": s.tick_ms,
            "--seed": s.seed,
            "--gauntlet": s.gauntlet,
        }

    @property
    def games_used(self) -> tuple[int, str, str]:
        """Games per line-up: whole deals, each once per seat rotation."""
        s = self.settings
        why = f"{s.deals} deals, each once per seat rotation of {s.players} players"
        return s.deals * s.players, "line-up", why

    def plan(self) -> list[Chunk]:
        """The chunks, line-up by line-up."""
        from agents.tournament import party

        return party.plan(self.settings)

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result, or None."""
        from agents.tournament import party

        lineup = self.settings.lineups()[result.chunk.lineup]
        return party.check_chunk(result, lineup, self.settings.players)

    def agent_files(self) -> dict[str, dict[str, str]]:
        """Per agent, the files building it reads (an agent refusing the table fails here)."""
        from agents.evaluate.agent_files import spec_files

        rules = self.settings.rules
        return {
            spec: spec_files(spec, partial(REALTIME.make, spec, rules, 0)) for spec in self.agents
        }

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
        from agents.tournament import party

        return party.run(
            self.settings,
            workers=workers,
            progress=progress,
            backend=backend,
            done=done,
            on_result=on_result,
        )

    def describe(self, chunk: Chunk) -> str:
        """The line-up a chunk seats."""
        from agents.tournament import party

        return party.describe_lineup(self.settings, chunk)

    def summarise(self, results: list[Any]) -> dict[str, Any]:
        """The ``results.json`` document."""
        from agents.tournament import party

        return party.summarise(self.settings, results)

    def write(self, out: Path, summary: dict[str, Any], results: list[Any]) -> list[Path]:
        """The result files (no replays are kept)."""
        from agents.tournament import party_report

        return party_report.write_outputs(out, summary)

    def leaderboard(self, summary: dict[str, Any]) -> str:
        """The leaderboard (Markdown), the fair share said first."""
        from agents.tournament import party_report

        return party_report.leaderboard(summary)

    def games_played(self, summary: dict[str, Any]) -> int:
        """Games played (a pairwise row counts comparisons, several a game)."""
        games: int = summary["settings"]["games_played"]
        return games
