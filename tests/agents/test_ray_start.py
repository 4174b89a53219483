"""Starting the ``--backend ray`` cluster (agents.runtime.ray_jobs): a local start that times out,
as Ray's does on a busy machine, is tried once more; a failure is one line naming what failed
and what to try, never Ray's traceback. Ray itself is faked, so this runs without it (the
real clusters are tests/cluster's)."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from typing import Any

import pytest

from agents.runtime import ray_jobs
from speed_cli import main

TIMEOUT = (
    "The current node timed out during startup. This could happen because some of the raylet "
    "failed to startup or the GCS has become overloaded."
)


class FakeRay:
    """Just what ``ray_jobs.cluster`` calls; ``init`` raises each of ``failures`` in turn."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.inits: list[dict[str, Any]] = []
        self.shutdowns = 0
        self.up = False
        self.__spec__ = ModuleSpec("ray", None)  # the CLI checks that Ray is installed

    def is_initialized(self) -> bool:
        return self.up

    def init(self, **kwargs: Any) -> None:
        self.inits.append(kwargs)
        if self.failures:
            raise self.failures.pop(0)
        self.up = True

    def shutdown(self) -> None:
        self.shutdowns += 1
        self.up = False

    def nodes(self) -> list[dict[str, Any]]:
        return [{"Alive": True}]

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 2.0}


@pytest.fixture(autouse=True)
def _no_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


def test_a_startup_timeout_is_tried_once_more(monkeypatch, capsys) -> None:
    ray = FakeRay(Exception(TIMEOUT))
    monkeypatch.setitem(sys.modules, "ray", ray)
    with ray_jobs.cluster(workers=2) as got:
        assert got is ray and ray.up
    assert len(ray.inits) == 2 and ray.inits[1]["address"] == ray_jobs.LOCAL
    err = capsys.readouterr().err
    assert "timed out while starting" in err and "starting it once more" in err
    assert "ray: 2 CPUs on 1 node(s), a local cluster on 127.0.0.1" in err


def test_two_timeouts_are_one_line_saying_what_to_try(monkeypatch) -> None:
    ray = FakeRay(Exception(TIMEOUT), TimeoutError("Timed out after 30 seconds"))
    monkeypatch.setitem(sys.modules, "ray", ray)
    with pytest.raises(ray_jobs.RayStartError) as err, ray_jobs.cluster(workers=2):
        pass
    text = str(err.value)
    assert "\n" not in text and len(ray.inits) == ray_jobs.STARTS
    assert text.startswith("the local Ray cluster did not start (2 tries): Timed out after 30")
    assert "--backend local" in text and "busy" in text


def test_other_failures_are_not_retried(monkeypatch) -> None:
    ray = FakeRay(RuntimeError("raylet died\nmore lines of Ray's log"))
    monkeypatch.setitem(sys.modules, "ray", ray)
    failed = pytest.raises(ray_jobs.RayStartError, match=r"did not start: raylet died; see Ray's")
    with failed, ray_jobs.cluster():
        pass
    assert len(ray.inits) == 1
    address = FakeRay(ConnectionError("no GCS at 10.0.0.9:6379"))
    monkeypatch.setitem(sys.modules, "ray", address)
    unreachable = pytest.raises(ray_jobs.RayStartError, match=r"cannot reach .* at '10\.0\.0\.9")
    with unreachable, ray_jobs.cluster("10.0.0.9:6379"):
        pass
    assert len(address.inits) == 1


def test_speed_says_it_in_one_line_with_no_traceback(monkeypatch, capsys, tmp_path) -> None:
    ray = FakeRay(Exception(TIMEOUT), Exception(TIMEOUT))
    monkeypatch.setitem(sys.modules, "ray", ray)
    argv = ["tournament", "--agents", "random,greedy", "--games", "4", "--backend", "ray"]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("speed tournament: error: the local Ray cluster did not start")
    assert not any("Traceback" in line for line in err)
