"""The benchmark scripts still run (tiny sizes; the numbers they print are measured elsewhere)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_run import ROOT, run_python


def _run(script: str, *args: str) -> str:
    return run_python(str(ROOT / "benchmarks" / script), *args)


def test_vec_env_benchmark_reports_each_opponent():
    out = _run(
        "vec_env.py", "--n-envs", "8", "--steps", "3", "--opponents", "greedy,chain"
    ).splitlines()
    assert out[0].split()[:2] == ["opponent", "timesteps/s"]
    rows = [line.split() for line in out[1:]]
    assert [r[0] for r in rows] == ["greedy", "chain"]
    assert all(float(r[1].replace(",", "")) > 0 for r in rows)


def test_vec_env_benchmark_splits_the_step_into_its_parts():
    out = _run("vec_env.py", "--n-envs", "8", "--steps", "3", "--opponents", "chain", "--split")
    lines = out.splitlines()
    assert lines[-2].startswith("env CPU us a decision")
    row = lines[-1].split()
    assert row[0] == "chain" and all(float(x) >= 0 for x in row[1:3])


def test_train_env_parts_benchmark_splits_a_training_runs_env(tmp_path):
    small = ["--n-envs", "8", "--n-steps", "32", "--batch-size", "128", "--n-epochs", "1"]
    args = ["--rules", "us", "--opponent", "chain", "--timesteps", "512", *small, "--net-arch"]
    args += ["16", "--eval-games", "2", "--eval-opponents", "random", "--no-progress"]
    out = _run("train_env_parts.py", "--", *args, "--out", str(tmp_path / "run"))
    line = out.strip().splitlines()[-1]
    assert line.startswith("env step CPU") and "skip loop" in line and "restarts" in line


def test_perf_map_names_the_kernels_a_benchmark_ran():
    vec_env = str(ROOT / "benchmarks" / "vec_env.py")
    out = _run("perf_map.py", vec_env, "--n-envs", "8", "--steps", "2", "--opponents", "chain")
    path = Path(out.strip().splitlines()[-1].split()[1])
    try:
        names = {line.split()[2] for line in path.read_text().splitlines()}
    finally:
        path.unlink()
    assert {"play_forced", "observe_game", "step_game", "deal_games"} <= names


def test_train_parts_benchmark_times_both_ways_of_each_part():
    out = _run(
        "train_parts.py", "--n-envs", "8", "--games", "8", "--reps", "1", "--rollouts", "1"
    ).splitlines()
    assert [line.split(":")[0] for line in out] == [
        "rollout policy step, 8 envs",
        "its costliest torch calls, 8 rows",
        "rollout step outside the env, 8 envs",
        "lean rollout step's parts, 8 envs",
        "ppo agent per tournament tick, 8 games",
    ]
    assert "sb3-contrib" in out[0] and "once-masked" in out[0] and "lean" in out[0]
    assert "multinomial" in out[1]
    assert "sb3" in out[2] and "lean" in out[2]
    assert "forward (actor and critic)" in out[3] and "total outside the env" in out[3]
    assert "every row" in out[4] and "choice rows" in out[4]


def test_speed_bench_compare_prints_ratios_or_names_what_is_missing():
    """`speed bench --compare` in a short smoke form: every row measured, each comparison a ratio
    or a line saying which package is missing (no timing is asserted)."""
    out = run_python(
        "-m",
        "speed_cli",
        "bench",
        "--compare",
        "--sizes",
        "16",
        "--seconds",
        "0.3",
        "--rounds",
        "1",
        "--vector-size",
        "8",
        "--json",
    )
    report = json.loads(out)
    rows = {(r["env"], r["n"]): r for r in report["results"]}
    assert ("parallel_env", 1) in rows and ("BatchEnv", 16) in rows
    # make_vec's native vector env beside vectorization_mode="sync" and BatchEnv at its size.
    assert {("make_vec", 8), ("make_vec(sync)", 8), ("BatchEnv", 8)} <= set(rows)
    assert report["vector"]["n"] == 8
    for ref, target in (("sync", 50.0), ("BatchEnv", 0.8)):
        ratio = report["vector"][ref]
        assert ratio["target"] == target and ratio["loop_ratio"] > 0 and ratio["cpu_ratio"] > 0
    assert all(r["loop_steps_per_s"] > 0 and r["cpu_steps_per_s"] > 0 for r in rows.values())
    for kit, ref, package in (
        ("parallel_env", "connect_four_v3", "connect_four_v3"),
        ("BatchEnv", "pgx connect_four", "pgx"),
    ):
        kit_row = next(r for (env, _), r in rows.items() if env == kit)
        if any(env == ref for env, _ in rows):
            assert kit_row["vs"] == ref and kit_row["loop_ratio"] > 0 and kit_row["cpu_ratio"] > 0
        else:
            assert any(package in line for line in report["missing"])


def test_engine_kernels_benchmark_times_each_kernel():
    out = _run("engine_kernels.py", "--sizes", "8", "--reps", "2").splitlines()
    assert len(out) == 1 and out[0].startswith("n=    8:")
    words = out[0].split(":", 1)[1].split()
    assert words[0:6:2] == ["step_all", "observe_all", "step_observe"]
    assert all(float(x) > 0 for x in words[1:6:2])


def test_parallel_step_benchmark_prints_microseconds_per_step():
    out = _run("parallel_step.py", "--steps", "50", "--rounds", "2").splitlines()
    assert len(out) == 1 and out[0].startswith("parallel_env.step: ")
    assert float(out[0].split()[1]) > 0


def test_vintage_paired_benchmark_prints_each_agent_and_the_paired_difference():
    out = _run("vintage_paired.py", "--games", "8", "vintage-greedy", "vintage-random")
    first, second = out.splitlines()
    assert first.startswith("vintage-greedy: ahead ") and "minus" not in first
    assert second.startswith("vintage-random: ahead ") and "minus vintage-greedy:" in second


def test_vintage_rollout_speed_benchmark_times_each_search_spec():
    specs = ["vintage-search@2", "vintage-search:own=network@2"]
    out = _run("vintage_rollout_speed.py", "--decisions", "3", *specs).splitlines()
    assert [line.split(":")[0] for line in out] == ["vintage-search@2", "vintage-search"]
    for line in out:
        assert "ms per decision" in line and line.endswith("rollouts per CPU s (3 decisions)")


def test_vintage_override_noise_benchmark_searches_the_overrides_again(tmp_path):
    from train.vintage.expert_targets import TargetSettings, generate, write_targets

    settings = TargetSettings(games=6, chunk_games=6, worlds=3, z=0.0, seed=3)
    path = write_targets(tmp_path / "t.safetensors", generate(settings)[0], settings)
    args = ["--worlds", "3", "--z", "0", "--limit", "5", "--by-kind"]
    out = _run("vintage_override_noise.py", str(path), *args)
    head, row, *kinds = out.splitlines()
    assert "overrides by the search at 3 worlds; 5 searched again" in head
    counts = [int(x.strip(",")) for x in row.split() if x.strip(",").isdigit()]
    assert row.startswith("3 worlds:") and sum(counts[1:]) == 5
    # Per decision kind ("card -> L: 2 overrides, 1 repeated"), the overrides add up to 5.
    per_kind = [line.rsplit(":", 1)[1].split() for line in kinds]
    assert kinds and all(" -> " in line for line in kinds)
    assert sum(int(p[0]) for p in per_kind) == 5
    assert sum(int(p[2]) for p in per_kind) == counts[1]  # the repeated ones: "same override"


def test_vintage_clone_fidelity_benchmark_reports_agreement_on_held_out_targets(tmp_path):
    from train.vintage.expert_targets import TargetSettings, generate, write_targets

    settings = TargetSettings(games=10, chunk_games=10, worlds=2, seed=3)
    path = write_targets(tmp_path / "t.safetensors", generate(settings)[0], settings)
    args = ["--games", "20", "--net-arch", "16,16", "--epochs", "1", "--out", str(tmp_path / "c")]
    out = _run("vintage_clone_fidelity.py", str(path), *args).splitlines()
    assert "16,16 network, 1 passes: agrees with the tactician on" in out[0]
    assert out[1] == f"saved {tmp_path / 'c' / 'model.json'}"


def test_table_load_benchmark_measures_one_game_beside_others():
    pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
    pytest.importorskip("websockets", reason="the [web] extra is not installed")
    out = _run("table_load.py", "--games", "0,2", "--seconds", "1", "--settle", "0.5")
    lines = out.strip().splitlines()
    assert lines[0].split() == ["games", "states/s", "of", "idle", "ping", "ms", "p95", "ms"]
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["1", "3"]  # the probe alone, then beside two games
    assert all(float(r[1]) > 0 for r in rows) and rows[0][2] == "100%"


@pytest.mark.parametrize(
    ("games", "said"),
    [
        ("8,16", "must start with 0 (the idle server) and hold counts >= 0, got '8,16'"),
        ("0,x", "invalid game_counts value: '0,x'"),
    ],
)
def test_table_load_benchmark_refuses_bad_counts_before_starting_a_server(games, said):
    script = str(ROOT / "benchmarks" / "table_load.py")
    done = subprocess.run(
        [sys.executable, script, "--games", games], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2  # argparse's usage error, not a traceback
    assert f"argument --games: {said}" in done.stderr


@pytest.mark.slow
def test_evaluate_cost_benchmark_splits_a_card_by_opponent():
    out = _run("evaluate_cost.py", "random", "--games", "2").splitlines()
    assert out[0].startswith("random --games 2: ") and "CPU s" in out[0]
    parts = {line.split()[0] for line in out[1:]}
    assert {"search", "chain", "latency"} <= parts
    assert sum(float(line.rsplit(None, 1)[-1].rstrip("%")) for line in out[1:]) == pytest.approx(
        100, abs=0.5
    )


@pytest.mark.slow
def test_time_to_target_benchmark_times_and_evaluates_each_checkpoint(tmp_path):
    """A tiny run of the default recipe: each checkpoint noted with its wall and CPU time,
    played against the three bots, the curve drawn and the Markdown table printed; run again,
    it reuses the run and the evaluations."""
    out = tmp_path / "ttt"
    small = ["--timesteps", "1024", "--n-envs", "16", "--n-steps", "32", "--batch-size", "256"]
    small += ["--eval-every", "512", "--eval-games", "2", "--net-arch", "16"]
    args = ["--rules", "us", "--games", "4", "--out", str(out), "--", *small]
    printed = _run("time_to_target.py", *args)
    stamps = (out / "checkpoints.csv").read_text().splitlines()
    assert stamps[0] == "rules,decisions,wall_s,cpu_s,load"
    assert [row.split(",")[1] for row in stamps[1:]] == ["512", "1024"]
    assert all(float(row.split(",")[3]) > 0 for row in stamps[1:])  # CPU seconds were read
    curve = (out / "curve.csv").read_text().splitlines()
    assert len(curve) == 1 + 2 * 3  # two checkpoints x three bots
    assert (out / "curve.png").stat().st_size > 0
    table = printed[printed.index("| rules | target |") :].splitlines()
    assert [line.split("|")[2].strip() for line in table[2:]] == [
        "beats random",
        "beats greedy",
        "reaches chain",
    ]
    again = _run("time_to_target.py", *args)
    assert "training us" not in again and "us @ " not in again  # nothing done twice
    assert again[again.index("| rules | target |") :] == printed[printed.index("| rules |") :]
