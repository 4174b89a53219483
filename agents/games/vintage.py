"""Vintage Speed as a :class:`agents.tournament.game.Game`: 2 to 10 seats, seat rotation.

Its agents are :data:`agents.vintage.registry.VINTAGE`'s (they take no rules object), its
chunks :mod:`agents.tournament.vintage`'s (each deal once per seat rotation, shared by every
line-up), its extra result files ``agents.csv`` and ``penalties.png``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any

from agents.errors import AgentSpecError
from agents.evaluate import protocol
from agents.evaluate.vintage import CARD
from agents.games.agent_side import RegistryAgents
from agents.games.tournament_side import ChunkModuleTournament
from agents.specs.registry import Registry
from agents.tournament.game import TournamentError, TournamentRequest
from agents.vintage.registry import VINTAGE
from speed_env.policy import Policy


@dataclass
class VintageTournament(ChunkModuleTournament):
    """A vintage tournament: line-ups at tables, seat rotation (a :class:`Tournament`)."""

    settings: Any
    """Its :class:`agents.tournament.vintage.VintageSettings`."""
    label: str = "vintage tournament"

    def chunks(self) -> ModuleType:
        """:mod:`agents.tournament.vintage`."""
        from agents.tournament import vintage

        return vintage

    def builder(self, spec: str) -> Callable[[], Policy]:
        """The agent ``spec`` (a vintage bot takes no rules)."""
        return partial(VINTAGE.make, spec, None, 0)

    @property
    def header(self) -> dict[str, Any]:
        """The chunk log's header entries of vintage settings, by flag."""
        s = self.settings
        return {
            "--players": s.players,
            "--option": s.to_dict()["options"],
            "--seed": s.seed,
            "--gauntlet": s.gauntlet,
        }

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result, or None."""
        from agents.tournament.vintage_stats import check_chunk

        lineup = self.settings.lineups()[result.chunk.lineup]
        return check_chunk(result, lineup, self.settings.players)


@dataclass(frozen=True)
class VintageGame(RegistryAgents):
    """Vintage Speed: turn-based, 2 to 10 seats, penalty points."""

    name: str = "vintage"
    title: str = "Vintage Speed"
    about: str = "N players, seat rotation; --games per line-up, rule options as --option"
    seats: range = range(2, 11)
    default_seats: int = 4
    default_agents: tuple[str, ...] = ("vintage-random", "vintage-greedy", "vintage-tactician")
    registry: Registry = field(default=VINTAGE, repr=False)

    def make_agent(self, spec: str, rules: Any = None, seed: int | None = None) -> Policy:
        """The agent ``spec`` names; a vintage bot reads the default pack and takes no rules."""
        if rules is not None:
            from agents.specs.realtime import REALTIME

            raise AgentSpecError(
                f"{spec!r} plays Vintage Speed, not real-time Speed, and takes no rules; "
                f"real-time agents are {', '.join(REALTIME.available())}"
            )
        policy: Policy = VINTAGE.make(spec, None, seed)
        return policy

    def tournament(self, request: TournamentRequest) -> VintageTournament:
        """Line-ups at tables of ``request.seats`` (default 4); rule options as ``--option``."""
        from agents.tournament import vintage

        if request.think is not None:
            raise TournamentError("--think charges real-time play: Vintage Speed takes turns")
        if request.match:
            raise TournamentError(
                "--match scores real-time Speed (us/pagat); a vintage match is its option 'games'"
            )
        if request.replays:
            raise TournamentError("--save-replays records real-time games only")
        if request.rules != "us":
            raise TournamentError(
                "--rules is for real-time Speed; give vintage rule options as --option KEY=VALUE"
            )
        players = self.default_seats if request.seats is None else request.seats
        if players not in self.seats:
            raise TournamentError(
                f"--players {players}: {self.title} seats {self.seats[0]} to {self.seats[-1]}"
            )
        if request.games < players:
            raise TournamentError(
                f"--games {request.games}: a vintage tournament plays each deal once per seat "
                f"rotation, so --games must be at least --players ({players})"
            )
        settings = vintage.VintageSettings(
            agents=self.default_agents if request.agents is None else request.agents,
            players=players,
            games=request.games,
            seed=request.seed,
            gauntlet=request.gauntlet,
            options=request.options,
            act_timeout=request.act_timeout,
        )
        return VintageTournament(settings)


GAME = VintageGame()
"""The vintage game, as :mod:`agents.games.registry` registers it."""

protocol.register(CARD)  # its report card, for the shared card code (speed evaluate)
