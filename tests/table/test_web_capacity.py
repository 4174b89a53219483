"""The server runs at most ``max_games`` games at once: the next page is told the
table is full (a ``full`` message, close code 1013), and a slot freed by a page that leaves is
taken again at once. Through Starlette's TestClient (no port opened)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette", reason="the [web] extra is not installed")
pytest.importorskip(
    "starlette.testclient", reason="Starlette's TestClient needs httpx2 (the [web] extra)"
)

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import receive_until, table_config

import speed_cli
from speed_env.reaction import make_profile
from speed_table import app
from speed_table.app import create_app

HOSTS = ("testserver", "127.0.0.1", "localhost")


def _client(max_games: int) -> TestClient:
    cfg = table_config(tick_ms=20, reaction=make_profile(200), seed=1, countdown_ms=0)
    return TestClient(create_app(cfg, allowed_hosts=HOSTS, max_games=max_games))


def _refused(client: TestClient) -> dict:
    """Connect past the cap: the ``full`` message, then the close with code 1013."""
    with client.websocket_connect("/ws") as ws:
        msg = ws.receive_json()
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == app.FULL_CLOSE_CODE
    return msg


def test_the_game_past_the_cap_is_refused_and_a_freed_slot_taken_again():
    with _client(2) as client:
        with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
            for ws in (first, second):
                assert ws.receive_json()["type"] == "welcome"
            first.send_json({"type": "start"})
            receive_until(first, "state")
            full = _refused(client)
            assert full["type"] == "full" and full["max_games"] == 2
            assert "the table is full: 2 games are running" in full["message"]
            assert "--max-games" in full["message"]
            # The games already running are not disturbed by the refusal.
            second.send_json({"type": "ping", "t": 1})
            assert receive_until(second, "pong")["t"] == 1
        # Both pages left: both slots are free again (the server notices within moments),
        # then the next page past them is refused again.
        deadline = time.monotonic() + 10
        while True:
            with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
                kinds = [a.receive_json()["type"], b.receive_json()["type"]]
                if kinds == ["welcome", "welcome"]:
                    assert _refused(client)["type"] == "full"
                    break
            assert time.monotonic() < deadline, kinds
            time.sleep(0.05)


def test_one_game_at_a_time():
    with _client(1) as client, client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "welcome"
        assert _refused(client)["max_games"] == 1
        ws.send_json({"type": "ping", "t": 2})
        assert receive_until(ws, "pong")["t"] == 2


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_the_cap_must_be_a_whole_number_of_at_least_one(bad):
    with pytest.raises(ValueError, match="max_games must be a whole number >= 1"):
        create_app(table_config(), max_games=bad)


def test_the_cli_documents_and_checks_the_cap(capsys):
    with pytest.raises(SystemExit):
        speed_cli.main(["watch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-games N" in text and f"(default {app.DEFAULT_MAX_GAMES}:" in text
    with pytest.raises(SystemExit) as refused:
        speed_cli.main(["play", "--max-games", "0", "--no-browser"])
    assert refused.value.code == 2
    assert "argument --max-games: must be a whole number from 1 to" in capsys.readouterr().err
