"""How many games one batch may hold: a stated bound, and the memory the batch would take.

:func:`check_batch_size` runs before a batch allocates anything, so a batch
too large for the machine is refused with one line naming ``n``, the bound
and the memory, rather than taking the machine's memory until the process
is killed. The vector envs (``gymnasium.make_vec``) check their ``num_envs``
rows the same way, at :func:`bytes_per_row` each.

=================  =========================================================
``MAX_GAMES``      2**20 = 1,048,576 games in one batch (about 6 GB of
                   memory at 27 actions), and as many rows in a vector env;
                   a tournament or a training run uses a few thousand
memory             :func:`bytes_per_game` (or :func:`bytes_per_row`) times
                   ``n`` must fit in the memory available
                   (:func:`available_memory`: the least of the system's
                   ``MemAvailable``, the process's cgroup limit less its
                   use, and its ``ulimit -v`` / ``ulimit -d`` less what it
                   maps; each not checked where the system does not say)
=================  =========================================================
"""

from __future__ import annotations

from pathlib import Path

MAX_GAMES = 2**20
"""The most games one batch (``BatchEnv``, ``Games``) may hold."""


def bytes_per_game(record_bytes: int, obs_dim: int, n_actions: int, seats: int = 2) -> int:
    """Memory one game of a batch takes, about: its engine record, the observation and mask
    buffers, and the fresh copies ``reset`` and ``step`` hand back (each once per seat).
    Measured at 27 actions: about 5.8 kB a game over ``reset`` and a ``step``; this gives 6.0 kB."""
    seats_view = seats * (4 * obs_dim + n_actions)
    return record_bytes + 3 * seats_view + 256


def bytes_per_row(per_game: int, games_per_row: float, obs_dim: int, n_actions: int) -> int:
    """Memory one row of a vector env takes, about: its share of the games (``per_game`` each),
    the batched spaces' bounds (a Box's low, high and their two flags: 10 bytes an observation
    entry, 4 a mask entry), and the rows' vectors and masks with the copies ``reset`` and
    ``step`` hand out, and the infos. Measured for ``Speed-v1`` at 27 actions: about 11.9 kB a
    row over a reset and a step; this gives 12.2 kB."""
    spaces = 10 * obs_dim + 4 * n_actions + 16
    rows = 4 * (4 * obs_dim + n_actions) + 1024
    return int(per_game * games_per_row) + spaces + rows


def _meminfo() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo``, in bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _cgroup() -> int | None:
    """The least headroom (``memory.max`` less ``memory.current``) of the process's cgroup v2
    and the cgroups above it; None where no limit is set."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        if not line.startswith("0::"):
            continue
        folder = Path("/sys/fs/cgroup") / line[3:].strip().lstrip("/")
        room = []
        for at in (folder, *folder.parents):
            if not at.is_relative_to("/sys/fs/cgroup"):
                break
            limit = at / "memory.max"
            if limit.is_file() and limit.read_text().strip() != "max":
                used = int((at / "memory.current").read_text())
                room.append(int(limit.read_text()) - used)
        return min(room) if room else None
    return None


def _rlimits() -> int | None:
    """The least headroom under ``ulimit -v`` (less ``VmSize``) and ``ulimit -d`` (less
    ``VmData``); None where neither is set."""
    import resource

    status = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmSize", "VmData"):
            status[key] = int(value.split()[0]) * 1024
    room = []
    for which, used in ((resource.RLIMIT_AS, "VmSize"), (resource.RLIMIT_DATA, "VmData")):
        soft, _ = resource.getrlimit(which)
        if soft != resource.RLIM_INFINITY and used in status:
            room.append(soft - status[used])
    return min(room) if room else None


MEMORY_SOURCES = {
    "the system's MemAvailable": _meminfo,
    "the process's cgroup limit": _cgroup,
    "the process's ulimit -v or -d": _rlimits,
}
"""Where :func:`available_memory` looks, each read where the system has it."""


def memory_bound() -> tuple[int, str] | None:
    """The least memory a new allocation can take and which limit says so, or None."""
    found = []
    for source, read in MEMORY_SOURCES.items():
        try:
            room = read()
        except (OSError, ValueError, IndexError):
            continue  # a limit this system does not show is not checked
        if room is not None:
            found.append((max(room, 0), source))
    return min(found) if found else None


def available_memory() -> int | None:
    """Bytes of memory a new allocation can take (:func:`memory_bound`), or None."""
    bound = memory_bound()
    return None if bound is None else bound[0]


def check_batch_size(n: int, per_game: int, *, name: str = "n", unit: str = "games") -> None:
    """Refuse ``n`` games (or ``unit``, counted by the argument ``name``) above
    :data:`MAX_GAMES` or needing more memory than is available, naming ``n``, the bound and
    the memory (ValueError; MemoryError for the memory)."""
    need = n * per_game
    if n > MAX_GAMES:
        raise ValueError(
            f"{name} = {n:,} {unit} is more than a batch holds (at most MAX_GAMES = "
            f"{MAX_GAMES:,}; {n:,} would take about {_size(need)} at {_size(per_game)} a "
            f"{unit.rstrip('s')}); use fewer {unit}, or several batches of them"
        )
    bound = memory_bound()
    if bound is not None and need > bound[0]:
        raise MemoryError(
            f"{name} = {n:,} {unit} would take about {_size(need)} ({_size(per_game)} a "
            f"{unit.rstrip('s')}), more than the {_size(bound[0])} of memory available under "
            f"{bound[1]}; use fewer {unit} per batch"
        )


def _size(b: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b} B"
