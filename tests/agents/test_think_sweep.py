"""``speed experiment think``: win rate against thinking cost; its files, repeats, refusals."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import speed_cli
from agents.think_sweep import summary, sweep
from agents.think_sweep.report import FILES

TINY = [
    "experiment",
    "think",
    "--worlds",
    "1",
    "--network",
    "trained",
    "--multiples",
    "0,1",
    "--costs",
    "150",
    "--games",
    "4",
    "--bootstrap",
    "20",
    "--workers",
    "1",
]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> Path:
    """A tiny sweep, its agents calibrated: search at 1 world and the network, 4 games a point."""
    out = tmp_path_factory.mktemp("think") / "first"
    assert speed_cli.main([*TINY, "--out", str(out)]) == 0
    return out


def test_a_tiny_sweep_writes_a_csv_json_and_plot_that_agree(first_run):
    doc = json.loads((first_run / FILES["json"]).read_text())
    with open(first_run / FILES["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    # two budgets, each off, x0, x1 and the fixed 150 ms: one CSV row per JSON point
    assert [(r["budget"], r["level"]) for r in rows] == [
        (b, level) for b in ("search×1", "network") for level in ("off", "×0", "×1", "150ms")
    ]
    for row, point in zip(rows, doc["points"], strict=True):
        assert int(row["games"]) == point["games"] == 4
        assert int(row["wins"]) + int(row["losses"]) + int(row["draws"]) == 4
        assert float(row["win_rate"]) == pytest.approx(point["win_rate"], abs=1e-6)
        assert float(row["ci_low"]) <= float(row["win_rate"]) <= float(row["ci_high"])
    costs = json.loads((first_run / FILES["costs"]).read_text())
    for budget in doc["budgets"]:
        calibrated = costs["agents"][budget["agent"]]["think_ms"]
        assert budget["calibrated_ms"] == calibrated > 0
        charged = {
            p["level"]: p["cost_ms"] for p in doc["points"] if p["budget"] == budget["budget"]
        }
        assert charged == {"off": 0.0, "×0": 0.0, "×1": calibrated, "150ms": 150.0}
    assert (first_run / FILES["plot"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    identity = json.loads((first_run / "run.json").read_text())
    assert identity["command"] == "speed experiment think" and identity["finished"]


def test_the_same_seed_and_costs_give_identical_files(first_run, tmp_path):
    again = tmp_path / "again"
    argv = [*TINY, "--think-file", str(first_run / FILES["costs"]), "--out", str(again)]
    assert speed_cli.main(argv) == 0
    for name in ("csv", "json", "plot", "costs"):
        assert (again / FILES[name]).read_bytes() == (first_run / FILES[name]).read_bytes(), name


def test_a_second_run_into_a_finished_folder_touches_nothing(first_run, capsys):
    before = {p.name: p.read_bytes() for p in first_run.iterdir() if p.is_file()}
    assert speed_cli.main([*TINY, "--out", str(first_run)]) == 0
    assert "already" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in first_run.iterdir() if p.is_file()} == before


def test_a_declared_cost_of_zero_plays_the_games_of_thinking_off():
    settings = sweep.ThinkSweepSettings(
        worlds=(1,), network=None, multiples=(0.0, 1.0), games=8, seed=3, bootstrap=0
    )
    spec = settings.budgets()[0].spec
    points = sweep.plan_points(settings, {spec: 300.0})
    assert [p.level for p in points] == ["off", "×0", "×1"]
    outcomes, complete = sweep.run_sweep(settings, points)
    assert complete
    assert np.array_equal(outcomes[0], outcomes[1])  # x0 is off, game by game
    # and the charge is real: 300 ms a play changes the games
    assert not np.array_equal(outcomes[0], outcomes[2])


def test_the_break_even_cost_is_where_the_fitted_win_rate_crosses_half():
    settings = sweep.ThinkSweepSettings(worlds=(1,), network=None, multiples=(1.0, 2.0))
    spec = settings.budgets()[0].spec
    points = sweep.plan_points(settings, {spec: 20.0})  # 0, 20 and 40 ms
    rng = np.random.default_rng(0)
    # 70% free, 50% at 20 ms, 30% at 40 ms: level with the opponent at 20 ms
    outcomes = {
        k: np.where(rng.random(4000) < p, 1, -1).astype(np.int8)
        for k, p in enumerate((0.7, 0.5, 0.3))
    }
    record = {"agents": {spec: {"think_ms": 20.0}}}
    doc = summary.summarise(settings, points, outcomes, record, True)
    budget = doc["budgets"][0]
    assert budget["break_even_ms"] == pytest.approx(20.0, abs=1.5)
    assert not budget["extrapolated"]
    assert doc["best_budget"]["off"]["budget"] == "search×1"


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--multiples", "1,-2"], "--multiples"),
        (["--multiples", "x"], "--multiples"),
        (["--costs", "-5"], "--costs"),
        (["--worlds", "0"], "--worlds"),
        (["--worlds", "1.5"], "--worlds"),
        (["--network", "nosuch"], "--network"),
        (["--opponent", "nosuch"], "--opponent"),
        (["--search", "search:worlds=4"], "--search"),
        (["--search", "nosuch"], "--search"),
        (["--think-file", "missing.json"], "--think-file"),
    ],
)
def test_bad_input_is_refused_in_one_line_naming_the_flag(tmp_path, capsys, flags, named):
    out = tmp_path / "x"
    assert speed_cli.main([*TINY, *flags, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert named in err and "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert not out.exists()


def test_the_network_is_compared_with_each_search_deal_by_deal():
    settings = sweep.ThinkSweepSettings(worlds=(16,), multiples=(1.0,))
    specs = [b.spec for b in settings.budgets()]
    points = sweep.plan_points(settings, dict.fromkeys(specs, 5.0))
    assert [(p.budget.label, p.level) for p in points] == [
        ("search×16", "off"),
        ("search×16", "×1"),
        ("network", "off"),
        ("network", "×1"),
    ]
    rng = np.random.default_rng(1)
    shared = np.where(rng.random(400) < 0.5, 1, -1).astype(np.int8)  # the deals' own luck
    better = shared.copy()
    better[::10] = 1  # the network wins a few more of the same deals
    outcomes = {0: shared, 1: shared, 2: shared, 3: better}
    pairs = {(p["level"], p["search"]): p for p in summary.network_vs_search(points, outcomes)}
    assert pairs[("off", "search×16")]["difference"] == 0.0
    assert pairs[("off", "search×16")]["ci"] == [0.0, 0.0]
    gain = pairs[("×1", "search×16")]
    expected = ((better == 1).mean() - (shared == 1).mean()).item()
    assert gain["difference"] == pytest.approx(expected)
    # paired over the same deals: far tighter than the two win rates' own intervals
    assert 0 < gain["ci"][0] < gain["difference"] < gain["ci"][1] < 2 * gain["difference"]
