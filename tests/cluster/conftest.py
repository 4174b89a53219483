"""Fixtures for the Ray tests: one authenticated local cluster on 127.0.0.1 per module.

These tests need the ``[ray]`` extra; ``make test`` runs them in ``.venv-ray``
(``make setup-ray``), one cluster at a time (``-p no:xdist``). Elsewhere they
are skipped with that reason.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
from collections.abc import Iterator

import pytest

if importlib.util.find_spec("ray") is not None:
    # Before Ray is first imported (it reads these once): every cluster the tests start, in this
    # process or as `ray start`, shares one fresh token, so nothing is read from or written to
    # ~/.ray; no usage statistics; no cluster named from outside.
    os.environ.update(
        RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16), RAY_USAGE_STATS_ENABLED="0"
    )
    os.environ.pop("RAY_ADDRESS", None)


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[object]:
    """A two-CPU cluster on 127.0.0.1, shared by a module's tests and shut down after them."""
    import ray

    assert not ray.is_initialized()
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="WARNING",
    )
    yield ray
    ray.shutdown()
