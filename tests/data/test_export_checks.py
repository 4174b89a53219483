"""``speed data export`` refuses a folder holding bad records (nothing written) unless
``--skip-bad``, which says how many it left out and why; ``--verify`` (the default) replays
every record, ``--no-verify`` does not."""

from __future__ import annotations

import json

import pytest

import speed_cli
from speed_data import records
from speed_data.generate import play_records
from speed_env.reaction import make_profile
from speed_env.rules import make_rules

minari = pytest.importorskip("minari", reason="the [data] extra is not installed")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Three good generated records (g0-g2) and two bad ones (g3: NaN reward, g4: winner)."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    out = tmp_path / "recs"
    recs = play_records(
        ("chain", "greedy"), make_rules("us"), 5, seed=7, reaction=make_profile(200)
    )
    for g, rec in enumerate(recs):
        rec = json.loads(json.dumps(rec))
        if g == 3:
            rec["rewards"][-1] = float("nan")
        if g == 4:
            rec["winner"] = "draw"
        records.write_record(out, rec, f"g{g}")
    return out


def test_bad_records_stop_the_export_naming_the_first(folder, capsys):
    assert (
        speed_cli.main(["data", "export", str(folder), "--seat", "bot", "--minari", "me/bots-v0"])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "g3.speedrec.json" in err and "key 'rewards'" in err
    assert "(and 1 more bad record)" in err and "--skip-bad" in err
    assert minari.list_local_datasets() == {}


def test_skip_bad_exports_the_rest_and_says_how_many_and_why(folder, capsys):
    argv = ["data", "export", str(folder), "--seat", "bot", "--minari", "me/bots-v0", "--skip-bad"]
    assert speed_cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "3 episodes" in out
    assert err.startswith("skipped 2 bad records: ")
    assert "g3.speedrec.json" in err and "key 'rewards'" in err
    assert "g4.speedrec.json" in err and "key 'winner'" in err
    assert minari.load_dataset("me/bots-v0").total_episodes == 3


def test_verify_replays_each_record_and_no_verify_skips_it(folder, capsys):
    for bad in ("g3", "g4"):
        (folder / f"{bad}{records.SUFFIX}").unlink()
    path = folder / f"g1{records.SUFFIX}"
    rec = json.loads(path.read_text(encoding="utf-8"))
    t = next(i for i, a in enumerate(rec["opponent_actions"]) if a != 0)
    rec["opponent_actions"][t] = 0  # true on its face; only the replay sees the game differ
    records.write_record(folder, rec, "g1")
    argv = ["data", "export", str(folder), "--seat", "bot", "--minari", "me/bots-v0"]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "g1.speedrec.json" in err and "does not replay in Speed-v1: step" in err
    assert speed_cli.main([*argv, "--no-verify"]) == 0
    assert "3 episodes" in capsys.readouterr().out
