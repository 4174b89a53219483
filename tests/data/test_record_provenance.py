"""A play record keeps the SHA-256 of the files each agent was built from (format version 2):
``agent_files`` and ``opponent.files``, written by ``speed data generate`` and by the table,
shape-checked on read and never opened; version-1 records, written without them, still read."""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from helpers_player import play_game
from web_helpers import table_config

import speed_cli
from speed_data import record_check, records
from speed_table.session import GameSession

BOT = """
import numpy as np

class Last:
    def act(self, obs, mask):
        # The highest legal action: a play whenever one is legal (0, the wait, is always legal).
        return mask.shape[-1] - 1 - np.argmax(mask[..., ::-1], axis=-1)
"""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _by_file(files: dict[str, str]) -> dict[Path, str]:
    return {Path(name).resolve(): digest for name, digest in files.items()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[dict, Path, Path]:
    """One game of ``me.py`` (recorded) against ``them.py``, by ``speed data generate``."""
    tmp = tmp_path_factory.mktemp("provenance")
    me, them = tmp / "me.py", tmp / "them.py"
    me.write_text(BOT, encoding="utf-8")
    them.write_text(BOT + "\n# the opponent's own file\n", encoding="utf-8")
    out = tmp / "records"
    agents = f"py:{me}:Last,py:{them}:Last"
    argv = ["data", "generate", "--agents", agents, "--games", "1", "--out", str(out)]
    assert speed_cli.main(argv) == 0
    (path,) = records.record_files(out)
    return record_check.read_record(path), me, them


def test_generate_records_the_sha256_of_each_agents_file(generated):
    rec, me, them = generated
    assert rec["version"] == records.VERSION == 2
    assert _by_file(rec["opponent"]["files"]) == {them.resolve(): _sha(them)}
    assert _by_file(rec["agent_files"]) == {me.resolve(): _sha(me)}
    assert _sha(me) != _sha(them)  # each seat's own file, not one hash twice


def test_a_kit_bot_has_no_files_and_the_record_still_says_so():
    from speed_data.generate import play_records
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules

    (rec,) = play_records(("chain", "greedy"), make_rules("us"), 1, reaction=make_profile(300))
    assert rec["agent_files"] == {} and rec["opponent"]["files"] == {}


def test_a_version_1_record_without_the_files_still_reads(generated, tmp_path):
    old = copy.deepcopy(generated[0])
    old["version"] = 1
    del old["agent_files"], old["opponent"]["files"]
    path = tmp_path / "old.speedrec.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert record_check.read_record(path)["opponent"]["spec"] == old["opponent"]["spec"]


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda r: r["opponent"].pop("files"), "key 'opponent.files' is missing"),
        (lambda r: r.pop("agent_files"), "key 'agent_files' is missing"),
        (lambda r: r["opponent"].update(files=["x.py"]), "'opponent.files' must be a map"),
        (
            lambda r: r["opponent"]["files"].update({"x.py": "abc"}),
            "'opponent.files': the hash of 'x.py' is not 64 lowercase hex",
        ),
        (
            lambda r: r["agent_files"].update({"x.py": "A" * 64}),
            "'agent_files': the hash of 'x.py' is not 64 lowercase hex",
        ),
        (lambda r: r["opponent"]["files"].update({"x.py": 7}), "the hash of 'x.py'"),
        (lambda r: r["opponent"]["files"].update({"": "0" * 64}), "an empty path"),
    ],
    ids=["no-opponent-files", "no-agent-files", "a-list", "short", "upper", "number", "no-path"],
)
def test_a_version_2_record_with_missing_or_malformed_files_is_refused(generated, change, message):
    rec = copy.deepcopy(generated[0])
    change(rec)
    with pytest.raises(records.RecordError, match=r"^game\.json: ") as info:
        records.check_record(rec, "game.json")
    assert message in str(info.value)


def test_a_version_1_record_with_malformed_files_is_refused_too(generated):
    rec = copy.deepcopy(generated[0])
    rec["version"] = 1
    rec["opponent"]["files"] = {"x.py": "not a hash"}
    with pytest.raises(records.RecordError, match=r"'opponent\.files': the hash of 'x\.py'"):
        records.check_record(rec, "game.json")


def test_the_files_are_never_opened_on_read(generated, tmp_path):
    rec = copy.deepcopy(generated[0])
    # Paths that would hang (a FIFO) or fail if read: the reader checks shape only.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rec["opponent"]["files"] = {str(fifo): "0" * 64, "/no/such/file.py": "f" * 64}
    path = tmp_path / "r.speedrec.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert record_check.read_record(path)["opponent"]["files"][str(fifo)] == "0" * 64


def test_a_person_record_naming_agent_files_is_refused(tmp_path):
    s = GameSession(table_config(seed=3, deal=None, record_dir=tmp_path, agents=("you", "chain")))
    _, result, _ = play_game(s, 0.0, np.random.default_rng(0), (300, 30, 60))
    rec = records.read_record(result["record"])
    rec["agent_files"] = {"me.py": "0" * 64}
    with pytest.raises(records.RecordError, match="key 'agent_files' names files, but seat_kind"):
        record_check.check_game(rec, "game.json")


def test_the_table_records_its_opponents_file(tmp_path):
    them = tmp_path / "them.py"
    them.write_text(BOT, encoding="utf-8")
    cfg = table_config(
        seed=3, deal=None, record_dir=tmp_path / "rec", agents=("you", f"py:{them}:Last")
    )
    s = GameSession(cfg)
    _, result, _ = play_game(s, 0.0, np.random.default_rng(0), (300, 30, 60))
    rec = record_check.read_record(result["record"])
    assert rec["agent_files"] == {}
    assert _by_file(rec["opponent"]["files"]) == {them.resolve(): _sha(them)}
