"""``speed evaluate --human``: the card's human-likeness section (agreement with a person's
recorded plays, the reaction-time distance), checked by the card checker and refused when
tampered with."""

from __future__ import annotations

import json

import numpy as np
import pytest

import speed_cli
from agents.evaluate import card_check, protocol
from speed_env.reaction import make_profile
from train.realtime.human_likeness import draw_reaction_ms, measure, wasserstein_1


def test_wasserstein_1_is_the_shift_between_shifted_samples_and_zero_for_equal_ones() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(300, 40, 500)
    assert wasserstein_1(a, a + 25.0) == pytest.approx(25.0)
    assert wasserstein_1(a, a.copy()) == 0.0
    assert wasserstein_1(np.array([0.0]), np.array([1.0, 3.0])) == pytest.approx(2.0)


def test_reaction_draws_are_seeded_and_follow_the_profile() -> None:
    human = make_profile("human")
    a, b = draw_reaction_ms(human, 5000, 1), draw_reaction_ms(human, 5000, 1)
    assert np.array_equal(a, b)
    assert a.min() >= human.floor
    # the engine's own median of the same profile (its numba draws), within sampling error
    assert np.median(a) == pytest.approx(human.median_ms(), abs=5)
    assert set(draw_reaction_ms(make_profile(250), 10, 0)) == {250.0}


def test_evaluate_with_human_adds_a_checked_section(person_games, tmp_path) -> None:
    folder, sent = person_games
    out = tmp_path / "card"
    argv = ["evaluate", "greedy", "--protocol", "1", "--games", "2", "--human", str(folder)]
    argv += ["--out", str(out)]
    assert speed_cli.main(argv) == 0
    card = json.loads((out / "report.json").read_text(encoding="utf-8"))
    h = card["human_likeness"]
    assert h["n_decisions"] >= 20
    assert 0 <= h["agreement"] <= 1 and 0 < h["chance_agreement"] < 1
    assert "more than one legal play" in h["decisions"]
    r = h["reaction"]
    assert r["n_person"] == len(sent)
    assert r["person_median_ms"] == pytest.approx(np.median(sent), abs=1)
    assert r["agent_profile"] == "human" and 250 < r["agent_median_ms"] < 350
    assert r["wasserstein_ms"] > 0
    assert "## Human-likeness" in (out / "report.md").read_text(encoding="utf-8")
    path = out / "report.json"
    assert card_check.check_card(card_check.read_json(path), str(path))["human_likeness"] == h

    def resealed(change):
        doc = json.loads(json.dumps(card))
        change(doc["human_likeness"])
        return protocol.seal(doc)  # both hashes made again, as a forger would

    bad = [
        (lambda h: h.update(agreement=1.5), "human_likeness.agreement"),
        (lambda h: h.pop("n_decisions"), "human_likeness.n_decisions"),
        (lambda h: h["reaction"].update(wasserstein_ms="far"), "human_likeness.reaction.wasser"),
        (lambda h: h.update(reaction=[]), "human_likeness.reaction must be an object"),
    ]
    for change, field in bad:
        with pytest.raises(card_check.CardError, match=field):
            card_check.check_card(resealed(change), "card")
    tampered = json.loads(json.dumps(card))
    tampered["human_likeness"]["agreement"] = 0.99  # not resealed: the hash says so
    with pytest.raises(card_check.CardError, match="card_hash"):
        card_check.check_card(tampered, "card")


def test_the_agent_that_made_the_records_agrees_more_than_a_random_one(tmp_path) -> None:
    folder = tmp_path / "chain"
    gen = ["data", "generate", "--agents", "chain,greedy", "--games", "4", "--out", str(folder)]
    assert speed_cli.main(gen) == 0
    human = make_profile("human")
    chain = measure("chain", str(folder), "bot", human, 1)
    rand = measure("random", str(folder), "bot", human, 1)
    assert chain["n_decisions"] == rand["n_decisions"] >= 20
    assert chain["chance_agreement"] == rand["chance_agreement"]
    assert chain["agreement"] > 0.8 > rand["agreement"]
    # bot records hold no reaction times: the distance is left out, not made up
    assert chain["reaction"]["n_person"] == 0 and chain["reaction"]["wasserstein_ms"] is None
    with pytest.raises(ValueError, match="no human games"):
        measure("chain", str(folder), "human", human, 1)


def test_evaluate_refuses_bad_human_data(tmp_path, capsys) -> None:
    out = tmp_path / "card"
    argv = ["evaluate", "greedy", "--games", "2", "--human", str(tmp_path / "nope")]
    assert speed_cli.main([*argv, "--out", str(out)]) == 2
    assert "--human" in capsys.readouterr().err
    assert not out.exists()
    vintage = ["evaluate", "vintage-greedy", "--game", "vintage", "--human", str(tmp_path)]
    assert speed_cli.main([*vintage, "--out", str(out)]) == 2
    assert "--human compares real-time play" in capsys.readouterr().err


def test_a_minari_export_gives_the_records_own_section(person_games, tmp_path, monkeypatch):
    pytest.importorskip("minari", reason="the [data] extra is not installed")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    folder, _ = person_games
    assert speed_cli.main(["data", "export", str(folder), "--minari", "speed/me-v0"]) == 0
    human = make_profile("human")
    from_records = measure("chain", str(folder), "human", human, 1)
    from_minari = measure("chain", "speed/me-v0", "human", human, 1)
    assert from_minari.pop("data") == "Minari dataset speed/me-v0"
    from_records.pop("data")
    assert from_minari == from_records
