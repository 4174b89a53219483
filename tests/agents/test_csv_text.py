"""The kit's CSV files are written by one function (``agents.runtime.files.csv_text``): lines end
in ``\\n``, and the reaction sweep's, the think sweep's and the league's CSV read as they did
before they shared it, byte for byte."""

from __future__ import annotations

from agents.reaction_sweep.results import rows_csv as reaction_csv
from agents.runtime.files import csv_text
from agents.think_sweep.report import rows_csv as think_csv
from train.league.files import league_csv

OUTCOME = dict(games=10, wins=6, losses=3, draws=1, win_rate=0.6, ci_low=0.3127, ci_high=0.8318)


def test_csv_text_ends_lines_in_newline_and_quotes_what_needs_it():
    assert csv_text(["a", "b"], [[1, "x, y"], ["", 'say "hi"']]) == (
        'a,b\n1,"x, y"\n,"say ""hi"""\n'
    )
    assert csv_text(("a",), []) == "a\n"


def test_the_sweeps_csv_is_as_before():
    point = dict(latency_ms=250.0, opponent_latency_ms=300, **OUTCOME)
    assert reaction_csv({"points": [point]}) == (
        "latency_ms,opponent_latency_ms,games,wins,losses,draws,win_rate,ci_low,ci_high\n"
        "250,300,10,6,3,1,0.600000,0.312700,0.831800\n"
    )
    point = dict(budget="b, 1", agent="search", worlds=None, level=2, cost_ms=1.5, **OUTCOME)
    assert think_csv({"points": [point]}) == (
        "budget,agent,worlds,level,cost_ms,games,wins,losses,draws,win_rate,ci_low,ci_high\n"
        '"b, 1",search,,2,1.5,10,6,3,1,0.600000,0.312700,0.831800\n'
    )


def test_the_league_csv_is_as_before():
    league = {
        "members": [{"name": "a"}, {"name": "b"}],
        "rounds": [
            {"round": 0, "new_member": "a", "gain": None, "meta": {"value": 0.0, "weights": [1.0]}},
            {
                "round": 1,
                "new_member": "b",
                "gain": 0.25,
                "meta": {"value": 0.1, "weights": [0.5, 0.5]},
            },
        ],
    }
    assert league_csv(league) == (
        "round,new_member,gain,value,weight:a,weight:b\n"
        "0,a,,0.000000,1.000000,\n"
        "1,b,0.250000,0.100000,0.500000,0.500000\n"
    )
