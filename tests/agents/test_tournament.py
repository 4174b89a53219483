"""Tournament harness: paired deals, determinism across workers, statistics, the CLI."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import agents
import speed_env
from agents.stats import ELO_SCALE, bootstrap_ratings, bradley_terry, wilson_interval
from agents.tournament import realtime
from speed_cli import main as cli
from speed_env.rules import make_rules


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-4) and math.isclose(hi, 0.5962, abs_tol=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and math.isclose(hi, 0.2775, abs_tol=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bradley_terry_recovers_known_strengths():
    # True ratings 1400, 1500, 1600: expected scores follow the logistic curve exactly.
    true = np.array([1400.0, 1500.0, 1600.0])
    games = np.full((3, 3), 100_000.0)
    np.fill_diagonal(games, 0)
    p = 1 / (1 + np.exp(-(true[:, None] - true[None, :]) / ELO_SCALE))
    points = p * games
    fitted = bradley_terry(points, games)
    np.testing.assert_allclose(fitted, true, atol=1.0)


def test_bootstrap_interval_covers_and_shrinks_with_games():
    def ratings(n):
        wins = np.array([[0, 0.6 * n], [0.4 * n, 0]])
        games = np.array([[0, n], [n, 0]])
        return bootstrap_ratings(wins, np.zeros((2, 2)), games, samples=200, seed=1)

    small, big = ratings(200), ratings(20_000)
    expected_gap = ELO_SCALE * math.log(0.6 / 0.4)
    assert math.isclose(big.rating[0] - big.rating[1], expected_gap, rel_tol=0.02)
    assert small.low[0] <= small.rating[0] <= small.high[0]
    assert (big.high - big.low)[0] < (small.high - small.low)[0] / 5


def _settings(**kw):
    base = dict(agents=("random", "greedy", "chain"), games=40, rules=make_rules("us"), seed=3)
    base.update(kw)
    return realtime.Settings(**base)


def test_paired_deals_are_paired():
    settings = _settings(games=8)
    chunks = realtime.plan(settings)
    assert [c.lineup for c in chunks] == [0, 1, 2] and all(
        c.start == 0 and c.count == 4 for c in chunks
    )
    # The same deal seeds serve every pairing and both seatings.
    assert settings.deal_seed(0) == (3 << 32)
    # Both seatings of a deal start from the same table.
    _, first = realtime._play(settings, ("random", "greedy"), 0, 3, 0, record=3)
    _, second = realtime._play(settings, ("greedy", "random"), 0, 3, 0, record=3)
    for i in range(3):
        start_1 = next(f["snapshot"] for f in first if f["game"] == i)
        start_2 = next(f["snapshot"] for f in second if f["game"] == i)
        assert start_1 == start_2
    # A mirror match of a deterministic bot: each deal's second game is its first game with
    # the seats swapped, so every decided deal is split one win each.
    agents.register(
        "first-legal", "test bot: the first legal play", lambda rules, seed, arg: _FirstLegal()
    )
    mirror = realtime.Settings(
        agents=("first-legal", "first-legal:x"), games=80, rules=make_rules("japanese")
    )
    res = realtime.run_chunk(mirror, realtime.plan(mirror)[0])
    pairs = np.array(res.outcomes).reshape(-1, 2)
    decided = pairs[(pairs != 0).all(axis=1)]
    assert len(decided) > 20 and (decided.sum(axis=1) == 0).all()


class _FirstLegal:
    def act(self, obs, mask):
        m = mask.copy()
        m[:, 0] = 0
        return np.where(m.any(axis=1), m.argmax(axis=1), 0)


def test_workers_do_not_change_results():
    settings = _settings(games=600)
    one, complete1 = realtime.run(settings, workers=1)
    two, complete2 = realtime.run(settings, workers=2)
    assert complete1 and complete2
    s1 = realtime.summarise(settings, one, bootstrap=50)
    s2 = realtime.summarise(settings, two, bootstrap=50)
    assert s1 == s2
    assert [r.outcomes for r in one] == [r.outcomes for r in two]


def test_summary_shape():
    settings = _settings(games=100)
    results, _ = realtime.run(settings)
    summary = realtime.summarise(settings, results, bootstrap=30)
    assert {a["name"] for a in summary["agents"]} == set(settings.agents)
    for a in summary["agents"]:
        assert a["rating_ci"][0] <= a["rating"] <= a["rating_ci"][1]
        assert a["games"] == 200 and 0 <= a["bounce_rate"] < 1 and a["mean_cards_played"] > 0
    for m in summary["matches"]:
        assert m["wins_a"] + m["wins_b"] + m["draws"] == m["games"] == 100
        assert m["win_rate_a_ci"][0] <= m["win_rate_a"] <= m["win_rate_a_ci"][1]


def test_cli_writes_every_file(tmp_path, capsys):
    out = tmp_path / "res"
    code = cli(
        [
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "20",
            "--seed",
            "1",
            "--out",
            str(out),
            "--save-replays",
            "1",
        ]
    )
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "results.json",
        "results.csv",
        "leaderboard.md",
        "winrate_heatmap.png",
        "ratings.png",
        "replays.jsonl",
    } <= names
    data = json.loads((out / "results.json").read_text())
    assert set(data) == {
        "status", "env_id", "kit_version", "settings", "agents", "matches", "alpharank"
    }  # fmt: skip
    assert data["status"] == {"complete": True, "chunks_done": 1, "chunks_total": 1}
    assert (data["env_id"], data["kit_version"]) == ("speed_env/speed_v1", speed_env.__version__)
    assert "| greedy |" in capsys.readouterr().out
    assert cli(["replay", str(out / "replays.jsonl")]) == 0
    assert "player_0 = random" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random,nope"], "unknown agent 'nope'"),
        (["--agents", "random,greedy", "--rules", "texas"], "unknown rules 'texas'"),
        (["--agents", "random,greedy", "--option", "colour=red"], "unknown rule option 'colour'"),
        (["--agents", "random"], "at least two agent specs"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    out = tmp_path / "res"
    code = cli(["tournament", "--games", "4", "--out", str(out), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_cli_unwritable_output_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "speed_cli",
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "4",
            "--out",
            str(blocker / "sub"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 2
    assert "not writable" in proc.stderr and "Traceback" not in proc.stderr
    assert blocker.read_text() == "not a folder"


@pytest.mark.skipif(
    importlib.util.find_spec("ray") is not None,
    reason="ray is installed (tests/cluster covers the ray backend)",
)
def test_the_ray_backend_without_the_ray_extra_is_a_clear_error(tmp_path, capsys):
    code = cli(
        [
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "2",
            "--backend",
            "ray",
            "--out",
            str(tmp_path / "t"),
        ]
    )
    assert code == 2 and "--backend ray needs the [ray] extra" in capsys.readouterr().err
    assert not (tmp_path / "t").exists(), "nothing is written"


def test_a_job_backend_is_checked_when_made():
    from agents.runtime.jobs import Backend

    with pytest.raises(ValueError, match="backend must be one of local, ray"):
        Backend("dask")
    with pytest.raises(ValueError, match="needs the ray backend"):
        Backend("local", address="auto")
