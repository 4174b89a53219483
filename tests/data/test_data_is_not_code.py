"""Records and datasets are data, never code: a record whose opponent is a Python file shipped
beside it (``py:FOLDER/x.py:Bot``, writing a marker file when imported) is exported, cloned,
profiled, scored by ``speed evaluate --human`` and its dataset's env recovered, and the marker
never appears. A recovered env replays the recorded opponent, or plays a kit bot the user
names."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import speed_cli
from speed_data import minari_env, record_check, records

minari = pytest.importorskip("minari", reason="the [data] extra is not installed")

BOT = """\
import pathlib

pathlib.Path({marker!r}).write_text("this file ran", encoding="utf-8")


class Bot:
    def act(self, obs, mask):
        import numpy as np

        return np.zeros(len(obs), np.int64)
"""


@pytest.fixture
def hostile(person_games, tmp_path, monkeypatch):
    """A copy of the scripted person's records naming ``py:FOLDER/x.py:Bot`` as their opponent."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    folder = tmp_path / "shared-records"
    folder.mkdir()
    marker = tmp_path / "MARKER"
    (folder / "x.py").write_text(BOT.format(marker=str(marker)), encoding="utf-8")
    for path in records.record_files(person_games[0]):
        rec = json.loads(path.read_text(encoding="utf-8"))
        rec["opponent"]["spec"] = f"py:{folder}/x.py:Bot"
        records.write_record(folder, rec, path.name.removesuffix(records.SUFFIX))
    return folder, marker


def test_export_bc_and_profile_never_run_the_records_opponent(hostile, tmp_path, capsys):
    folder, marker = hostile
    assert speed_cli.main(["data", "export", str(folder), "--minari", "ada/hostile-v0"]) == 0
    assert not marker.exists()
    assert speed_cli.main(["data", "profile", str(folder), "--bootstrap", "0"]) == 0
    assert not marker.exists()
    from train import bc_data

    for data in (str(folder), "ada/hostile-v0"):
        assert len(bc_data.load(data).action) > 0
        assert not marker.exists()


def test_evaluate_human_never_runs_the_records_opponent(hostile):
    from speed_env.reaction import make_profile
    from train.realtime import human_likeness

    folder, marker = hostile
    for data in (str(folder), None):
        if data is None:
            assert speed_cli.main(["data", "export", str(folder), "--minari", "ada/h-v0"]) == 0
            data = "ada/h-v0"
        section = human_likeness.measure("chain", data, "human", make_profile("human"), 0)
        assert section["n_decisions"] > 0
        assert not marker.exists()


def test_the_recovered_env_replays_the_recorded_opponent_and_runs_no_file(hostile):
    folder, marker = hostile
    assert speed_cli.main(["data", "export", str(folder), "--minari", "ada/rec-v0"]) == 0
    marker.unlink(missing_ok=True)  # whatever export did, recovering is tested on its own
    ds = minari.load_dataset("ada/rec-v0")
    with pytest.raises(ValueError, match="opponent_actions"):
        ds.recover_environment().reset(seed=0)
    # A fresh env: Gymnasium's env checker breaks an env whose first reset raised.
    env = ds.recover_environment()
    assert not marker.exists()
    # Exact for each episode: its seed, deal and the recorded opponent's actions.
    for ep in ds.iterate_episodes():
        obs, info = env.reset(**minari_env.episode_reset(ds, ep))
        assert np.array_equal(obs, ep.observations[0])
        for t, a in enumerate(ep.actions):
            obs, reward, term, trunc, info = env.step(int(a))
            assert np.array_equal(obs, ep.observations[t + 1]) and reward == ep.rewards[t]
        assert (term, trunc) == (bool(ep.terminations[-1]), bool(ep.truncations[-1]))
    assert not marker.exists()
    # Or a kit bot the user names; never a file, whoever names it.
    bot_env = ds.recover_environment(bot="greedy@pro")
    assert type(bot_env.unwrapped.opponent).__name__ == "GreedyAgent"
    bot_env.reset(seed=1)
    with pytest.raises(ValueError, match="one of the kit's bots"):
        ds.recover_environment(bot=f"py:{folder}/x.py:Bot")
    safe = minari_env.recover(ds, bot="chain")
    assert safe.unwrapped.rules.preset == "us"
    assert not marker.exists()


def test_a_dataset_naming_a_bot_file_in_its_spec_runs_nothing(hostile):
    """A forged dataset whose spec carries ``bot`` (not the user's choice) is refused too."""
    folder, marker = hostile
    assert speed_cli.main(["data", "export", str(folder), "--minari", "ada/forged-v0"]) == 0
    ds = minari.load_dataset("ada/forged-v0")
    ds.spec.env_spec.kwargs["bot"] = f"py:{folder}/x.py:Bot"
    with pytest.raises(ValueError, match="one of the kit's bots"):
        minari_env.recover(ds)
    assert not marker.exists()


def test_a_folder_of_records_and_a_bot_file_still_reads_after_the_file_is_gone(hostile):
    folder, marker = hostile
    (folder / "x.py").unlink()
    shutil.rmtree(folder / "__pycache__", ignore_errors=True)
    assert len(list(record_check.read_records(folder))) == len(records.record_files(folder))
    assert not marker.exists()
