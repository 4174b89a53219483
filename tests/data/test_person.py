"""``speed data generate --person``: a simulated person with a known reaction profile, recorded
as the table records a person, and ``speed data profile`` recovering that profile."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import speed_cli
from speed_data import profile, records, replay
from speed_data.generate import play_records
from speed_data.person import Attention, Person, person_of
from speed_env.reaction import ReactionError, ReactionProfile, make_profile
from speed_env.rules import make_rules

TRUTH = {"mu": 300.0, "sigma": 40.0, "tau": 100.0, "floor": 20.0}


def _profile_file(folder: Path) -> Path:
    path = folder / "truth.json"
    path.write_text(
        json.dumps({"format": "speed-reaction-profile", "version": 1, **TRUTH}), encoding="utf-8"
    )
    return path


def test_simulated_records_time_every_play_and_replay_exactly():
    person = Person(ReactionProfile(**TRUTH))
    recs = list(
        play_records(("x", "chain"), make_rules("us"), 2, seed=3, reaction=make_profile(900),
                     person=person)
    )  # fmt: skip
    for rec in recs:
        assert (rec["source"], rec["seat_kind"]) == ("generate", "simulated")
        assert rec["agent"] == "simulated@exgauss(mu=300,sigma=40,tau=100,floor=20)"
        assert rec["reaction"][0]["mu"] == 1.0 and rec["reaction"][0]["sigma"] == 0.0
        plays = [a != 0 for a in rec["actions"]]
        timed = [ms is not None for ms in rec["reaction_ms"]]
        assert timed == plays and sum(plays) >= 10
        assert min(ms for ms in rec["reaction_ms"] if ms is not None) >= TRUTH["floor"]
        assert replay.compare(rec) == []
        records.check_record(json.loads(json.dumps(rec)))


def test_a_wait_whose_chance_went_away_is_kept_for_the_next_chance():
    attention = Attention(Person(ReactionProfile(**TRUTH), habit=1.0), np.random.default_rng(0))
    wait = attention.wait
    attention.look({3, 4}, {4, 3}, 0.0)
    assert attention.plan == (3, wait)  # habit: pile 0 (odd actions) first
    assert attention.due(wait - 1) is None
    attention.look({4}, set(), 50.0)  # 3 went away before it was due
    assert attention.plan is None and attention.wait == wait
    attention.look({4, 5}, {5}, 100.0)
    assert attention.due(100.0 + wait) == (5, 100.0 + wait, wait)
    attention.played()
    assert attention.plan is None and attention.wait != wait


@pytest.mark.parametrize(
    "spec,fragment",
    [("250", "fixed 250 ms"), ("profile:/nowhere/p.json", "cannot read"), ("slow", "unknown")],
)
def test_a_person_without_varying_reaction_times_is_refused(spec, fragment):
    with pytest.raises(ReactionError, match=fragment):
        person_of(spec)


def test_generate_then_profile_recovers_the_simulated_persons_profile(tmp_path, capsys):
    truth = _profile_file(tmp_path)
    out = tmp_path / "sim"
    argv = ["data", "generate", "--person", f"profile:{truth}", "--agents", "chain@900",
            "--games", "24", "--seed", "1", "--out", str(out)]  # fmt: skip
    assert speed_cli.main(argv) == 0
    assert "24 play records" in capsys.readouterr().out
    assert speed_cli.main(["data", "profile", str(out), "--bootstrap", "60"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("simulated: these 24 games were played by a simulated person")
    data = json.loads((out / "profile.json").read_text(encoding="utf-8"))
    assert data["source"] == f"24 games of a simulated person in {out}"
    assert data["n"] >= 300
    for name in profile.PARAMS:
        low, high = data["intervals"][name]
        se = (high - low) / 3.92  # a 95% interval spans about 3.92 standard errors
        assert abs(data[name] - TRUTH[name]) < 3 * se, (name, data[name], low, high)
    # And the fitted profile plays again as a person.
    again = ["data", "generate", "--person", f"profile:{out / 'profile.json'}", "--games", "1",
             "--out", str(tmp_path / "again")]  # fmt: skip
    assert speed_cli.main(again) == 0


@pytest.mark.parametrize(
    "extra,fragment",
    [
        (["--person", "250"], "--person: '250' is a fixed 250 ms"),
        (["--person", "profile:nope.json"], "--person: cannot read reaction profile file"),
        (["--person", "human", "--agents", "chain,greedy"], "--agents takes one agent spec"),
    ],
)
def test_generate_refuses_a_bad_person_in_one_line(extra, fragment, tmp_path, capsys):
    out = tmp_path / "o"
    assert speed_cli.main(["data", "generate", *extra, "--games", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("speed data: error: ") and fragment in err and "\n" not in err
    assert not out.exists()


def test_profile_refuses_a_folder_of_two_players(tmp_path, capsys):
    out = tmp_path / "two"
    out.mkdir()
    for person in ("human", "casual"):
        # one run folder each (a second run into one folder is refused), then one folder of both
        own = tmp_path / person
        argv = ["data", "generate", "--person", person, "--games", "1", "--out", str(own),
                "--seed", str(len(person))]  # fmt: skip
        assert speed_cli.main(argv) == 0
        for record in own.glob("*.speedrec.json"):
            shutil.copy(record, out / record.name)
    capsys.readouterr()
    assert speed_cli.main(["data", "profile", str(out), "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err
    assert "more than one player (simulated@casual: 1, simulated@human: 1 games)" in err
    assert not (out / "profile.json").exists()
