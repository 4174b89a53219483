"""A progress bar for chunked runs (tournaments, sweeps, evaluations, anchor pools).

:func:`chunk_progress` hands a ``progress(done, total)`` callback (the one
:func:`agents.runtime.jobs.run_jobs` calls) that drives a tqdm bar on stderr; the CLI
(:mod:`speed_cli.common`) and ``python -m agents.evaluate.make_anchors`` both use it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Progress = Callable[[int, int], None]
"""``progress(done, total)``: chunks finished so far, of how many."""


@contextmanager
def chunk_progress(label: str) -> Iterator[Progress]:
    """A tqdm bar on stderr counting finished chunks, with rate and time left.

    The bar is closed when the run ends or stops. It starts with the run; the number of chunks
    comes with the first report.
    """
    from tqdm import tqdm

    bar = tqdm(desc=label, unit="chunk", file=sys.stderr)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        # tqdm counts steps; the callback reports a running total.
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
