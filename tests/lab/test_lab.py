"""The research studies of speed_lab still run as ``python -m speed_lab.<name>`` (tiny sizes; the
numbers they print are measured in the README)."""

from __future__ import annotations

import pytest
from helpers_run import run_python


def _run(study: str, *args: str) -> str:
    return run_python("-m", f"speed_lab.{study}", *args)


def test_chain_ablation_study_prints_a_row_per_variant():
    out = _run(
        "chain_ablation",
        "--games",
        "8",
        "--workers",
        "1",
        "--presets",
        "us",
        "--variants",
        "chain;chain:run=0",
    ).splitlines()
    assert [line.split()[:2] for line in out[1:]] == [["us", "chain"], ["us", "chain:run=0"]]


def test_chain_options_study_prints_a_row_per_option_set_and_variant():
    out = _run(
        "chain_options",
        "--games",
        "4",
        "--workers",
        "1",
        "--options",
        "multi_play;jokers+play_out",
        "--variants",
        "chain;chain:multi=3",
    ).splitlines()
    rows = [line.split()[:2] for line in out[1:]]
    assert rows == [
        [options, variant]
        for options in ("multi_play", "jokers+play_out")
        for variant in ("chain", "chain:multi=3")
    ]


def test_doomed_race_study_compares_both_ways():
    out = _run("doomed_race", "--games", "60", "--continuations", "2").splitlines()
    states = int(out[0].split()[1])
    assert states > 0 and "continuations each way" in out[0]
    assert out[1].startswith("race ") and " wait " in out[1] and "race - wait" in out[1]


def test_rollout_gap_study_reports_a_cross_fitted_gain():
    out = _run(
        "rollout_gap", "--games", "40", "--continuations", "2", "--stop-chance", "0.2"
    ).splitlines()
    assert "decision states" in out[0] and int(out[0].split()[1]) > 0
    assert out[1].startswith("rollout-best differs from chain's choice in")
    assert out[2].startswith("gain per decision, cross-fitted:")


def test_search_gap_study_reports_fair_and_perfect_gains():
    out = _run(
        "search_gap",
        "--games",
        "30",
        "--worlds",
        "2",
        "--depth",
        "8",
        "--score",
        "2",
        "--stop-chance",
        "0.2",
    ).splitlines()
    assert "decision states of seat 0" in out[0] and int(out[0].split()[1]) > 0
    assert out[1].startswith("fair search:") and "gain per decision" in out[1]
    assert out[2].startswith("perfect search:") and out[3].startswith("perfect - fair:")


def test_idle_waiter_study_prints_a_row_per_preset_and_bot():
    out = _run(
        "idle_waiter", "--deals", "2", "--presets", "japanese", "--bots", "greedy"
    ).splitlines()
    assert out[0].split()[:3] == ["preset", "bot", "games"]
    assert out[1].split()[:3] == ["japanese", "greedy", "4"]


def test_search_departures_counts_no_waits_where_wait_is_off():
    """``search:wait=0`` never waits where ``chain`` plays; ``chain`` itself departs from
    ``chain`` only by its coin on ties, far less often than the search."""
    from speed_lab.search_departures import measure

    opts = {"jokers": True, "stack_layout": True, "multi_play": True, "play_out": True}
    off = measure("search:4,wait=0", "japanese", opts, games=8, ticks=30, seed=3)
    assert off.choices > 0 and off.waits == 0
    on = measure("search:4", "japanese", opts, games=8, ticks=30, seed=3)
    same = measure("chain", "japanese", opts, games=8, ticks=30, seed=3)
    assert on.departures > same.departures
    assert "departures from chain" in _run("search_departures", "--games", "4", "--ticks", "10")


def test_clone_sample_size_study_prints_a_row_per_number_of_games():
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    out = _run("clone_sample_size", "--games", "2,3", "--datasets", "2").splitlines()
    assert out[0].split()[:4] == ["games", "plays", "held-out", "clone"]
    rows = [line.split() for line in out[1:]]
    assert [row[0] for row in rows] == ["2", "3"]
    # The person follows its habit 80% of the time, and some of its other picks match it too.
    assert all(80.0 <= float(row[-1].rstrip("%")) <= 100.0 for row in rows)
