"""Real-time Speed at tables of three or four as a :class:`agents.tournament.game.Tournament`.

:class:`agents.games.realtime.RealtimeGame` hands a request for ``--players 3`` or ``4`` here;
the chunks are :mod:`agents.tournament.party`'s (each deal once per seat rotation, shared by
every line-up), the extra files :mod:`agents.tournament.party_report`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import ModuleType
from typing import Any

from agents.games.tournament_side import ChunkModuleTournament
from agents.specs.realtime import REALTIME
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

    def report_module(self) -> ModuleType:
        """:mod:`agents.tournament.party_report` (its leaderboard says the fair share first)."""
        from agents.tournament import party_report

        return party_report

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
            # The thinking plan (none for off): a resume charges the same.
            **(
                {}
                if s.think is None
                else {"--think": s.think.mode, "think charged ms": dict(s.think.costs)}
            ),
        }

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result, or None."""
        from agents.tournament import party

        lineup = self.settings.lineups()[result.chunk.lineup]
        return party.check_chunk(result, lineup, self.settings.players)
