"""Real-time Speed at tables of three or four as a :class:`agents.tournament.game.Tournament`.

:class:`agents.games.realtime.RealtimeGame` hands a request for ``--players 3`` or ``4`` here;
the chunks are :mod:`agents.tournament.party`'s (each deal once per seat rotation, shared by
every line-up), the extra files :mod:`agents.tournament.party_report`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.games.tournament_side import ChunkModuleTournament
from agents.specs.realtime import REALTIME
from agents.tournament.harness import Chunk
from speed_env.policy import Policy


@dataclass
class PartyTournament(ChunkModuleTournament):
    """A real-time tournament of line-ups at tables of three or four (a :class:`Tournament`)."""

    settings: Any
    """Its :class:`agents.tournament.party.PartySettings`."""
    label: str = "tournament"

    def chunks(self) -> ModuleType:
        """:mod:`agents.tournament.party`."""
        from agents.tournament import party

        return party

    def builder(self, spec: str) -> Callable[[], Policy]:
        """The agent ``spec`` for the table's rules (one refusing the table fails here)."""
        return partial(REALTIME.make, spec, self.settings.rules, 0)

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

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result, or None."""
        from agents.tournament import party

        lineup = self.settings.lineups()[result.chunk.lineup]
        return party.check_chunk(result, lineup, self.settings.players)

    def describe(self, chunk: Chunk) -> str:
        """The line-up a chunk seats."""
        from agents.tournament import party

        return party.describe_lineup(self.settings, chunk)

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
