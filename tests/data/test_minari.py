"""``speed data generate|export`` write Minari datasets whose every episode replays exactly in
Speed-v1 (same seed and deal, the recorded actions), and whose env Minari recovers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers_player import play_game
from web_helpers import table_config

import speed_cli
from speed_data import records
from speed_data.replay import ScriptedOpponent
from speed_env.rules import make_rules
from speed_env.single import SpeedGymEnv
from speed_table.session import GameSession

minari = pytest.importorskip("minari", reason="the [data] extra is not installed")


@pytest.fixture(autouse=True)
def datasets_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))


def replay_problems(dataset) -> list[str]:
    """Every difference between the dataset's episodes and Speed-v1 replaying them."""
    kwargs = dataset.spec.env_spec.kwargs
    rules = dict(kwargs["rules"])
    rules = make_rules(rules.pop("preset"), **rules)
    reaction = tuple(records.profile_of(p) for p in kwargs["reaction"])
    metas = list(dataset.storage.get_episode_metadata(range(dataset.total_episodes)))
    problems = []
    for ep, meta in zip(dataset.iterate_episodes(), metas):
        opp = ScriptedOpponent(ep.infos["opponent_action"][1:])
        env = SpeedGymEnv(rules, opponent=opp, seat=0, tick_ms=kwargs["tick_ms"], reaction=reaction)
        obs, info = env.reset(
            seed=int(meta["seed"]), options={"deal": json.loads(meta["options"]["deal"])}
        )
        seen_obs, seen_mask = [obs], [info["action_mask"]]
        rewards, terms, truncs = [], [], []
        for a in ep.actions:
            obs, r, te, tr, info = env.step(int(a))
            seen_obs.append(obs), seen_mask.append(info["action_mask"])
            rewards.append(r), terms.append(te), truncs.append(tr)
        for name, got, want in (
            ("observations", np.stack(seen_obs), ep.observations),
            ("masks", np.stack(seen_mask), ep.infos["action_mask"]),
            ("rewards", np.array(rewards), ep.rewards),
            ("terminations", np.array(terms), ep.terminations),
            ("truncations", np.array(truncs), ep.truncations),
        ):
            if got.shape != want.shape or not np.array_equal(got, want):
                problems.append(f"episode {ep.id}: {name} differ")
        if ep.infos["action_mask"].dtype != np.int8:
            problems.append(f"episode {ep.id}: mask dtype {ep.infos['action_mask'].dtype}")
    return problems


def test_generate_writes_a_dataset_that_replays_exactly_and_recovers_its_env(tmp_path, capsys):
    argv = ["data", "generate", "--agents", "chain,greedy@pro", "--games", "4", "--rules",
            "pagat", "--seed", "3", "--minari", "speed/pagat-chain-v0",
            "--out", str(tmp_path / "r")]  # fmt: skip
    assert speed_cli.main(argv) == 0
    assert "4 episodes" in capsys.readouterr().out
    ds = minari.load_dataset("speed/pagat-chain-v0")
    assert ds.total_episodes == 4
    assert replay_problems(ds) == []
    assert len(records.record_files(tmp_path / "r")) == 4
    env = ds.recover_environment()  # the recorded opponent, replayed
    assert env.spec.id == "speed_env/Speed-v1" and env.unwrapped.rules.preset == "pagat"
    assert type(env.unwrapped.opponent).__name__ == "ReplayedOpponent"
    # A kit bot the user names (the data's spec is provenance only).
    env = ds.recover_environment(bot="greedy@pro")
    assert env.unwrapped.opponent.reaction.name == "pro"
    obs, info = env.reset(seed=0)
    for _ in range(50):
        obs, r, te, tr, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        assert env.observation_space.contains(obs)
        if te or tr:
            break


def test_export_writes_a_persons_games_with_their_reaction_times(tmp_path, capsys):
    folder = tmp_path / "rec"
    s = GameSession(table_config(seed=4, deal=None, record_dir=folder, agents=("you", "chain")))
    t = 0.0
    for _ in range(2):
        t, _, _ = play_game(s, t + 1.0, np.random.default_rng(5), (320, 40, 100))
    assert (
        speed_cli.main(
            ["data", "export", str(folder), "--minari", "me/speed-v0", "--seat", "human"]
        )
        == 0
    )
    ds = minari.load_dataset("me/speed-v0")
    assert ds.total_episodes == 2 and replay_problems(ds) == []
    ep = next(ds.iterate_episodes())
    timed = ep.infos["reaction_ms"][1:][ep.actions != 0]
    assert np.isnan(ep.infos["reaction_ms"][0]) and np.isfinite(timed).sum() >= 3
    assert ds.recover_environment().unwrapped.rules.preset == "us"
    # No bot decisions in that folder; an id already taken is refused; nothing is overwritten.
    bots = ["data", "export", str(folder), "--minari", "xx/yy-v0", "--seat", "bot"]
    assert speed_cli.main(bots) == 2
    assert "no bot play records" in capsys.readouterr().err
    assert speed_cli.main(["data", "export", str(folder), "--minari", "me/speed-v0"]) == 2
    assert minari.load_dataset("me/speed-v0").total_episodes == 2


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["data", "generate", "--games", "1"], "--out DIR"),
        (["data", "generate", "--agents", "chain,nobody", "--out", "x"], "unknown agent 'nobody'"),
        (["data", "export", "/nonexistent/records", "--minari", "a/b-v0"], "does not exist"),
        (["data", "profile", "/nonexistent/records"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, fragment, capsys):
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_broken_record_is_named(tmp_path, capsys):
    (tmp_path / "g.speedrec.json").write_text('{"format": "speed-play-record"}', encoding="utf-8")
    assert speed_cli.main(["data", "export", str(tmp_path), "--minari", "aa/bb-v0"]) == 2
    assert "g.speedrec.json" in capsys.readouterr().err
