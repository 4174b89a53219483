"""Playing a reaction sweep: every point's chunks in one pool of jobs.

The settings, the work (``SweepSettings.points``, ``plan_chunks``) and a point's
games (``PointResult``) are :mod:`agents.reaction_sweep.work`, where the evaluation
card's latency sweep (:mod:`agents.evaluate.make_card`) finds them too (the package
re-exports them). ``run_sweep`` plays them through the tournament harness
(``agents.tournament.realtime``) on any job backend. The package docstring
(:mod:`agents.reaction_sweep`) describes the whole experiment.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.reaction_sweep import crowd
from agents.reaction_sweep.work import PointResult, SweepSettings, plan_chunks
from agents.runtime.jobs import Backend, run_jobs
from agents.tournament import realtime


def _run_job(
    job: tuple[int, realtime.Settings, realtime.Chunk],
) -> tuple[int, realtime.ChunkResult]:
    point, settings, chunk = job
    return point, realtime.run_chunk(settings, chunk)


def _run_table_job(
    job: tuple[int, crowd.TableSettings, realtime.Chunk],
) -> tuple[int, realtime.Chunk, list[int]]:
    point, settings, chunk = job
    return point, chunk, crowd.run_table_chunk(settings, chunk)


def run_sweep(
    settings: SweepSettings,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[list[PointResult], bool]:
    """Play every point; the points with games (``settings.points()`` order), whether all ended.

    The work is every point's chunks (``plan_chunks``, each played by the
    tournament harness's ``run_chunk``) in one pool, so the results are the
    same for any number of workers and on either ``backend`` (``agents.runtime.jobs``).
    Ctrl-C stops the run and returns what finished; a point keeps its finished chunks. At a
    table of three or four (``settings.players``) each point's chunks are
    :mod:`agents.reaction_sweep.crowd`'s.
    """
    if settings.players > 2:
        return _run_tables(settings, workers, progress, backend)
    points = settings.points()
    jobs = []
    for k, point in enumerate(points):
        ts = settings.tournament_settings(point)
        jobs += [(k, ts, chunk) for chunk in plan_chunks(ts)]
    finished, complete = run_jobs(_run_job, jobs, workers, progress, backend)
    # Keyed (point, chunk): sorted, each point's chunks come back in deal order.
    done = {(r[0], r[1].chunk.index): r[1] for r in finished if r is not None}
    results = []
    for k, (lat, opp) in enumerate(points):
        chunks = [done[key] for key in sorted(done) if key[0] == k]
        outcomes = np.array([o for c in chunks for o in c.outcomes], dtype=np.int8)
        if outcomes.size:  # a point with no finished chunk is left out, not shown as 0 games
            results.append(PointResult(lat, opp, outcomes))
    return results, complete


def _run_tables(
    settings: SweepSettings,
    workers: int,
    progress: Callable[[int, int], None] | None,
    backend: Backend | None,
) -> tuple[list[PointResult], bool]:
    """:func:`run_sweep` at a table of three or four: the agent in one seat, the field around."""
    points = settings.points()
    jobs = []
    for k, point in enumerate(points):
        table = settings.table_settings(point)
        jobs += [(k, table, chunk) for chunk in plan_chunks(table)]
    finished, complete = run_jobs(_run_table_job, jobs, workers, progress, backend)
    done = {(r[0], r[1].index): r[2] for r in finished if r is not None}
    results = []
    for k, (lat, opp) in enumerate(points):
        outcomes = np.array(
            [o for key in sorted(done) if key[0] == k for o in done[key]], dtype=np.int8
        )
        if outcomes.size:
            results.append(PointResult(lat, opp, outcomes))
    return results, complete
