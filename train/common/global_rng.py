"""Python's, numpy's and torch's global random generators, put back after a piece of work.

Training draws from them (SB3 shuffles its minibatches with numpy's global generator and
samples actions with torch's); an evaluation in the loop plays tournaments, whose chunks seed
the first two for the agents that draw from them
(:func:`agents.specs.guarded.seed_globals`). :func:`kept` around the evaluation leaves
training as if it had not run: the same seed trains the same weights whatever is evaluated,
how often, and on which deals.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch


@contextmanager
def kept() -> Iterator[None]:
    """Run the block, then restore the global generators to their state before it."""
    python_state = random.getstate()
    numpy_state = np.random.get_state()  # noqa: NPY002 - the legacy global generator is the point
    torch_state = torch.get_rng_state()
    # CUDA's generators only where CUDA is already in use: asking would initialise it.
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)  # noqa: NPY002
        torch.set_rng_state(torch_state)
        if cuda_states is not None:
            torch.cuda.set_rng_state_all(cuda_states)


__all__ = ["kept"]
