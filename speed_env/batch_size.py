"""How many games one batch may hold: a stated bound, and the memory the batch would take.

:func:`check_batch_size` runs before a batch allocates anything, so a batch
too large for the machine is refused with one line naming ``n``, the bound
and the memory, rather than taking the machine's memory until the process
is killed.

=================  =========================================================
``MAX_GAMES``      2**20 = 1,048,576 games in one batch (about 6 GB of
                   memory at 27 actions); a tournament or a training run
                   uses a few thousand
memory             :func:`bytes_per_game` times ``n`` must fit in the memory
                   the system says is available (Linux's ``MemAvailable``;
                   not checked where the system does not say)
=================  =========================================================
"""

from __future__ import annotations

from pathlib import Path

MAX_GAMES = 2**20
"""The most games one batch (``BatchEnv``, ``Games``) may hold."""


def bytes_per_game(record_bytes: int, obs_dim: int, n_actions: int) -> int:
    """Memory one game of a batch takes, about: its engine record, the observation and mask
    buffers, and the fresh copies ``reset`` and ``step`` hand back (each twice: one per seat).
    Measured at 27 actions: about 5.8 kB a game over ``reset`` and a ``step``; this gives 6.0 kB."""
    seats_view = 2 * (4 * obs_dim + n_actions)
    return record_bytes + 3 * seats_view + 256


def available_memory() -> int | None:
    """Bytes of memory the system says a new allocation can take (``MemAvailable``), or None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_batch_size(n: int, per_game: int) -> None:
    """Refuse ``n`` games above :data:`MAX_GAMES` or needing more memory than is available,
    naming ``n``, the bound and the memory (ValueError; MemoryError for the memory)."""
    need = n * per_game
    if n > MAX_GAMES:
        raise ValueError(
            f"n = {n:,} games is more than a batch holds (at most MAX_GAMES = {MAX_GAMES:,}; "
            f"{n:,} would take about {_size(need)} at {_size(per_game)} a game); "
            "split the games into several batches"
        )
    free = available_memory()
    if free is not None and need > free:
        raise MemoryError(
            f"n = {n:,} games would take about {_size(need)} ({_size(per_game)} a game), more "
            f"than the {_size(free)} of memory available; use fewer games per batch"
        )


def _size(b: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b} B"
