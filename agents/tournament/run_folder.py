"""A tournament's whole life in its output folder: :func:`play`.

One function for every caller (``speed tournament``, and next a league's payoff table):

1. the game makes the tournament from the request
   (:meth:`agents.tournament.game.Game.tournament`); its agents are built once each,
   recording the files they read;
2. the folder is locked against another writer (:mod:`agents.runtime.run_lock`);
3. the chunk log (:mod:`agents.tournament.chunk_log`) records each chunk as it finishes; with
   ``resume`` the chunks an interrupted run finished are read back and not played again;
4. the summary gets its status (complete, chunks done, the agents whose failure stopped their
   chunks, the line-ups left unfinished) and α-Rank, and the game writes the result files.

Notes for the person running it (a run starting over, a resume, an interruption before any
chunk finished) go to ``note``; the caller prints the leaderboard and the closing lines.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.runtime.jobs import Backend, RunStopped
from agents.tournament.game import Game, Tournament, TournamentRequest

PLAN_KEY = "chunk plan (chunks, deals a chunk)"
"""The chunk log header's entry for the plan: a resume needs the same chunks."""
RESULTS = ("results.json", "chunks.jsonl", "leaderboard.md")
"""Files a tournament leaves: found with no run.json, an earlier kit's run (never replaced)."""


@dataclass(frozen=True)
class AlreadyFinished:
    """The folder already holds this very run, finished: nothing was played or touched."""

    message: str
    """The line saying so."""


@dataclass(frozen=True)
class Played:
    """A tournament played into its folder: what :func:`play` hands back to be shown."""

    tournament: Tournament
    """The tournament the game made of the request."""
    summary: dict[str, Any]
    """The ``results.json`` document written, its status included."""
    paths: list[Path]
    """The result files written."""
    complete: bool
    """Whether every chunk finished."""
    failure: RunStopped | None
    """The agents whose failure ended their chunks (the others were played), else ``None``."""

    @property
    def games(self) -> int:
        """The games played."""
        return self.tournament.games_played(self.summary)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def play(
    game: Game,
    request: TournamentRequest,
    out: str | Path,
    *,
    resume: bool = False,
    overwrite: bool = False,
    workers: int = 1,
    backend: Backend | None = None,
    command: str = "speed tournament",
    settings: dict[str, Any] | None = None,
    resume_hint: str = "",
    prepare: Callable[[Path], None] | None = None,
    note: Callable[[str], None] = _stderr,
) -> Played | AlreadyFinished | None:
    """Play ``game``'s tournament of ``request`` into ``out``; ``None`` when it was interrupted
    before any chunk finished (nothing is written then).

    ``resume`` continues the interrupted run in ``out`` (refused, naming what differs, when it
    is another run); without it an unfinished run of the same settings there is started over.
    A finished run of other settings is never replaced (:mod:`agents.runtime.run_identity`):
    ``overwrite`` moves it aside; the same run, finished, is :class:`AlreadyFinished`.
    ``command`` and ``settings`` (by flag; default: the request's fields) are the run's
    identity in ``OUT/run.json``, with its agents' files. ``prepare(folder)`` runs once the
    folder is the run's (locked), before any chunk: a file the run keeps beside its results.
    ``resume_hint`` tells, in the results' status, how to resume an incomplete run. An agent
    that fails before any chunk finished raises :class:`agents.runtime.jobs.RunStopped`.
    """
    from agents.runtime import run_identity
    from agents.tournament import chunk_log, report
    from agents.tournament.chunk_log import Run

    tournament = game.tournament(request)
    # Built once each (a missing model file fails here), recording the files they read.
    files = tournament.agent_files()
    used, unit, why = tournament.games_used
    if used != request.games:
        note(f"--games {request.games}: playing {used} games per {unit} ({why})")
    folder = Path(out)
    if settings is None:
        settings = {"game": game.name, **dataclasses.asdict(request)}
    identity = run_identity.RunIdentity(command, settings, files)
    # One writer per folder (another run, or resume, on it is refused), and a finished run of
    # other settings is never replaced.
    with run_identity.RunOutput(
        folder, identity, results=RESULTS, overwrite=overwrite, resume=resume
    ) as output:
        if output.done is not None:
            return AlreadyFinished(output.done)
        if prepare is not None:  # the folder is the run's now: what the run keeps beside it
            prepare(folder)
        plan = tournament.plan()
        header = {
            "--game": game.name,
            "--agents": list(tournament.agents),
            "--games": request.games,
            **tournament.header,
            PLAN_KEY: [len(plan), tournament.chunk_deals],
        }
        logged = Run(header, request.seed, files, plan, tournament.result_type, tournament.check)
        if not resume:
            _say_what_starting_over_drops(folder, note)
        log, finished = chunk_log.open_log(folder, logged, resume=resume)
        done = None
        try:
            if resume:
                already = f"{len(finished)} chunks already finished in {folder}"
                note(f"--resume: {already}; playing the others")
            done = _run(tournament, finished, log.add, workers, backend)
        finally:
            log.close(complete=done is not None and done[1])
        if done is None:
            note("interrupted before any games finished; nothing written")
            return None
        results, complete, wall, failure = done
        summary = tournament.summarise(results)
        summary["settings"].update(
            games_requested=request.games, complete=complete, wall_s=round(wall, 2)
        )
        unfinished = _unfinished(plan, results, tournament.describe)
        summary = report.with_status(summary, len(results), len(plan), resume_hint)
        summary = report.with_alpharank(_failed(summary, failure, unfinished))
        paths = tournament.write(folder, summary, results)
        if complete and failure is None:
            output.finish([*paths, folder / chunk_log.LOG_NAME])
    return Played(tournament, summary, paths, complete, failure)


