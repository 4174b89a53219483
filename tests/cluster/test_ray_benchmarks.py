"""The Ray benchmark scripts still run (tiny sizes; their numbers are measured in the README)."""

from __future__ import annotations

import pytest
from helpers_run import ROOT, run_python
from ray_helpers import SKIP_REASON

pytest.importorskip("ray", reason=SKIP_REASON)

pytestmark = pytest.mark.slow


def _run(script: str, *args: str) -> list[str]:
    return run_python(str(ROOT / "benchmarks" / script), *args).splitlines()


def test_the_scaling_benchmark_reports_both_cluster_sizes_and_the_estimates():
    out = _run("ray_scaling.py", "--games", "600", "--repeats", "1", "--nodes", "2,4")
    assert out[0].startswith("games 600, chunks 2")
    assert any(line.strip().startswith("1 worker(s):") for line in out)
    assert any(line.strip().startswith("2 worker(s):") for line in out)
    assert any("efficiency" in line for line in out)
    assert [line.split()[:2] for line in out[-2:]] == [["2", "4"], ["4", "8"]]


def test_the_scaling_benchmark_measures_search_target_generation():
    out = _run(
        "ray_scaling.py", "--job", "targets", "--games", "20", "--worlds", "2", "--repeats", "1"
    )
    assert out[0].startswith("games 20, chunks 2")  # chunks of 10 games
    assert any(line.strip().startswith("2 worker(s):") for line in out)
    assert any("efficiency" in line for line in out)


def test_the_rllib_runner_benchmark_reports_each_kind():
    out = _run("rllib_runners.py", "--games", "2", "--steps", "64")
    assert out[0].split() == ["runner", "games", "env", "steps/s"]
    assert [line.split()[:2] for line in out[1:]] == [["games", "2"], ["batch", "2"]]
