"""The chunked tournament harness both games share: plan the work, play it anywhere, merge in order.

A tournament seats line-ups of agents (a real-time pairing is a line-up of
two) and plays each line-up on the same numbered deals. The work is cut into
fixed chunks, a line-up and a range of its deals; a game plugs in only how a
chunk is played (a module-level function, so it can be pickled to a worker
process or a Ray task) and how the finished chunks are summarised. Each chunk
is a pure function of the settings and its index (its policies' seeds
included), so the results are identical for any number of workers and on
either backend of :mod:`agents.runtime.jobs`, and an interrupted run keeps every
finished chunk. :func:`run` plays one tournament's chunks; :func:`run_planned`, which it calls,
plays any plan of chunks (a report card's pairings, each chunk of its own tournament).

- :mod:`agents.tournament.realtime`: real-time Speed, two seats, paired deals.
- :mod:`agents.tournament.vintage`: Vintage Speed, N seats, seat rotation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, TypeVar

from agents.runtime.jobs import Backend, RunStopped, run_jobs

R = TypeVar("R")
J = TypeVar("J")
R_co = TypeVar("R_co", covariant=True)


@dataclass(frozen=True)
class Chunk:
    """One unit of work: deals ``start .. start + count`` of line-up ``lineup``.

    ``index`` is the chunk's place in :func:`plan`: results are merged in that
    order, and a game derives its policies' seeds from it.
    """

    index: int
    lineup: int
    """Index into the settings' line-ups (the real-time tournament's pairings)."""
    start: int
    count: int


def plan(lineups: int, deals: int, chunk_deals: int) -> list[Chunk]:
    """The chunks of a tournament, line-up by line-up, in the order their results are combined."""
    chunks: list[Chunk] = []
    for lineup in range(lineups):
        for start in range(0, deals, chunk_deals):
            chunks.append(Chunk(len(chunks), lineup, start, min(chunk_deals, deals - start)))
    return chunks


class PlayChunk(Protocol[R_co]):
    """How a game plays one chunk: ``play(settings, chunk, record) -> result``.

    ``record`` is how many of the chunk's games to keep as replays (0 for every
    chunk but the first, and for a game that records none).
    """

    def __call__(self, settings: Any, chunk: Chunk, record: int, /) -> R_co: ...


class RunOptions(TypedDict, total=False):
    """The keywords a game's ``run`` hands on to :func:`run` as they are (see there)."""

    workers: int
    progress: Callable[[int, int], None] | None
    backend: Backend | None
    done: Mapping[int, Any] | None
    on_result: Callable[[Any], None] | None


def _play_job(job: tuple[PlayChunk[R], Any, Chunk, int]) -> R:
    """One job of :func:`run` (module level: pickled to worker processes and Ray tasks)."""
    play, settings, chunk, record = job
    return play(settings, chunk, record)


def run(
    play: PlayChunk[R],
    settings: Any,
    chunks: list[Chunk],
    describe: Callable[[Any, Chunk], str] | None = None,
    players: Callable[[Any, Chunk], Collection[str]] | None = None,
    *,
    workers: int = 1,
    record: int = 0,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
    done: Mapping[int, R] | None = None,
    on_result: Callable[[R], None] | None = None,
) -> tuple[list[R], bool]:
    """``play`` every chunk; returns the finished results in plan order and whether all finished.

    ``play`` must be a module-level function. ``record`` games of the first
    chunk are kept as replays. ``describe(settings, chunk)`` names a chunk where a worker
    died; ``players(settings, chunk)`` gives the agent specs a chunk seats. The rest is
    :func:`run_planned`'s.
    """
    # Replays come from chunk 0 only: one place, whichever worker plays it.
    return run_planned(
        _play_job,
        chunks,
        lambda c: (play, settings, c, record if c.index == 0 else 0),
        describe=lambda j: describe(j[1], j[2]) if describe else f"chunk {j[2].index}",
        players=None if players is None else lambda j: players(j[1], j[2]),
        workers=workers,
        progress=progress,
        backend=backend,
        done=done,
        on_result=on_result,
    )


def run_planned(
    call: Callable[[J], R],
    chunks: list[Chunk],
    job: Callable[[Chunk], J],
    *,
    describe: Callable[[J], str] | None = None,
    players: Callable[[J], Collection[str]] | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
    done: Mapping[int, R] | None = None,
    on_result: Callable[[R], None] | None = None,
) -> tuple[list[R], bool]:
    """``call(job(chunk))`` for every chunk of a plan; the finished results in plan order and
    whether all finished.

    The runner every chunked run shares (a tournament's line-ups through :func:`run`, a report
    card's pairings of several tournaments). ``call`` must be a module-level function and
    ``job(chunk)`` picklable: they go to worker processes and Ray tasks. Ctrl-C stops the run
    and returns what finished; ``backend`` runs the chunks on Ray; the results are the same
    everywhere. ``done`` holds results already finished (by chunk index, from an interrupted
    run's :mod:`agents.tournament.chunk_log`): only the other chunks are played.
    ``on_result`` is called here with each newly finished result, as it finishes (to log it
    before the run goes on). ``describe(job)`` names a job where a worker died.

    An agent failing in a chunk ends only what it plays in, given ``players(job)`` (the agent
    specs a job seats): the chunks without it are played to the end, those with it not yet
    started are not, and :class:`agents.runtime.jobs.RunStopped` is raised, its ``results``
    the finished results in plan order (``done`` included), its ``skipped`` the chunk indices
    not played. Without ``players`` a failure stops the run as Ctrl-C does.
    """
    done = dict(done or {})
    for index, result in done.items():
        # A log from other settings plans other chunks: its results must not be merged here.
        if not 0 <= index < len(chunks) or getattr(result, "chunk", None) != chunks[index]:
            raise ValueError(f"a finished chunk ({index}) is not a chunk of this tournament")
    todo = [c for c in chunks if c.index not in done]
    jobs = [job(c) for c in todo]

    def step(finished: int, total: int) -> None:
        if progress:  # counted over the whole plan: a resumed run starts part way
            progress(len(done) + finished, len(chunks))

    def keep(i: int, result: R) -> None:
        if on_result:
            on_result(result)

    if progress and done:
        progress(len(done), len(chunks))

    def in_order(results: list[R | None]) -> list[R]:
        merged = dict(done)
        merged.update({c.index: r for c, r in zip(todo, results, strict=True) if r is not None})
        return [merged[c.index] for c in chunks if c.index in merged]

    try:
        results, complete = run_jobs(
            call,
            jobs,
            workers,
            step,
            backend,
            on_result=keep,
            describe=describe,
            players=players,
        )
    except RunStopped as stopped:  # rewritten in plan terms: run_jobs counted todo's jobs
        stopped.results = in_order(stopped.results)
        stopped.skipped = [todo[i].index for i in stopped.skipped]
        raise
    return in_order(results), complete
