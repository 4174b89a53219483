"""Real-time Speed as a :class:`agents.tournament.game.Game`: two seats on paired deals, or
three and four by seat rotation.

Its agents are :data:`agents.specs.realtime.REALTIME`'s, its chunks
:mod:`agents.tournament.realtime`'s (each deal played with both seatings), its reports
:mod:`agents.tournament.report`'s (replays, match scores). A table of three or four
(``--players``, Party Speed) is :mod:`agents.games.party`'s tournament.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.evaluate import protocol
from agents.evaluate.realtime import CARD
from agents.games.agent_side import RegistryAgents
from agents.games.party import PartyTournament
from agents.games.tournament_side import ChunkModuleTournament
from agents.specs.realtime import REALTIME
from agents.specs.registry import Registry
from agents.tournament.game import TournamentError, TournamentRequest
from agents.tournament.harness import Chunk
from speed_env.policy import Policy
from speed_env.rules import Rules, make_rules


@dataclass
class RealtimeTournament(ChunkModuleTournament):
    """A real-time round robin or gauntlet on paired deals (a :class:`Tournament`)."""

    settings: Any
    """Its :class:`agents.tournament.realtime.Settings`."""
    replays: int = 0
    """Games of the first chunk kept as replays."""
    label: str = "tournament"

    def chunks(self) -> ModuleType:
        """:mod:`agents.tournament.realtime`."""
        from agents.tournament import realtime

        return realtime

    def builder(self, spec: str) -> Callable[[], Policy]:
        """The agent ``spec`` for the tournament's rules."""
        return partial(REALTIME.make, spec, self.settings.rules, 0)

    def run_options(self) -> dict[str, Any]:
        """The replays to record."""
        return {"record": self.replays}

    @property
    def header(self) -> dict[str, Any]:
        """The chunk log's header entries of real-time settings, by flag."""
        s = self.settings
        return {
            "--rules/--option": s.rules.to_dict(),
            "--reaction": s.reaction.label(),
            "--tick-ms": s.tick_ms,
            "--seed": s.seed,
            "--gauntlet": s.gauntlet,
            "--match": s.match,
            "--save-replays": self.replays,
            # The thinking plan (none for off): a resume charges the same.
            **(
                {}
                if s.think is None
                else {"--think": s.think.mode, "think charged ms": dict(s.think.costs)}
            ),
        }

    @property
    def games_used(self) -> tuple[int, str, str]:
        """Games per pairing: whole deals, each played twice."""
        return 2 * self.settings.deals, "pairing", "paired deals: each deal twice"

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result, or None."""
        from agents.tournament import chunk_checks

        return chunk_checks.realtime(result)

    def describe(self, chunk: Chunk) -> str:
        """The pairing a chunk plays (``random vs greedy``)."""
        from agents.tournament import realtime

        return realtime.describe_pairing(self.settings, chunk)

    def write(self, out: Path, summary: dict[str, Any], results: list[Any]) -> list[Path]:
        """The result files, the replays among them when asked for."""
        from agents.tournament import realtime, report

        replays = realtime.replay_lines(results) if self.replays else None
        return report.write_outputs(out, summary, replays)

    def leaderboard(self, summary: dict[str, Any]) -> str:
        """The leaderboard (Markdown)."""
        from agents.tournament import report

        return report.leaderboard(summary)

    def games_played(self, summary: dict[str, Any]) -> int:
        """Games played: each pairing's."""
        return sum(m["games"] for m in summary["matches"])


