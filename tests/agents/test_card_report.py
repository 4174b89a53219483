"""What a report card and a leaderboard show: ``report.md`` escapes what an agent wrote (its
spec, its refusals) as ``leaderboard.md`` does and cuts a long skip reason at a word; two cards
of one agent are marked as its replications; a decision cost never shows as ``0.0 µs``; a
results hash beside the seal tells two runs of one evaluation apart without their wall time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agents import evaluate
from agents.evaluate import card_check, protocol
from agents.evaluate import report as eval_report
from speed_cli import main

CARDS = Path(__file__).resolve().parents[2] / "agents" / "cards"
SMALL = CARDS / "small" / "greedy" / "report.json"
"""A real-time card made before the results hash: it has none."""
EVIL = "py:evil|bot`s.py:$x$\n| 1 | fake |"
"""An agent spec a user may write: a pipe, a backtick, a newline, a forged table row."""


def _card() -> dict[str, Any]:
    return json.loads(SMALL.read_text())


def _write(folder: Path, card: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(json.dumps(card, indent=2))
    return folder / "report.json"


def _table_rows_intact(text: str) -> None:
    """Every table row of ``text`` has its header's cells: nothing opened a row or a cell."""
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = line.replace("\\|", "").count("|")
        if header is None:
            header = cells
        assert cells == header, line


# ------------------------------------------------------------------ report.md


def test_report_md_escapes_the_agent_and_its_refusals_as_leaderboard_md_does() -> None:
    card = _card()
    card["agent"] = card["manifest"]["agent"] = EVIL
    card["manifest"]["agent_files"] = {"/tmp/a`b|c.py": "0" * 64}
    reason = f"{EVIL} refuses these rules: a *bold* [link](http://x) <b>tag</b> and | pipes"
    card["results"]["rule_sets"]["pagat"]["opponents"]["trained"]["skipped"] = reason
    card["results"]["latency"] = {"skipped": reason}
    card = evaluate.rate(card, evaluate.load_anchors("realtime"))  # α-Rank names the agent too
    text = eval_report.markdown(card)
    _table_rows_intact(text)
    assert "\n| 1 | fake |" not in text  # the spec's own "row" stayed inside its cell
    for markup in (r"\[link\]\(", r"<b>", r"\*bold\*"):  # a link, a tag, emphasis: escaped
        assert not re.search(r"(?<!\\)" + markup, text), markup
    spec = eval_report.md_code(EVIL)
    assert f"# Report card: {spec}" in text
    # α-Rank's rows and notes name the agent (as "SPEC (evaluated)" beside a pool namesake):
    # every occurrence is escaped.
    for line in text.splitlines():
        assert "fake |" not in line.replace("\\|", ""), line
    assert eval_report.md_code("/tmp/a`b|c.py") in text


def test_a_long_skip_reason_is_cut_at_a_word_and_a_short_one_not_at_all() -> None:
    card = _card()
    opponents = card["results"]["rule_sets"]["pagat"]["opponents"]
    long_reason = opponents["trained"]["skipped"]
    assert len(long_reason) > eval_report.SKIP_REASON_CHARS
    opponents["selfplay"]["skipped"] = "refuses pagat"
    text = eval_report.markdown(card)
    cells = {
        opp: re.search(rf"\| pagat \| {opp} \| – \| skipped: (.*?) \|", text)
        for opp in ("trained", "selfplay")
    }
    shown = cells["trained"][1]  # type: ignore[index]
    assert shown.endswith("…") and len(shown) <= eval_report.SKIP_REASON_CHARS
    kept = shown[:-1].replace("\\", "")
    assert long_reason.startswith(kept) and long_reason[len(kept)] in " ,;", (kept, long_reason)
    assert cells["selfplay"][1] == "refuses pagat"  # type: ignore[index]


