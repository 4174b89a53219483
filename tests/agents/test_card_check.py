"""``speed leaderboard`` publishes only what it can re-verify: a card edited anywhere (its name, a
rating, a count, its protocol data) is refused naming the file and the field, even when whoever
edited it hashed it again; malformed cards get one line; the same card twice is listed once; an
agent's name cannot break the table or the figure."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents import evaluate
from agents.evaluate import card_check, protocol
from agents.evaluate import report as eval_report
from speed_cli import main

CARDS = Path(__file__).resolve().parents[2] / "agents" / "cards"
SMALL = CARDS / "small" / "greedy" / "report.json"
VINTAGE = CARDS / "vintage" / "vintage-greedy" / "report.json"


def _card(path: Path = VINTAGE) -> dict[str, Any]:
    return json.loads(path.read_text())


def _rehashed(card: dict[str, Any]) -> dict[str, Any]:
    """What someone who edits a card and hashes it again writes."""
    card["manifest"]["hash"] = protocol.manifest_hash(card["manifest"])
    return protocol.seal(card)


def _renamed(card: dict[str, Any], name: str) -> dict[str, Any]:
    """The vintage ``card`` with its agent called ``name`` everywhere the name appears."""
    card["agent"] = card["manifest"]["agent"] = name
    for table in card["results"]["tables"]:
        table["lineup"][0] = name
    return card


def _write(tmp_path: Path, name: str, card: dict[str, Any] | str) -> Path:
    path = tmp_path / name / "report.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card if isinstance(card, str) else json.dumps(card, indent=2))
    return path


def _refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], card: dict[str, Any] | str, message: str
) -> None:
    """``speed leaderboard`` refuses the card in one line naming its file and ``message``."""
    path = _write(tmp_path, "edited", card)
    assert main(["leaderboard", str(path), "--out", str(tmp_path / "lb")]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert str(path) in err and message in err, err
    assert not (tmp_path / "lb").exists()


def test_a_renamed_card_is_refused_by_its_hash(tmp_path, capsys) -> None:
    card = _renamed(_card(), "my-great-bot")
    _refused(tmp_path, capsys, card, "card_hash does not match the card")


def test_a_renamed_re_rated_card_is_refused_even_hashed_again(tmp_path, capsys) -> None:
    card = _renamed(_card(), "my-great-bot")
    card["results"]["rating"] = 1900.0
    _refused(tmp_path, capsys, _rehashed(card), "disagrees with the card's counts re-rated")
    rated = evaluate.rate(card, evaluate.load_anchors("vintage"))
    card["results"]["alpharank"] = rated["results"]["alpharank"]
    _refused(tmp_path, capsys, _rehashed(card), "results.rating disagrees with the card's counts")


def test_a_rating_that_disagrees_with_the_counts_is_refused(tmp_path, capsys) -> None:
    card = _card(SMALL)
    card["results"]["rule_sets"]["us"]["rating_ci"][1] += 50
    _refused(tmp_path, capsys, _rehashed(card), "results.rule_sets.us.rating_ci[1] disagrees")


def test_a_name_that_differs_from_the_manifests_is_refused(tmp_path, capsys) -> None:
    card = _card()
    card["agent"] = "my-great-bot"
    _refused(tmp_path, capsys, _rehashed(card), "agent is 'my-great-bot', its manifest's")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["manifest"]["protocol_data"].update(games=200.0), "protocol_data.games"),
        (lambda c: c["manifest"]["protocol_data"].update(seed=True), "protocol_data.seed"),
        (lambda c: c["manifest"]["protocol_data"]["opponents"].pop(), "protocol_data.opponents"),
        (lambda c: c["manifest"]["protocol_data"].update(extra=1), "protocol_data.extra"),
        (lambda c: c.update(protocol=True), "protocol must be a whole number"),
        (lambda c: c.update(protocol=1.0), "protocol must be a whole number"),
    ],
)
def test_protocol_data_is_compared_with_exact_types(
    tmp_path, capsys, edit: Callable[[dict[str, Any]], Any], message: str
) -> None:
    card = _card()
    edit(card)
    _refused(tmp_path, capsys, _rehashed(card), message)


def _vintage_count(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda c: c["results"]["comparisons"]["vintage-random"].update({key: value})


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_vintage_count("wins", -1), "comparisons.vintage-random.wins must be a whole number >= 0"),
        (_vintage_count("games", 10**6), "comparisons.vintage-random wins"),
        (_vintage_count("draws", 2.5), "comparisons.vintage-random.draws must be a whole number"),
        (lambda c: c["results"]["tables"][0].update(wins=201), "tables[0] wins and truncations"),
        (lambda c: c["results"]["tables"][0].update(win_rate=0.9), "tables[0].win_rate is 0.9"),
        (
            lambda c: c["manifest"].update(games=100, full_protocol=False),
            "tables[0].games is 200, but the card",
        ),
    ],
)
def test_impossible_counts_are_refused_naming_the_field(
    tmp_path, capsys, edit: Callable[[dict[str, Any]], Any], message: str
) -> None:
    card = _card()
    edit(card)
    _refused(tmp_path, capsys, _rehashed(card), message)


def test_realtime_counts_and_rates_must_add_up(tmp_path, capsys) -> None:
    card = _card(SMALL)
    card["results"]["rule_sets"]["us"]["opponents"]["chain"]["wins"] = 2
    _refused(tmp_path, capsys, _rehashed(card), "chain wins 2 + losses 1 + draws 0 must make")
    card = _card(SMALL)
    card["results"]["latency"]["break_even_ms"] = 25.0  # the curve's points say otherwise
    _refused(tmp_path, capsys, _rehashed(card), "results.latency.break_even_ms is 25.0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (lambda t: t.replace('"wins": 336', '"wins": NaN', 1), "vintage-random.wins is NaN"),
        (lambda t: t.replace('"agent": ', '"agent": "x", "agent": ', 1), "agent is given twice"),
        (lambda t: t[: len(t) // 2], "is not JSON: Unterminated string"),
        (lambda t: "[]", "the card must be an object"),
    ],
)  # fmt: skip
def test_nan_duplicate_keys_and_broken_json_are_refused_in_one_line(
    tmp_path, capsys, text: Callable[[str], str], message: str
) -> None:
    _refused(tmp_path, capsys, text(VINTAGE.read_text()), message)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c.pop("results"), "results must be an object, got nothing (missing)"),
        (lambda c: c["results"].update(tables={}), "results.tables must be a list"),
        (lambda c: c["results"]["tables"][0].pop("mean_penalty"), "tables[0].mean_penalty must be"),
        (
            lambda c: c["results"]["tables"][0].update(games="200"),
            "tables[0].games must be a whole",
        ),
        (lambda c: c["manifest"].pop("seeds"), "manifest.seeds must be an object"),
        (lambda c: c.update(timing=None), "timing must be an object"),
    ],
)
def test_malformed_cards_get_one_line_naming_file_and_field(
    tmp_path, capsys, edit: Callable[[dict[str, Any]], Any], message: str
) -> None:
    card = _card()
    edit(card)
    _refused(tmp_path, capsys, _rehashed(card), message)


def test_an_unsealed_card_is_refused_and_can_be_sealed_without_replaying(tmp_path, capsys) -> None:
    card = _card()
    card.pop("card_hash")
    _refused(tmp_path, capsys, card, "card_hash is missing")
    path = tmp_path / "edited" / "report.json"
    assert card_check.main(["--rehash", str(path)]) == 0
    # Sealed again: the committed card, its results hash added (cards before it have none).
    assert json.loads(path.read_text()) == protocol.seal(_card())
    assert {k: v for k, v in protocol.seal(_card()).items() if "hash" not in k} == {
        k: v for k, v in _card().items() if "hash" not in k
    }
    # Re-hashing checks first: an edited count is not sealed.
    card["results"]["comparisons"]["vintage-random"]["wins"] = -3
    path.write_text(json.dumps(card))
    assert card_check.main(["--rehash", str(path)]) == 2
    assert "vintage-random.wins must be a whole number" in capsys.readouterr().err
    assert "card_hash" not in json.loads(path.read_text())


def test_the_same_card_twice_is_listed_once_with_a_note(tmp_path) -> None:
    card = _card()
    other = json.loads(json.dumps(card))
    other["timing"]["wall_s"] = 1.0  # the same evaluation run again: only its timing differs
    paths = [_write(tmp_path, "a", card), _write(tmp_path, "b", protocol.seal(other))]
    board = eval_report.leaderboard([*paths, _write(tmp_path, "c", card)])
    assert [row["card"] for row in board["rows"]] == [str(paths[0])]
    assert len(board["notes"]) == 2 and "is the same card as" in board["notes"][0]
    lines = eval_report.leaderboard_md(board).splitlines()
    assert sum(line.startswith("| 1 |") for line in lines) == 1
    assert sum(line.startswith("Note: ") for line in lines) == 2


def test_agent_names_cannot_break_the_table_or_the_figure(tmp_path) -> None:
    name = "py:evil|bot`s.py:$\\frac{1}{0}$\n| 1 | fake |"
    card = _renamed(_card(), name)
    # Re-rated from its counts: valid.
    card = evaluate.rate(_rehashed(card), evaluate.load_anchors("vintage"))
    board = eval_report.leaderboard([_write(tmp_path, "a", card)])
    text = eval_report.leaderboard_md(board)
    header, _, row = text.strip().splitlines()[-3:]
    assert row.replace("\\|", "").count("|") == header.count("|")  # one row, its cells intact
    assert "``py:evil\\|bot`s.py:$\\frac{1}{0}$ \\| 1 \\| fake \\|``" in row
    assert eval_report.leaderboard_png(board)[:8] == b"\x89PNG\r\n\x1a\n"
    assert eval_report.figure_png(card)[:4] == b"\x89PNG"
    assert "# Report card: ``" in eval_report.markdown(card)


def test_without_openspiel_cards_are_still_checked_but_for_alpha_rank(monkeypatch) -> None:
    import importlib.util
    import sys

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "open_spiel" else real(name)
    )
    monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)  # α-Rank cannot be computed
    again = evaluate.rate(_card(), evaluate.load_anchors("vintage"))["results"]["alpharank"]["4p"]
    assert not again["computed"] and _card()["results"]["alpharank"]["4p"]["computed"]
    assert eval_report.read_card(VINTAGE) == _card()
    card = _card()
    card["results"]["rating"] += 30
    with pytest.raises(card_check.CardError, match=r"results\.rating disagrees"):
        card_check.check_card(_rehashed(card), "edited")


@pytest.mark.parametrize(
    ("ci", "written"),
    [
        ([1.5, 9.0], [1.5, 9.0]),
        ([float("nan"), 9.0], None),
        ([0.0, float("inf")], None),
        (None, None),
    ],
)
def test_an_undefined_break_even_interval_is_written_as_null(ci, written) -> None:
    """A weak agent's quick card can leave the break-even bootstrap without a bound: the card
    writes ``null`` (strict JSON, which the leaderboard accepts), never ``NaN``."""
    from agents.evaluate.summary import finite_interval

    assert finite_interval(ci) == written
