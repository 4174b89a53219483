"""Reaction sweep: the fit and bootstrap on synthetic games, small real sweeps, the CLI."""

from __future__ import annotations

import csv
import json
import math
import os
import threading

import numpy as np
import pytest

import speed_env
from agents import reaction_sweep
from speed_cli import main as cli
from speed_env.reaction import PRESETS
from speed_env.rules import make_rules


def _logistic(a: float, b: float, d: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(a + b * d)))


# --------------------------------------------------------------- statistics
def test_fit_recovers_an_exact_logistic():
    # Break-even at +30 ms; ten points of win rate per ln(1.5) / 0.02 = 20.27 ms.
    d = np.array([-100.0, -50.0, 0.0, 50.0, 100.0])
    n = np.full(5, 1000.0)
    fit = reaction_sweep.fit_logistic(d, n, n * _logistic(0.6, -0.02, d))
    assert fit.converged
    assert math.isclose(fit.intercept, 0.6, abs_tol=1e-9) and math.isclose(
        fit.slope, -0.02, abs_tol=1e-12
    )
    assert math.isclose(fit.break_even_ms, 30.0, abs_tol=1e-6)
    assert math.isclose(fit.ms_per_ten_points, math.log(1.5) / 0.02, rel_tol=1e-9)
    assert fit.deviance < 1e-9 and fit.dof == 3
    assert math.isclose(float(fit.win_rate(30.0)), 0.5, abs_tol=1e-12)
    assert math.isclose(float(fit.win_rate(30.0 - fit.ms_per_ten_points)), 0.6, abs_tol=1e-12)


def test_fit_and_bootstrap_recover_a_known_curve_from_sampled_games():
    # Games drawn from a known curve, deal by deal: the estimates land near the truth and the
    # bootstrap intervals cover it.
    a, b = -0.5, -0.015  # break-even at -33.3 ms (the agent must be faster), 27.0 ms per ten points
    d = np.array([-150.0, -100.0, -50.0, 0.0, 50.0, 100.0])
    rng = np.random.default_rng(7)
    outcomes = [np.where(rng.random(2000) < p, 1, -1).astype(np.int8) for p in _logistic(a, b, d)]
    fit = reaction_sweep.fit_logistic(d, [2000] * 6, [(o == 1).sum() for o in outcomes])
    assert fit.converged and fit.fit_p_value > 1e-3
    assert abs(fit.break_even_ms - (-a / b)) < 8
    assert abs(fit.ms_per_ten_points - math.log(1.5) / abs(b)) < 3
    boot = reaction_sweep.bootstrap_fit(d, outcomes, samples=300, seed=0)
    assert boot.joint and boot.samples == 300 and boot.dropped == 0
    assert boot.break_even_ms[0] < -a / b < boot.break_even_ms[1]
    assert boot.ms_per_ten_points[0] < math.log(1.5) / abs(b) < boot.ms_per_ten_points[1]
    assert boot.break_even_ms[1] - boot.break_even_ms[0] < 25


def test_fit_flags_a_step_and_refuses_what_it_cannot_fit():
    d = np.array([-50.0, -10.0, 10.0, 50.0])
    separated = reaction_sweep.fit_logistic(
        d, [100] * 4, [100, 100, 0, 0]
    )  # every faster game won: no finite slope
    assert not separated.converged
    step = reaction_sweep.fit_logistic(
        d, [1000] * 4, [950, 940, 60, 50]
    )  # a step with plateaus: a poor logistic
    assert step.fit_p_value < 1e-3
    with pytest.raises(ValueError, match="two different latency differences"):
        reaction_sweep.fit_logistic([0.0, 0.0], [10, 10], [5, 6])
    with pytest.raises(ValueError, match="score <= games"):
        reaction_sweep.fit_logistic([0.0, 1.0], [10, 10], [5, 11])


def test_deal_scores_pair_the_two_seatings_of_a_deal():
    assert reaction_sweep.deal_scores(np.array([1, 1, 1, -1, 0, -1, 0, 0])).tolist() == [
        2.0,
        1.0,
        0.5,
        1.0,
    ]


