"""``speed play --record`` as a server: a finished game is on disk before the next starts, and a
kill -9 mid-game keeps every finished game (and leaves no partial record)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from web_helpers import short_deal

from speed_data import records
from speed_data.replay import compare

pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
websockets_sync = pytest.importorskip("websockets.sync.client")

ROOT = Path(__file__).resolve().parents[2]


def _serve(tmp_path: Path, folder: Path) -> tuple[subprocess.Popen, str]:
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps(short_deal()), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", "play", "--no-browser", "--opponent", "greedy",
         "--reaction", "300", "--deal", str(deal), "--countdown-ms", "200", "--seed", "5",
         "--replays-dir", "", "--record", str(folder)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    while True:
        line = lines.get(timeout=300)  # a fresh checkout compiles the engine first
        if (m := re.search(r"http://127\.0\.0\.1:(\d+)/", line)) is not None:
            return proc, f"ws://127.0.0.1:{m.group(1)}/ws"


def _until(ws, kind, where=lambda m: True):
    while True:
        msg = json.loads(ws.recv(timeout=30))
        if msg["type"] == kind and where(msg):
            return msg


@pytest.mark.slow
def test_kill_minus_9_mid_game_keeps_every_finished_game(tmp_path):
    folder = tmp_path / "rec"
    proc, url = _serve(tmp_path, folder)
    try:
        with websockets_sync.connect(url) as ws:
            assert _until(ws, "welcome")["recording"] is True
            ws.send(json.dumps({"type": "start"}))
            # The short deal: the bot's 6S lands on 5C, then 7H and 8H (slots 0, 1) go on it.
            _until(ws, "state", lambda m: m["snapshot"]["centre"][0]["top"] == "6S")
            ws.send(json.dumps({"type": "play", "slot": 0, "pile": 0}))
            _until(ws, "state", lambda m: m["snapshot"]["centre"][0]["top"] == "7H")
            ws.send(json.dumps({"type": "play", "slot": 1, "pile": 0}))
            result = _until(ws, "result")
            assert result["you"] == "win" and result["record"] is not None
            ws.send(json.dumps({"type": "start"}))  # the rematch, killed while it runs
            _until(ws, "state", lambda m: m["status"] == "running")
            os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    names = sorted(p.name for p in folder.iterdir())
    assert names == [Path(result["record"]).name]  # the finished game, and nothing else
    rec = records.read_record(folder / names[0])
    assert rec["winner"] == "player_0" and compare(rec) == []
    assert [ms for ms in rec["reaction_ms"] if ms is not None] != []
