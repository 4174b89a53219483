"""Party Speed's bots and tables: ``chain`` at three and four seats, the other kinds refused
there, ``speed tournament --players 3|4`` (seat rotation over shared deals, win shares,
Bradley–Terry), its determinism, resume and trust checks; ``speed evaluate`` stays two-player."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import speed_cli
from agents.errors import AgentSpecError
from agents.specs.realtime import REALTIME
from agents.tournament import party
from agents.tournament.harness import Chunk
from speed_env.batch import BatchEnv
from speed_env.party_obs import observe_seat
from speed_env.rules import make_rules
from speed_env.seats import SeatGames


def _play_chain_table(rules, seed):
    """Chain in every seat of two games; every action it chose and whether a play was legal."""
    games = SeatGames(2, rules, seed=seed)
    bots = [REALTIME.make("chain", rules, seed + p) for p in range(rules.players)]
    chosen, could_play = [], []
    while not games.over.all():
        masks = games.masks()
        acts = np.zeros((rules.players, 2), np.int64)
        for p, bot in enumerate(bots):
            obs = np.stack([observe_seat(games.state[b], rules, p) for b in range(2)])
            acts[p] = bot.act(obs, masks[p])
            live = ~games.over
            chosen.append(masks[p][np.arange(2), acts[p]][live])
            could_play.append((masks[p][:, 1:].sum(axis=1) > 0)[live] & (acts[p] == 0)[live])
        games.step(acts)
    return games, np.concatenate(chosen), np.concatenate(could_play)


@pytest.mark.parametrize(
    ("players", "options"),
    [(3, {}), (4, {}), (3, {"jokers": True}), (4, {"wrap": True, "hand_size": 3})],
)
def test_chain_makes_only_legal_plays_and_never_waits_with_a_play_at_three_and_four(
    players, options
):
    rules = make_rules("us", players=players, **options)
    games, legal, waited = _play_chain_table(rules, seed=5)
    assert legal.size > 0 and legal.all()  # every action chain chose was in its mask
    assert not waited.any()  # it waits only when no play is legal
    assert set(games.winner) <= set(range(players))  # each game won by a seat, none cut off


def test_chain_reads_the_n_seat_observation_and_refuses_another_width():
    rules = make_rules("pagat", players=3)
    bot = REALTIME.make("chain", rules, 0)
    with pytest.raises(ValueError, match="chain at 3 players reads the n-seat observation"):
        bot.act(np.zeros((1, 10), np.float32), np.ones((1, 40), np.int8))


def _two_player_fingerprint(preset, **options):
    rules = make_rules(preset, **options)
    bots = [REALTIME.make("chain", rules, 11), REALTIME.make("chain:deny=1", rules, 12)]
    env = BatchEnv(4, rules, autoreset=False)
    obs, mask = env.reset(seed=21)
    h = hashlib.sha256()
    while not env.all_finished:
        acts = np.stack([bots[p].act(obs[p], mask[p]) for p in range(2)]).astype(np.int64)
        h.update(acts.tobytes())
        obs, mask, *_ = env.step(acts)
    return h.hexdigest()[:16]


@pytest.mark.parametrize(
    ("preset", "options", "expected"),
    [  # the actions of kit a69512b (before chain played three and four), seeded
        ("us", {"jokers": True, "hand_size": 7}, "77b126eabb447311"),
        ("us", {}, "439d0b548a75fd64"),
        ("pagat", {"wrap": True}, "759f429b9c715664"),
        (
            "japanese",
            {"jokers": True, "multi_play": True, "stack_layout": True, "play_out": True},
            "f95924e4f493b9fe",
        ),
    ],
)
def test_two_player_chain_plays_exactly_as_before(preset, options, expected):
    assert _two_player_fingerprint(preset, **options) == expected


@pytest.mark.parametrize("spec", ["trained", "selfplay", "openspiel:random", "league:x"])
def test_every_other_kind_is_refused_at_a_table_of_three_in_one_line(spec):
    kind = spec.partition(":")[0]
    with pytest.raises(AgentSpecError) as err:
        REALTIME.make(spec, make_rules("us", players=3), 0)
    assert str(err.value).startswith(f"agent {kind!r} plays two players, not 3 (players=3)")
    assert "\n" not in str(err.value)


def _gauntlet_share(spec, deals):
    settings = party.PartySettings(
        agents=(spec, "random"), rules=make_rules("us", players=3), games=3 * deals,
        gauntlet=spec, seed=1,
    )  # fmt: skip
    res = party.run_chunk(settings, Chunk(0, 0, 0, deals))
    doc = party.summarise(settings, [res], bootstrap=20)
    return next(a for a in doc["agents"] if a["name"] == spec)


@pytest.mark.slow
def test_chain_beats_two_randoms_at_a_table_of_three():
    chain = _gauntlet_share("chain", deals=10)  # 30 games, chain in each seat of each deal
    assert chain["games"] == 30
    assert chain["win_share_ci"][0] > 1 / 3  # above the fair share, interval and all


def _results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text())
    doc["settings"].pop("wall_s")
    return doc


FOUR = ["tournament", "--players", "4", "--agents", "random,greedy,chain,chain:deny=0"]


@pytest.mark.slow
def test_four_agents_at_four_seats_rotate_through_every_seat_and_repeat_for_the_same_seed(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(party, "CHUNK_DEALS", 1)  # two chunks: the second run uses two workers
    argv = [*FOUR, "--games", "8", "--seed", "4"]
    assert speed_cli.main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert speed_cli.main([*argv, "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    a = _results(tmp_path / "a")
    assert a == _results(tmp_path / "b")
    for name in ("results.csv", "leaderboard.md", "agents.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    s = a["settings"]
    assert s["players"] == 4 and s["fair_share"] == 0.25 and s["games_played"] == 8
    assert s["lineups"] == [["random", "greedy", "chain", "chain:deny=0"]]
    assert sum(x["wins"] for x in a["agents"]) + s["drawn"] + s["truncated"] == 8
    assert all(x["games"] == 8 for x in a["agents"])  # each agent once per game, every seat
    pair = next(m for m in a["matches"] if {m["a"], m["b"]} == {"random", "chain"})
    assert pair["games"] == 8 and pair["wins_a"] + pair["wins_b"] + pair["draws"] == 8
    board = (tmp_path / "a" / "leaderboard.md").read_text()
    assert board.startswith("Tables of 4, every agent in every seat over the same deals: ")
    assert "the fair win share is 25.0%" in board


def test_every_agent_sits_in_every_seat_of_each_deal():
    settings = party.PartySettings(
        agents=("random", "greedy", "chain", "chain:run=1"), rules=make_rules("us", players=4),
        games=4, seed=9,
    )  # fmt: skip
    res = party.run_chunk(settings, Chunk(0, 0, 0, 1))
    assert res.deal == [0, 0, 0, 0] and res.rotation == [0, 1, 2, 3]
    # the agent at line-up position p sits in seat (p + r) % 4: each seat holds each agent once
    assert res.seating == [[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0]]
    for g, w in enumerate(res.winner):  # the winner emptied its hand, the others did not
        assert w >= 0 and res.cards_left[g][w] == 0
        assert all(left > 0 for s, left in enumerate(res.cards_left[g]) if s != w)


@pytest.mark.slow
def test_an_interrupted_party_tournament_resumes_to_the_uninterrupted_results(
    tmp_path, monkeypatch, capsys
):
    from tests.agents.test_tournament_resume import stop_after

    monkeypatch.setattr(party, "CHUNK_DEALS", 1)
    argv = ["tournament", "--players", "3", "--agents", "greedy,chain", "--games", "3"]
    whole, part = tmp_path / "whole", tmp_path / "part"
    assert speed_cli.main([*argv, "--out", str(whole)]) == 0
    with monkeypatch.context() as m:
        stop_after(m, 1)
        assert speed_cli.main([*argv, "--out", str(part)]) == 130
    assert (part / "leaderboard.md").read_text().startswith("**INCOMPLETE: 1 of 2")
    assert speed_cli.main([*argv, "--out", str(part), "--resume"]) == 0
    assert "--resume: 1 chunks already finished" in capsys.readouterr().err
    assert _results(part) == _results(whole)
    assert _results(whole)["settings"]["lineups"] == [
        ["greedy", "greedy", "chain"], ["greedy", "chain", "chain"]
    ]  # fmt: skip


def test_a_logged_chunk_whose_winner_still_holds_cards_is_not_trusted():
    settings = party.PartySettings(
        agents=("greedy", "chain", "random"), rules=make_rules("us", players=3), games=3
    )
    res = party.run_chunk(settings, Chunk(0, 0, 0, 1))
    lineup = settings.lineups()[0]
    assert party.check_chunk(res, lineup, 3) is None
    g = next(i for i, w in enumerate(res.winner) if w >= 0)
    res.cards_left[g][res.winner[g]] = 4
    assert "still held 4 cards" in party.check_chunk(res, lineup, 3)
    res.seating[0] = [0, 0, 0]
    assert "seating[0]" in party.check_chunk(res, lineup, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "3", "--agents", "chain,league:x"], "agent 'league' plays two players"),
        (["--players", "3", "--agents", "greedy,chain", "--match"], "--match plays two-player"),
        (
            ["--players", "3", "--agents", "greedy,chain", "--option", "players=4"],
            "--players 3 disagrees with the rules' players=4",
        ),
        (
            ["--players", "3", "--agents", "greedy,chain", "--save-replays", "2"],
            "--save-replays plays two-player tables only, not --players 3",
        ),
        (["--players", "5", "--agents", "greedy,chain"], "real-time Speed has 2 to 4 players"),
    ],
)
def test_a_table_of_three_refuses_what_it_cannot_play_in_one_line(argv, message, tmp_path, capsys):
    assert speed_cli.main(["tournament", *argv, "--games", "6", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "t" / "results.json").exists()


def test_evaluate_keeps_two_players_and_points_a_table_of_four_to_a_tournament(tmp_path, capsys):
    assert (
        speed_cli.main(["evaluate", "chain", "--players", "4", "--out", str(tmp_path / "c")]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "--players 4: a report card plays the two-player protocol; a report at 4 players is a "
        "tournament table: speed tournament --players 4 --agents chain,random,greedy"
    )
    assert not (tmp_path / "c").exists()
