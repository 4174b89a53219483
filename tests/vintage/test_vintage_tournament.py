"""The N-player vintage tournament: line-ups, seat rotation, shared deals, workers, stats, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.stats import wilson_interval
from agents.tournament import vintage, vintage_stats
from agents.vintage.bots import VintageGreedy
from speed_cli import main as cli
from speed_env import __version__
from speed_env.vintage import raw_env
from speed_env.vintage.engine import penalties

THREE = ("vintage-random", "vintage-greedy", "vintage-tactician")


def _settings(**kw):
    base = dict(agents=THREE, players=4, games=8, seed=5)
    base.update(kw)
    return vintage.VintageSettings(**base)


# ---------------------------------------------------------------------- line-ups and seats
def test_lineups_cover_every_table():
    # Fewer agents than seats: every filling in which each agent sits at least once.
    assert _settings().lineups() == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    # At least as many agents as seats: every combination of distinct agents.
    assert _settings(players=2).lineups() == [(0, 1), (0, 2), (1, 2)]
    four = ("vintage-random", "vintage-greedy", "vintage-tactician", "vintage-greedy:b")
    assert len(_settings(agents=four, players=3).lineups()) == 4
    # A gauntlet: the agent against players - 1 copies of each other one.
    assert _settings(gauntlet="vintage-greedy").lineups() == [(1, 0, 0, 0), (1, 2, 2, 2)]


def test_seat_rotation_puts_every_agent_in_every_seat():
    settings = _settings(games=12)  # 3 deals per line-up, each played 4 times
    for chunk in vintage.plan(settings):
        res = vintage.run_chunk(settings, chunk)
        lineup = settings.lineups()[chunk.lineup]
        assert len(res.seating) == chunk.count * 4
        for d in range(chunk.start, chunk.start + chunk.count):
            games = [i for i, deal in enumerate(res.deal) if deal == d]
            assert sorted(res.rotation[i] for i in games) == [0, 1, 2, 3]
            for i in games:
                r = res.rotation[i]
                # The agent at line-up position p sits in seat (p + r) % 4: the seating is rotated.
                assert res.seating[i] == [lineup[(s - r) % 4] for s in range(4)]
            # Each line-up position visits each seat once per deal.
            for p in range(4):
                seats = {(p + res.rotation[i]) % 4 for i in games}
                assert seats == {0, 1, 2, 3}


def test_every_line_up_and_rotation_plays_the_same_deals():
    """All rotations and all line-ups start from the deal seeded ``(seed << 32) + d``."""
    twins = ("vintage-greedy", "vintage-greedy:b", "vintage-greedy:c")
    settings = _settings(players=2, agents=twins, games=6)  # 3 line-ups, 3 deals each, 2 rotations
    assert settings.lineups() == [(0, 1), (0, 2), (1, 2)]
    assert settings.deal_seed(1) == (5 << 32) + 1
    # Identical deterministic bots: a seat's result depends only on the cards, so every rotation
    # of a deal in every line-up gives the same penalties seat by seat, and different deals differ.
    results = [vintage.run_chunk(settings, c) for c in vintage.plan(settings)]
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for res in results:
        for d, pen in zip(res.deal, res.penalty):
            by_deal.setdefault(d, []).append(tuple(pen))
    assert sorted(by_deal) == [0, 1, 2]
    assert all(len(v) == 6 and len(set(v)) == 1 for v in by_deal.values())
    assert len({v[0] for v in by_deal.values()}) > 1
    # ... and those are the games the env plays for each deal's seed.
    bot = VintageGreedy()
    for d, pens in by_deal.items():
        table = raw_env(num_players=2, games=1)
        table.reset(seed=settings.deal_seed(d))
        while not table.game.over:
            view = table.observe(table.agent_selection)
            table.step(int(bot.act(view["observation"][None], view["action_mask"][None])[0]))
        assert tuple(penalties(table.game)) == pens[0]


def test_mirror_match_is_exactly_even():
    # Two copies of a deterministic bot: each deal's rotations swap their results, so the
    # pairwise record is symmetric and the ratings equal.
    settings = vintage.VintageSettings(
        agents=("vintage-greedy", "vintage-greedy:twin"), players=2, games=40, seed=2
    )
    results, complete = vintage.run(settings)
    assert complete
    summary = vintage.summarise(settings, results, bootstrap=20)
    (m,) = summary["matches"]
    assert m["wins_a"] == m["wins_b"] and m["win_rate_a"] == 0.5
    a, b = summary["agents"]
    assert math.isclose(a["rating"], b["rating"]) and a["mean_penalty"] == b["mean_penalty"]


def test_workers_do_not_change_results(monkeypatch):
    monkeypatch.setattr(vintage, "CHUNK_DEALS", 4)  # several chunks per line-up
    settings = _settings(games=40)
    assert len(vintage.plan(settings)) == 9
    one, c1 = vintage.run(settings, workers=1)
    two, c2 = vintage.run(settings, workers=2)
    assert c1 and c2
    assert [(r.seating, r.penalty, r.winner) for r in one] == [
        (r.seating, r.penalty, r.winner) for r in two
    ]
    assert vintage.summarise(settings, one, bootstrap=30) == vintage.summarise(
        settings, two, bootstrap=30
    )


# ---------------------------------------------------------------------- statistics
def _synthetic(settings, rows):
    """ChunkResults from rows of (lineup, deal, rotation, seating, penalty, winner)."""
    out = []
    for i, (lu, deal, rot, seating, pen, win) in enumerate(rows):
        r = vintage.ChunkResult(vintage.Chunk(i, lu, deal, 1))
        r.deal, r.rotation, r.seating, r.penalty, r.winner, r.turns = (
            [deal],
            [rot],
            [seating],
            [pen],
            [win],
            [10],
        )
        out.append(r)
    return out


def test_pairwise_compares_every_pair_of_seats():
    settings = _settings()
    res = _synthetic(
        settings,
        [
            # Agent 0 went out (0 points) and also sat in seat 3 holding 7; agents 1 and 2 tie on 5.
            (0, 0, 0, [0, 1, 2, 0], [0, 5, 5, 7], 0),
            # A truncated game: every comparison a tie, whatever is held.
            (0, 1, 0, [0, 1, 2, 0], [3, 9, 1, 2], -2),
        ],
    )
    wins, draws, games = vintage_stats.pairwise(vintage_stats.game_table(res, settings.deals), 3)
    assert games[0, 1] == games[1, 0] == 4 and games[0, 2] == 4 and games[1, 2] == 2
    # Game 1: seat 0 (agent 0, 0 points) beats 1 and 2; seat 3 (agent 0, 7 points) loses to both.
    assert wins[0, 1] == 1 and wins[1, 0] == 1 and wins[0, 2] == 1 and wins[2, 0] == 1
    assert wins[1, 2] == wins[2, 1] == 0
    # Ties: 1 v 2 in game 1, and all 5 comparisons of game 2 (agent 0's two seats are not compared).
    assert draws[1, 2] == draws[2, 1] == 2 and draws[0, 1] == 2 and draws[0, 2] == 2
    assert np.all(wins + wins.T + draws == games)


def test_clustered_mean_interval():
    rng = np.random.default_rng(0)
    x = rng.normal(10, 3, 400)
    # Clusters of one: the usual standard error.
    mean, lo, hi = vintage_stats.clustered_mean(x, np.arange(400))
    se = x.std(ddof=1) / math.sqrt(400)
    assert math.isclose(mean, x.mean()) and math.isclose(
        hi - mean, 1.959963984540054 * se, rel_tol=1e-9
    )
    # Every value repeated 4 times in its own cluster (rotations that agree): the interval is
    # that of the 400 distinct values (up to the C/(C-1) factor), not one twice as narrow.
    rep = np.repeat(x, 4)
    m2, lo2, hi2 = vintage_stats.clustered_mean(rep, np.repeat(np.arange(400), 4))
    assert math.isclose(m2, mean) and math.isclose(hi2 - lo2, hi - lo, rel_tol=1e-9)
    naive = rep.std(ddof=1) / math.sqrt(rep.size)
    assert hi2 - m2 > 1.9 * 1.959963984540054 * naive
    # Degenerate inputs.
    assert vintage_stats.clustered_mean(np.array([4.0]), np.array([0])) == (4.0, 4.0, 4.0)
    assert vintage_stats.clustered_mean(np.array([]), np.array([])) == (0.0, 0.0, 0.0)


def test_summary_from_synthetic_results():
    settings = _settings(players=2, agents=("vintage-random", "vintage-greedy"), games=4)
    res = _synthetic(
        settings,
        [
            (0, 0, 0, [0, 1], [0, 10], 0),  # random went out
            (0, 0, 1, [1, 0], [0, 20], 0),  # greedy went out
            (0, 1, 0, [0, 1], [12, 0], 1),  # greedy went out
            (0, 1, 1, [1, 0], [6, 6], -1),  # locked, drawn
        ],
    )
    s = vintage.summarise(settings, res, bootstrap=50)
    agents = {a["name"]: a for a in s["agents"]}
    r, g = agents["vintage-random"], agents["vintage-greedy"]
    assert r["games"] == g["games"] == 4
    assert r["wins"] == 1 and g["wins"] == 2
    assert math.isclose(r["mean_penalty"], (0 + 20 + 12 + 6) / 4) and math.isclose(
        g["mean_penalty"], 16 / 4
    )
    for a in (r, g):
        assert a["mean_penalty_ci"][0] <= a["mean_penalty"] <= a["mean_penalty_ci"][1]
        assert a["rating_ci"][0] <= a["rating"] <= a["rating_ci"][1]
    (m,) = s["matches"]
    assert (m["a"], m["games"], m["wins_a"], m["wins_b"], m["draws"]) == (
        "vintage-random",
        4,
        1,
        2,
        1,
    )
    assert math.isclose(m["win_rate_a"], 1.5 / 4)
    # Clustered by deal: deal 0 holds games 1-2 (random scores 1, 0), deal 1 games 3-4 (0, 0.5).
    _, lo, hi = vintage_stats.clustered_mean(np.array([1.0, 0.0, 0.0, 0.5]), np.array([0, 0, 1, 1]))
    assert m["win_rate_a_ci"] == [max(0.0, lo), min(1.0, hi)]
    assert g["rating"] > r["rating"]
    assert s["settings"]["drawn"] == 1 and s["settings"]["games_played"] == 4
    (lu,) = s["lineups"]
    assert [x["name"] for x in lu["results"]] == ["vintage-random", "vintage-greedy"]
    # The leaderboard reads these: mean penalty column, vintage wording, the line-up table.
    text = vintage.leaderboard(s)
    assert "mean penalty [95% CI]" in text and "a ahead" in text and "line-up (seat order)" in text
    assert "bounce rate" not in text


def test_truncated_games_count_as_ties_and_hold_no_penalty():
    settings = _settings(players=2, agents=("vintage-random", "vintage-greedy"), games=2)
    res = _synthetic(settings, [(0, 0, 0, [0, 1], [30, 1], -2), (0, 0, 1, [1, 0], [0, 9], 0)])
    s = vintage.summarise(settings, res, bootstrap=10)
    agents = {a["name"]: a for a in s["agents"]}
    assert (
        agents["vintage-random"]["mean_penalty"] == 9
        and agents["vintage-greedy"]["mean_penalty"] == 0
    )
    (m,) = s["matches"]
    assert m["draws"] == 1 and m["wins_b"] == 1 and s["settings"]["truncated"] == 1


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="plays real-time Speed"):
        _settings(agents=("greedy", "vintage-greedy"))
    with pytest.raises(ValueError, match="players must be 2–10"):
        _settings(players=11)
    with pytest.raises(ValueError, match="at least players"):
        _settings(games=3)
    with pytest.raises(ValueError, match="listed twice"):
        _settings(agents=("vintage-greedy", "vintage-greedy"))
    with pytest.raises(ValueError, match="gauntlet"):
        _settings(gauntlet="vintage-ppo:x.json")
    with pytest.raises(ValueError, match="colour"):
        _settings(options=(("colour", "red"),))


# ---------------------------------------------------------------------- the CLI
def test_cli_writes_every_file(tmp_path, capsys):
    out = tmp_path / "res"
    code = cli(
        [
            "tournament",
            "--game",
            "vintage",
            "--agents",
            "vintage-random,vintage-greedy,vintage-tactician",
            "--players",
            "4",
            "--games",
            "8",
            "--seed",
            "0",
            "--workers",
            "1",
            "--out",
            str(out),
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
        "agents.csv",
        "penalties.png",
    } <= names
    data = json.loads((out / "results.json").read_text())
    assert {"settings", "agents", "matches", "lineups"} <= set(data)
    assert (data["env_id"], data["kit_version"]) == ("speed_env/vintage_speed_v0", __version__)
    assert data["settings"]["game"] == "vintage" and data["settings"]["players"] == 4
    assert data["settings"]["games_played"] == 3 * 8
    for a in data["agents"]:
        assert {
            "name",
            "rating",
            "rating_ci",
            "games",
            "wins",
            "mean_penalty",
            "mean_penalty_ci",
        } <= set(a)
    assert len(data["matches"]) == 3
    assert (out / "results.csv").read_text().startswith("a,b,games,wins_a")
    assert "| vintage-greedy |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "vintage", "--agents", "vintage-greedy,greedy"], "plays real-time Speed"),
        (
            ["--game", "vintage", "--agents", "vintage-greedy,vintage-nope"],
            "unknown agent 'vintage-nope'",
        ),
        (["--game", "vintage", "--players", "11"], None),  # the message: test_cli_flags.py
        (["--game", "vintage", "--option", "colour=red"], "colour"),
        (["--game", "vintage", "--gauntlet", "chain"], "gauntlet 'chain'"),
        (["--game", "vintage", "--save-replays", "2"], "--save-replays"),
        (["--game", "vintage", "--rules", "japanese"], "--rules is for real-time"),
        (
            ["--game", "vintage", "--agents", "vintage-greedy,vintage-ppo:missing.json"],
            "missing.json",
        ),
        (["--players", "5"], "real-time Speed has 2 to 4 players"),
        (["--game", "texas"], None),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    out = tmp_path / "res"
    if message is None:  # argparse's own refusal (a bad choice) also exits 2
        with pytest.raises(SystemExit) as exc:
            cli(["tournament", "--games", "8", "--out", str(out), *argv])
        assert exc.value.code == 2
        return
    code = cli(["tournament", "--games", "8", "--out", str(out), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_intervals_widen_when_the_rotations_of_a_deal_agree():
    # The same 40 deals, each result copied into 4 "rotations": 160 comparisons that carry
    # only 40 deals' worth of information. Wilson (independent games) would be half as wide.
    from agents.stats import Ratings

    rng = np.random.default_rng(3)
    deal_scores = (rng.random(40) < 0.6).astype(float)
    comp = vintage_stats.Comparisons(
        a=np.zeros(160, np.int64),
        b=np.ones(160, np.int64),
        score_a=np.repeat(deal_scores, 4),
        cluster=np.repeat(np.arange(40), 4),
    )
    mean, lo, hi = vintage_stats.clustered_mean(comp.score_a, comp.cluster)
    wlo, whi = wilson_interval(comp.score_a.sum(), 160)
    assert hi - lo > 1.8 * (whi - wlo)
    once_lo, once_hi = wilson_interval(deal_scores.sum(), 40)
    assert abs((hi - lo) - (once_hi - once_lo)) < 0.25 * (
        once_hi - once_lo
    )  # about 40 games' worth
    # Ratings: redrawing whole deals gives the same spread as 40 games, not 160.
    points, games = vintage_stats.per_cluster(comp, 2)
    assert points.shape == (40, 2, 2) and games.sum() == 320
    from agents.stats import bootstrap_ratings, cluster_bootstrap_ratings

    clustered: Ratings = cluster_bootstrap_ratings(points, games, samples=200, seed=0)
    w = points.sum(axis=0)
    naive = bootstrap_ratings(np.round(w), np.zeros((2, 2)), games.sum(axis=0), samples=200, seed=0)
    assert (clustered.high - clustered.low)[0] > 1.6 * (naive.high - naive.low)[0]
