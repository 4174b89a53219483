"""Run independent, deterministic jobs here or on a Ray cluster.

What finished is kept on Ctrl-C. Tournaments of every game and reaction sweeps cut
their work into chunks that are pure functions of their inputs; this runs them and hands back
the results in job order, so the outcome is the same for any number of workers and on either
backend:

- ``local`` (the default): in order in this process (``workers=1``) or in a
  pool of ``workers`` spawned processes.
- ``ray``: each job is a Ray task (:mod:`agents.runtime.ray_jobs`, which imports Ray
  only when used), on the cluster at ``Backend.address``, else ``RAY_ADDRESS``,
  else a cluster of ``workers`` CPUs started on 127.0.0.1 for the run and
  stopped after it. A task whose worker process or node dies is run again
  (``max_retries`` times); an exception raised by the job itself is not
  retried (it would fail again) and reaches the caller as itself.

An agent that fails in a job (:class:`agents.runtime.failures.AgentFailure`) ends only
what it plays in when the caller says who plays in each job (``players``): the
jobs without it run to completion, the jobs with it that have not started are
not played, and :class:`RunStopped` is raised at the end carrying every failed
agent's failure and the results of the jobs that finished. Without ``players``,
or for a failure no agent of its job is blamed for, the run stops as Ctrl-C
does. A local worker process that dies (killed, or ended by native code) stops
it the same way, naming the jobs that were in flight. On Ctrl-C or a stop the
local workers are killed at once (they ignore SIGINT and SIGTERM themselves, so one
Ctrl-C, or a SIGTERM sent to every process of the run, is the parent's to handle), never
waited for.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, TypeVar

from agents.runtime.failures import AgentFailure

R = TypeVar("R")

BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class Backend:
    """Where :func:`run_jobs` runs the jobs (see the module docstring)."""

    kind: str = "local"
    """``local`` (processes on this machine) or ``ray`` (tasks on a Ray cluster)."""
    address: str | None = None
    """Ray only: the cluster to join (``HOST:PORT``, ``auto``, ``ray://…``); ``None``: the
    ``RAY_ADDRESS`` environment variable, else a local cluster started for the run."""
    max_retries: int = 3
    """Ray only: how often a job whose worker died is run again before the run fails."""

    def __post_init__(self) -> None:
        if self.kind not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.kind!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")
        if self.kind == "local" and self.address is not None:
            raise ValueError(f"a Ray address ({self.address!r}) needs the ray backend, not local")


class RunStopped(AgentFailure):
    """Agents failed in jobs; what the run got done comes with it.

    - ``message`` and ``spec``: the first failure's one line and agent.
    - ``failures``: every failed agent's failure in job order, one per agent.
    - ``skipped``: the indices of the jobs not played because an agent in them had failed.
    - ``results``: what :func:`run_jobs` would have returned at Ctrl-C, ``None`` where a job
      did not finish.
    - ``halted``: whether a failure stopped the whole run, one not contained to its agent's
      jobs.

    Never pickled: it is raised in the process that ran the jobs.
    """

    def __init__(
        self,
        failure: AgentFailure,
        results: list[Any],
        failures: Sequence[AgentFailure] = (),
        skipped: Sequence[int] = (),
        halted: bool = True,
    ) -> None:
        super().__init__(failure.message, failure.spec)
        self.results = results
        self.failures = list(failures) or [failure]
        self.skipped = list(skipped)
        self.halted = halted


class _Contained:
    """The agents that failed so far, and which jobs they play in.

    ``players(job)`` gives the agent specs a job plays. A failure is contained when the agent
    it blames plays in its job.
    """

    def __init__(
        self, jobs: Sequence[Any], players: Callable[[Any], Collection[str]] | None
    ) -> None:
        self.jobs = jobs
        self.players = players
        self.failures: dict[str, tuple[int, AgentFailure]] = {}
        self.skipped: list[int] = []
        self.halted = False

    def skip(self, i: int) -> bool:
        """Whether job ``i`` is not to be played (an agent in it failed); noted if so."""
        if self.players is None or not self.failures:
            return False
        if any(spec in self.failures for spec in self.players(self.jobs[i])):
            self.skipped.append(i)
            return True
        return False

    def fail(self, i: int, exc: AgentFailure) -> None:
        """Record that job ``i`` failed with ``exc``; re-raise it when it cannot be contained.

        It cannot be with no ``players``, or when the agent blamed does not play in the job:
        then the run stops.
        """
        if self.players is None or not exc.spec or exc.spec not in self.players(self.jobs[i]):
            raise exc
        # One failure per agent: a job of it that was already running may fail as well.
        self.failures.setdefault(exc.spec, (i, exc))
        self.skipped.append(i)

    def stopped(self, results: list[Any]) -> RunStopped | None:
        """The :class:`RunStopped` to raise at the end, or ``None`` when no agent failed."""
        if not self.failures:
            return None
        failures = [exc for _, exc in sorted(self.failures.values(), key=lambda f: f[0])]
        return RunStopped(
            failures[0], results, failures, sorted(set(self.skipped)), halted=self.halted
        )


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C and SIGTERM are the parent's, which then kills the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what is queued and kill the workers.

    The workers are killed whatever they are running: a slow agent must not hold up Ctrl-C,
    or a failure elsewhere.
    """
    # ProcessPoolExecutor has no public way to kill its workers before Python 3.14
    # (terminate_workers); its _processes map is where every version keeps them, until
    # shutdown clears it: taken first.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.kill()  # SIGKILL: the workers ignore SIGTERM


def _died(
    jobs: Sequence[Any], futures: dict[Future[Any], int], describe: Callable[[Any], str] | None
) -> AgentFailure:
    """The failure of a pool whose worker died: the jobs that were in flight, by description."""
    unfinished = sorted(futures.values())
    named = [describe(jobs[i]) if describe else f"job {i}" for i in unfinished[:4]]
    more = f" and {len(unfinished) - 4} more" if len(unfinished) > 4 else ""
    return AgentFailure(
        "a worker process died (killed by a signal, out of memory, or ended by native code) "
        f"while playing one of: {'; '.join(named)}{more}"
    )


def run_jobs(
    fn: Callable[[Any], R],
    jobs: Sequence[Any],
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
    on_result: Callable[[int, R], None] | None = None,
    describe: Callable[[Any], str] | None = None,
    players: Callable[[Any], Collection[str]] | None = None,
) -> tuple[list[R | None], bool]:
    """Run ``fn(job)`` for every job; results come back in job order.

    Returns the results, ``None`` where a job did not finish, and whether all finished.
    ``fn`` must be a module-level function: it is pickled.

    - ``workers``: the number of local processes, or the CPUs of a Ray cluster started for
      the run.
    - ``backend``: ``None`` means local.
    - ``on_result(i, result)``: called in this process as each job finishes, before
      ``progress``.
    - ``describe(job)``: names a job in the line of a dead worker.
    - ``players(job)``: the agent specs a job plays.

    A job raising :class:`~agents.runtime.failures.AgentFailure`:

    - with ``players``, when the blamed agent plays in the job: the jobs it plays in that have
      not started are not played, the others run, and :class:`RunStopped` is raised at the
      end with every failure and the results;
    - without ``players``, or when the blamed agent does not play in the job: the run stops
      there, :class:`RunStopped` raised with the results so far.
    """
    results: list[R | None] = [None] * len(jobs)
    finished = 0
    contained = _Contained(jobs, players)

    def record(i: int, res: R) -> None:
        nonlocal finished
        results[i] = res
        if on_result:
            on_result(i, res)
        finished += 1
        if progress:
            progress(finished, len(jobs))

    try:
        if backend is not None and backend.kind == "ray":
            from agents.runtime.ray_jobs import run_on_ray

            def failed(i: int, exc: AgentFailure) -> list[int]:
                contained.fail(i, exc)
                return [j for j in range(len(jobs)) if results[j] is None and contained.skip(j)]

            run_on_ray(
                fn,
                jobs,
                record,
                workers=workers,
                address=backend.address,
                max_retries=backend.max_retries,
                failed=failed,
            )
        elif workers <= 1:
            for i, job in enumerate(jobs):
                if contained.skip(i):
                    continue
                try:
                    res = fn(job)
                except AgentFailure as exc:
                    contained.fail(i, exc)
                    continue
                record(i, res)
        else:
            _run_pool(fn, jobs, workers, record, contained, describe)
    except KeyboardInterrupt:
        # Ctrl-C is an answer, not an error: the caller gets what finished and ``False``.
        pass
    except AgentFailure as exc:  # not contained: the run stopped here
        contained.halted = True
        # Index -1 sorts before every job, so the failure that halted the run leads RunStopped.
        contained.failures.setdefault(exc.spec, (-1, exc))
    stopped = contained.stopped(results)
    if stopped is not None:
        raise stopped
    return results, finished == len(jobs)


def _run_pool(
    fn: Callable[[Any], R],
    jobs: Sequence[Any],
    workers: int,
    record: Callable[[int, R], None],
    contained: _Contained,
    describe: Callable[[Any], str] | None,
) -> None:
    """The jobs on a pool of ``workers`` spawned processes, ``workers`` at a time.

    A job is handed to the pool only when a worker is free, so none of a failed agent's jobs
    is queued behind a failure and played anyway.
    """
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=get_context("spawn"), initializer=_ignore_interrupts
    )
    futures: dict[Future[R], int] = {}
    # One iterator for the whole run: the generator below resumes it, so each job is
    # considered (and a skipped one noted) exactly once.
    waiting = iter(range(len(jobs)))
    try:
        while True:
            while len(futures) < workers:
                i = next((j for j in waiting if not contained.skip(j)), None)
                if i is None:
                    break
                futures[pool.submit(fn, jobs[i])] = i
            if not futures:
                return
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            # In job order, not completion order: on_result and the failure kept for an agent
            # must not depend on which worker was faster.
            for fut in sorted(done, key=futures.__getitem__):
                try:
                    res = fut.result()
                except BrokenProcessPool:
                    # The pool's own error names no job; ours names the ones in flight.
                    raise _died(jobs, futures, describe) from None
                except AgentFailure as exc:
                    contained.fail(futures.pop(fut), exc)
                    continue
                record(futures.pop(fut), res)
    finally:
        _terminate(pool)
