"""The ``ray`` backend of :func:`agents.jobs.run_jobs`: each job a Ray task, results by job index.

Imported only when a run asks for ``--backend ray`` (``import agents`` never
imports Ray). Needs the ``[ray]`` extra, and on a cluster the kit installed on
every node (the tasks import ``agents`` and ``speed_env`` there; only the job's
arguments travel).

Which cluster: an explicit address, else ``RAY_ADDRESS``, else a cluster of
``workers`` CPUs started on 127.0.0.1 for this run and stopped when it ends.
A Ray session this process already opened (``ray.init`` by the caller) is used
as it is and left open.

Determinism: a job's result depends on its arguments only, and results are
stored by job index, so the merged result is the same whatever node ran which
task, in whatever order they finished, and whatever was retried.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

LOCAL = "local"
"""Ray's address meaning: start a new cluster in this process (never join a running one)."""


def resolve_address(address: str | None) -> str:
    """The cluster to use: ``address``, else ``RAY_ADDRESS``, else :data:`LOCAL` (start one)."""
    return address or os.environ.get("RAY_ADDRESS") or LOCAL


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError(
            "--backend ray needs the [ray] extra (pip install 'speed-rl[ray]', "
            "or `make setup-ray`, "
            "which makes .venv-ray)"
        ) from None
    return ray


@contextlib.contextmanager
def cluster(address: str | None = None, workers: int = 1) -> Iterator[Any]:
    """Connect to (or start) the cluster for one run; yields the ``ray`` module.

    A cluster this starts (no address, no ``RAY_ADDRESS``) listens on 127.0.0.1
    only, has ``workers`` CPUs and is shut down on exit, Ctrl-C included.
    """
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    where = resolve_address(address)
    os.environ.setdefault(
        "RAY_USAGE_STATS_ENABLED", "0"
    )  # no reporting home from a test or a study
    kwargs: dict[str, Any] = {"logging_level": "WARNING"}
    if (
        where == LOCAL
    ):  # loopback only, no dashboard: nothing of a run's own cluster is reachable from outside
        kwargs |= {
            "num_cpus": max(1, workers),
            "_node_ip_address": "127.0.0.1",
            "include_dashboard": False,
        }
    try:
        ray.init(address=where, **kwargs)
    except ConnectionError as exc:
        raise ConnectionError(f"cannot reach the Ray cluster at {where!r}: {exc}") from None
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        cpus = int(ray.cluster_resources().get("CPU", 0))
        label = "a local cluster on 127.0.0.1" if where == LOCAL else where
        print(f"ray: {cpus} CPUs on {len(nodes)} node(s), {label}", file=sys.stderr)
        yield ray
    finally:
        ray.shutdown()


def _get(ray: Any, ref: Any) -> Any:
    """A task's result; an agent's failure in it comes back as itself, its one line intact
    (Ray wraps a task's exception in a RayTaskError whose text is the remote traceback)."""
    from agents.guarded import AgentFailure

    try:
        return ray.get(ref)
    except Exception as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, AgentFailure):
            raise AgentFailure(cause.message, cause.spec) from None
        raise


def run_on_ray(
    fn: Callable[[Any], Any],
    jobs: Sequence[Any],
    record: Callable[[int, Any], None],
    *,
    workers: int = 1,
    address: str | None = None,
    max_retries: int = 3,
) -> None:
    """Run ``fn(job)`` for every job as a Ray task; ``record(index, result)`` as each one finishes.

    A task whose worker or node is lost runs again, up to ``max_retries`` times;
    an exception raised by ``fn`` is raised here (not retried). On Ctrl-C (or
    any error) the tasks still running are cancelled and the exception goes on.
    """
    with cluster(address, workers) as ray:
        task = ray.remote(fn).options(num_cpus=1, max_retries=max_retries, retry_exceptions=False)
        refs = [task.remote(job) for job in jobs]
        index = {ref: i for i, ref in enumerate(refs)}
        pending = list(refs)
        try:
            while pending:
                # A timeout keeps the loop responsive to Ctrl-C while long tasks run.
                done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                for ref in done:
                    record(index[ref], _get(ray, ref))
        except BaseException:
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
