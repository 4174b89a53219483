"""Headless play of the table: a simulated person plays ``speed play --record`` in Chromium.

Run::

    python -m speed_table.headless --record DIR --games 5

It starts ``speed play --no-browser --record DIR`` (a bot against seat 0), opens its page
in headless Chromium through Playwright, and plays as a person would, in the page: a
script added to the page watches the messages it receives and, when a play (a rank onto a
pile) becomes possible, waits a reaction time drawn from the person's ex-Gaussian
(:class:`speed_data.person.Person`; ``--person``, default mu 300, sigma 40, tau 100 ms)
and presses the card's number key and the pile's key, which the page's own key handler
turns into the play. Which play is the person's habit (``--habit``): mostly the left
pile's lowest new chance, otherwise any new one. A chance is new as the table's clock
counts it: not possible on the table shown before (nothing is possible while the person's
own card is in flight). The timing runs inside the page because a round trip to Python
per reaction would add its own delay to every measured time; the table measures the drawn
wait plus the page's delays (a few ms on a quiet machine).

The records it leaves are a real page visit's (``seat_kind`` ``"human"``): the whole path
from the page to ``speed data profile``, ``export`` and ``speed train bc`` runs without a
person. For the person's timing alone, ``speed data generate --person`` is quicker and
needs no browser.

Needs the ``[web]`` extra, Playwright for Python (``pip install playwright``) and a
Chromium: Debian's (``apt-get install chromium``, at ``/usr/bin/chromium``, the default
``--chromium``) or Playwright's own (``playwright install chromium``, then
``--chromium ''``). ``tests/data/test_browser_player.py`` runs it.
"""

from __future__ import annotations

import argparse
import json
import logging
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speed_data.person import DEFAULT_REACTION, Person, person_of
from train.common.numbers import count, real

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, the default browser (no download)."""
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]  # fmt: skip
SERVER_START_S = 300.0
"""How long the server may take to print its URL (a fresh checkout compiles the engine)."""
GAME_S = 120.0
"""How long one game may take."""

# The person, in the page: ``draws`` (ms) and ``picks`` (uniform numbers) come from the
# Person's seeded generator. It reacts to each *new* chance only (a play that was not possible
# on the table shown before), one play at a time; a draw whose chance went away before it was
# pressed is kept for the next chance, so the times played are the draws in order.
PERSON_JS = """
(() => {
  const draws = %(draws)s, picks = %(picks)s, habit = %(habit)s;
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const rankOf = (t) => RANKS.indexOf(t.slice(0, -1));
  const me = { seat: null, prev: new Set(), plan: null, busy: false, d: 0, p: 0, log: [] };
  window.__person = me;
  const byHabit = (a, b) => {
    const [pa, ra] = a.split(":").map(Number), [pb, rb] = b.split(":").map(Number);
    return pa - pb || ra - rb;
  };
  const key = (k) =>
    document.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
  function legal(snap) {
    const out = new Set(), mine = snap.players[me.seat];
    // Nothing is playable while my card is in flight (the action mask is all waits), so
    // when it lands every play then possible is new, to me and to the table's clock.
    if (mine.in_flight !== null) return out;
    mine.hand.forEach((t) => {
      if (t === null) return;
      snap.centre.forEach((c, pile) => {
        if (c.top === null) return;
        const diff = Math.abs(rankOf(t) - rankOf(c.top));
        if (diff === 1 || diff === 12) out.add(`${pile}:${rankOf(t)}`);
      });
    });
    return out;
  }
  function drop() {
    if (me.plan) clearTimeout(me.plan.timer);
    me.plan = null;
  }
  function press(snap) {
    if (!me.plan) return;
    const [pile, rank] = me.plan.chance.split(":").map(Number);
    const slot = snap.players[me.seat].hand.findIndex((t) => t !== null && rankOf(t) === rank);
    me.elapsed = performance.now() - me.plan.t0;
    me.plan = null;
    if (slot < 0) return;
    me.busy = true;
    key(String(slot + 1));
    key(pile === 0 ? "a" : "l");
  }
  function onState(msg) {
    if (msg.status !== "running") { drop(); me.prev = new Set(); return; }
    const snap = msg.snapshot, now = legal(snap);
    if (me.plan && !now.has(me.plan.chance)) drop();
    const free = !me.busy && !me.plan && snap.players[me.seat].in_flight === null;
    const fresh = [...now].filter((c) => !me.prev.has(c)).sort(byHabit);
    if (free && fresh.length) {
      // The habit: mostly the left pile's lowest new chance, else any (Person.pick).
      const u = picks[me.p++ %% picks.length];
      const i = Math.floor(((u - habit) / (1 - habit)) * fresh.length);
      const chance = u < habit ? fresh[0] : fresh[Math.min(i, fresh.length - 1)];
      const wait = draws[me.d %% draws.length];
      me.plan = { chance, t0: performance.now(), timer: setTimeout(() => press(me.snap), wait) };
    }
    me.prev = now;
  }
  const Real = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Real(...args);
    ws.addEventListener("message", (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "welcome") me.seat = msg.seat;
      if (msg.type === "state") { me.snap = msg.snapshot; onState(msg); }
      if (msg.type === "played") {
        me.log.push([draws[me.d %% draws.length], msg.latency_ms, me.elapsed]);
        me.d++;
        me.busy = false;
      }
      if (msg.type === "error") me.busy = false;
      if (msg.type === "result") { drop(); me.busy = false; }
    });
    return ws;
  };
  window.WebSocket.prototype = Real.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) window.WebSocket[k] = Real[k];
})();
"""


class HeadlessError(RuntimeError):
    """Headless play could not run or went wrong: one line saying what."""


def draws(person: Person, n: int, seed: int) -> tuple[list[float], list[float]]:
    """``n`` reaction times (ms, to 0.1) and ``n`` uniform picks for the page's person."""
    rng = np.random.default_rng(seed)
    times = [round(person.wait_ms(rng), 1) for _ in range(n)]
    return times, [float(u) for u in rng.random(n)]


