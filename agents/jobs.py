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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, TypeVar

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


def run_jobs(
    fn: Callable[[Any], R],
    jobs: Sequence[Any],
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
    on_result: Callable[[int, R], None] | None = None,
) -> tuple[list[R | None], bool]:
    """``fn(job)`` for every job; returns results in job order (``None`` where a job did not
    finish) and whether all finished. ``fn`` must be a module-level function (it is pickled).

    ``workers`` is the number of local processes, or the CPUs of a Ray cluster
    started for the run; ``backend`` ``None`` means local. ``on_result(i, result)`` is
    called in this process as each job finishes, before ``progress``.
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
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
                futures = {pool.submit(fn, job): i for i, job in enumerate(jobs)}
                try:
                    for fut in as_completed(futures):
                        record(futures[fut], fut.result())
                except KeyboardInterrupt:
                    for fut in futures:
                        fut.cancel()
                    raise
    except KeyboardInterrupt:
        pass
    return results, finished == len(jobs)
