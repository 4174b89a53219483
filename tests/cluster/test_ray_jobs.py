"""The ray backend of the job runner: the same files as the local backend, retries, Ctrl-C.

Every cluster here listens on 127.0.0.1 only and is stopped by the test (or
module) that started it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ray_helpers import SKIP_REASON

ray = pytest.importorskip("ray", reason=SKIP_REASON)

from agents.runtime.failures import AgentFailure  # noqa: E402
from agents.runtime.jobs import Backend, RunStopped, run_jobs  # noqa: E402
from speed_cli import main as cli  # noqa: E402

pytestmark = pytest.mark.slow

# The job functions below live in this test module, which Ray workers cannot import:
# send them by value.
pytest.importorskip("ray.cloudpickle").register_pickle_by_value(sys.modules[__name__])

TIMING = ("wall_s",)
"""Fields of the result documents that measure the run rather than the games."""
RUN_TIMES = ("started", "finished")
"""Fields of ``run.json`` (the folder's run identity) that date the run."""


def assert_same_files(a: Path, b: Path) -> None:
    """Two result folders hold the same files, byte for byte (JSON: equal but for TIMING)."""
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name.endswith(".json"):
            docs = [json.loads((d / name).read_text()) for d in (a, b)]
            for doc in docs:
                if name == "run.json":  # the backend and workers are not part of a run's identity
                    for key in RUN_TIMES:
                        doc.pop(key)
                    continue
                for key in TIMING:
                    doc["settings"].pop(key)
            assert docs[0] == docs[1], name
        else:
            assert (a / name).read_bytes() == (b / name).read_bytes(), name


# ------------------------------------------------------------ same files on both backends
def test_a_tournament_writes_the_same_files_on_ray_as_locally(tmp_path, capsys):
    # 260 deals a pairing: two chunks each (250 + 10), six in all.
    argv = ["tournament", "--agents", "random,greedy,chain", "--games", "520", "--seed", "7"]
    assert cli([*argv, "--out", str(tmp_path / "local")]) == 0
    assert not ray.is_initialized()
    assert cli([*argv, "--backend", "ray", "--workers", "2", "--out", str(tmp_path / "ray")]) == 0
    err = capsys.readouterr().err
    assert "ray: 2 CPUs on 1 node(s), a local cluster on 127.0.0.1" in err
    assert "| 6/6 [" in err  # the progress bar (tqdm) reached every chunk
    assert not ray.is_initialized(), "the cluster started for the run is stopped after it"
    assert_same_files(tmp_path / "local", tmp_path / "ray")


def test_a_vintage_tournament_writes_the_same_files_on_ray_as_locally(tmp_path, local_cluster):
    argv = [
        "tournament",
        "--game",
        "vintage",
        "--agents",
        "vintage-random,vintage-greedy",
        "--players",
        "3",
        "--games",
        "120",
        "--seed",
        "5",
    ]
    assert cli([*argv, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert cli([*argv, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    assert ray.is_initialized(), "a Ray session the caller opened is left open"
    assert_same_files(tmp_path / "local", tmp_path / "ray")


def test_a_table_of_four_writes_the_same_files_on_ray_as_locally(tmp_path, local_cluster):
    # 30 deals a line-up, two chunks each (25 + 5); three line-ups seat three agents at four
    argv = ["tournament", "--players", "4", "--agents", "random,greedy,chain"]
    argv += ["--games", "120", "--seed", "7"]
    assert cli([*argv, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert cli([*argv, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    doc = json.loads((tmp_path / "ray" / "results.json").read_text())
    assert doc["settings"]["players"] == 4 and len(doc["settings"]["lineups"]) == 3
    assert_same_files(tmp_path / "local", tmp_path / "ray")


@pytest.mark.parametrize("grid", [False, True], ids=["sweep", "grid"])
def test_a_reaction_experiment_writes_the_same_files_on_ray_as_locally(
    tmp_path, local_cluster, grid
):
    argv = [
        "experiment",
        "reaction",
        "--agent",
        "greedy",
        "--opponent",
        "random",
        "--latencies",
        "150,300",
        "--games",
        "300",
        "--bootstrap",
        "40",
        "--seed",
        "2",
        *(["--grid"] if grid else []),
    ]
    assert cli([*argv, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert cli([*argv, "--workers", "1", "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    assert_same_files(tmp_path / "local", tmp_path / "ray")


def test_the_cli_refuses_a_ray_address_without_the_ray_backend(tmp_path, capsys):
    code = cli(
        [
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "2",
            "--ray-address",
            "auto",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2 and "--ray-address needs --backend ray" in capsys.readouterr().err


# ------------------------------------------------------------ lost workers, Ctrl-C
def _square_crashing_once(job: tuple[int, str]) -> int:
    """``i * i``; job 1's first attempt kills its worker process (as a lost node would)."""
    i, folder = job
    attempts = Path(folder) / f"attempts-{i}"
    with attempts.open("a") as f:
        f.write("x")
    if i == 1 and attempts.read_text() == "x":
        os._exit(1)
    return i * i


def test_a_chunk_whose_worker_dies_is_run_again(tmp_path, local_cluster):
    jobs = [(i, str(tmp_path)) for i in range(4)]
    results, complete = run_jobs(_square_crashing_once, jobs, backend=Backend("ray", max_retries=2))
    assert complete and results == [0, 1, 4, 9]
    assert (tmp_path / "attempts-1").read_text() == "xx", "job 1 ran twice: killed, then retried"
    assert all((tmp_path / f"attempts-{i}").read_text() == "x" for i in (0, 2, 3))


def test_a_chunk_that_keeps_losing_its_worker_fails_the_run(tmp_path, local_cluster):
    jobs = [(i, str(tmp_path)) for i in range(2)]
    with pytest.raises(ray.exceptions.WorkerCrashedError):
        run_jobs(_square_crashing_once, jobs, backend=Backend("ray", max_retries=0))


def _slow_square(job: tuple[int, float]) -> int:
    i, seconds = job
    time.sleep(seconds)
    return i * i


def test_ctrl_c_keeps_what_finished_and_cancels_the_rest(local_cluster):
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    jobs = [(0, 0.0)] + [(i, 30.0) for i in range(1, 6)]
    t0 = time.perf_counter()
    results, complete = run_jobs(_slow_square, jobs, progress=interrupt, backend=Backend("ray"))
    assert not complete
    assert results == [0, None, None, None, None, None]
    assert time.perf_counter() - t0 < 25, "the 30 s jobs were cancelled, not waited for"
    # The cluster is still usable after the cancellations.
    again, complete = run_jobs(_slow_square, [(3, 0.0)], backend=Backend("ray"))
    assert complete and again == [9]


def _plays(job: tuple[str, str]) -> str:
    if "bad" in job:
        raise AgentFailure("agent bad failed in act: boom", "bad")
    return "+".join(job)


def test_a_failing_agent_ends_only_its_jobs_on_ray(local_cluster):
    jobs = [("bad", "a"), ("a", "b"), ("bad", "b"), ("b", "c")]
    with pytest.raises(RunStopped) as info:
        run_jobs(_plays, jobs, backend=Backend("ray"), players=lambda job: job)
    stopped = info.value
    assert stopped.results == [None, "a+b", None, "b+c"]
    assert [f.spec for f in stopped.failures] == ["bad"] and not stopped.halted
    assert stopped.skipped == [0, 2]


def test_run_jobs_imports_no_ray_on_the_local_backend():
    code = (
        "import sys, agents, speed_env, agents.runtime.jobs as j; j.run_jobs(abs, [-1, 2]); "
        "print('ray' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.strip() == "False"
