"""The ``ray`` backend of :func:`agents.runtime.jobs.run_jobs`.

Each job is a Ray task; results are kept by job index.

Imported only when a run asks for ``--backend ray`` (``import agents`` never
imports Ray). Needs the ``[ray]`` extra, and on a cluster the kit installed on
every node (the tasks import ``agents`` and ``speed_env`` there; only the job's
arguments travel).

Which cluster: an explicit address, else ``RAY_ADDRESS``, else a cluster of
``workers`` CPUs started on 127.0.0.1 for this run and stopped when it ends.
A Ray session this process already opened (``ray.init`` by the caller) is used
as it is and left open.

Starting a local cluster on a busy machine: Ray gives its node a fixed 30 s to
register (``ray/_private/node.py``, not configurable in Ray 2.60) and raises
"The current node timed out during startup" past it, which a machine at load
4-5 reached. The kit starts it a second time after such a timeout (:data:`STARTS`)
and otherwise raises :class:`RayStartError`, a one-line ``ConnectionError``
saying what failed and what to try, never Ray's traceback.

Determinism: a job's result depends on its arguments only, and results are
stored by job index, so the merged result is the same whatever node ran which
task, in whatever order they finished, and whatever was retried.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

LOCAL = "local"
"""Ray's address meaning: start a new cluster in this process (never join a running one)."""
STARTS = 2
"""Tries at starting a local cluster: a startup that timed out is tried once more."""


class RayStartError(ConnectionError):
    """A Ray cluster could not be started or reached (one line: what failed, what to try)."""


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
        # The caller's session is the caller's to close: used as it is, never shut down here.
        yield ray
        return
    where = resolve_address(address)
    # No reporting home from a test or a study.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kwargs: dict[str, Any] = {"logging_level": "WARNING"}
    if where == LOCAL:
        # Loopback only, no dashboard: nothing of a run's own cluster is reachable from outside.
        kwargs |= {
            "num_cpus": max(1, workers),
            "_node_ip_address": "127.0.0.1",
            "include_dashboard": False,
        }
    start(ray, where, kwargs)
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        cpus = int(ray.cluster_resources().get("CPU", 0))
        label = "a local cluster on 127.0.0.1" if where == LOCAL else where
        print(f"ray: {cpus} CPUs on {len(nodes)} node(s), {label}", file=sys.stderr)
        yield ray
    finally:
        ray.shutdown()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is a node startup timeout (Ray raises a bare Exception for it)."""
    return isinstance(exc, TimeoutError) or "timed out" in str(exc).lower()


def start(ray: Any, where: str, kwargs: dict[str, Any]) -> None:
    """Call ``ray.init(address=where, **kwargs)``, trying a timed-out local start again.

    A local start that timed out is tried up to :data:`STARTS` times in all; any failure ends
    as one :class:`RayStartError` line.
    """
    for attempt in range(1, STARTS + 1):
        try:
            ray.init(address=where, **kwargs)
            return
        except ConnectionError as exc:  # an address that does not answer: no retry
            raise RayStartError(
                f"cannot reach the Ray cluster at {where!r}: {_first_line(exc)}"
            ) from None
        except Exception as exc:  # Ray's own startup errors are bare Exceptions
            with contextlib.suppress(Exception):
                ray.shutdown()  # what the failed start left of this process's session
            if where == LOCAL and _timed_out(exc) and attempt < STARTS:
                print(
                    f"ray: the local cluster timed out while starting ({_first_line(exc)}); "
                    "starting it once more",
                    file=sys.stderr,
                )
                continue
            what = "the local Ray cluster" if where == LOCAL else f"the Ray cluster at {where!r}"
            tried = f" ({attempt} tries)" if attempt > 1 else ""
            hint = (
                "the machine may be too busy for Ray to start in its 30 s: try again when it is "
                "quieter, or use --backend local (same results)"
                if _timed_out(exc)
                else "see Ray's logs under /tmp/ray/session_latest/logs, or use --backend local"
            )
            raise RayStartError(
                f"{what} did not start{tried}: {_first_line(exc)}; {hint}"
            ) from None


def _get(ray: Any, ref: Any) -> Any:
    """A task's result; an agent's failure in it comes back as itself.

    Its one line stays intact: Ray wraps a task's exception in a RayTaskError whose text is
    the remote traceback.
    """
    from agents.runtime.failures import AgentFailure

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
    failed: Callable[[int, Any], Iterable[int]] | None = None,
) -> None:
    """Run ``fn(job)`` for every job as a Ray task.

    ``record(index, result)`` is called as each one finishes. A task whose worker or node is
    lost runs again, up to ``max_retries`` times. An exception raised by ``fn`` is raised here,
    not retried, except an agent's failure when ``failed`` is given: ``failed(index, failure)``
    either raises, and the run stops, or names the jobs not to play, whose tasks are cancelled
    while the others go on. On Ctrl-C or any error the tasks still running are cancelled and
    the exception goes on.
    """
    from agents.runtime.failures import AgentFailure

    with cluster(address, workers) as ray:
        # max_retries covers a lost worker or node; an exception fn raised would only be
        # raised again, so it is not retried.
        task = ray.remote(fn).options(num_cpus=1, max_retries=max_retries, retry_exceptions=False)
        refs = [task.remote(job) for job in jobs]
        index = {ref: i for i, ref in enumerate(refs)}
        pending = list(refs)
        try:
            while pending:
                # A timeout keeps the loop responsive to Ctrl-C while long tasks run.
                done, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                for ref in done:
                    try:
                        res = _get(ray, ref)
                    except AgentFailure as exc:
                        if failed is None:
                            raise
                        drop = set(failed(index[ref], exc))
                        for other in [r for r in pending if index[r] in drop]:
                            pending.remove(other)
                            # force: a game already running is killed, not played to its end;
                            # a task that finished meanwhile may refuse the cancel, harmlessly.
                            with contextlib.suppress(Exception):
                                ray.cancel(other, force=True)
                        continue
                    record(index[ref], res)
        except BaseException:  # Ctrl-C is a KeyboardInterrupt, not an Exception
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
