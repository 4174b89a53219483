"""A batch too large for its bound or for the machine's memory is refused before it allocates,
naming ``n``, the bound and the memory; the memory estimate is close to what a batch takes."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import speed_env
from speed_env import batch_size


def test_a_batch_above_the_bound_is_refused_before_allocating() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            speed_env.BatchEnv(10**7)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(err.value)
    assert "n = 10,000,000 games" in message and "MAX_GAMES = 1,048,576" in message
    assert "GB" in message  # the memory it would take, named
    assert peak < 20e6  # nothing of the 10**7 games was allocated


def test_a_batch_larger_than_the_memory_available_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(batch_size, "memory_bound", lambda: (100_000_000, "a test's limit"))
    with pytest.raises(MemoryError, match=r"n = 100,000 games would take about \d+\.\d MB .*"
                       r"than the 100\.0 MB of memory available"):  # fmt: skip
        speed_env.BatchEnv(100_000)
    speed_env.BatchEnv(1000).reset(seed=0)  # a batch that fits is made as before


def test_the_memory_estimate_is_close_to_what_a_batch_takes() -> None:
    n = 4000
    env = speed_env.BatchEnv(1)  # compile and warm up outside the measurement
    env.reset(seed=0)
    tracemalloc.start()
    try:
        env = speed_env.BatchEnv(n)
        env.reset(seed=0)
        kept = env.step(np.zeros((2, n), np.int64))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept is not None
    games = env.games
    estimate = n * batch_size.bytes_per_game(
        games.state.dtype.itemsize, games.obs_dim, games.n_actions
    )
    assert 0.6 * estimate < peak < 1.6 * estimate, (peak, estimate)


@pytest.mark.parametrize("env_id", ["speed_env/Speed-v1", "speed_env/SpeedSelfPlay-v1"])
def test_a_vector_env_too_large_for_the_memory_is_refused_by_its_estimate(
    env_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make_vec(num_envs=300000)`` under a 1.5 GB limit: refused naming num_envs and the
    estimate before the batched spaces or the games allocate (it once failed inside
    Gymnasium's ``batch_space`` with a bare numpy MemoryError)."""
    import gymnasium

    monkeypatch.setattr(batch_size, "memory_bound", lambda: (1_500_000_000, "a test's limit"))
    tracemalloc.start()
    try:
        with pytest.raises(MemoryError) as err:
            gymnasium.make_vec(env_id, num_envs=300_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(err.value)
    assert message.startswith("num_envs = 300,000 sub-envs would take about")
    assert "1.5 GB of memory available under a test's limit" in message
    assert peak < 20e6  # nothing of the 300,000 rows was allocated
    with pytest.raises(ValueError, match=r"num_envs = 2,000,000 sub-envs .* MAX_GAMES"):
        gymnasium.make_vec(env_id, num_envs=2_000_000)


@pytest.mark.parametrize(
    ("env_id", "games"), [("speed_env/Speed-v1", 4000), ("speed_env/SpeedSelfPlay-v1", 2000)]
)
def test_the_vector_env_estimate_covers_what_its_rows_take(env_id: str, games: int) -> None:
    import gymnasium

    gymnasium.make_vec(env_id, num_envs=2).reset(seed=0)  # compile outside the measurement
    rows = 4000
    tracemalloc.start()
    try:
        env = gymnasium.make_vec(env_id, num_envs=rows)
        env.reset(seed=0)
        kept = env.step(np.zeros(rows, np.int64))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept is not None and env.unwrapped.n_games == games
    g = env.unwrapped.games
    per_game = batch_size.bytes_per_game(g.state.dtype.itemsize, g.obs_dim, g.n_actions)
    estimate = rows * batch_size.bytes_per_row(per_game, games / rows, g.obs_dim, g.n_actions)
    # Never below what the rows take (the refusal must not let through what cannot fit),
    # and not so far above that a batch that fits is refused.
    assert peak < estimate < 2.0 * peak, (peak, estimate)


def test_the_memory_bound_reads_the_process_limit() -> None:
    """``ulimit -v`` is a bound the system's MemAvailable does not show: read in a child
    process whose address space may grow by 300 MB more."""
    import subprocess
    import sys

    code = """
import resource
from speed_env import batch_size
size = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + 300 * 2**20, resource.RLIM_INFINITY))
print(*batch_size.memory_bound(), sep="|")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    room, source = out.stdout.strip().split("|")
    assert source == "the process's ulimit -v or -d"
    assert 250 * 2**20 < int(room) <= 300 * 2**20
