"""A report card's life in its output folder: :func:`play`, the tournaments' own
(:func:`agents.tournament.run_folder.play_chunks`).

The card's plan (:func:`agents.evaluate.plan.make_plan`) is played as a tournament is: the folder
locked against another writer, each chunk logged as it finishes (``OUT/chunks.jsonl``), the
chunks run by the tournaments' runner on ``workers`` or Ray, Ctrl-C keeping what finished. Two
rules are the card's own:

- a card needs every game: an interrupted card writes no card; its finished chunks stay in the
  log, and the same command run again into the same folder plays only the others (the card is
  the one an uninterrupted run makes); once the card is written the log is removed;
- a finished card of another agent or other settings is never replaced
  (:mod:`agents.runtime.run_identity`); the same card, finished, is left as it is;
- with an exploiter (``--exploit-minutes``, :mod:`agents.evaluate.exploiter`), it is trained in
  ``OUT/exploit`` once the games are played, and an interrupted one writes no card: the same
  command again continues it.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from agents.evaluate import protocol
from agents.evaluate.exploiter import EXPLOIT_DIR, Exploiter, add_line
from agents.evaluate.plan import (
    Plan,
    by_group,
    card_chunks,
    charge_thinking,
    check,
    kinds,
    make_plan,
    play_plan,
    read_back,
)
from agents.runtime.jobs import Backend
from agents.runtime.run_identity import RunIdentity, file_digest
from agents.tournament import chunk_log, run_folder

RESULTS = ("report.json", "report.md", chunk_log.LOG_NAME, EXPLOIT_DIR)
"""Files a card's run leaves: found with no run.json, an earlier run's (never replaced)."""
PLAN_KEY = "card plan (chunks per group)"
"""The chunk log header's entry for the plan: a card goes on only over the same chunks."""


@dataclass(frozen=True)
class CardRequest:
    """A card as a command asks for it."""

    spec: str
    """The agent spec."""
    game: str = "realtime"
    """The card's game (a registered :class:`agents.evaluate.protocol.CardGame`)."""
    games: int | None = None
    """Games per pairing or table; ``None``: the protocol's."""
    seed: int | None = None
    """The deal seed; ``None``: the protocol's."""
    act_timeout: float | None = None
    """Seconds an agent may take over one decision; ``None``: no limit."""
    version: int | None = None
    """The protocol's version; ``None``: the game's newest (:func:`protocol.default_version`)."""
    think_file: str | None = None
    """A calibration file whose cost for the agent a protocol that charges thinking charges."""


@dataclass(frozen=True)
class MadeCard:
    """A card played and written into its folder."""

    card: dict[str, Any]
    """The ``report.json`` document."""
    paths: list[Path]
    """The files written."""


@dataclass(frozen=True)
class Unfinished:
    """An interrupted card: no card written, its finished chunks kept in the log."""

    kept: int
    """The chunks finished, in the log."""
    total: int
    """The card's chunks."""
    log: Path
    """The chunk log."""

    def message(self) -> str:
        """The line saying so, and how to go on."""
        return (
            f"interrupted: a card needs every game; no card written. {self.kept} of "
            f"{self.total} chunks kept in {self.log}: the same command again plays the others"
        )


