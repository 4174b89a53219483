"""`speed train realtime --players 3|4`: the n-seat env, a tiny run, its model at n-seat tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents
from agents.errors import AgentSpecError
from agents.model_io import kit_model
from agents.model_io.tensor_file import ModelFormatError
from speed_cli import main as cli
from speed_env.party_obs import observe_seats
from speed_env.rules import make_rules
from speed_env.seats import SeatGames
from train.ppo import Config, check_config

TINY = [
    *("--timesteps", "1024", "--n-envs", "32", "--n-steps", "32", "--batch-size", "256"),
    *("--net-arch", "16", "--eval-every", "1024", "--eval-games", "8"),
    *("--eval-opponents", "greedy", "--opponent", "greedy", "--no-progress"),
]
"""A run of one rollout and one evaluation of two deals at each seat."""


def test_party_env_seats_the_learner_anywhere_and_pays_the_table_reward():
    from train.vec_env.party_env import PartyVecEnv

    env = PartyVecEnv(24, make_rules("us", players=4), opponent="greedy,random", seed=5)
    obs = env.reset()
    assert obs.shape == (24, 161) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    seats, paid = set(), set()
    for _ in range(150):
        masks = env.action_masks()
        assert masks.dtype == np.int8 and masks.shape == (24, 53)
        seats |= set(env.seat.tolist())
        acts = np.where(masks > 0, rng.random(masks.shape), -1).argmax(axis=1)
        obs, rewards, dones, infos = env.step(acts)
        for b in np.flatnonzero(dones):
            paid.add(round(float(rewards[b]), 4))
            assert infos[b]["terminal_observation"].shape == (161,)
            assert len(infos[b]["opponents"]) == 3
    assert seats == {0, 1, 2, 3}
    assert env.counters["illegal"] == 0
    assert {1.0, round(-1 / 3, 4)} <= paid <= {1.0, round(-1 / 3, 4), 0.0, -1.0}


@pytest.fixture(scope="module")
def four_seat_runs(tmp_path_factory):
    """Two tiny 4-seat runs with one seed, and one with another."""
    root = tmp_path_factory.mktemp("party")
    outs = [root / name for name in ("a", "b", "c")]
    for out, seed in zip(outs, ("1", "1", "2"), strict=True):
        code = cli(
            ["train", "realtime", "--players", "4", *TINY, "--seed", seed, "--out", str(out)]
        )
        assert code == 0
    return outs


def test_four_seat_run_writes_a_model_that_plays_at_a_four_seat_table(four_seat_runs):
    out = four_seat_runs[0]
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["rules"]["players"] == 4 and manifest["training"]["players"] == 4
    assert manifest["net"]["kind"] == "rankwise"  # --policy auto, rules that allow it
    assert manifest["observation"]["obs_dim"] == 161 and manifest["observation"]["n_actions"] == 53
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].split(",")[-2:] == ["fair_share", "wall_s"] and len(rows) >= 2
    assert (out / "curves.png").stat().st_size > 0
    rules = make_rules("us", players=4)
    policy = agents.make(f"ppo:{out / 'model.json'}", rules, seed=0)
    games = SeatGames(6, rules, seed=11)
    for _ in range(60):  # every seat the model, legal actions only
        masks = games.masks()
        obs = observe_seats(games.state, rules)
        acts = np.stack([policy.act(obs[p], masks[p]) for p in range(4)])
        assert (np.take_along_axis(masks, acts[..., None], axis=2) == 1).all()
        games.step(acts)


def test_one_seed_gives_the_same_weights_and_another_seed_other_ones(four_seat_runs):
    a, b, c = (kit_model.read_model(out / "model.json")[0] for out in four_seat_runs)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not all(np.array_equal(a[k], c[k]) for k in a)


def test_a_model_is_refused_at_a_table_of_other_seats_naming_both(four_seat_runs, tmp_path):
    four = f"ppo:{four_seat_runs[0] / 'model.json'}"
    with pytest.raises(ModelFormatError, match=r"trained at tables of 4 players, not 2"):
        agents.make(four, make_rules("us"), seed=0)
    with pytest.raises(ModelFormatError, match=r"trained at tables of 4 players, not 3"):
        agents.make(four, make_rules("us", players=3), seed=0)
    rng = np.random.default_rng(0)
    two = kit_model.save_model(
        tmp_path / "two",
        {
            "pi.0.weight": rng.normal(size=(8, 193)).astype(np.float32),
            "pi.0.bias": np.zeros(8, np.float32),
            "logits.weight": rng.normal(size=(27, 8)).astype(np.float32),
            "logits.bias": np.zeros(27, np.float32),
        },
        rules=make_rules("us"),
        hidden=[8],
        activation="tanh",
    )
    agents.make(f"ppo:{two}", make_rules("us"), seed=0)  # its own table: plays
    with pytest.raises((ModelFormatError, AgentSpecError), match=r"tables of 2 players, not 4"):
        agents.make(f"ppo:{two}", make_rules("us", players=4), seed=0)


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"players": 3, "seat": "1"}, "seat: at --players 3"),
        ({"players": 4, "init_bc": "trained"}, "init_bc: trained cannot teach at --players 4"),
        ({"players": 4, "policy": "rankwise", "options": "jokers=true"}, "rankwise plays the 13"),
        ({"players": 3, "policy": "rankwise", "options": "wrap=false"}, "with wrap=false"),
    ],
)
def test_settings_the_n_seat_recipe_cannot_run_are_refused_by_name(flags, named):
    with pytest.raises(ValueError, match=named):
        check_config(Config(**{"opponent": "greedy", **flags}))


def test_calibrated_thinking_is_taken_at_four_seats_and_a_two_seat_file_refused(tmp_path):
    from agents.think import record, states
    from agents.think.calibrate import calibrate
    from speed_env.rules import make_rules

    check_config(Config(opponent="greedy", players=4, think="calibrated"))  # times at 4 seats
    two = make_rules("us")
    found = calibrate("greedy", agents.make("greedy").act, states.decision_states(two, 8))
    path = tmp_path / "think.json"
    path.write_text(json.dumps(record.make_record({"greedy": found, "chain": found}, two)))
    flags = {"opponent": "greedy", "think": "calibrated", "think_file": str(path)}
    check_config(Config(players=2, **flags))
    with pytest.raises(ValueError, match="decision states of 2 players, not this run's 4"):
        check_config(Config(players=4, **flags))


def test_self_play_seats_snapshots_of_the_learner_from_the_newest_ones():
    from train.vec_env.party_env import PartyVecEnv

    env = PartyVecEnv(64, make_rules("us", players=4), opponent="self", seed=2)
    assert env.members == ["random", "greedy", "chain"]  # self alone: the self-play bots
    env.reset()
    assert (env.member < 3).all()  # no snapshot yet: bots only
    env.max_snapshots = 1
    for name in ("old", "new"):
        env.add_snapshot(name, agents.make("greedy", make_rules("us", players=4), seed=0))
    env._seat_games(np.arange(64))
    seated = env.member[env.member >= 0]
    share = float(np.mean(seated == 4))
    assert 0.35 < share < 0.65 and not (seated == 3).any()  # half the seats, the newest only


def test_three_seat_self_play_run_from_the_command_line(tmp_path, capsys):
    out: Path = tmp_path / "three"
    argv = ["train", "realtime", "--players", "3", *TINY, "--policy", "mlp", "--out", str(out)]
    more = ["--opponent", "self", "--timesteps", "2048", "--snapshot-every", "1024"]
    assert cli([*argv, *more]) == 0
    said = "".join(capsys.readouterr())
    assert "fair 33%" in said and "speed tournament --players 3" in said
    # the two-seat run's last lines (Run.say_done): where the loop's time went too
    summary = json.loads((out / "summary.json").read_text())
    assert f"the kit's share {100 * summary['throughput']['kit_share']:.0f}% " in said
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["rules"]["players"] == 3 and manifest["observation"]["n_actions"] == 40
    assert manifest["net"]["kind"] == "mlp"
    assert manifest["env_id"] == "speed_env/speed_party_v0"  # the env it played, not speed_v1
    snaps = json.loads((out / "state.json").read_text())["snapshots"]
    assert [s["name"] for s in snaps] == ["self@1024", "self@2048"]  # one each rollout
    agents.make(f"ppo:{out / snaps[0]['path']}", make_rules("us", players=3), seed=0)


def test_three_seat_rankwise_run_writes_a_model_that_plays_in_a_three_seat_tournament(
    tmp_path, capsys
):
    """``--policy rankwise`` at three seats clones ``greedy`` into the rankwise actor, trains,
    snapshots itself into the seats, saves a rankwise model of the three-seat gather, and
    ``ppo:OUT/model.json`` plays a tournament of three seats."""
    out = tmp_path / "rw3"
    argv = ["train", "realtime", "--players", "3", *TINY, "--policy", "rankwise"]
    more = ["--opponent", "self,greedy", "--snapshot-every", "1024", "--out", str(out)]
    bc = ["--init-bc", "greedy", "--bc-decisions", "2000", "--bc-epochs", "2"]
    assert cli([*argv, *more, *bc]) == 0
    assert "cloned greedy: held-out agreement" in "".join(capsys.readouterr())
    state = json.loads((out / "state.json").read_text())
    assert state["bc"]["teacher"] == "greedy"
    assert [s["name"] for s in state["snapshots"]][:2] == ["self@0", "self@1024"]
    manifest = json.loads((out / "model.json").read_text())
    assert manifest["net"]["kind"] == "rankwise" and manifest["net"]["features"] == 122 + 3
    assert manifest["observation"]["n_actions"] == 40
    spec = f"ppo:{out / 'model.json'}"
    board = tmp_path / "board"
    tour = ["tournament", "--players", "3", "--agents", f"{spec},greedy", "--gauntlet", spec]
    assert cli([*tour, "--games", "6", "--out", str(board)]) == 0
    results = json.loads((board / "results.json").read_text())
    assert results["settings"]["games_played"] == 6 and results["settings"]["illegal"] == 0
    (mine,) = (row for row in results["agents"] if row["name"] == spec)
    assert mine["games"] == 6  # it sat at every game, in every seat in turn


@pytest.mark.parametrize(
    ("flags", "actor"),
    [
        ({}, "rankwise"),
        ({"rules": "pagat", "players": 3}, "rankwise"),
        ({"options": "jokers=true"}, "mlp"),
        ({"options": "wrap=false"}, "mlp"),
        ({"policy": "mlp"}, "mlp"),
    ],
)
def test_policy_auto_picks_the_rankwise_actor_at_four_seats_where_the_rules_allow(flags, actor):
    from train.party_ppo import party_actor

    assert party_actor(Config(**{"players": 4, "opponent": "greedy", **flags})) == actor


@pytest.mark.parametrize(
    ("flags", "actor"),
    [
        ({}, "rankwise"),
        ({"rules": "us,pagat"}, "rankwise"),
        ({"rules": "us", "options": "jokers=true"}, "mlp"),
        ({"policy": "mlp"}, "mlp"),
    ],
)
def test_policy_auto_picks_by_the_same_rule_at_two_seats(flags, actor):
    from train.ppo import chosen_policy

    assert chosen_policy(Config(**{"opponent": "greedy", **flags})) == actor
