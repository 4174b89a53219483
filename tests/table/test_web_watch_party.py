"""``speed watch`` with three or four bots: a table of Party Speed watched live, every seat's
hand shown, its games saved as replays that ``speed replay`` plays back seat by seat."""

from __future__ import annotations

import json

import pytest
from web_helpers import started_table

import speed_cli
from speed_env.reaction import make_profile
from speed_env.rules import make_rules
from speed_table import protocol
from speed_table.protocol import WRONG_MODE, ProtocolError
from speed_table.session import GameSession, TableConfig

BOTS = ("greedy@100", "random@200", "chain@150", "greedy@300")


def watch_config(players: int, **changes) -> TableConfig:
    """``players`` bots at fixed reactions, no countdown, seeded."""
    base = dict(
        mode="watch",
        agents=BOTS[:players],
        rules=make_rules("us", players=players),
        seed=3,
        countdown_ms=0,
    )
    return TableConfig(**(base | changes))


def _play_out(session: GameSession) -> dict:
    """Tick ``session`` until its game ends; the result message."""
    for _ in range(20_000):
        for msg in session.tick(session.next_tick_at):
            if msg["type"] == "result":
                return msg
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("players", [3, 4])
def test_a_watched_table_seats_every_bot_shows_every_hand_and_ends(players, tmp_path):
    s = GameSession(watch_config(players, replays_dir=tmp_path))
    welcome = s.welcome()
    assert welcome["mode"] == "watch" and welcome["seat"] is None
    assert welcome["seats"] == [f"{b.split('@')[0]}@{b.split('@')[1]}ms" for b in BOTS[:players]]
    _, state = s.handle(protocol.Start(), 0.0)
    snap = state["snapshot"]
    assert len(snap["players"]) == players and len(snap["centre"]) == players
    assert all("?" not in p["hand"] for p in snap["players"])  # watching: every hand shown
    with pytest.raises(ProtocolError) as err:
        s.handle(protocol.Play(slot=0, pile=0), 0.01)
    assert err.value.code == WRONG_MODE and "bots play every seat" in str(err.value)
    result = _play_out(s)
    assert len(result["snapshot"]["players"]) == players
    assert result["winner"] in [f"player_{p}" for p in range(players)] + ["draw", None]
    s.close()
    (replay,) = tmp_path.glob("watch-*.jsonl")
    frames = [json.loads(line) for line in replay.read_text().splitlines()]
    assert {len(f["snapshot"]["players"]) for f in frames} == {players}
    assert frames[0]["seats"] == welcome["seats"]


def test_speed_replay_plays_back_a_watched_table_of_three(tmp_path, capsys):
    s = GameSession(watch_config(3, replays_dir=tmp_path))
    s.handle(protocol.Start(), 0.0)
    _play_out(s)
    s.close()
    (replay,) = tmp_path.glob("watch-*.jsonl")
    assert speed_cli.main(["replay", str(replay)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("game 0: player_0 = greedy@100ms, player_1 = random@200ms, ")
    assert "player_2 = chain@150ms" in first
    assert "centre    0: " in out and "player_2  hand " in out and "over: " in out


def test_speed_watch_seats_the_agents_it_is_given(monkeypatch, capsys):
    from speed_table import app

    served = []

    def serve(cfg, *, sock, **kw):  # the table it would serve; the socket closed, as serve does
        served.append(cfg)
        sock.close()

    monkeypatch.setattr(app, "serve", serve)
    argv = ["watch", "--agents", "greedy,random,chain", "--reaction", "100,200,300"]
    argv += ["--no-browser", "--replays-dir", "", "--think", "off", "--seed", "4"]
    assert speed_cli.main(argv) == 0
    (cfg,) = served
    assert (cfg.mode, cfg.rules.players, cfg.seed) == ("watch", 3, 4)
    assert cfg.agents == ("greedy@100", "random@200", "chain@300")  # one profile a seat
    assert "Traceback" not in capsys.readouterr().err


def test_the_server_shows_a_watched_table_of_four():
    cfg = watch_config(4, reaction=make_profile(200), tick_ms=20)
    with started_table(cfg) as (ws, welcome, state):
        assert len(welcome["seats"]) == 4 and welcome["seat"] is None
        assert all("?" not in p["hand"] for p in state["snapshot"]["players"])
        assert len(state["snapshot"]["players"]) == 4 and len(state["snapshot"]["centre"]) == 4
