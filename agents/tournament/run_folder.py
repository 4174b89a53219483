"""A chunked run's whole life in its output folder: :func:`play_chunks`, and a tournament's,
:func:`play`.

One function for every caller (``speed tournament`` through :func:`play`, ``speed evaluate``'s
pairings through :mod:`agents.evaluate.card_folder`, and next a league's payoff table):

1. the folder is locked against another writer (:mod:`agents.runtime.run_lock`), and a finished
   run of other settings is never replaced (:mod:`agents.runtime.run_identity`);
2. the chunk log (:mod:`agents.tournament.chunk_log`) records each chunk as it finishes; when
   the run resumes (asked for, or by itself where the caller says so) the chunks an interrupted
   run finished are read back and not played again;
3. the chunks are played by :func:`agents.tournament.harness.run_planned` (``workers``,
   ``backend``) under a progress bar; Ctrl-C keeps what finished;
4. the caller's ``write`` turns what was played into its files, and says whether the run is
   finished.

For a tournament (:func:`play`): the game makes the tournament from the request
(:meth:`agents.tournament.game.Game.tournament`), its agents built once each, recording the files
they read; the summary gets its status (complete, chunks done, the agents whose failure stopped
their chunks, the line-ups left unfinished) and α-Rank, and the game writes the result files.

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
from typing import Any, Literal, TypeVar

from agents.runtime.jobs import Backend, RunStopped
from agents.runtime.run_identity import RunIdentity
from agents.tournament import chunk_log
from agents.tournament.game import Game, Tournament, TournamentRequest

T = TypeVar("T")

PLAN_KEY = "chunk plan (chunks, deals a chunk)"
"""The chunk log header's entry for the plan: a resume needs the same chunks."""
RESULTS = ("results.json", "chunks.jsonl", "leaderboard.md")
"""Files a tournament leaves: found with no run.json, an earlier kit's run (never replaced)."""

Resume = Literal["never", "asked", "if_possible"]
"""What :func:`play_chunks` does with the chunk log an interrupted run of these settings left:

- ``never``: start over (noting what that drops); the command has a ``--resume`` not given;
- ``asked``: continue it, refused (naming what differs) where it is another run's: ``--resume``;
- ``if_possible``: continue it where the log is this run's, else start over with a note; the
  command has no ``--resume``, an interrupted run goes on when the same command is run again.
"""
_OUTPUT_RESUME: dict[str, bool | None] = {"never": False, "asked": True, "if_possible": None}
"""The :class:`agents.runtime.run_identity.RunOutput` ``resume`` of each way to resume."""


@dataclass(frozen=True)
class AlreadyFinished:
    """The folder already holds this very run, finished: nothing was played or touched."""

    message: str
    """The line saying so."""


@dataclass(frozen=True)
class Chunked:
    """Work cut into chunks to play into a folder, whatever it plays (a tournament, a card)."""

    label: str
    """The progress bar's label."""
    log: chunk_log.Run[Any]
    """What the chunk log records (settings, seed, agent files, the plan) and reads back."""
    run: Callable[..., tuple[list[Any], bool]]
    """Plays the chunks not ``done``: :func:`agents.tournament.harness.run_planned` with the
    keywords of :class:`agents.tournament.harness.RunOptions`."""


@dataclass(frozen=True)
class Outcome:
    """What a run in its folder played, handed to its ``write``."""

    results: list[Any]
    """The finished chunks' results in plan order, the log's included."""
    complete: bool
    """Whether every chunk finished."""
    wall_s: float
    """Seconds this session played."""
    failure: RunStopped | None
    """The agents whose failure ended their chunks (the others were played), else ``None``."""


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


def finished_run(
    identity: RunIdentity,
    out: str | Path,
    *,
    results: tuple[str, ...],
    resume: Resume = "never",
    overwrite: bool = False,
    pending: tuple[str, ...] = (),
) -> AlreadyFinished | None:
    """:class:`AlreadyFinished` where :func:`play_chunks` with these arguments would find ``out``
    holding this very run, finished; ``None`` where it would play. Reads, never locks or writes:
    a run checks its folder this way before its slow preparation (a card, timing its agent).
    A folder it may not use is refused as :func:`play_chunks` would refuse it.

    ``pending``: inputs of ``identity`` measured later, taken as the held run's
    (:meth:`~agents.runtime.run_identity.RunOutput.peek_done`)."""
    from agents.runtime import run_identity

    output = run_identity.RunOutput(
        Path(out), identity, results=results, overwrite=overwrite, resume=_OUTPUT_RESUME[resume]
    )
    done = output.peek_done(pending)
    return None if done is None else AlreadyFinished(done)


