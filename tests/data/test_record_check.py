"""A record is checked against the game it claims to be, on every read: each inconsistency of a
good generated record, edited in, is refused naming the file and its field."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from speed_data import record_check, records
from speed_data.generate import play_records
from speed_env.reaction import make_profile
from speed_env.rules import make_rules


@pytest.fixture(scope="module")
def good() -> dict:
    """One generated game of chain against greedy under ``us``, as written."""
    (rec,) = play_records(
        ("chain", "greedy"), make_rules("us"), 1, seed=5, reaction=make_profile(200)
    )
    return json.loads(json.dumps(rec))


def _obs(rec: dict) -> np.ndarray:
    return records.decode_array(
        rec["observations"], np.float32, (rec["n_decisions"] + 1, rec["obs_dim"]), "o"
    ).copy()


def _masks(rec: dict) -> np.ndarray:
    return records.decode_array(
        rec["masks"], np.int8, (rec["n_decisions"] + 1, rec["n_actions"]), "m"
    )


def forbidden_action(rec: dict) -> None:
    masks = _masks(rec)
    t = next(i for i, a in enumerate(rec["actions"]) if a == 0 and not masks[i].all())
    rec["actions"][t] = int(np.flatnonzero(masks[t] == 0)[0])


def obs_outside(rec: dict) -> None:
    obs = _obs(rec)
    obs[1, 3] = 7.0
    rec["observations"] = records.encode_array(obs)


def obs_dim_10(rec: dict) -> None:
    rec["observations"] = records.encode_array(np.ascontiguousarray(_obs(rec)[:, :10]))
    rec["obs_dim"] = 10


def time_on_a_wait(rec: dict) -> None:
    rec["seat_kind"] = "simulated"  # a simulated person's plays carry times; its waits do not
    rec["reaction_ms"][rec["actions"].index(0)] = 250.0


def bot_as_table_person(rec: dict) -> None:
    # Every mark of the table but the times: a person's plays are timed at the table.
    rec.update(source="table", seat_kind="human", agent="you")
    rec["reaction"][0] = {"mu": 1.0, "sigma": 0.0, "tau": 0.0, "floor": 1.0, "name": ""}


def flip_winner(rec: dict) -> None:
    rec["winner"] = {"player_0": "player_1", "player_1": "player_0"}[rec["winner"]]


def next_seed(rec: dict) -> None:
    rec["seed"] += 1


def nan_reward(rec: dict) -> None:
    rec["rewards"][-1] = float("nan")


def huge_reward(rec: dict) -> None:
    rec["rewards"][-1] = 1e308


def unfinished(rec: dict) -> None:
    rec.update(terminated=False, truncated=False)


def human_from_generate(rec: dict) -> None:
    rec["seat_kind"] = "human"


def bot_with_a_time(rec: dict) -> None:
    # On a play, so only "a bot has no reaction times" can refuse it.
    rec["reaction_ms"][next(t for t, a in enumerate(rec["actions"]) if a != 0)] = 9.0


def table_person_with_a_bot_profile(rec: dict) -> None:
    rec.update(source="table", seat_kind="human", agent="you")


CASES = [
    ("mask-forbidden action", forbidden_action, "key 'actions' step"),
    ("deal and seed disagree", next_seed, "key 'deal' is not the deal of seed 6"),
    ("negative seed", lambda r: r.update(seed=-1), "key 'seed': seed must be between 0"),
    # the strict JSON reader refuses a NaN before the game check; its message names the key
    ("NaN reward", nan_reward, "rewards["),
    ("1e308 reward", huge_reward, "is 1e+308; Speed-v1 pays -1, 0 or +1"),
    ("observation 7.0", obs_outside, "key 'observations' step 1 entry 3 is 7.0"),
    ("obs_dim 10 under us", obs_dim_10, "key 'obs_dim' is 10"),
    ("neither terminated nor truncated", unfinished, "'truncated' are neither set"),
    ("winner contradicts rewards", flip_winner, "key 'winner'"),
    ("reaction time on a wait", time_on_a_wait, "key 'reaction_ms' step"),
    ("bot relabelled human", human_from_generate, "key 'seat_kind' is 'human'"),
    ("bot relabelled as a table person", bot_as_table_person, "key 'reaction_ms' times none"),
    ("bot record with times", bot_with_a_time, "'reaction_ms' holds a time in a bot's record"),
    ("person profile not the table's", table_person_with_a_bot_profile, "key 'reaction'"),
]


@pytest.mark.parametrize("change,fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_inconsistent_record_is_refused_naming_its_file_and_field(
    good, tmp_path, change, fragment
):
    rec = copy.deepcopy(good)
    change(rec)
    path = records.write_record(tmp_path, records.check_record(rec), "bad")  # well-formed
    with pytest.raises(records.RecordError) as info:
        record_check.read_record(path)
    message = str(info.value)
    assert "bad.speedrec.json" in message and fragment in message, message
    assert "\n" not in message


def test_the_good_record_and_a_simulated_persons_pass(good, tmp_path):
    assert record_check.check_game(copy.deepcopy(good)) == good
    rec = copy.deepcopy(good)
    rec["seat_kind"] = "simulated"
    rec["reaction_ms"] = [None if a == 0 else 240.5 for a in rec["actions"]]
    record_check.check_game(rec)
    record_check.verify(rec)  # replays exactly: only the labels changed


def test_a_rules_preset_that_is_a_path_is_never_read(good, tmp_path):
    rules_file = tmp_path / "evil.toml"
    rules_file.write_text('preset = "us"\nsecret = "do not quote me"\n', encoding="utf-8")
    rec = copy.deepcopy(good)
    rec["rules"]["preset"] = str(rules_file)
    path = records.write_record(tmp_path, records.check_record(rec), "preset")
    with pytest.raises(records.RecordError) as info:
        record_check.read_record(path)
    message = str(info.value)
    assert "key 'rules.preset' must be a preset name" in message
    assert "evil.toml" not in message and "secret" not in message


def test_verify_replays_the_record_and_names_the_first_difference(good):
    rec = copy.deepcopy(good)
    t = next(i for i, a in enumerate(rec["opponent_actions"]) if a != 0)
    rec["opponent_actions"][t] = 0  # consistent on its face; only a replay sees it
    record_check.check_game(rec)
    with pytest.raises(records.RecordError, match=r"g\.json: does not replay in Speed-v1: step"):
        record_check.verify(rec, "g.json")


def test_a_persons_record_with_a_time_on_a_wait_is_refused(person_games, tmp_path):
    paths = records.record_files(person_games[0])
    table_records = [record_check.read_record(p) for p in paths]  # the table's own records pass
    rec = table_records[0]
    rec = copy.deepcopy(rec)
    t = rec["actions"].index(0)
    rec["reaction_ms"][t] = 250.0
    bad = records.write_record(tmp_path, rec, "waits")
    with pytest.raises(
        records.RecordError,
        match=rf"waits\.speedrec\.json': key 'reaction_ms' step {t} times a wait",
    ):
        record_check.read_record(bad)
