"""``speed data export`` refuses a folder holding bad records (nothing written) unless
``--skip-bad``, which says how many it left out and why; ``--verify`` (the default) replays
every record, ``--no-verify`` does not."""

from __future__ import annotations

import json
import warnings

import numpy as np
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
    # the strict JSON reader refuses the NaN before the game check: either names the field
    assert "g3.speedrec.json" in err and "rewards" in err
    assert "(and 1 more bad record)" in err and "--skip-bad" in err
    assert minari.list_local_datasets() == {}


def test_skip_bad_exports_the_rest_and_says_how_many_and_why(folder, capsys):
    argv = ["data", "export", str(folder), "--seat", "bot", "--minari", "me/bots-v0", "--skip-bad"]
    assert speed_cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "3 episodes" in out
    assert err.startswith("skipped 2 bad records: ")
    # the strict JSON reader refuses the NaN before the game check: either names the field
    assert "g3.speedrec.json" in err and "rewards" in err
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


def _dataset_of(rec: dict, dataset_id: str):
    """A Minari dataset of one record as written, its checks bypassed (a forged dataset)."""
    from speed_data.minari_env import env_spec
    from speed_data.minari_export import episode_buffer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Minari asks for a code link and author
        return minari.create_dataset_from_buffers(
            dataset_id=dataset_id, buffer=[episode_buffer(rec, 0)], env=env_spec(rec)
        )


def test_bc_refuses_a_dataset_episode_outside_the_space(folder):
    from train import bc_data

    rec = json.loads((folder / f"g0{records.SUFFIX}").read_text(encoding="utf-8"))
    obs = records.decode_array(
        rec["observations"], np.float32, (rec["n_decisions"] + 1, rec["obs_dim"]), "o"
    ).copy()
    obs[2, 5] = 7.0
    rec["observations"] = records.encode_array(obs)
    _dataset_of(rec, "me/forged-v0")
    with pytest.raises(ValueError, match=r"'me/forged-v0' episode 0: key 'observations' step 2"):
        bc_data.load("me/forged-v0", "bot")


def test_bc_refuses_a_dataset_whose_rules_name_a_file(folder, tmp_path):
    from train import bc_data

    rec = json.loads((folder / f"g0{records.SUFFIX}").read_text(encoding="utf-8"))
    ds = _dataset_of(rec, "me/path-v0")
    meta_path = next((tmp_path / "minari").rglob("path-v0/data/metadata.json"))
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    spec = json.loads(meta["env_spec"])
    (tmp_path / "r.toml").write_text('preset = "us"\nsecret = "TOP SECRET"\n', encoding="utf-8")
    spec["kwargs"]["rules"]["preset"] = str(tmp_path / "r.toml")
    meta["env_spec"] = json.dumps(spec)
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    assert ds.total_episodes == 1
    with pytest.raises(ValueError, match=r"key 'rules.preset' must be a preset name") as info:
        bc_data.load("me/path-v0", "bot")
    assert "TOP SECRET" not in str(info.value) and "r.toml" not in str(info.value)
