"""Match points (docs/rules.md "Match points") and ``speed tournament --match``.

Exact single games are in ``tests/env/test_scenarios.py`` ("Match points"); here:
the points of whole batches agree with the final tables, and the tournament
cuts each pairing's games into matches the same way for any number of workers.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import agents
from agents.tournament import realtime, report
from speed_cli import main as cli
from speed_env import BatchEnv, make_rules


def _cards_left(player: dict) -> int:
    flight = player["in_flight"]
    return (
        sum(c is not None for c in player["hand"])
        + len(player["draw_pile"])
        + (len(flight["cards"]) if flight else 0)
    )


@pytest.mark.parametrize("preset", ["us", "pagat"])
def test_batch_points_are_the_losers_cards_left_at_the_end(preset):
    n = 24
    env = BatchEnv(n, preset, autoreset=False)
    obs, mask = env.reset(seed=11)
    bots = [agents.make("greedy", preset, seed=1), agents.make("random", preset, seed=2)]
    points = np.full((2, n), -1)
    while not env.all_finished:
        actions = np.stack([bots[p].act(obs[p], mask[p]) for p in range(2)])
        obs, mask, _, term, trunc, info = env.step(actions)
        ended = term | trunc
        if ended.any():
            points[:, ended] = info["points"][:, ended]
            assert (info["points"][:, ~ended] == 0).all()
    for i in range(n):
        t = env.table(i)
        w = t["winner"]
        assert w in (0, 1), "these bots never lock or stall a game"
        assert points[w, i] == _cards_left(t["players"][1 - w]) > 0 and points[1 - w, i] == 0
        assert env.snapshot(i)["points"] == {f"player_{w}": points[w, i], f"player_{1 - w}": 0}


def test_japanese_batches_carry_no_points():
    env = BatchEnv(2, "japanese", max_game_ms=100, autoreset=False)
    env.reset(seed=0)
    info = {}
    while not env.all_finished:
        *_, info = env.step(np.zeros((2, 2), np.int64))
    assert "points" not in info and "winner" in info


def test_split_matches_cuts_at_the_target_and_keeps_the_rest_apart():
    #       game:    1   2   3   |  4  |  5
    points_a = [10, 0, 20, 0, 5]
    points_b = [0, 7, 0, 30, 0]
    matches, left = realtime.split_matches(points_a, points_b, target=25)
    assert matches == [(1, 3), (-1, 1)] and left == 1


def _chunk(pair, start, points_a, points_b):
    chunk = realtime.Chunk(index=0, lineup=pair, start=start, count=len(points_a) // 2)
    return realtime.ChunkResult(chunk, points_a=points_a, points_b=points_b)


def test_a_match_never_spans_a_chunk_lost_to_an_interrupt():
    settings = realtime.Settings(
        agents=("random", "greedy"), games=12, rules=make_rules("us"), match=True
    )
    # deals 0-1 and 4-5 finished, deals 2-3 did not: the match open at deal 1 is cut off there.
    results = [_chunk(0, 4, [30, 0, 0, 0], [0, 0, 0, 9]), _chunk(0, 0, [0, 20, 0, 0], [0, 0, 0, 3])]
    matches, left = realtime.pairing_matches(settings, results)[0]
    assert matches == [(1, 1)] and left == 4 + 3
    # consecutive chunks join: the match goes on from deal 1 into deal 2
    results = [_chunk(0, 0, [0, 20], [0, 0]), _chunk(0, 1, [0, 10], [0, 0])]
    assert realtime.pairing_matches(settings, results)[0] == ([(1, 4)], 0)


def test_match_mode_is_the_same_for_any_workers_and_agrees_with_the_game_points():
    # 300 deals a pairing: two chunks each, so matches run across a chunk boundary.
    settings = realtime.Settings(
        agents=("random", "greedy", "chain"),
        games=600,
        rules=make_rules("pagat"),
        seed=5,
        match=True,
    )
    one, complete1 = realtime.run(settings, workers=1)
    two, complete2 = realtime.run(settings, workers=2)
    assert complete1 and complete2
    s1 = realtime.summarise(settings, one, bootstrap=20)
    assert s1 == realtime.summarise(settings, two, bootstrap=20)
    for k, m in enumerate(s1["matches"]):
        chunks = sorted((r for r in one if r.chunk.lineup == k), key=lambda r: r.chunk.start)
        a = [x for r in chunks for x in r.points_a]
        b = [x for r in chunks for x in r.points_b]
        assert len(a) == m["games"] == 600
        outcomes = [x for r in chunks for x in r.outcomes]
        assert all(
            (pa > 0) == (o == 1) and (pb > 0) == (o == -1) for pa, pb, o in zip(a, b, outcomes)
        )
        # replay the matches by hand: running totals, reset when a seat reaches 25
        wins_a, games, score, count = 0, [], [0, 0], 0
        for pa, pb in zip(a, b):
            score = [score[0] + pa, score[1] + pb]
            count += 1
            if max(score) >= 25:
                wins_a += score[0] >= 25
                games.append(count)
                score, count = [0, 0], 0
        assert m["matches"] == len(games) > 10 and m["match_wins_a"] == wins_a
        assert (
            m["mean_games_per_match"] == pytest.approx(np.mean(games))
            and m["games_left_over"] == count
        )
        assert m["match_win_rate_a_ci"][0] <= m["match_win_rate_a"] <= m["match_win_rate_a_ci"][1]
    for agent in s1["agents"]:
        assert agent["matches"] == sum(
            m["matches"] for m in s1["matches"] if agent["name"] in (m["a"], m["b"])
        )


def test_cli_match_reports_match_win_rates_beside_game_win_rates(tmp_path, capsys):
    out = tmp_path / "res"
    code = cli(
        [
            "tournament",
            "--agents",
            "random,chain",
            "--games",
            "60",
            "--seed",
            "2",
            "--match",
            "--option",
            "match_target=10",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert (
        "a's match win rate" in printed and "games / match" in printed and "matches won" in printed
    )
    data = json.loads((out / "results.json").read_text())
    m = data["matches"][0]
    assert data["settings"]["match"] is True and data["settings"]["rules"]["match_target"] == 10
    assert m["matches"] >= 1 and m["match_wins_a"] + m["match_wins_b"] == m["matches"]
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert rows[0]["matches"] == str(m["matches"]) and float(rows[0]["mean_games_per_match"]) > 1
    assert (out / "leaderboard.md").read_text() == report.leaderboard(data)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--rules", "japanese"],
            "match scoring (match_target) exists for the us and pagat presets only",
        ),
        (["--game", "vintage"], "--match scores real-time Speed"),
    ],
)
def test_cli_match_is_refused_where_there_is_no_match_scoring(tmp_path, capsys, argv, message):
    code = cli(
        [
            "tournament",
            "--agents",
            "random,greedy",
            "--games",
            "4",
            "--match",
            "--out",
            str(tmp_path / "res"),
            *argv,
        ]
    )
    err = capsys.readouterr().err
    assert (
        code == 2
        and message in err
        and "Traceback" not in err
        and len(err.strip().splitlines()) == 1
    )


def test_aec_env_reports_the_points_at_the_end_as_the_snapshot_does():
    import speed_env

    env = speed_env.env("us")
    env.reset(seed=3)
    final = {}
    for agent in env.agent_iter(20_000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = info["points"]
            env.step(None)
            continue
        plays = obs["action_mask"].copy()
        plays[0] = 0
        env.step(
            int(plays.argmax()) if plays.any() else 0
        )  # both seats play their first legal card
    assert final == env.unwrapped.snapshot()["points"] and sorted(final.values())[0] == 0
    assert sum(final.values()) > 0
