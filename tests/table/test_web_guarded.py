"""Bots at the table are other people's code: a slow bot delays only its own page, and a bot
that fails ends only its own game, the page told why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the [web] extra is not installed")
pytest.importorskip(
    "starlette.testclient", reason="Starlette's TestClient needs httpx2 (the [web] extra)"
)

from starlette.testclient import TestClient
from web_helpers import receive_until, table_config

from speed_table.app import create_app

HOSTS = ("testserver", "127.0.0.1", "localhost")
BOTS = Path(__file__).resolve().parent.parent / "fixtures" / "hostile_bots.py"


def client_for(bot: str) -> TestClient:
    """A quick table (20 ms ticks, no countdown) of you against one of the hostile bots."""
    cfg = table_config(agents=("you", f"py:{BOTS}:{bot}"), tick_ms=20, countdown_ms=0, seed=1)
    return TestClient(create_app(cfg, allowed_hosts=HOSTS))


def ping_seconds(ws, t: int) -> float:
    t0 = time.perf_counter()
    ws.send_json({"type": "ping", "t": t})
    assert ws.receive_json() == {"type": "pong", "t": float(t)}
    return time.perf_counter() - t0


def test_a_sleeping_bot_on_one_page_does_not_stall_another_page(monkeypatch):
    monkeypatch.setenv("HOSTILE_SLEEP_S", "3")  # read when the bot's file is loaded
    with (
        client_for("Sleeper") as client,
        client.websocket_connect("/ws") as slow,
        client.websocket_connect("/ws") as other,
    ):
        assert slow.receive_json()["type"] == "welcome"
        assert other.receive_json()["type"] == "welcome"
        slow.send_json({"type": "start"})
        receive_until(slow, "state", where=lambda m: m["status"] == "running")
        time.sleep(0.3)  # the bot is now 0.3 s into a 3 s decision
        pings = sorted(ping_seconds(other, k) for k in range(5))
        assert pings[2] < 0.1, pings  # the median: an event loop left free
        assert pings[-1] < 1.0, pings  # and never the bot's 3 s


def test_a_failing_bot_ends_its_game_telling_the_page_and_the_table_serves_on():
    spec = f"py:{BOTS}:Raises"
    with client_for("Raises") as client:
        with client.websocket_connect("/ws") as other:
            assert other.receive_json()["type"] == "welcome"
            with client.websocket_connect("/ws") as page:
                assert page.receive_json()["type"] == "welcome"
                page.send_json({"type": "start"})
                fatal = receive_until(page, "fatal")
            assert fatal["title"] == "Game ended"
            assert f"agent {spec} failed in act (table game 0, seat 1)" in fatal["message"]
            assert "RuntimeError: my bot has a bug" in fatal["message"]
            assert ping_seconds(other, 1) < 5  # the other page is still served
        with client.websocket_connect("/ws") as late:
            assert late.receive_json()["type"] == "welcome"  # and a new page too