# ------------------------------------------------------------------ inputs
def test_parse_latencies_normalises_and_refuses_bad_lists():
    assert reaction_sweep.parse_latencies("150, 200,250ms,Human") == ("150", "200", "250", "human")
    for bad in ["", "150,,200", "150,fast", "0", "-5", "150,150", "150,150ms"]:
        with pytest.raises(ValueError):
            reaction_sweep.parse_latencies(bad)


def test_shifted_profile_moves_every_quantile():
    human = PRESETS["human"]
    base = reaction_sweep.shifted_profile(human.median_ms())  # a shaped L is the profile's median
    assert base.params().tolist() == human.params().tolist()
    assert (
        reaction_sweep.shifted_profile(human.mu, at="mu").params().tolist()
        == human.params().tolist()
    )
    slower = reaction_sweep.shifted_profile(human.median_ms() + 50)
    assert slower.median_ms() - base.median_ms() == 50
    assert reaction_sweep.shifted_profile(190).median_ms() == 190  # exactly: latencies are whole ms
    with pytest.raises(ValueError, match="too fast"):
        reaction_sweep.shifted_profile(50)
    with pytest.raises(ValueError, match="jittered preset"):
        reaction_sweep.shifted_profile(200, "250")


def test_settings_refuse_a_latency_in_the_spec():
    with pytest.raises(ValueError, match="carries a latency"):
        reaction_sweep.SweepSettings("greedy@200", "greedy", ("150",))
    with pytest.raises(ValueError, match="at least 2"):
        reaction_sweep.SweepSettings("greedy", "greedy", ("150",), games=1)


def test_points_and_tournament_settings():
    s = reaction_sweep.SweepSettings(
        "chain", "greedy", ("150", "pro"), ("200", "250"), games=10, seed=4
    )
    assert s.is_grid and s.points() == [
        ("150", "200"),
        ("150", "250"),
        ("pro", "200"),
        ("pro", "250"),
    ]
    ts = s.tournament_settings(("pro", "250"))
    assert ts.agents == ("chain@pro", "greedy@250") and ts.seed == 4 and ts.games == 10
    jit = reaction_sweep.SweepSettings("chain", "greedy", ("190",), ("human",), jitter="human")
    ts = jit.tournament_settings(("190", "human"))
    assert ts.agents == ("chain", "greedy@human") and ts.reaction.sigma == 40
    assert ts.reaction.median_ms() == 190 and ts.reaction.mu == 190 - 64  # human: mu + 64 ms
    # protocol 1 of `speed evaluate` places the shape's Gaussian centre instead
    mu = reaction_sweep.SweepSettings(
        "chain", "greedy", ("190",), ("human",), jitter="human", jitter_at="mu"
    )
    assert mu.tournament_settings(("190", "human")).reaction.mu == 190
    with pytest.raises(ValueError, match="jitter_at"):
        reaction_sweep.SweepSettings("chain", "greedy", ("190",), jitter="human", jitter_at="mean")


# ------------------------------------------------------------- real games
def _sweep(latencies, opponent, games, agent="greedy", jitter=None):
    settings = reaction_sweep.SweepSettings(
        agent, "greedy", latencies, opponent, games=games, rules=make_rules("us"), jitter=jitter
    )
    results, complete = reaction_sweep.run_sweep(settings)
    assert complete
    return settings, results


@pytest.mark.parametrize("latency", ["250", "human"])
def test_mirror_match_is_even_within_its_interval(latency):
    settings, results = _sweep((latency,), (latency,), 400)
    doc = reaction_sweep.summarise(settings, results, bootstrap=0)
    (row,) = doc["points"]
    assert row["games"] == 400 and row["wins"] + row["losses"] + row["draws"] == 400
    assert row["ci_low"] <= 0.5 <= row["ci_high"]
    assert doc["fit"] is None and "two different" in doc["fit_note"]