def person_script(person: Person, games: int, seed: int) -> str:
    """The page script of ``person`` with draws enough for ``games`` games."""
    times, picks = draws(person, max(2000, 200 * games), seed)
    return PERSON_JS % {
        "draws": json.dumps(times),
        "picks": json.dumps(picks),
        "habit": repr(float(person.habit)),
    }


def _server(argv: list[str], log: Any, log_path: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``speed play`` with ``argv``, its stderr to ``log``; the process and its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", "play", *argv],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    out = proc.stdout

    def read() -> None:
        for line in out:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            if proc.poll() is not None:
                break  # it stopped before printing a URL
            continue
        if (m := re.search(r"http://127\.0\.0\.1:\d+/", line)) is not None:
            return proc, m.group(0)
    _stop(proc)
    log.flush()
    said = log_path.read_text(encoding="utf-8").strip().splitlines()
    raise HeadlessError(
        f"speed play did not start (exit code {proc.returncode})"
        + (f": {said[-1]}" if said else "")
    )


def _stop(proc: subprocess.Popen[str]) -> None:
    """Stop the server as Ctrl-C would, killing it if it does not stop."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def play(
    folder: str | Path,
    *,
    games: int = 5,
    person: Person | None = None,
    seed: int = 4,
    opponent: str = "chain",
    reaction: str = "900",
    tick_ms: int = 50,
    chromium: str | None = CHROMIUM,
    progress: Callable[[int], None] | None = None,
) -> list[list[float | None]]:
    """Play ``games`` games of ``person`` at ``speed play --record folder`` in headless Chromium.

    ``opponent`` and ``reaction`` are the bot's; game ``i`` is seeded ``seed + i``, and the
    person's draws too come from ``seed``. ``chromium`` is the browser's path (``None``:
    Playwright's own). ``progress(i)`` is called as game ``i`` ends. Returns, per play the
    page made, ``[drawn ms, measured ms, elapsed ms in the page]``. Raises
    :class:`HeadlessError` when it cannot run, the page raised an error or the server logged
    a traceback.
    """
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        raise HeadlessError(
            "headless play needs Playwright for Python: pip install playwright"
        ) from None
    if chromium and not Path(chromium).exists():
        raise HeadlessError(
            f"no Chromium at {chromium}: apt-get install chromium, or playwright install "
            "chromium and --chromium ''"
        )
    person = person or Person(DEFAULT_REACTION)
    argv = ["--no-browser", "--opponent", opponent, "--reaction", reaction,
            "--countdown-ms", "200", "--seed", str(seed), "--tick-ms", str(tick_ms),
            "--replays-dir", "", "--record", str(folder)]  # fmt: skip
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="speed-headless-") as tmp:
        log_path = Path(tmp) / "server.log"
        with open(log_path, "w", encoding="utf-8") as log:
            proc, url = _server(argv, log, log_path)
            try:
                with sync_playwright() as p:
                    browser = p.chromium.launch(executable_path=chromium or None, args=ARGS)
                    try:
                        page = browser.new_page()
                        page.on("pageerror", lambda e: errors.append(str(e)))
                        page.add_init_script(person_script(person, games, seed))
                        page.goto(url)
                        expect(page.locator("#recording")).to_be_visible()
                        body = page.locator("body")
                        for game in range(games):
                            expect(body).to_have_attribute("data-status", re.compile("idle|over"))
                            page.keyboard.press("Space" if game == 0 else "Enter")
                            expect(body).to_have_attribute(
                                "data-status", re.compile("countdown|running")
                            )
                            expect(body).to_have_attribute(
                                "data-status", "over", timeout=GAME_S * 1000
                            )
                            if progress is not None:
                                progress(game)
                        pairs: list[list[float | None]] = page.evaluate("window.__person.log")
                    finally:
                        browser.close()
            except PlaywrightError as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise HeadlessError(f"the browser failed: {first}") from None
            finally:
                _stop(proc)
        server_log = log_path.read_text(encoding="utf-8")
    if errors:
        raise HeadlessError(f"the page raised: {errors[0]}")
    if "Traceback" in server_log:
        raise HeadlessError(f"the server failed: {server_log.strip().splitlines()[-1]}")
    return pairs


def summary(pairs: Sequence[Sequence[float | None]], games: int, folder: str | Path) -> str:
    """What a headless run did, in lines: plays, drawn and measured reaction times."""
    timed = [(d, m) for d, m, *_ in pairs if d is not None and m is not None]
    lines = [f"{games} games recorded in {folder}: {len(timed)} timed plays"]
    if timed:
        drawn = float(np.median([d for d, _ in timed]))
        measured = float(np.median([m for _, m in timed]))
        delay = float(np.median([m - d for d, m in timed]))
        lines.append(
            f"reaction times: drawn median {drawn:.1f} ms, measured by the table {measured:.1f} ms "
            f"(the page's delays add {delay:.1f} ms)"
        )
    lines.append(f"next: speed data profile {folder}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m speed_table.headless``: play, then print :func:`summary`."""
    parser = argparse.ArgumentParser(
        prog="python -m speed_table.headless",
        description="A simulated person plays speed play --record DIR in headless Chromium.",
    )
    parser.add_argument("--record", required=True, metavar="DIR", help="the records' folder")
    parser.add_argument("--games", type=count(1, 1000), default=5, help="games (default 5)")
    parser.add_argument(
        "--person",
        default=None,
        metavar="PROFILE",
        help="the person's reaction profile: a name (human) or profile:FILE "
        "(default mu 300, sigma 40, tau 100 ms)",
    )
    parser.add_argument("--habit", type=real(0, 1), default=0.8, help="how often habit picks (0-1)")
    parser.add_argument("--opponent", default="chain", help="the bot's agent spec")
    parser.add_argument("--reaction", default="900", help="the bot's reaction profile")
    parser.add_argument("--seed", type=count(0, 2**31 - 1), default=4, help="game i: SEED + i")
    parser.add_argument("--tick-ms", type=count(1, 1000), default=50, help="ms per tick")
    parser.add_argument(
        "--chromium", default=CHROMIUM, help=f"the browser ('' for Playwright's; {CHROMIUM})"
    )
    args = parser.parse_args(argv)
    prog = "speed_table.headless"
    folder = Path(args.record)
    if folder.exists() and not folder.is_dir():
        print(f"{prog}: error: --record {str(folder)!r} is a file, not a folder", file=sys.stderr)
        return 2
    try:
        person = (
            Person(DEFAULT_REACTION, args.habit)
            if args.person is None
            else person_of(args.person, args.habit)
        )
    except ValueError as exc:
        print(f"{prog}: error: --person/--habit: {exc}", file=sys.stderr)
        return 2
    try:
        pairs = play(
            folder,
            games=args.games,
            person=person,
            seed=args.seed,
            opponent=args.opponent,
            reaction=args.reaction,
            tick_ms=args.tick_ms,
            chromium=args.chromium or None,
            progress=lambda i: print(f"game {i + 1} of {args.games} over", flush=True),
        )
    except HeadlessError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # Playwright's driver dies with the Ctrl-C too; its pending futures would print
        # "Future exception was never retrieved" through asyncio's logger at exit.
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        print("interrupted", file=sys.stderr)
        return 130
    print(summary(pairs, args.games, folder))
    return 0


__all__ = ["ARGS", "CHROMIUM", "PERSON_JS", "HeadlessError", "draws", "main", "play", "summary"]


if __name__ == "__main__":
    sys.exit(main())
