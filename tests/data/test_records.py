"""Play records: the schema check, atomic writing, the table's opt-in recording, and exact replay
of every record (the table's and generated ones) in Speed-v1."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from helpers_player import play_game
from web_helpers import table_config

from speed_data import records
from speed_data.generate import play_records
from speed_data.replay import compare
from speed_env.reaction import make_profile
from speed_env.rules import make_rules
from speed_table import protocol
from speed_table.session import GameSession


def _generated(rules="us", n=2, specs=("chain", "greedy"), seed=0):
    return list(
        play_records(specs, make_rules(rules), n, seed=seed, reaction=make_profile("human"))
    )


@pytest.mark.parametrize(
    "rules,specs", [("us", ("chain", "greedy")), ("pagat", ("greedy@pro", "random@casual"))]
)
def test_generated_records_replay_exactly_in_speed_v1(rules, specs):
    recs = _generated(rules, 2, specs, seed=11)
    for rec in recs:
        assert rec["seat_kind"] == "bot" and rec["name"] is None
        assert rec["terminated"] or rec["truncated"]
        assert compare(rec) == []
    assert recs[0]["deal"] != recs[1]["deal"]


def test_a_changed_action_is_caught_by_the_replay():
    rec = copy.deepcopy(_generated(n=1)[0])
    t = next(i for i, a in enumerate(rec["actions"]) if a != 0)
    rec["actions"][t] = 0  # the play becomes a wait: the replay differs from the next step on
    problems = compare(rec)
    assert problems and problems[0].startswith(f"step {t + 1}:")


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda r: r.pop("deal"), "missing key 'deal'"),
        (lambda r: r.update(version=99), "record version 99"),
        (lambda r: r.update(actions=r["actions"][:-1]), "key 'actions' has"),
        (lambda r: r.update(masks=r["masks"][:-8]), "key 'masks' holds"),
        (lambda r: r.update(seat_kind="cat"), "key 'seat_kind'"),
        (lambda r: r["reaction_ms"].__setitem__(0, -5.0), "key 'reaction_ms'"),
        (lambda r: r["reaction"][1].update(mu="fast"), "reaction[1]"),
        (lambda r: r["actions"].__setitem__(0, 99), "outside 0..26"),
    ],
)
def test_the_schema_check_names_the_wrong_key(change, message):
    rec = copy.deepcopy(_generated(n=1)[0])
    change(rec)
    with pytest.raises(records.RecordError, match=r"game\.json") as info:
        records.check_record(rec, "game.json")
    assert message in str(info.value)


def test_a_record_is_written_whole_or_not_at_all(tmp_path):
    rec = _generated(n=1)[0]
    path = records.write_record(tmp_path, rec, "g1")
    assert path.name == "g1.speedrec.json" and [p.name for p in tmp_path.iterdir()] == [path.name]
    assert records.read_record(path) == json.loads(json.dumps(rec))
    bad = dict(rec, version=99)
    with pytest.raises(records.RecordError):
        records.write_record(tmp_path, bad, "g2")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # nothing new, not even a .tmp
    path.with_name("g3.speedrec.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(records.RecordError, match=r"g3\.speedrec\.json.*not JSON"):
        list(records.read_records(tmp_path))


def test_the_table_records_only_when_asked(tmp_path):
    s = GameSession(table_config(seed=3, deal=None))
    assert s.welcome()["recording"] is False
    _, result, _ = play_game(s, 0.0, np.random.default_rng(0), (300, 30, 60))
    assert result["record"] is None and not any(tmp_path.iterdir())


def test_table_games_are_recorded_and_replay_exactly(tmp_path):
    folder = tmp_path / "rec"
    cfg = table_config(seed=3, deal=None, record_dir=folder, agents=("you", "chain"))
    s = GameSession(cfg)
    assert s.welcome()["recording"] is True
    rng = np.random.default_rng(1)
    t = 0.0
    for game in range(2):
        t, result, sent = play_game(s, t + 1.0, rng, (300, 30, 60))
        # On disk, whole, before the next game can start.
        path = result["record"]
        assert path is not None and result["record_error"] is None
        rec = records.read_record(path)
        assert rec["source"] == "table" and rec["seat_kind"] == "human" and rec["agent"] == "you"
        assert rec["name"] is None and rec["opponent"]["spec"] == "chain"
        assert rec["seed"] == 3 + game
        timed = [ms for ms in rec["reaction_ms"] if ms is not None]
        assert timed == pytest.approx(sent, abs=0.051) and len(timed) >= 3  # acks: 0.1 ms
        assert compare(rec) == []
        assert rec["winner"] == result["winner"]
    assert len(records.record_files(folder)) == 2


def test_an_explicit_deal_and_a_name_are_recorded(tmp_path):
    s = GameSession(table_config(record_dir=tmp_path, record_name="ada"))
    _, result, _ = play_game(s, 0.0, np.random.default_rng(2), (200, 20, 30))
    rec = records.read_record(result["record"])
    assert rec["name"] == "ada" and rec["deal"]["hands"][0] == ["7H", "8H"]
    assert compare(rec) == []


def test_a_game_the_page_leaves_is_not_recorded(tmp_path):
    s = GameSession(table_config(seed=3, deal=None, record_dir=tmp_path, agents=("you", "chain")))
    s.handle(protocol.Start(), 0.0)
    for _ in range(30):
        s.tick(s.next_tick_at)
    s.close()
    assert not any(tmp_path.iterdir())


def test_importing_the_data_modules_loads_neither_minari_nor_torch():
    import subprocess
    import sys

    code = (
        "import sys, speed_env, speed_data.records, speed_data.minari_export, speed_data.profile, "
        "speed_data.generate, speed_cli.data\n"
        "print(sorted(m for m in ('minari', 'torch', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