def _say_what_starting_over_drops(folder: Path, note: Callable[[str], None]) -> None:
    from agents.tournament import chunk_log

    earlier = chunk_log.earlier_run(folder)
    if earlier is None:
        return
    plan = earlier[0].get(PLAN_KEY) or [0]
    if earlier[1] < plan[0]:  # an unfinished run: say what starting over drops
        note(
            f"note: {folder} holds an unfinished tournament ({earlier[1]} of {plan[0]} chunks); "
            "starting over (to continue it instead: the same command with --resume)"
        )


def _run(
    tournament: Tournament,
    finished: dict[int, Any],
    log: Callable[[Any], None],
    workers: int,
    backend: Backend | None,
) -> tuple[list[Any], bool, float, RunStopped | None] | None:
    """Play the chunks not ``finished`` under a progress bar, logging each as it finishes:
    ``(results, complete, wall seconds, failure)``; ``None`` when none finished."""
    from agents.runtime.progress import chunk_progress

    t0 = time.perf_counter()
    try:
        with chunk_progress(tournament.label) as progress:
            results, complete = tournament.run(
                workers=workers, progress=progress, backend=backend, done=finished, on_result=log
            )
    except RunStopped as stopped:
        if not stopped.results:
            raise
        return stopped.results, False, time.perf_counter() - t0, stopped
    if not results:
        return None
    return results, complete, time.perf_counter() - t0, None


def _unfinished(plan: list[Any], results: list[Any], name: Callable[[Any], str]) -> list[str]:
    """The line-ups (by ``name(chunk)``) with a chunk of ``plan`` not among ``results``."""
    finished = {r.chunk.index for r in results}
    missing = sorted({c.lineup: c for c in plan if c.index not in finished}.items())
    return [name(chunk) for _, chunk in missing]


def _failed(summary: dict[str, Any], failure: Any, unfinished: list[str]) -> dict[str, Any]:
    """``summary`` with the agents whose failures ended their chunks named in its status
    (``failed``: agent and one-line error each) and the line-ups left unfinished listed."""
    if failure is None:
        return summary
    status = dict(summary["status"])
    status["failed"] = [{"agent": f.spec, "error": f.message} for f in failure.failures]
    status["unfinished"] = unfinished
    errors = " ".join(f"{f.message}." for f in failure.failures)
    ended = (
        "The run stopped there"
        if failure.halted
        else "The chunks the failed agents play in were not played; every other chunk was"
    )
    status["note"] = (
        f"INCOMPLETE: {errors} {ended}. Unfinished: {'; '.join(unfinished)}. "
        + status.get("note", "").removeprefix("INCOMPLETE: ")
    )
    return {**summary, "status": status}
