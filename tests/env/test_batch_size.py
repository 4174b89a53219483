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
    monkeypatch.setattr(batch_size, "available_memory", lambda: 100_000_000)
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
