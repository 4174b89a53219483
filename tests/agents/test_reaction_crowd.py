"""Reaction sweeps at a table of three or four: the swept seat against a field, seats rotated."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents import reaction_sweep
from agents.reaction_sweep import crowd
from agents.tournament.harness import Chunk
from speed_cli import main as cli
from speed_env.rules import make_rules

# A long tick keeps these games to a few hundred ticks: the n-seat table observes seat by seat.
TICK = 200


def _table(agent: str, opponent: str, players: int, games: int = 6) -> crowd.TableSettings:
    rules = make_rules("us", players=players)
    return crowd.TableSettings(agent, opponent, games, rules, tick_ms=TICK, seed=3)


def test_outcomes_read_the_swept_seat_and_count_draws_and_cuts_as_neither():
    winner = np.array([0, 1, 2, 3, -1, 2], np.int8)  # 3: a draw at a table of three
    truncated = np.array([False, False, False, False, True, False])
    assert crowd.outcomes(winner, truncated, 2, 3).tolist() == [-1, -1, 1, 0, 0, 1]


def test_a_chunk_seats_the_agent_in_every_seat_in_turn_and_repeats():
    """Each deal is played once per seat of the swept agent (deal order, then seat), and a chunk
    is a pure function of the settings and its index."""
    table = _table("random@250", "greedy@250", players=3)
    chunk = Chunk(0, 0, 5, 2)  # deals 5 and 6
    first = crowd.run_table_chunk(table, chunk)
    assert len(first) == 2 * 3 and set(first) <= {-1, 0, 1}
    assert crowd.run_table_chunk(table, chunk) == first


def test_a_faster_seat_beats_its_fair_share_and_a_slower_one_falls_below():
    # Fixed latencies: the faster card always lands first, so 150 ms ahead of three greedy bots
    # wins far more than a quarter of the games, and 150 ms behind far fewer.
    fast = crowd.run_table_chunk(_table("greedy@100", "greedy@250", 4), Chunk(0, 0, 0, 3))
    slow = crowd.run_table_chunk(_table("greedy@400", "greedy@250", 4), Chunk(0, 0, 0, 3))
    assert len(fast) == len(slow) == 12
    assert fast.count(1) / 12 > 0.5 and slow.count(1) / 12 < 0.1


def test_deal_scores_group_a_deals_seatings_and_share_draws():
    o = np.array([1, -1, 0, -1, -1, -1, 1])  # two whole deals of three, and a last short one
    got = reaction_sweep.deal_scores(o, seats=3)
    assert np.allclose(got, [1 + 1 / 3, 0.0, 1.0])


def test_fit_reads_the_break_even_at_the_fair_share():
    # P = 1/(1 + exp(-(a + b d))): a quarter at d = (logit(1/4) - a) / b.
    a, b = 0.2, -0.02
    d = np.array([-100.0, -50.0, 0.0, 50.0, 100.0])
    n = np.full(5, 1000.0)
    p = 1 / (1 + np.exp(-(a + b * d)))
    fit = reaction_sweep.fit_logistic(d, n, n * p, share=0.25)
    expected = (math.log(1 / 3) - a) / b
    assert math.isclose(fit.break_even_ms, expected, abs_tol=1e-6)
    assert math.isclose(float(fit.win_rate(fit.break_even_ms)), 0.25, abs_tol=1e-9)
    ten = fit.break_even_ms - fit.ms_per_ten_points  # faster by that much: 35%
    assert math.isclose(float(fit.win_rate(ten)), 0.35, abs_tol=1e-9)
    # Bootstrapped deal by deal (four games a deal), the interval covers the truth.
    rng = np.random.default_rng(5)
    outcomes = [np.where(rng.random(2000) < q, 1, -1).astype(np.int8) for q in p]
    boot = reaction_sweep.bootstrap_fit(d, outcomes, samples=200, seed=0, seats=4)
    assert boot.joint and boot.break_even_ms[0] < expected < boot.break_even_ms[1]


def test_settings_of_a_table_of_four():
    settings = reaction_sweep.SweepSettings(
        "greedy", "random", ("200", "300"), games=10, rules=make_rules("us", players=4)
    )
    assert (settings.players, settings.fair_share, settings.games_per_point) == (4, 0.25, 8)
    table = settings.table_settings(settings.points()[0])
    assert (table.agent, table.opponent, table.deals) == ("greedy@200", "random@250", 2)
    doc = settings.to_dict()
    assert (doc["players"], doc["fair_share"], doc["games_per_point"]) == (4, 0.25, 8)
    with pytest.raises(reaction_sweep.SweepError, match="at least 4"):
        reaction_sweep.SweepSettings(
            "greedy", "random", ("200",), games=3, rules=make_rules("us", players=4)
        )


def test_cli_sweeps_a_table_of_three(tmp_path, capsys):
    out = tmp_path / "rx3"
    argv = ["experiment", "reaction", "--players", "3", "--agent", "greedy", "--opponent"]
    argv += ["greedy", "--latencies", "150,350", "--games", "7", "--bootstrap", "20"]
    argv += ["--workers", "1", "--tick-ms", str(TICK), "--out", str(out)]
    assert cli(argv) == 0
    captured = capsys.readouterr()
    assert "playing 6 games per point" in captured.err  # whole deals of three
    assert "a table of 3" in captured.out and "fair share, 33%" in captured.out
    doc = json.loads((out / "reaction.json").read_text())
    assert (doc["settings"]["players"], doc["settings"]["rules"]["players"]) == (3, 3)
    assert doc["fit"]["fair_share"] == pytest.approx(1 / 3)
    assert [p["games"] for p in doc["points"]] == [6, 6]
    assert doc["points"][0]["opponent"] == "greedy@250 x2"
    run = json.loads((out / "run.json").read_text())
    assert "--players" in json.dumps(run)
    # The same command again: the folder holds this run, finished.
    assert cli(argv) == 0
    assert "nothing to do" in capsys.readouterr().out.lower()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "5"], "--players"),
        (["--players", "4", "--games", "3"], "at least 4"),
        (["--players", "4", "--option", "players=3"], "disagree"),
        (["--players", "3", "--think", "measured"], "two-seat table only"),
    ],
)
def test_cli_refuses_a_bad_table_with_exit_2(tmp_path, capsys, argv, message):
    out = tmp_path / "rx"
    base = ["experiment", "reaction", "--agent", "greedy", "--workers", "1", "--out", str(out)]
    try:  # a value the flag's type refuses stops argparse, which exits
        code = cli([*base, *(argv if "--games" in argv else [*argv, "--games", "8"])])
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
