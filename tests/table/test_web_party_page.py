"""The page of a table of three or four in headless Chromium: every seat, a centre pile each,
bots playing.

``speed play --opponent greedy@150,random@300,greedy@400`` (and ``speed watch --agents`` of three
bots) is served on a free port and its page opened in Debian's Chromium through Playwright, as
``test_web_e2e.py`` does for a duel.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").strip().lower() == "true"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists() and not IN_CI, reason="/usr/bin/chromium is absent"),
]
pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
pytest.importorskip("playwright", reason="Playwright for Python is not installed")


@contextlib.contextmanager
def _table_page(tmp_path: Path, argv: list[str]):
    """``speed ARGV --no-browser`` served on a free port and its page open in Chromium; the
    server stopped with Ctrl-C afterwards, which must end it cleanly."""
    from playwright.sync_api import sync_playwright

    log = open(tmp_path / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
    cmd = [sys.executable, "-m", "speed_cli", *argv, "--no-browser", "--replays-dir", ""]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:  # the URL line comes once the bots and the engine are loaded
            if (m := re.search(r"http://127\.0\.0\.1:\d+/", line)) is not None:
                url = m.group(0)
                break
        assert url is not None, (tmp_path / "server.log").read_text(encoding="utf-8")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
            )
            page = browser.new_page()
            page.goto(url)
            yield page
            if os.environ.get("SPEED_PARTY_SHOT"):  # a look at the page, for a person
                page.screenshot(path=os.environ["SPEED_PARTY_SHOT"])
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        log.close()
    server_log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert code == 0 and "Traceback" not in server_log, server_log


def test_a_table_of_four_draws_four_seats_and_piles_and_the_bots_play(tmp_path):
    from playwright.sync_api import expect

    argv = ["play", "--opponent", "greedy@150,random@300,greedy@400", "--seed", "3"]
    with _table_page(tmp_path, [*argv, "--countdown-ms", "0", "--think", "off"]) as page:
        expect(page.locator("#start-btn")).to_be_visible(timeout=20_000)
        expect(page.locator("#matchup")).to_contain_text("you vs greedy@150ms vs random@300ms")
        for k in range(4):
            expect(page.locator(f"#pile-{k}")).to_have_count(1)
        for box in ("#seat-bottom", "#seat-top", "#seat-2", "#seat-3"):
            expect(page.locator(box)).to_have_count(1)
        page.locator("#start-btn").click()
        # Every seat's box fills with its hand, and greedy@150 plays: its count goes up.
        expect(page.locator("#seat-3 .name")).to_have_text("greedy@400ms", timeout=10_000)
        expect(page.locator("#seat-top .counts")).not_to_contain_text("played 0 ", timeout=20_000)
        assert page.locator("#pile-3 .slot-card .card").count() == 1


def test_a_watched_table_of_three_draws_every_seat_and_the_bots_play(tmp_path):
    from playwright.sync_api import expect

    argv = ["watch", "--agents", "greedy@150,random@300,chain@200", "--seed", "3"]
    with _table_page(tmp_path, [*argv, "--countdown-ms", "0", "--think", "off"]) as page:
        expect(page.locator("#matchup")).to_contain_text(
            "greedy@150ms vs random@300ms vs chain@200ms", timeout=20_000
        )
        expect(page.locator("#watch-controls")).to_be_visible()
        for k in range(3):
            expect(page.locator(f"#pile-{k}")).to_have_count(1)
        # player_0 at the bottom, player_1 at the top, player_2 in a box of its own; the game
        # starts by itself and every hand is shown.
        expect(page.locator("#seat-2 .name")).to_have_text("chain@200ms", timeout=10_000)
        expect(page.locator("#seat-bottom .name")).to_have_text("greedy@150ms")
        expect(page.locator("#seat-bottom .counts")).not_to_contain_text(
            "played 0 ", timeout=20_000
        )
        assert page.locator("#pile-2 .slot-card .card").count() == 1
