"""An evaluation in the training loop leaves the global random generators as it found them
(:mod:`train.common.global_rng`), so what is evaluated never changes what is trained; the
whole run's check is in ``test_exploit.py`` (the same weights whatever the evaluation deals)."""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.specs.guarded import seed_globals
from train.common import global_rng


def draws() -> tuple[float, float, float]:
    """One draw from each global generator."""
    return random.random(), float(np.random.random()), float(torch.rand(1))  # noqa: NPY002


def test_kept_puts_every_global_generator_back_after_a_chunk_seeds_them():
    random.seed(1)
    np.random.seed(1)  # noqa: NPY002
    torch.manual_seed(1)
    expected = draws()
    random.seed(1)
    np.random.seed(1)  # noqa: NPY002
    torch.manual_seed(1)
    with global_rng.kept():
        seed_globals(99)  # what every tournament chunk does before its agents play
        torch.manual_seed(99)
        draws()
    assert draws() == expected
