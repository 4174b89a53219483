"""The table's server through Starlette's TestClient: pages, hosts, origins, the WebSocket."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the [web] extra is not installed")
pytest.importorskip(
    "starlette.testclient", reason="Starlette's TestClient needs httpx2 (the [web] extra)"
)

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import receive_until, table_config

from speed_env.reaction import make_profile
from speed_table import protocol
from speed_table.app import create_app
from speed_table.session import GameSession, TableConfig

HOSTS = ("testserver", "127.0.0.1", "localhost")


def make_client(tmp_path=None, **kw) -> TestClient:
    """A client of a quick table: 20 ms ticks, a 200 ms bot, no countdown."""
    cfg = dict(tick_ms=20, reaction=make_profile(200), seed=1, countdown_ms=0)
    return TestClient(create_app(table_config(tmp_path, **(cfg | kw)), allowed_hosts=HOSTS))


def test_page_and_static_files_are_served():
    with make_client() as client:
        page = client.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "/static/app.js" in page.text and "/static/style.css" in page.text
        assert client.get("/static/app.js").status_code == 200
        assert client.get("/static/style.css").status_code == 200
        assert client.get("/static/nothing.js").status_code == 404


def test_a_foreign_host_name_is_refused():
    with TestClient(create_app(TableConfig(agents=("you", "greedy"), seed=1))) as client:
        # Only 127.0.0.1 and localhost by default (a DNS-rebinding page would send its own name).
        assert client.get("/", headers={"host": "evil.example"}).status_code == 400
        assert client.get("/", headers={"host": "127.0.0.1:8000"}).status_code == 200


def test_a_cross_origin_websocket_is_refused_and_the_own_origin_accepted():
    with make_client() as client:
        with (
            pytest.raises(WebSocketDisconnect) as info,
            client.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws,
        ):
            ws.receive_json()
        assert info.value.code == 1008
        with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
            assert ws.receive_json()["type"] == "welcome"


def test_welcome_then_ping_pong():
    with make_client() as client, client.websocket_connect("/ws") as ws:
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["mode"] == "play" and welcome["seat"] == 0
        assert welcome["seats"] == ["you", "greedy@200ms"] and welcome["hand_size"] == 5
        ws.send_json({"type": "ping", "t": 42})
        assert ws.receive_json() == {"type": "pong", "t": 42.0}


MALFORMED = [
    "hello",
    "[]",
    '{"type": "play"}',
    '{"type": "play", "slot": "1", "pile": 0}',
    '{"type": "play", "slot": 0, "pile": 5}',
    '{"type": "play", "slot": 0, "pile": 0, "extra": 1}',
    '{"type": "start", "mirror": "please"}',
    '{"type": "speed", "factor": 10}',
    '{"type": "launch"}',
    json.dumps({"type": "ping", "t": 1, "pad": "x" * 2000}),
]


def test_malformed_messages_get_an_error_and_change_nothing():
    with make_client() as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        for raw in MALFORMED:
            ws.send_text(raw)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == protocol.INVALID, raw
        ws.send_bytes(b'{"type": "start"}')
        assert ws.receive_json()["code"] == protocol.INVALID
        # Nothing started: a play is still "not started", and the socket still answers.
        ws.send_json({"type": "play", "slot": 0, "pile": 0})
        reply = ws.receive_json()
        assert reply["code"] == protocol.OUT_OF_TURN and "has not started" in reply["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"


EDGE_CASES = [
    '{"type": "ping", "t": 1' + "0" * 400 + "}",  # an integer no float holds
    '{"type": "speed", "factor": -' + "9" * 400 + "}",
    '{"type": "play", "slot": 1' + "0" * 400 + ', "pile": 0}',
    '{"type": "ping", "\\ud800": 1}',  # a field name with a lone surrogate, echoed in the reply
    '{"type": "play", "slot": "\\udc00", "pile": 0}',
]


def test_edge_inputs_mid_game_get_an_error_and_the_game_goes_on():
    with make_client() as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "start"})
        receive_until(ws, "state", where=lambda m: m["status"] == "running")
        for raw in EDGE_CASES:
            ws.send_text(raw)
            reply = receive_until(ws, "error")
            assert reply["code"] == protocol.INVALID, raw
        # Nothing changed: the same game goes on, and you win it with your two plays.
        receive_until(ws, "state", where=lambda m: m["snapshot"]["centre"][0]["top"] == "6S")
        ws.send_json({"type": "play", "slot": 0, "pile": 0})
        assert receive_until(ws, "played")["card"] == "7H"
        receive_until(ws, "state", where=lambda m: m["snapshot"]["centre"][0]["top"] == "7H")
        ws.send_json({"type": "play", "slot": 1, "pile": 0})
        result = receive_until(ws, "result")
        assert result["game"] == 0 and result["you"] == "win"


def test_a_game_over_the_socket(tmp_path):
    with make_client(tmp_path) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"type": "speed", "factor": 2})
        assert ws.receive_json()["code"] == protocol.WRONG_MODE
        ws.send_json({"type": "start"})
        countdown = receive_until(ws, "countdown")
        assert countdown["game"] == 0 and countdown["ms"] == 0
        first = receive_until(ws, "state")
        assert first["snapshot"]["players"][0]["hand"][:2] == ["7H", "8H"]
        assert first["snapshot"]["players"][1]["hand"] == ["?", "?", "?", None, None]
        # Too early: 7H does not go on 5C; the bot's 6S takes at least 200 ms to land.
        ws.send_json({"type": "play", "slot": 0, "pile": 0})
        error = receive_until(ws, "error")
        assert (
            error["code"] == protocol.ILLEGAL
            and "7H does not go on pile 0 (top 5C)" in error["message"]
        )
        ws.send_json({"type": "start"})
        assert receive_until(ws, "error")["code"] == protocol.OUT_OF_TURN
        receive_until(ws, "state", where=lambda m: m["snapshot"]["centre"][0]["top"] == "6S")
        ws.send_json({"type": "play", "slot": 0, "pile": 0})
        played = receive_until(ws, "played")
        assert (
            played["card"] == "7H"
            and played["latency_ms"] is not None
            and played["latency_ms"] >= 0
        )
        state = receive_until(
            ws, "state", where=lambda m: m["snapshot"]["centre"][0]["top"] == "7H"
        )
        assert state["snapshot"]["players"][0]["hand"][0] is None
        ws.send_json({"type": "play", "slot": 1, "pile": 0})
        assert receive_until(ws, "played")["card"] == "8H"
        result = receive_until(ws, "result")
        assert result["winner"] == "player_0" and result["you"] == "win"
        assert len(result["latencies_ms"]) == 2 and result["profile"]["n"] == 2
        assert result["snapshot"]["players"][1]["hand"][1:3] == ["3S", "3C"]  # revealed at the end
        frames = [
            json.loads(x) for x in Path(result["replay"]).read_text(encoding="utf-8").splitlines()
        ]
        assert {"game", "seats", "snapshot"} <= set(frames[0]) and frames[-1]["snapshot"][
            "phase"
        ] == "over"
        ws.send_json({"type": "start", "mirror": True})
        assert receive_until(ws, "error")["code"] == protocol.NO_PROFILE
        ws.send_json({"type": "start"})
        assert receive_until(ws, "countdown")["game"] == 1


def test_watch_mode_speed_and_pause():
    with (
        make_client(mode="watch", agents=("greedy", "chain"), deal=None) as client,
        client.websocket_connect("/ws") as ws,
    ):
        welcome = ws.receive_json()
        assert welcome["mode"] == "watch" and welcome["seat"] is None
        ws.send_json({"type": "play", "slot": 0, "pile": 0})
        assert ws.receive_json()["code"] == protocol.WRONG_MODE
        ws.send_json({"type": "start"})
        state = receive_until(ws, "state")
        assert "?" not in state["snapshot"]["players"][1]["hand"]  # both hands open when watching
        ws.send_json({"type": "speed", "factor": 0.5})
        assert receive_until(ws, "state", where=lambda m: m["speed"] == 0.5)
        ws.send_json({"type": "pause", "paused": True})
        paused = receive_until(ws, "state", where=lambda m: m["paused"])
        clock = paused["snapshot"]["clock_ms"]
        time.sleep(0.2)
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"  # no state came while paused
        ws.send_json({"type": "pause", "paused": False})
        resumed = receive_until(ws, "state", where=lambda m: m["snapshot"]["clock_ms"] > clock)
        assert resumed["paused"] is False and resumed["snapshot"]["clock_ms"] == clock + 20


def _played(msg) -> int:
    return sum(p["played"] for p in msg["snapshot"]["players"])


def test_the_server_survives_a_closed_tab_and_keeps_its_frames(tmp_path):
    with make_client(tmp_path, mode="watch", agents=("greedy", "chain"), deal=None) as client:
        with client.websocket_connect("/ws") as ws:
            ws.receive_json()
            ws.send_json({"type": "start"})
            receive_until(ws, "state", where=lambda m: _played(m) > 0)
        # The tab is gone mid-game, after a play: its frames are kept; a new tab gets a new table.
        deadline = time.monotonic() + 5
        while not list(tmp_path.glob("*.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (replay,) = tmp_path.glob("watch-*.jsonl")
        assert len(replay.read_text(encoding="utf-8").splitlines()) >= 3  # the deal and the steps
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["type"] == "welcome"


def test_dropped_connections_without_a_play_write_no_replay(tmp_path):
    with make_client(tmp_path) as client:
        for _ in range(3):
            with client.websocket_connect("/ws") as ws:  # start, watch the bot play, leave
                ws.receive_json()
                ws.send_json({"type": "start"})
                receive_until(
                    ws, "state", where=lambda m: m["snapshot"]["centre"][0]["top"] == "6S"
                )
        with client.websocket_connect("/ws") as ws:  # the page still gets a table
            assert ws.receive_json()["type"] == "welcome"
    assert list(tmp_path.iterdir()) == []


def test_a_table_that_cannot_start_tells_the_page_and_the_server_goes_on():
    calls = []

    def broken(cfg):
        calls.append(cfg)
        if len(calls) == 1:
            raise ValueError("the bundled model is missing")
        return GameSession(cfg)

    cfg = TableConfig(agents=("you", "greedy"), seed=1, countdown_ms=0)
    with TestClient(create_app(cfg, allowed_hosts=HOSTS, session_factory=broken)) as client:
        with client.websocket_connect("/ws") as ws:
            fatal = ws.receive_json()
            assert fatal["type"] == "fatal" and "model is missing" in fatal["message"]
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["type"] == "welcome"
