"""α-Rank beside Bradley–Terry (agents.alpharank): cycles share mass, a dominant agent takes it."""

from __future__ import annotations

import numpy as np
import pytest

from agents import alpharank

pytest.importorskip("open_spiel.python.egt.alpharank")

RPS = np.array([[0.0, -0.4, 0.4], [0.4, 0.0, -0.4], [-0.4, 0.4, 0.0]])


def test_rock_paper_scissors_cycle_splits_the_mass_and_is_named() -> None:
    result = alpharank.alpharank(RPS, ["rock", "paper", "scissors"])
    assert sum(result.mass) == pytest.approx(1.0)
    # The cycle is symmetric: each agent holds a third, none dominates.
    assert result.mass == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-6)
    assert result.cycle is not None and set(result.cycle) == {"rock", "paper", "scissors"}
    text = "\n".join(alpharank.markdown(result))
    assert "cycle" in text and "rock" in text


def test_cycle_plus_a_dominant_agent_gives_it_the_mass() -> None:
    table = np.zeros((4, 4))
    table[:3, :3] = RPS
    table[3, :3] = 0.6  # beats all three
    table[:3, 3] = -0.6
    result = alpharank.alpharank(table, ["rock", "paper", "scissors", "boss"])
    assert result.ranked()[0][0] == "boss"
    assert result.mass[3] > 0.9
    assert result.cycle is not None  # the cycle below it is still reported


def test_transitive_table_has_no_cycle_and_ranks_in_order() -> None:
    table = np.array([[0.0, 0.5, 0.8], [-0.5, 0.0, 0.3], [-0.8, -0.3, 0.0]])
    result = alpharank.alpharank(table, ["a", "b", "c"])
    assert result.ranked()[0][0] == "a"
    assert result.cycle is None


def test_missing_pairing_is_refused_by_name() -> None:
    table = RPS.copy()
    table[0, 2] = np.nan
    with pytest.raises(ValueError, match="rock vs scissors"):
        alpharank.alpharank(table, ["rock", "paper", "scissors"])
    result, reason = alpharank.alpharank_or_reason(table, ["rock", "paper", "scissors"])
    assert result is None and "rock vs scissors" in reason


def test_payoff_from_scores() -> None:
    score = np.array([[0.5, 0.75], [0.25, 0.5]])
    np.testing.assert_allclose(alpharank.payoff_from_scores(score), [[0.0, 0.5], [-0.5, 0.0]])


def _summary(names, rewards):
    """A minimal tournament summary: ranked agents and pairings with the given mean rewards."""
    matches = []
    for (a, b), r in rewards.items():
        wins_a = round(50 * (1 + r))
        matches.append({"a": a, "b": b, "games": 100, "wins_a": wins_a, "wins_b": 100 - wins_a})
    return {"agents": [{"name": n} for n in names], "matches": matches}


def test_a_tournament_summary_with_a_cycle_gets_alpharank_and_the_note() -> None:
    from agents.tournament import report

    summary = _summary(
        ["rock", "paper", "scissors"],
        {("rock", "paper"): -0.4, ("paper", "scissors"): -0.4, ("scissors", "rock"): -0.4},
    )
    entry = alpharank.from_summary(summary)
    assert entry["computed"] and entry["cycle"]
    assert entry["stationary"]["rock"] == pytest.approx(1 / 3, abs=1e-6)
    text = "\n".join(alpharank.summary_markdown(entry))
    assert "## α-Rank" in text and "cycle that one-line ratings hide" in text
    assert report.with_alpharank(summary)["alpharank"] == entry


def test_a_gauntlet_summary_says_why_alpharank_is_missing() -> None:
    summary = _summary(["a", "b", "c"], {("a", "b"): 0.2, ("a", "c"): 0.1})
    entry = alpharank.from_summary(summary)
    assert not entry["computed"] and "b vs c" in entry["reason"]