def test_win_rate_falls_as_the_agent_slows():
    settings, results = _sweep(("150", "350"), ("250",), 300)
    doc = reaction_sweep.summarise(settings, results, bootstrap=50)
    fast, slow = doc["points"]
    assert (fast["latency_ms"], slow["latency_ms"]) == (150, 350)
    assert fast["ci_low"] > 0.5 > slow["ci_high"]
    assert fast["win_rate"] - slow["win_rate"] > 0.4
    assert doc["fit"]["slope_per_ms"] < 0


@pytest.mark.slow
def test_sweep_is_the_same_for_any_number_of_workers():
    settings = reaction_sweep.SweepSettings(
        "greedy", "greedy", ("200", "300"), ("human",), games=20, jitter="human"
    )
    one, _ = reaction_sweep.run_sweep(settings, workers=1)
    two, _ = reaction_sweep.run_sweep(settings, workers=2)
    assert [r.outcomes.tolist() for r in one] == [r.outcomes.tolist() for r in two]


# -------------------------------------------------------------- summaries
def _synthetic_doc(grid=False):
    opp = ("200", "300") if grid else ("250",)
    settings = reaction_sweep.SweepSettings(
        "chain", "greedy", ("150", "250", "350"), opp, games=200
    )
    rng = np.random.default_rng(0)
    results = []
    for lat, o in settings.points():
        p = float(_logistic(0.2, -0.02, np.array(float(lat) - float(o))))
        outcomes = rng.choice(
            np.array([1, 0, -1], np.int8), size=200, p=[p * 0.98, 0.02, (1 - p) * 0.98]
        )
        results.append(reaction_sweep.PointResult(lat, o, outcomes))
    return reaction_sweep.summarise(settings, results, bootstrap=100)


def test_summary_rows_csv_and_fit():
    doc = _synthetic_doc()
    rows = list(csv.DictReader(reaction_sweep.rows_csv(doc).splitlines()))
    assert tuple(rows[0]) == reaction_sweep.CSV_COLUMNS
    assert [r["latency_ms"] for r in rows] == ["150", "250", "350"]
    for r, point in zip(rows, doc["points"]):
        assert int(r["wins"]) + int(r["losses"]) + int(r["draws"]) == int(r["games"]) == 200
        assert math.isclose(
            float(r["win_rate"]), (point["wins"] + point["draws"] / 2) / 200, abs_tol=1e-6
        )
        assert float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"])
    fit = doc["fit"]
    assert fit["break_even_ci"][0] <= fit["break_even_ms"] <= fit["break_even_ci"][1]
    assert fit["break_even_latency_ms"] == pytest.approx(250 + fit["break_even_ms"])
    assert "break-even" in reaction_sweep.headline(doc)
    json.dumps(doc)  # JSON-ready


def test_plots_are_pngs():
    line, grid = _synthetic_doc(), _synthetic_doc(grid=True)
    assert reaction_sweep.curve_png([line, grid]).startswith(b"\x89PNG")
    assert reaction_sweep.grid_png(grid).startswith(b"\x89PNG")


