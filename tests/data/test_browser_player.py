"""A scripted person plays ``speed play --record DIR`` in headless Chromium, on the real page.

Playwright for Python drives Debian's Chromium (``/usr/bin/chromium``; no browser
download), as the table's own browser test does. A script added to the page watches
the messages the page receives and reacts as a person would: when a play (a rank onto
a pile) becomes possible, it waits a reaction time drawn from a known ex-Gaussian, then
presses the card's number key and the pile's key, which the page's own key handler
turns into the play. Its policy is a habit a clone can learn: mostly the left pile's
lowest new chance, otherwise any new one. A chance is new as the table's clock counts
it: not possible on the table shown before, where nothing is possible while the
person's own card is in flight, so after each landing every possible play is new and
the habit ranks what the observation shows. The timing runs inside the page because a
round trip to Python per reaction would add its own delay to every measured time.

From those recorded games: ``speed data profile`` recovers the drawn parameters within
their intervals, the Minari export replays exactly in ``Speed-v1``, and a clone trained
with ``speed train bc`` plays legally and fits the person's plays.
"""

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

import numpy as np
import pytest

import speed_cli
from speed_data import records
from speed_data.profile import PARAMS
from speed_data.replay import compare

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]  # fmt: skip
ROOT = Path(__file__).resolve().parents[2]
RT = (300.0, 40.0, 100.0)
"""The scripted person's reaction times: ex-Gaussian mu, sigma, tau (ms)."""
GAMES = 5

# Skipped without the browser on a developer's machine, failed under CI=true (.ci/run
# installs it), as the table's browser test.
IN_CI = os.environ.get("CI", "").strip().lower() == "true"
NO_BROWSER = (
    "/usr/bin/chromium is absent: apt-get install -y chromium (.ci/run does) for the browser test"
)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists() and not IN_CI, reason=NO_BROWSER),
]
pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
pytest.importorskip("playwright", reason="playwright is not installed")

