"""What a game gives the tournament harness and the commands: the :class:`Game` protocol.

Each game provides one :class:`Game` object, registered by name in
:mod:`agents.games.registry` (``load_game("realtime")``, as OpenSpiel's ``pyspiel.load_game``
and pgx's ``pgx.make``). The harness, the CLI and evaluation ask that object for what differs
between games (its agents, its table sizes, how a chunk is played, summarised and written) and
name no game themselves.

A tournament is asked for with a :class:`TournamentRequest`, the same fields for every game;
the game turns it into a :class:`Tournament`, the plan of chunks and the pieces that play,
check, summarise and write them. The seat count is the request's (``seats``): a property of a
table, checked against the game's ``seats``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agents.runtime.jobs import Backend
from agents.tournament.harness import Chunk


class TournamentError(ValueError):
    """A tournament request its game cannot play; the message names the setting (by flag)."""


@dataclass(frozen=True)
class TournamentRequest:
    """A tournament as a command asks for it, the same fields for every game.

    A game refuses (:class:`TournamentError`) a field it has no use for that is set.
    """

    agents: tuple[str, ...] | None
    """The agent specs; ``None``: the game's default line-up."""
    games: int
    """Games per line-up (a real-time pairing is a line-up of two)."""
    seed: int
    """The deal seed."""
    seats: int | None = None
    """Seats at each table; ``None``: the game's default."""
    gauntlet: str | None = None
    """Only this agent against each other, else a round robin."""
    act_timeout: float | None = None
    """Seconds an agent may take over one decision; ``None``: no limit."""
    rules: str = "us"
    """A rules preset name or rules file (the real-time game's ``--rules``)."""
    options: tuple[tuple[str, Any], ...] = ()
    """Typed rule overrides (``--option KEY=VALUE``), sorted by key."""
    reaction: str | None = None
    """The reaction profile of agents without ``@`` (real time)."""
    tick_ms: int | None = None
    """The engine's tick (real time)."""
    match: bool = False
    """Also score matches (real time, ``us``/``pagat``)."""
    replays: int = 0
    """Games to record as replays."""
    think: Callable[[tuple[str, ...], Any], Any] | None = None
    """``think(agents, rules)``: the plan charging each agent's thinking as latency
    (:class:`agents.think.plan.ThinkPlan`, made once the agents and rules are checked);
    ``None``: off. A game whose play is not timed refuses it."""


class Tournament(Protocol):
    """One game's tournament, planned: what the run in a folder asks of it.

    Made by :meth:`Game.tournament`; :func:`agents.tournament.run_folder.play` runs it.
    """

    @property
    def label(self) -> str:
        """The progress bar's label."""
        ...

    @property
    def agents(self) -> tuple[str, ...]:
        """The agent specs, in the order the results list them."""
        ...

    @property
    def settings(self) -> Any:
        """The game's settings object (what each chunk is played from)."""
        ...

    @property
    def header(self) -> dict[str, Any]:
        """The game's own settings in the chunk log's header, after ``--game``, ``--agents`` and
        ``--games``, by flag (a resume must give the same)."""
        ...

    @property
    def chunk_deals(self) -> int:
        """Deals a chunk holds (the chunk log records the plan)."""
        ...

    @property
    def result_type(self) -> type:
        """The chunk result's class (the chunk log reads its lines back as it)."""
        ...

    @property
    def games_used(self) -> tuple[int, str, str]:
        """``(games per unit, unit, why)``: the games played per line-up, where the request's
        number cannot be played as it is (whole deals, each played once per seating)."""
        ...

    def plan(self) -> list[Chunk]:
        """The chunks, in the order their results are merged."""
        ...

    def check(self, result: Any) -> str | None:
        """What is impossible in a logged chunk result (a resume trusts none such), or None."""
        ...

    def agent_files(self) -> dict[str, dict[str, str]]:
        """Per agent spec, the files building it reads, with their SHA-256."""
        ...

    def run(
        self,
        *,
        workers: int,
        progress: Callable[[int, int], None] | None,
        backend: Backend | None,
        done: Mapping[int, Any] | None,
        on_result: Callable[[Any], None] | None,
    ) -> tuple[list[Any], bool]:
        """Play the chunks not ``done``: :func:`agents.tournament.harness.run`'s results."""
        ...

    def describe(self, chunk: Chunk) -> str:
        """The line-up a chunk seats, in words."""
        ...

    def summarise(self, results: list[Any]) -> dict[str, Any]:
        """The ``results.json`` document of the finished chunks."""
        ...

    def write(self, out: Path, summary: dict[str, Any], results: list[Any]) -> list[Path]:
        """Write the result files into ``out``; their paths."""
        ...

    def leaderboard(self, summary: dict[str, Any]) -> str:
        """The leaderboard in the game's words (Markdown, what the terminal shows)."""
        ...

    def games_played(self, summary: dict[str, Any]) -> int:
        """The games the summary counts, for the closing line."""
        ...


class Game(Protocol):
    """One game as the harness and the commands see it; :mod:`agents.games` registers each."""

    @property
    def name(self) -> str:
        """Its ``--game`` value (``realtime``)."""
        ...

    @property
    def title(self) -> str:
        """The game in words, for messages (``real-time Speed``)."""
        ...

    @property
    def about(self) -> str:
        """Its tournament in a few words, for ``--game``'s help."""
        ...

    @property
    def seats(self) -> range:
        """The table sizes it plays."""
        ...

    @property
    def default_seats(self) -> int:
        """Seats at a table when a request gives none."""
        ...

    @property
    def default_agents(self) -> tuple[str, ...]:
        """A tournament's line-up when none is given."""
        ...

    @property
    def model_kind(self) -> str | None:
        """The agent kind that plays a saved model file (``ppo``), if the game has one."""
        ...

    def env_ids(self) -> tuple[str, ...]:
        """The env ids it registers, current version first (Gymnasium's and PettingZoo's)."""
        ...

    def knows(self, spec: str) -> bool:
        """Whether the agent ``spec`` names is one of this game's (a user's agent: no game's)."""
        ...

    def available(self) -> dict[str, str]:
        """Its agent names, with a one-line description each."""
        ...

    def parse_spec(self, spec: str) -> Any:
        """The parsed spec (:class:`agents.specs.registry.AgentSpec`); refuses an unknown one."""
        ...

    def make_agent(self, spec: str, rules: Any = None, seed: int | None = None) -> Any:
        """Build the agent ``spec`` names, for ``rules`` where the game has rules objects."""
        ...

    def tournament(self, request: TournamentRequest) -> Tournament:
        """The tournament ``request`` asks for, checked (:class:`TournamentError`)."""
        ...