@dataclass(frozen=True)
class ExploiterUnfinished:
    """An interrupted exploiter: no card written, the games kept, the exploiter's checkpoint."""

    folder: Path
    """The exploiter's run folder."""

    def message(self) -> str:
        """The line saying so, and how to go on."""
        return (
            f"interrupted: the card's exploiter stopped; no card written. Its run is kept in "
            f"{self.folder}: the same command again continues it"
        )


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def play(
    request: CardRequest,
    out: str | Path,
    *,
    settings: dict[str, Any] | None = None,
    human: Callable[[Plan], dict[str, Any]] | None = None,
    exploiter: Exploiter | None = None,
    overwrite: bool = False,
    workers: int = 1,
    backend: Backend | None = None,
    command: str = "speed evaluate",
    note: Callable[[str], None] = _stderr,
) -> MadeCard | Unfinished | ExploiterUnfinished | run_folder.AlreadyFinished | None:
    """Make the card ``request`` asks for in ``out``; ``None`` when it was interrupted before any
    chunk finished.

    ``human(plan)`` measures the card's ``human_likeness`` section before any game (bad data
    fails fast), once the folder is found usable. ``exploiter``, checked before any game too,
    is trained once they are played and adds its line to the card
    (:mod:`agents.evaluate.exploiter`). ``command`` and ``settings`` (by flag; default: the
    request's fields and the exploiter's) are the run's identity in ``OUT/run.json``, with the
    agent's files and what ``human`` measured.
    ``overwrite`` moves a finished card of other settings aside. The folder is judged before
    the agent's thinking is timed (a protocol that charges it): a finished card, or one of other
    settings, costs no calibration. An agent failing in a game raises
    :class:`agents.runtime.jobs.RunStopped`, its finished chunks kept in the log.
    """
    plan = make_plan(
        request.spec,
        request.game,
        request.games,
        request.seed,
        act_timeout=request.act_timeout,
        version=request.version or protocol.default_version(request.game),
        think_file=request.think_file,
        charge=False,  # after the folder check: a finished card is not timed again
    )
    if exploiter is not None:
        exploiter.check(plan)
    if settings is None:  # the version played, given or not: one card, one identity
        settings = dataclasses.asdict(dataclasses.replace(request, version=plan.version))
        if exploiter is not None:  # its budget is the card's: another is another card
            settings["exploiter"] = exploiter.identity()
    # The agent's files, and what human measured (it changes when the records do).
    inputs: dict[str, Any] = {plan.spec: plan.files}
    if request.think_file is not None:  # the cost it records is what the card charges
        inputs |= file_digest(request.think_file, "--think-file")
    measured = None
    if human is not None:
        # Measuring reads every record and plays the agent on each: a folder the card cannot
        # use is refused first, judged as if the records were the ones it measured.
        run_folder.finished_run(
            RunIdentity(command, settings, inputs),
            out,
            results=RESULTS,
            resume="if_possible",
            overwrite=overwrite,
            pending=("--human",),
        )
        measured = inputs["--human"] = human(plan)
    identity = RunIdentity(command, settings, inputs)
    held = run_folder.finished_run(
        identity, out, results=RESULTS, resume="if_possible", overwrite=overwrite
    )
    if held is not None:
        return held
    charge_thinking(plan, request.act_timeout)
    chunks = card_chunks(plan)
    groups = {g: sum(job.group == g for job in plan.jobs) for g in plan.groups}
    logged = chunk_log.Run(
        {**settings, "protocol": plan.version, PLAN_KEY: groups},
        plan.seed,
        {plan.spec: plan.files},
        chunks,
        partial(read_back, kinds(plan)),
        partial(check, plan),
    )
    work = run_folder.Chunked(f"evaluate {plan.spec}", logged, partial(play_plan, plan))
    return run_folder.play_chunks(
        work,
        identity,
        out,
        partial(_write, plan, measured, exploiter),
        results=RESULTS,
        resume="if_possible",
        overwrite=overwrite,
        keep_log=False,
        workers=workers,
        backend=backend,
        note=note,
    )


def _write(
    plan: Plan,
    human: dict[str, Any] | None,
    exploiter: Exploiter | None,
    folder: Path,
    done: run_folder.Outcome,
) -> tuple[MadeCard | Unfinished | ExploiterUnfinished, list[Path] | None]:
    """The card of a whole run, written into ``folder``; an interrupted one writes nothing."""
    from agents.evaluate import make_card, report

    if done.failure is not None:
        raise done.failure  # a card needs every game: the agent's failure is the card's
    if not done.complete:
        return Unfinished(len(done.results), len(plan.jobs), folder / chunk_log.LOG_NAME), None
    timing: dict[str, Any] = {}
    t0 = time.perf_counter()
    # Where the protocol times decisions (on a rule set the agent plays).
    cost = protocol.protocol(plan.game, plan.version).get("decision_cost")
    if cost is not None and cost["rule_set"] not in plan.skipped:
        timing["decision_cost"] = make_card.decision_cost(plan.spec, plan.version)
    timing["wall_s"] = round(done.wall_s + time.perf_counter() - t0, 2)
    card = make_card.card(plan, by_group(plan, done.results), timing=timing, human_likeness=human)
    if exploiter is not None:
        t1 = time.perf_counter()
        line = exploiter.run(plan, folder)
        if line is None:
            return ExploiterUnfinished(folder / EXPLOIT_DIR), None
        card = add_line(card, line, time.perf_counter() - t1)
    paths = report.write_card(folder, card)
    return MadeCard(card, paths), paths