# The person, in the page: ``draws`` (ms) and ``picks`` (uniform numbers) come from Python's
# seeded generator. It reacts to each *new* chance only (a play that was not possible on the
# table shown before), one play at a time; a draw whose chance went away before it was
# pressed is kept for the next chance, so the times played are the draws in order.
PERSON_JS = """
(() => {
  const draws = %(draws)s, picks = %(picks)s;
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
      // A habit a clone can learn: mostly the left pile's lowest new chance, else any.
      const u = picks[me.p++ %% picks.length];
      const chance = u < 0.8 ? fresh[0] : fresh[Math.floor(((u - 0.8) / 0.2) * fresh.length)];
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


def _draws(n: int, seed: int) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    mu, sigma, tau = RT
    times = np.maximum(20.0, mu + sigma * rng.standard_normal(n) + tau * rng.exponential(1.0, n))
    return [round(float(x), 1) for x in times], [float(x) for x in rng.random(n)]


@pytest.fixture(scope="module")
def browser_games(tmp_path_factory):
    """GAMES games of the scripted person in Chromium against chain (900 ms), recorded."""
    from playwright.sync_api import expect, sync_playwright

    if not CHROMIUM.exists():  # only under CI=true (else skipped above)
        pytest.fail(f"CI=true: {NO_BROWSER}", pytrace=False)
    tmp = tmp_path_factory.mktemp("browser")
    folder, log_path = tmp / "rec", tmp / "server.log"
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "speed_cli", "play", "--no-browser", "--opponent", "chain",
         "--reaction", "900", "--countdown-ms", "200", "--seed", "4", "--tick-ms", "50",
         "--replays-dir", "", "--record", str(folder)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    draws, picks = _draws(2000, seed=0)
    errors: list[str] = []
    try:
        url = None
        while url is None:
            line = lines.get(timeout=300)  # a fresh checkout compiles the engine first
            if (m := re.search(r"http://127\.0\.0\.1:\d+/", line)) is not None:
                url = m.group(0)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            try:
                page = browser.new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.add_init_script(PERSON_JS % {"draws": draws, "picks": picks})
                page.goto(url)
                expect(page.locator("#recording")).to_be_visible()
                for game in range(GAMES):
                    expect(page.locator("body")).to_have_attribute(
                        "data-status", re.compile("idle|over")
                    )
                    page.keyboard.press("Space" if game == 0 else "Enter")
                    body = page.locator("body")
                    expect(body).to_have_attribute("data-status", re.compile("countdown|running"))
                    expect(body).to_have_attribute("data-status", "over", timeout=120_000)
                pairs = page.evaluate("window.__person.log")
            finally:
                browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        log.close()
    assert errors == []
    assert "Traceback" not in log_path.read_text(encoding="utf-8")
    return folder, pairs


def test_the_browser_persons_games_are_recorded_whole_and_timed_as_drawn(browser_games):
    folder, pairs = browser_games
    paths = sorted(folder.glob("*.speedrec.json"))
    assert len(paths) == GAMES
    timed = []
    for path in paths:
        rec = records.read_record(path)
        assert rec["seat_kind"] == "human" and rec["winner"] is not None
        assert compare(rec) == []  # the page's game replays exactly in Speed-v1
        timed += [ms for ms in rec["reaction_ms"] if ms is not None]
    acked = sorted(ms for _, ms, _ in pairs if ms is not None)  # the page's acks, to 0.1 ms
    assert len(timed) == len(acked) and np.allclose(sorted(timed), acked, atol=0.051)
    # The table measures the drawn wait plus its own delays: never less than the draw.
    extra = np.array([ms - drawn for drawn, ms, _ in pairs if ms is not None])
    assert len(extra) >= 50 and (extra > -1).all(), extra


def test_profile_recovers_the_browser_persons_reaction_times(browser_games, capsys):
    folder, pairs = browser_games
    assert speed_cli.main(["data", "profile", str(folder), "--bootstrap", "100"]) == 0
    data = json.loads((folder / "profile.json").read_text(encoding="utf-8"))
    assert "maximum likelihood" in capsys.readouterr().out
    # The table times a play from the server's tick to the play's arrival, so what it
    # measures is the drawn wait plus the page's delays (the state's trip to the page, the
    # play's trip back): a few ms on a quiet machine, tens on a loaded one. The test knows
    # each play's draw, so the location it expects is shifted by their median difference.
    delay = float(np.median([ms - drawn for drawn, ms, _ in pairs if ms is not None]))
    assert 0 <= delay < 100, delay
    for name, value in zip(PARAMS, (RT[0] + delay, RT[1], RT[2])):
        low, high = data["intervals"][name]
        assert low <= value <= high, (name, value, low, high, delay)


def test_the_browser_persons_export_loads_in_minari_and_replays(browser_games, tmp_path):
    pytest.importorskip("minari", reason="the [data] extra is not installed")
    import minari
    from test_minari import replay_problems

    folder, _ = browser_games
    os.environ["MINARI_DATASETS_PATH"] = str(tmp_path / "datasets")
    try:
        argv = ["data", "export", str(folder), "--minari", "browser/person-v0", "--seat", "human"]
        assert speed_cli.main(argv) == 0
        ds = minari.load_dataset("browser/person-v0")
        assert ds.total_episodes == GAMES and replay_problems(ds) == []
    finally:
        del os.environ["MINARI_DATASETS_PATH"]


def test_a_clone_of_the_browser_persons_plays_fits_them_and_plays_legally(browser_games, tmp_path):
    """``speed train bc`` on the page's records: the model it writes, played as
    ``ppo:M/model.json`` (numpy, not the torch net that was fitted), picks a legal play on
    every recorded decision, scores the held-out games as ``bc.json`` reports, and
    reproduces the plays it was fitted on well above chance.

    Whether the clone also beats chance on the *held-out* games is tested on the seeded
    person (``tests/data/test_bc.py``), not here: these games' timing differs from run to run,
    and on five games (about 60 plays to learn from, 40 held out) the held-out margin over
    chance is within its own noise: +4.2 points in one run, -4.8 and 0.0 in two others; in
    ``python -m speed_lab.clone_sample_size`` the clone failed to beat chance on 7 of 40
    datasets of five games, 1 of 40 of twenty (docs/human-data.md).
    """
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    import agents
    from train.bc_data import chance_agreement, load

    folder, _ = browser_games
    out = tmp_path / "clone"
    argv = ["train", "bc", "--data", str(folder), "--out", str(out), "--holdout", "0.4"]
    assert speed_cli.main(argv) == 0
    stats = json.loads((out / "bc.json").read_text(encoding="utf-8"))
    data = load(str(folder))
    plays = data.action != 0
    assert stats["games"] == GAMES and stats["plays"] == int(plays.sum())
    assert len(stats["held_out"]) == stats["held_out_games"] == 2
    held = np.isin(data.game[plays], stats["held_out"])
    assert int(held.sum()) == stats["held_out_plays"] >= 30
    obs, choice, action = data.obs[plays], data.mask[plays].copy(), data.action[plays]
    choice[:, 0] = 0  # which play, as the fit and its agreement compare
    clone = agents.make(f"ppo:{out / 'model.json'}", data.rules, seed=0)
    picked = np.asarray(clone.act(obs, choice))
    assert choice[np.arange(len(picked)), picked].all()
    agree = picked == action
    # The file plays as the fitted net did (one play's leeway for a float near-tie).
    assert abs(agree[held].mean() - stats["held_out_agreement"]) <= 1 / held.sum() + 1e-12
    assert chance_agreement(choice[held]) == pytest.approx(stats["chance_agreement"])
    # What it was fitted on it learned: 19.9 points above chance on average, 9.4 at least, on
    # 40 datasets of five games in the study above; 20.4 in one browser run.
    fitted, chance = float(agree[~held].mean()), chance_agreement(choice[~held])
    assert fitted > chance + 0.05, (fitted, chance)
