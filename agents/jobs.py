"""Run independent, deterministic jobs here or on a Ray cluster, keeping what finished on Ctrl-C.

Tournaments, vintage tournaments and reaction sweeps cut their work into
chunks that are pure functions of their inputs; this runs them and hands back
the results in job order, so the outcome is the same for any number of
workers and on either backend:

- ``local`` (the default): in order in this process (``workers=1``) or in a
  pool of ``workers`` spawned processes.
- ``ray``: each job is a Ray task (:mod:`agents.ray_jobs`, which imports Ray
  only when used), on the cluster at ``Backend.address``, else ``RAY_ADDRESS``,
  else a cluster of ``workers`` CPUs started on 127.0.0.1 for the run and
  stopped after it. A task whose worker process or node dies is run again
  (``max_retries`` times); an exception raised by the job itself is not
  retried (it would fail again) and reaches the caller as itself.

An agent that fails in a job (:class:`agents.guarded.AgentFailure`) stops the
run as Ctrl-C does: :class:`RunStopped` carries the failure and the results of
the jobs that finished. A local worker process that dies (killed, or ended by
native code) stops it the same way, naming the jobs that were in flight. On
Ctrl-C or a failure the local workers are terminated at once (they ignore
SIGINT themselves, so one Ctrl-C is the parent's to handle), never waited for.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, TypeVar

from agents.guarded import AgentFailure

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
    """An agent failed in a job and the run stopped: the failure's one line, the agent to blame
    (``spec``), and ``results``, what :func:`run_jobs` would have returned at Ctrl-C (``None``
    where a job did not finish). Never pickled: it is raised in the process that ran the jobs."""

    def __init__(self, failure: AgentFailure, results: list[Any]) -> None:
        super().__init__(failure.message, failure.spec)
        self.results = results


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's, which then terminates the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what is queued and kill the workers, whatever they are running
    (a slow agent must not hold up Ctrl-C, or a failure elsewhere)."""
    # ProcessPoolExecutor has no public way to kill its workers before Python 3.14
    # (terminate_workers); its _processes map is where every version keeps them, until
    # shutdown clears it: taken first.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()


def _died(
    jobs: Sequence[Any], futures: dict[Future[Any], int], describe: Callable[[Any], str] | None
) -> AgentFailure:
    """The failure of a pool whose worker died: the jobs that had not finished, by description
    (the pool feeds its workers in submission order, so the first of them were running)."""
    unfinished = sorted(
        i for f, i in futures.items() if not f.done() or f.cancelled() or f.exception() is not None
    )
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
) -> tuple[list[R | None], bool]:
    """``fn(job)`` for every job; returns results in job order (``None`` where a job did not
    finish) and whether all finished. ``fn`` must be a module-level function (it is pickled).

    ``workers`` is the number of local processes, or the CPUs of a Ray cluster
    started for the run; ``backend`` ``None`` means local. ``on_result(i, result)`` is
    called in this process as each job finishes, before ``progress``. A job raising
    :class:`~agents.guarded.AgentFailure` stops the run: :class:`RunStopped` is raised with
    the results so far. ``describe(job)`` names a job in the line of a dead worker.
    """
    results: list[R | None] = [None] * len(jobs)
    finished = 0

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
            from agents.ray_jobs import run_on_ray

            run_on_ray(
                fn,
                jobs,
                record,
                workers=workers,
                address=backend.address,
                max_retries=backend.max_retries,
            )
        elif workers <= 1:
            for i, job in enumerate(jobs):
                record(i, fn(job))
        else:
            pool = ProcessPoolExecutor(
                max_workers=workers, mp_context=get_context("spawn"), initializer=_ignore_sigint
            )
            futures: dict[Future[R], int] = {}
            try:
                futures = {pool.submit(fn, job): i for i, job in enumerate(jobs)}
                for fut in as_completed(futures):
                    try:
                        res = fut.result()
                    except BrokenProcessPool:
                        raise _died(jobs, futures, describe) from None
                    record(futures[fut], res)
            finally:
                _terminate(pool)
    except KeyboardInterrupt:
        pass
    except AgentFailure as exc:
        raise RunStopped(exc, results) from None
    return results, finished == len(jobs)