@pytest.mark.parametrize("game", ["realtime", "vintage"])
def test_speed_tournament_reports_alpharank_beside_the_ratings(tmp_path, game) -> None:
    import json

    from speed_cli import main

    if game == "realtime":
        args = ["--agents", "random,greedy,chain", "--games", "20", "--rules", "us"]
    else:
        args = ["--game", "vintage", "--agents", "vintage-random,vintage-greedy,vintage-tactician"]
        args += ["--games", "8"]
    assert main(["tournament", *args, "--seed", "0", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    entry = results["alpharank"]
    assert entry["computed"] and sum(entry["stationary"].values()) == pytest.approx(1.0)
    assert set(entry["stationary"]) == {a["name"] for a in results["agents"]}
    assert "## α-Rank" in (tmp_path / "leaderboard.md").read_text()


@pytest.mark.parametrize("game,name", [("realtime", "chain"), ("vintage", "vintage-tactician")])
def test_a_report_card_ranks_the_agent_among_the_reference_pool(game, name) -> None:
    """``speed evaluate``'s card carries α-Rank per rule set, from the same counts as its rating:
    the shipped anchors (pool against pool) plus the card's own row."""
    import json

    from agents import evaluate
    from agents.evaluate import report as eval_report

    path = evaluate.CARDS / game / name / "report.json"
    card = json.loads(path.read_text())
    rerated = evaluate.rate(card, evaluate.load_anchors(game))
    # A pure function of the counts, on any machine (the masses are kept to 10 decimals, far
    # above the eigen-solve's noise that differs between BLAS builds)
    assert rerated["results"]["alpharank"] == card["results"]["alpharank"]
    for entry in card["results"]["alpharank"].values():
        assert entry["computed"]
        assert entry["agent"] == f"{name} (evaluated)"  # the agent is in the pool too
        assert sum(entry["stationary"].values()) == pytest.approx(1.0)
        # Real time: the agent also met its own anchor; vintage skips tables of itself.
        assert (name in entry["stationary"]) == (game == "realtime")
    assert "## α-Rank beside the rating" in eval_report.markdown(card)


def test_card_alpharank_gives_a_dominant_agent_the_mass() -> None:
    from agents.evaluate.alpharank import entry

    pool = {
        "agents": ["a", "b", "c"],
        "wins": [[0, 60, 70], [40, 0, 55], [30, 45, 0]],
        "games": [[0, 100, 100], [100, 0, 100], [100, 100, 0]],
    }
    strong = entry(pool, "me", {"a": 0.5, "b": 0.6, "c": 0.7})
    assert strong["computed"] and strong["stationary"]["me"] > 0.9
    weak = entry(pool, "me", {"a": -0.5, "b": -0.6, "c": -0.7})
    assert weak["stationary"]["me"] < 0.01
    assert not entry(None, "me", {"a": 0.1})["computed"]


def test_alpharank_says_when_it_cannot_separate_its_leader() -> None:
    """With α = 100 a 51%-to-49% edge hands an agent all the mass; over 200 games such an edge
    is noise, and α-Rank says so, naming the agents and the leader's scores against them. The
    same edges over 200,000 games are resolved, and no note is given."""
    names = ["a", "b", "c", "d"]
    table = np.array(  # a edges b and c; all three crush d
        [
            [0.0, 0.02, 0.04, 0.8],
            [-0.02, 0.0, 0.02, 0.8],
            [-0.04, -0.02, 0.0, 0.8],
            [-0.8, -0.8, -0.8, 0.0],
        ]
    )
    few = alpharank.alpharank(table, names, games=np.full((4, 4), 200))
    assert few.ranked()[0] == ("a", pytest.approx(1.0, abs=1e-3))
    assert few.unseparated is not None and few.unseparated["agents"] == ["a", "b", "c"]
    pairs = {(p["a"], p["b"]): p for p in few.unseparated["pairs"]}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}  # every head-to-head among them
    assert pairs[("a", "b")]["score"] == pytest.approx(0.51)
    assert pairs[("a", "b")]["ci"][0] < 0.5 < pairs[("a", "b")]["ci"][1]
    text = "\n".join(alpharank.markdown(few))
    assert "cannot separate a from b, c" in text and "vs b 51.0% [" in text and "200 games" in text
    many = alpharank.alpharank(table, names, games=np.full((4, 4), 200_000))
    assert many.unseparated is None and "cannot separate" not in "\n".join(alpharank.markdown(many))
    assert alpharank.alpharank(table, names).unseparated is None  # no games given: nothing claimed


def test_a_tournament_entry_names_the_agents_it_cannot_separate() -> None:
    summary = _summary(["x", "y", "z"], {("x", "y"): 0.04, ("x", "z"): 0.5, ("y", "z"): 0.5})
    entry = alpharank.from_summary(summary)  # 100 games a pairing: x vs y is 52% [42, 62]
    assert entry["unseparated"]["agents"] == ["x", "y"]
    assert "cannot separate x from y" in "\n".join(alpharank.summary_markdown(entry))


def test_without_openspiel_the_note_is_information_not_an_error(monkeypatch) -> None:
    """``make run`` installs no OpenSpiel: its leaderboard's α-Rank section once read "Not
    computed: α-Rank needs OpenSpiel (...)", like an error beside complete ratings."""
    import sys

    monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)  # as if not installed
    entry = alpharank.from_summary(_summary(["a", "b"], {("a", "b"): 0.2}))
    assert not entry["computed"]
    text = "\n".join(alpharank.summary_markdown(entry))
    assert "a second ranking beside the ratings" in text and "`make setup`" in text
    assert "Not computed" not in text and "error" not in text.lower()
