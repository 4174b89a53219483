"""The page of a table of four in headless Chromium: four seats, four centre piles, bots playing.

``speed play --opponent greedy@150,random@300,greedy@400`` is served on a free port and its page
opened in Debian's Chromium through Playwright, as ``test_web_e2e.py`` does for a duel.
"""

from __future__ import annotations

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


def test_a_table_of_four_draws_four_seats_and_piles_and_the_bots_play(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    log = open(tmp_path / "server.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
    cmd = [sys.executable, "-m", "speed_cli", "play", "--no-browser", "--replays-dir", ""]
    cmd += ["--opponent", "greedy@150,random@300,greedy@400", "--seed", "3"]
    cmd += ["--countdown-ms", "0", "--think", "off"]
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
            expect(page.locator("#start-btn")).to_be_visible(timeout=20_000)
            expect(page.locator("#matchup")).to_contain_text("you vs greedy@150ms vs random@300ms")
            for k in range(4):
                expect(page.locator(f"#pile-{k}")).to_have_count(1)
            for box in ("#seat-bottom", "#seat-top", "#seat-2", "#seat-3"):
                expect(page.locator(box)).to_have_count(1)
            page.locator("#start-btn").click()
            # Every seat's box fills with its hand, and greedy@150 plays: its count goes up.
            expect(page.locator("#seat-3 .name")).to_have_text("greedy@400ms", timeout=10_000)
            expect(page.locator("#seat-top .counts")).not_to_contain_text(
                "played 0 ", timeout=20_000
            )
            assert page.locator("#pile-3 .slot-card .card").count() == 1
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