def play_chunks(
    work: Chunked,
    identity: RunIdentity,
    out: str | Path,
    write: Callable[[Path, Outcome], tuple[T, list[Path] | None]],
    *,
    results: tuple[str, ...],
    resume: Resume = "never",
    overwrite: bool = False,
    keep_log: bool = True,
    workers: int = 1,
    backend: Backend | None = None,
    prepare: Callable[[Path], None] | None = None,
    note: Callable[[str], None] = _stderr,
) -> T | AlreadyFinished | None:
    """Play ``work`` into the folder ``out``: what ``write`` hands back, :class:`AlreadyFinished`,
    or ``None`` when it was interrupted before any chunk finished (nothing is written then).

    ``identity`` is the run's (``OUT/run.json``); ``results`` the glob patterns of the files
    the run writes (found with no ``run.json``: an earlier kit's run, never replaced).
    ``overwrite`` moves a finished run of other settings aside; ``resume`` (:data:`Resume`) is
    what becomes of an interrupted run's chunk log. ``prepare(folder)`` runs once the folder is
    the run's (locked), before any chunk: a file the run keeps beside its results.

    ``write(folder, outcome)`` runs with the folder still locked, once at least one chunk
    finished: it writes the run's files from the :class:`Outcome` and returns what to hand back
    with the files to mark the run finished with, or ``None`` where it is not finished.
    ``keep_log``: whether the chunk log stays beside a finished run's files (a tournament's
    does, among its results); else it is removed before the run is marked finished. An agent
    that fails before any chunk finished raises :class:`agents.runtime.jobs.RunStopped`.
    """
    from agents.runtime import run_identity

    folder = Path(out)
    # One writer per folder (another run, or resume, on it is refused), and a finished run of
    # other settings is never replaced.
    with run_identity.RunOutput(
        folder,
        identity,
        results=results,
        overwrite=overwrite,
        resume=_OUTPUT_RESUME[resume],
    ) as output:
        if output.done is not None:
            return AlreadyFinished(output.done)
        if prepare is not None:  # the folder is the run's now: what the run keeps beside it
            prepare(folder)
        log, finished = _open_log(folder, work.log, resume, note)
        done = None
        try:
            done = _run(work, finished, log.add, workers, backend)
        finally:
            log.close(complete=done is not None and done.complete)
        if done is None:
            note("interrupted before any games finished; nothing written")
            return None
        handed, written = write(folder, done)
        if written is not None:
            if not keep_log:
                log.path.unlink(missing_ok=True)
            output.finish(written)
    return handed


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
    """Play ``game``'s tournament of ``request`` into ``out`` (:func:`play_chunks`); ``None``
    when it was interrupted before any chunk finished (nothing is written then).

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
    from agents.tournament import report

    tournament = game.tournament(request)
    # Built once each (a missing model file fails here), recording the files they read.
    files = tournament.agent_files()
    used, unit, why = tournament.games_used
    if used != request.games:
        note(f"--games {request.games}: playing {used} games per {unit} ({why})")
    if settings is None:
        settings = {"game": game.name, **dataclasses.asdict(request)}
    plan = tournament.plan()
    header = {
        "--game": game.name,
        "--agents": list(tournament.agents),
        "--games": request.games,
        **tournament.header,
        PLAN_KEY: [len(plan), tournament.chunk_deals],
    }
    logged = chunk_log.Run(
        header, request.seed, files, plan, tournament.result_type, tournament.check
    )

    def write(folder: Path, done: Outcome) -> tuple[Played, list[Path] | None]:
        summary = tournament.summarise(done.results)
        summary["settings"].update(
            games_requested=request.games, complete=done.complete, wall_s=round(done.wall_s, 2)
        )
        unfinished = _unfinished(plan, done.results, tournament.describe)
        summary = report.with_status(summary, len(done.results), len(plan), resume_hint)
        summary = report.with_alpharank(_failed(summary, done.failure, unfinished))
        paths = tournament.write(folder, summary, done.results)
        whole = done.complete and done.failure is None
        played = Played(tournament, summary, paths, done.complete, done.failure)
        return played, [*paths, folder / chunk_log.LOG_NAME] if whole else None

    return play_chunks(
        Chunked(tournament.label, logged, tournament.run),
        RunIdentity(command, settings, files),
        out,
        write,
        results=RESULTS,
        resume="asked" if resume else "never",
        overwrite=overwrite,
        workers=workers,
        backend=backend,
        prepare=prepare,
        note=note,
    )


def _open_log(
    folder: Path, logged: chunk_log.Run[Any], resume: Resume, note: Callable[[str], None]
) -> tuple[chunk_log.ChunkLog, dict[int, Any]]:
    """The run's chunk log, opened as ``resume`` says, and the chunks it already holds."""
    if resume == "never":
        _say_what_starting_over_drops(folder, note)
        return chunk_log.open_log(folder, logged, resume=False)
    if resume == "asked":
        log, finished = chunk_log.open_log(folder, logged, resume=True, say=note)
        note(f"--resume: {len(finished)} chunks already finished in {folder}; playing the others")
        return log, finished
    if not (folder / chunk_log.LOG_NAME).exists():
        return chunk_log.open_log(folder, logged, resume=False)

    def said(line: str) -> None:  # the command has no --resume: its lines do not name one
        note(line.removeprefix("--resume: "))

    try:
        log, finished = chunk_log.open_log(folder, logged, resume=True, say=said)
    except chunk_log.ResumeError as exc:
        log_path = folder / chunk_log.LOG_NAME
        note(f"note: starting over: the interrupted run's {log_path} cannot go on ({exc.reason})")
        return chunk_log.open_log(folder, logged, resume=False)
    left = "playing the others" if len(finished) < len(logged.plan) else "none left to play"
    note(
        f"continuing the interrupted run in {folder}: {len(finished)} of {len(logged.plan)} "
        f"chunks already finished; {left}"
    )
    return log, finished


def _say_what_starting_over_drops(folder: Path, note: Callable[[str], None]) -> None:
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
    work: Chunked,
    finished: dict[int, Any],
    log: Callable[[Any], None],
    workers: int,
    backend: Backend | None,
) -> Outcome | None:
    """Play the chunks not ``finished`` under a progress bar, logging each as it finishes;
    ``None`` when none finished."""
    from agents.runtime.progress import chunk_progress

    t0 = time.perf_counter()
    try:
        with chunk_progress(work.label) as progress:
            results, complete = work.run(
                workers=workers, progress=progress, backend=backend, done=finished, on_result=log
            )
    except RunStopped as stopped:
        if not stopped.results:
            raise
        return Outcome(stopped.results, False, time.perf_counter() - t0, stopped)
    if not results:
        return None
    return Outcome(results, complete, time.perf_counter() - t0, None)


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
