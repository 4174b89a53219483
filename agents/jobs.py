"""Run independent, deterministic jobs in worker processes, keeping what finished on Ctrl-C.

Tournaments, vintage tournaments and reaction sweeps cut their work into
chunks that are pure functions of their inputs; this runs them, in order or
in a pool of spawned processes, and hands back the results in job order, so
the outcome is the same for any number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any, TypeVar

R = TypeVar("R")


def run_jobs(
    fn: Callable[[Any], R],
    jobs: Sequence[Any],
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[R | None], bool]:
    """``fn(job)`` for every job; returns results in job order (``None`` where a job did not
    finish) and whether all finished. ``fn`` must be a module-level function (it is pickled)."""
    results: list[R | None] = [None] * len(jobs)
    finished = 0

    def record(i: int, res: R) -> None:
        nonlocal finished
        results[i] = res
        finished += 1
        if progress:
            progress(finished, len(jobs))

    try:
        if workers <= 1:
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