# -------------------------------------------------------------------- CLI
def test_cli_writes_the_files(tmp_path, capsys):
    out = tmp_path / "rx"
    argv = [
        "experiment",
        "reaction",
        "--agent",
        "greedy",
        "--opponent",
        "greedy",
        "--latencies",
        "200,300",
        "--games",
        "40",
        "--bootstrap",
        "50",
        "--workers",
        "1",
    ]
    assert cli([*argv, "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} == {
        "run.json",  # which run the folder holds (agents/runtime/run_identity.py)
        "reaction.csv",
        "reaction.json",
        "winrate_vs_latency.png",
    }
    header = (out / "reaction.csv").read_text().splitlines()[0]
    assert header == ",".join(reaction_sweep.CSV_COLUMNS)
    doc = json.loads((out / "reaction.json").read_text())
    assert doc["settings"]["opponent_latencies"] == ["250"] and doc["settings"]["complete"]
    assert (doc["env_id"], doc["kit_version"]) == ("speed_env/speed_v1", speed_env.__version__)
    assert "break_even_ms" in doc["fit"] and "break-even" in capsys.readouterr().out
    # A grid, drawn beside the first sweep.
    grid = tmp_path / "grid"
    assert cli([*argv, "--grid", "--compare", str(out), "--out", str(grid)]) == 0
    assert (grid / "latency_grid.png").exists()
    assert len(json.loads((grid / "reaction.json").read_text())["points"]) == 4


def test_jittered_latencies_are_shown_as_given(tmp_path, capsys):
    """``--jitter --latencies 140,...`` once printed 204: the flag set the shape's Gaussian
    centre while the table, the plot and the fit read medians. Now every number is a median."""
    out = tmp_path / "rx"
    argv = ["experiment", "reaction", "--agent", "greedy", "--jitter", "--latencies", "214,304"]
    assert (
        cli([*argv, "--games", "4", "--bootstrap", "0", "--workers", "1", "--out", str(out)]) == 0
    )
    header, *rows = capsys.readouterr().out.splitlines()[:3]
    assert header.split()[:6] == ["agent", "median", "ms", "opponent", "median", "ms"]
    assert [r.split()[:2] for r in rows] == [["214", "304"], ["304", "304"]]
    doc = json.loads((out / "reaction.json").read_text())
    assert [p["latency_ms"] for p in doc["points"]] == [214, 304]
    assert doc["settings"]["jitter_at"] == "median"
    assert (out / "reaction.csv").read_text().splitlines()[1].startswith("214,304,")


def test_the_evaluation_sweep_keeps_protocol_1s_latencies():
    """Protocol 1 fixed its latencies as the shape's Gaussian centre (``agent_means_ms``); its
    cards must still reproduce, so its sweep plays those profiles (medians 64 ms higher)."""
    from agents import evaluate

    plan = evaluate.make_plan("greedy", games=2)
    sweep = next(g["sweep"] for g in plan.groups.values() if g["kind"] == "latency")
    assert sweep.jitter_at == "mu" and sweep.latencies == ("120", "180", "240", "300", "360")
    first = sweep.tournament_settings(sweep.points()[0]).reaction
    assert (first.mu, first.floor, first.median_ms()) == (120, 30, 184)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--latencies", "150,,250"], "--latencies"),
        (["--latencies", "150,soon"], "unknown reaction"),
        (["--latencies", "150,150"], "twice"),
        (["--opponent-latency", "200,300"], "without --grid"),
        (["--agent", "speedy"], "unknown agent"),
        (["--agent", "greedy@200"], "carries a latency"),
        (["--jitter", "--latencies", "20"], "too fast"),
        (["--compare", "no/such/folder"], "cannot read"),
    ],
)
def test_cli_refuses_bad_input_with_exit_2(tmp_path, capsys, argv, message):
    out = tmp_path / "rx"
    code = cli(
        ["experiment", "reaction", "--games", "4", "--workers", "1", "--out", str(out), *argv]
    )
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_cli_refuses_an_unwritable_folder(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code = cli(
        [
            "experiment",
            "reaction",
            "--agent",
            "greedy",
            "--games",
            "4",
            "--workers",
            "1",
            "--out",
            str(blocker / "sub"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "not writable" in err and len(err.strip().splitlines()) == 1


def test_compare_refuses_a_named_pipe_by_name_without_blocking(tmp_path):
    """``--compare DIR`` reads DIR/reaction.json by the kit's reader of user files: a named pipe
    there is refused in one line (it once blocked the command in ``open`` for ever)."""
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    pipe = earlier / "reaction.json"
    os.mkfifo(pipe)
    said: list[str] = []

    def load() -> None:
        try:
            reaction_sweep.load(earlier)
        except reaction_sweep.SweepError as exc:
            said.append(str(exc))

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked in open(): a writer coming and going lets it go
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("--compare blocked on a named pipe")
    assert said == [
        f"an earlier sweep (--compare) {pipe} is a named pipe (FIFO), not a regular file; "
        "refusing it"
    ]
