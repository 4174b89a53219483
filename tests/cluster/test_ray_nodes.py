"""Two Ray nodes on one machine: a head and a worker, each `ray start` in its own process.

Multi-node scheduling is exercised for real (tasks land on both nodes), and the
tournament's results are the local backend's. Both nodes listen on 127.0.0.1
only and are stopped by the test.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time

import pytest
from ray_helpers import SKIP_REASON, free_port, loopback_ray, ray_start, stop

ray = pytest.importorskip("ray", reason=SKIP_REASON)

from agents.runtime.jobs import Backend, run_jobs  # noqa: E402
from agents.tournament import realtime  # noqa: E402
from speed_env.rules import make_rules  # noqa: E402

pytestmark = pytest.mark.slow

pytest.importorskip("ray.cloudpickle").register_pickle_by_value(
    sys.modules[__name__]
)  # workers cannot import this module


def _node_of(job: float) -> str:
    time.sleep(job)
    return ray.get_runtime_context().get_node_id()


def test_two_nodes_share_the_chunks_and_the_results_are_the_local_ones(tmp_path, monkeypatch):
    """A head and a worker node, each `ray start` in its own process (1 CPU each) on 127.0.0.1."""
    port = free_port()
    # Ray's socket paths must stay short (a Unix socket path holds 107 bytes): not under tmp_path.
    temp_dir = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    head = ray_start(["--head", f"--port={port}", f"--temp-dir={temp_dir}"], tmp_path / "head.log")
    worker = None
    try:
        worker = ray_start([f"--address=127.0.0.1:{port}"], tmp_path / "worker.log")
        loopback_ray(monkeypatch)
        ray.init(address=f"127.0.0.1:{port}", _node_ip_address="127.0.0.1", logging_level="WARNING")
        try:
            deadline = time.monotonic() + 120
            while len([n for n in ray.nodes() if n["Alive"]]) < 2:
                log = (tmp_path / "worker.log").read_text()[-2000:]
                assert worker.poll() is None, f"the worker node stopped: {log}"
                assert time.monotonic() < deadline, (
                    f"the worker node did not join within 120 s: {log}"
                )
                time.sleep(1)
            # One CPU a node and six one-second tasks: both nodes must take some.
            nodes, complete = run_jobs(_node_of, [1.0] * 6, backend=Backend("ray"))
            assert complete and len(set(nodes)) == 2
            settings = realtime.Settings(
                agents=("random", "greedy"), games=1000, rules=make_rules("us"), seed=11
            )
            on_ray, complete = realtime.run(settings, backend=Backend("ray"))
            assert complete and len(on_ray) == 2
        finally:
            ray.shutdown()
    finally:
        for proc in (worker, head):
            if proc is not None:
                stop(proc)
        shutil.rmtree(temp_dir, ignore_errors=True)
    local, _ = realtime.run(settings)
    assert [r.outcomes for r in on_ray] == [r.outcomes for r in local]
    assert realtime.summarise(settings, on_ray) == realtime.summarise(settings, local)