@dataclass(frozen=True)
class RealtimeGame(RegistryAgents):
    """Real-time Speed: two seats, agents for a rules preset, paired deals."""

    name: str = "realtime"
    title: str = "real-time Speed"
    about: str = "two players on paired deals; three or four by seat rotation"
    seats: range = range(2, 5)
    default_seats: int = 2
    default_agents: tuple[str, ...] = ("random", "greedy", "chain")
    registry: Registry = field(default=REALTIME, repr=False)

    def make_agent(
        self, spec: str, rules: str | Rules | Any = None, seed: int | None = None
    ) -> Policy:
        """The agent for ``rules`` (a preset name, a rules file or ``Rules``; ``None``: us)."""
        policy: Policy = REALTIME.make(spec, make_rules("us" if rules is None else rules), seed)
        return policy

    def tournament(self, request: TournamentRequest) -> RealtimeTournament | PartyTournament:
        """A round robin (or gauntlet) on paired deals; refuses what two seats cannot play. A
        table of three or four (``--players``, or the rules' ``players``) is a
        :class:`~agents.games.party.PartyTournament`."""
        from agents.tournament import realtime
        from speed_env.reaction import make_profile

        if request.seats not in (None, *self.seats):
            raise TournamentError(f"--players {request.seats}: {self.title} seats 2, 3 or 4")
        names = self.default_agents if request.agents is None else request.agents
        if len(names) < 2:
            raise TournamentError(f"--agents needs at least two agent specs, got {names!r}")
        if len(set(names)) != len(names):
            raise TournamentError(f"--agents lists an agent twice: {','.join(names)!r}")
        for spec in names:  # an unknown agent fails here, before any work
            self.parse_spec(spec)
        if request.gauntlet is not None and request.gauntlet not in names:
            raise TournamentError(f"--gauntlet {request.gauntlet!r} is not one of --agents")
        rules = _seated_rules(request)
        if rules.players > 2:
            return _party(request, names, rules)
        if request.match and rules.is_japanese:
            raise TournamentError(
                "--match: match scoring (match_target) exists for the us and pagat presets "
                "only, not japanese"
            )
        settings = realtime.Settings(
            agents=tuple(names),
            games=request.games,
            rules=rules,
            reaction=make_profile("human" if request.reaction is None else request.reaction),
            tick_ms=50 if request.tick_ms is None else request.tick_ms,
            seed=request.seed,
            gauntlet=request.gauntlet,
            match=request.match,
            act_timeout=request.act_timeout,
            think=None if request.think is None else request.think(tuple(names), rules),
        )
        return RealtimeTournament(settings, request.replays)


def _seated_rules(request: TournamentRequest) -> Rules:
    """The request's rules seating ``--players`` (else the rules' own ``players``)."""
    from speed_env.rules import RulesError

    rules = make_rules(request.rules, **dict(request.options))
    if request.seats is None or request.seats == rules.players:
        return rules
    if "players" in dict(request.options) or rules.players != 2:
        raise TournamentError(
            f"--players {request.seats} disagrees with the rules' players={rules.players}"
        )
    try:
        return make_rules(rules, players=request.seats)
    except RulesError as exc:  # a preset that cannot deal the table yet, naming both
        raise TournamentError(f"--players {request.seats}: {exc}") from None


def _party(request: TournamentRequest, names: tuple[str, ...], rules: Rules) -> PartyTournament:
    """The tournament at tables of ``rules.players`` (3 or 4); refuses the two-player flags."""
    from agents.tournament import party
    from speed_env.reaction import make_profile

    n = rules.players
    for flag, given in (("--match", request.match), ("--save-replays", request.replays)):
        if given:
            raise TournamentError(f"{flag} plays two-player tables only, not --players {n}")
    if request.games < n:
        raise TournamentError(
            f"--games {request.games}: each deal is played once per seat rotation, so --games "
            f"must be at least --players ({n})"
        )
    think = None if request.think is None else request.think(tuple(names), rules)
    if think is not None and think.mode == "measured":
        # its games are played side by side, one act call a tick for all: none is timed alone
        raise TournamentError(
            f"--think measured times each decision of a two-seat table only; at --players {n} "
            "use --think declared or calibrated"
        )
    settings = party.PartySettings(
        agents=tuple(names),
        rules=rules,
        games=request.games,
        reaction=make_profile("human" if request.reaction is None else request.reaction),
        tick_ms=50 if request.tick_ms is None else request.tick_ms,
        seed=request.seed,
        gauntlet=request.gauntlet,
        act_timeout=request.act_timeout,
        think=think,
    )
    return PartyTournament(settings)


GAME = RealtimeGame()
"""The real-time game, as :mod:`agents.games.registry` registers it."""

protocol.register(CARD)  # its report card, for the shared card code (speed evaluate)
