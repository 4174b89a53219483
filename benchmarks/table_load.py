"""One browser-table game's pace while other games run on the same server (``--max-games``).

Starts ``speed watch`` on 127.0.0.1 (a free port, bots on both seats, no
countdown, no replays), then for each count K of ``--games``: opens K
background games (each restarted as soon as it ends), lets them settle, and
measures one more game, the probe, for ``--seconds``: the ``state`` messages
it receives per second (one per tick when the server keeps up: 20/s at the
default 50 ms tick) and the round trip of a ``ping`` sent every 0.25 s. The
probe's rate at K is compared with K = 0 (an idle server). The server is
stopped at the end, whatever happens.

The clients run in this process, so they share the machine with the server,
as a browser on the same computer does; numbers from a loaded machine are
lower and noisier, so say so beside them. The default cap of ``speed play``
and ``speed watch`` (:data:`speed_table.app.DEFAULT_MAX_GAMES`) is the
largest K whose probe kept 80% of the idle rate on 2 cores.

Run: python benchmarks/table_load.py --games 0,8,16,32 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time


def start_server(tick_ms: int, agents: str, max_games: int) -> tuple[subprocess.Popen[str], str]:
    """``speed watch`` on 127.0.0.1 in a child process; the process and its WebSocket URL."""
    argv = [sys.executable, "-m", "speed_cli", "watch", "--no-browser", "--port", "0"]
    argv += ["--agents", agents, "--tick-ms", str(tick_ms), "--countdown-ms", "0"]
    argv += ["--replays-dir", "", "--seed", "1", "--max-games", str(max_games)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert proc.stdout is not None
    for line in proc.stdout:  # "Speed table at http://127.0.0.1:PORT/  (Ctrl-C to stop)"
        if line.startswith("Speed table at "):
            url = line.split()[3]
            return proc, "ws://" + url.removeprefix("http://") + "ws"
    proc.wait()
    raise SystemExit(f"the server did not start (exit {proc.returncode})")


async def background_game(url: str, stop: asyncio.Event) -> None:
    """A game restarted whenever it ends, its messages read and dropped, until ``stop``."""
    import websockets

    async with websockets.connect(url, max_size=None) as ws:
        await ws.recv()  # welcome
        await ws.send('{"type":"start"}')
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            if '"type":"result"' in raw:
                await ws.send('{"type":"start"}')


async def probe(url: str, seconds: float) -> tuple[float, list[float]]:
    """One game measured for ``seconds``: its ``state`` messages per second and ping times (ms)."""
    import websockets

    async with websockets.connect(url, max_size=None) as ws:
        welcome = json.loads(await ws.recv())
        if welcome["type"] != "welcome":
            raise SystemExit(f"the probe was not seated: {welcome}")
        await ws.send('{"type":"start"}')
        states, pings, sent = 0, [], 0.0
        begin = time.perf_counter()
        end, next_ping = begin + seconds, begin
        while (now := time.perf_counter()) < end:
            if now >= next_ping:
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "ping", "t": sent}))
                next_ping = now + 0.25
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.0, min(end, next_ping) - now))
            except TimeoutError:
                continue
            msg = json.loads(raw)
            if msg["type"] == "state":
                states += 1
            elif msg["type"] == "pong":
                pings.append((time.perf_counter() - msg["t"]) * 1000)
            elif msg["type"] == "result":
                await ws.send('{"type":"start"}')
        return states / (time.perf_counter() - begin), pings


async def measure(url: str, counts: list[int], seconds: float, settle: float) -> list[tuple]:
    """The probe's rate and pings with each count of background games."""
    rows = []
    for k in counts:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(background_game(url, stop)) for _ in range(k)]
        await asyncio.sleep(settle)
        rate, pings = await probe(url, seconds)
        stop.set()
        for task in tasks:
            with contextlib.suppress(Exception):
                await task
        rows.append((k, rate, pings))
        await asyncio.sleep(0.5)  # the server frees the slots
    return rows


def game_counts(text: str) -> list[int]:
    """``--games``: comma-separated counts of background games, 0 (the idle server) first."""
    counts = [int(x) for x in text.split(",")]  # argparse names a ValueError as a bad value
    if not counts or counts[0] != 0 or min(counts) < 0:
        raise argparse.ArgumentTypeError(
            f"must start with 0 (the idle server) and hold counts >= 0, got {text!r}"
        )
    return counts


def main() -> None:
    """Print one row per count of background games: the probe's states/s, its share of the
    idle rate, and its ping (median and 95th percentile)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=game_counts, default="0,8,16,32", help="background game counts, 0 first"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="probe time per count")
    parser.add_argument("--settle", type=float, default=2.0, help="wait before each probe (s)")
    parser.add_argument("--tick-ms", type=int, default=50, help="the server's tick (ms)")
    parser.add_argument("--agents", default="greedy,chain", help="the bots of every game")
    args = parser.parse_args()
    counts = args.games
    proc, url = start_server(args.tick_ms, args.agents, max(counts) + 1)
    try:
        rows = asyncio.run(measure(url, counts, args.seconds, args.settle))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    idle = rows[0][1]
    print(f"{'games':>5} {'states/s':>9} {'of idle':>8} {'ping ms':>8} {'p95 ms':>8}")
    for k, rate, pings in rows:
        med = statistics.median(pings) if pings else float("nan")
        p95 = sorted(pings)[int(0.95 * (len(pings) - 1))] if pings else float("nan")
        share = rate / idle if idle else float("nan")
        print(f"{k + 1:>5} {rate:>9.1f} {share:>8.0%} {med:>8.1f} {p95:>8.1f}")


if __name__ == "__main__":
    main()