@pytest.mark.parametrize(
    ("us", "shown"),
    [(0.04, "40.0 ns"), (0.147, "147 ns"), (5.506, "5.51 µs"), (1500.0, "1.50 ms")],
)
def test_a_decision_cost_is_shown_in_a_unit_that_keeps_its_digits(us: float, shown: str) -> None:
    card = _card()
    card["timing"]["decision_cost"]["batch_256_us_per_decision"] = us
    line = next(ln for ln in eval_report.markdown(card).splitlines() if "per decision" in ln)
    assert f"batch 256: {shown}." in line and " 0.0 " not in line


# ------------------------------------------------------------------ the results hash


def test_the_results_hash_is_sealed_leaves_the_timing_out_and_is_shown() -> None:
    card = protocol.seal(_card())
    again = json.loads(json.dumps(card))
    again["timing"] = {"wall_s": 1.0, "decision_cost": {"batch_1_us_per_decision": 9.0}}
    again = protocol.seal(again)  # the same evaluation, run again: only the time differs
    assert card["results_hash"] == again["results_hash"] == protocol.results_hash(_card())
    assert card["card_hash"] != again["card_hash"]
    assert list(card)[-2:] == ["results_hash", "card_hash"]
    assert f"Results hash `{card['results_hash']}`" in eval_report.markdown(card)
    other = json.loads(json.dumps(_card()))
    other["manifest"]["seeds"]["deals"] = 7  # another seed: another evaluation
    assert protocol.results_hash(other) != card["results_hash"]
    card_check.check_card(card, "sealed")  # a sealed card verifies


def test_a_card_without_a_results_hash_still_verifies_and_an_edited_one_is_refused() -> None:
    old = _card()
    assert "results_hash" not in old
    assert eval_report.read_card(SMALL) == old
    forged = protocol.seal(_card())
    forged["results_hash"] = "0" * 64
    forged = {**forged, "card_hash": protocol.card_hash(forged)}  # the card hash made again
    with pytest.raises(card_check.CardError, match="results_hash does not match the card"):
        card_check.check_card(forged, "forged")


# ------------------------------------------------------------------ replications


def _replication(seed: int) -> dict[str, Any]:
    """The small card as if evaluated again with ``--seed seed``: the same counts, re-rated."""
    card = _card()
    card["manifest"]["seeds"]["deals"] = seed
    card["manifest"]["hash"] = protocol.manifest_hash(card["manifest"])
    return evaluate.rate(card, evaluate.load_anchors("realtime"))


def test_two_cards_of_one_agent_are_marked_as_its_replications(tmp_path, capsys) -> None:
    a = _write(tmp_path / "a", _card())
    b = _write(tmp_path / "b", _replication(7))
    c = _write(tmp_path / "c", _card())  # the very same card: listed once, as before
    board = eval_report.leaderboard([a, b, c])
    assert sorted(tuple(row["replication"]) for row in board["rows"]) == [(1, 2), (2, 2)]
    notes = " ".join(board["notes"])
    assert "2 cards of one agent, greedy" in notes and "replications of it" in notes
    assert f"{a} (seed 1, 2 games)" in notes and f"{b} (seed 7, 2 games)" in notes
    assert main(["leaderboard", str(a), str(b), "--out", str(tmp_path / "lb")]) == 0
    shown = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "`greedy` (replication 1 of 2)" in shown and "`greedy` (replication 2 of 2)" in shown
    capsys.readouterr()


def test_cards_of_different_agents_are_not_replications(tmp_path) -> None:
    other = _card()
    other["agent"] = other["manifest"]["agent"] = "greedy@200"
    other["manifest"]["hash"] = protocol.manifest_hash(other["manifest"])
    other = evaluate.rate(other, evaluate.load_anchors("realtime"))
    board = eval_report.leaderboard(
        [_write(tmp_path / "a", _card()), _write(tmp_path / "b", other)]
    )
    assert all("replication" not in row for row in board["rows"])
    assert "notes" not in board
