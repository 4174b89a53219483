"""Plugging into the ecosystem: registries, the flat "box" observation, max_cycles, human rendering,
spaces that let an env go, py.typed, and the order-enforced AEC env."""

from __future__ import annotations

import copy
import gc
import pickle
import tomllib
import types
import weakref
from fnmatch import fnmatch
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
from helpers_run import run_python
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, render_test

import speed_env
from speed_env import registration
from speed_env.policy import RandomPolicy
from speed_env.vintage.single import VintageSingleEnv

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- registries
def test_pettingzoo_make_builds_each_env_with_its_kwargs():
    par = pettingzoo.make(
        "parallel", "speed_env/speed_v1", rules="pagat", obs_format="box", max_cycles=7
    )
    assert isinstance(par, speed_env.SpeedParallelEnv)
    assert (par.rules.preset, par.obs_format, par.max_cycles) == ("pagat", "box", 7)

    aec = pettingzoo.make("aec", "speed_env/speed_v1", rules="japanese")
    assert isinstance(aec, pettingzoo.AECEnv)
    assert aec.unwrapped.rules.preset == "japanese"

    vintage = pettingzoo.make("aec", "speed_env/vintage_speed_v0", num_players=3)
    vintage.reset(seed=0)
    assert vintage.agents == ["player_0", "player_1", "player_2"]


def test_gymnasium_make_builds_the_single_seat_envs_with_their_opponents():
    opponent = RandomPolicy(5)
    env = gymnasium.make("speed_env/Speed-v1", rules="japanese", opponent=opponent, seat=1)
    assert env.unwrapped.opponent is opponent
    assert env.unwrapped.rules.preset == "japanese" and env.unwrapped.seat == 1
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["action_mask"].dtype == np.int8

    vintage = gymnasium.make("speed_env/VintageSpeed-v0", num_players=3, opponents=opponent)
    assert isinstance(vintage.unwrapped, VintageSingleEnv)
    assert vintage.unwrapped.rules.num_players == 3
    assert vintage.reset(seed=0)[0].shape == vintage.observation_space.shape


@pytest.mark.filterwarnings("error")
def test_registering_again_changes_nothing_and_warns_nothing():
    before = (
        dict(pettingzoo.parallel_registry),
        dict(pettingzoo.aec_registry),
        dict(gymnasium.registry),
    )
    registration.register_all()
    assert (
        dict(pettingzoo.parallel_registry),
        dict(pettingzoo.aec_registry),
        dict(gymnasium.registry),
    ) == before


def test_a_pettingzoo_without_a_registry_is_skipped():
    old_pettingzoo = types.ModuleType("pettingzoo")  # what releases before 1.27 export: no register
    assert registration.register_pettingzoo(old_pettingzoo) is False


def test_import_works_where_pettingzoo_has_no_registry():
    # A fresh interpreter whose pettingzoo lacks the registry, as PettingZoo < 1.27 does:
    # import speed_env still works, and Gymnasium's entries are still made.
    code = (
        "import pettingzoo\n"
        "for name in ('register', 'make', 'aec_registry', 'parallel_registry'):\n"
        "    delattr(pettingzoo, name)\n"
        "import gymnasium, speed_env\n"
        "assert 'speed_env/Speed-v1' in gymnasium.registry\n"
        "assert speed_env.parallel_env().reset(seed=0)[0]\n"
        "print('ok')\n"
    )
    assert run_python("-c", code).strip() == "ok"


def test_plain_import_speed_env_gives_the_vintage_package():
    # DESIGN: speed_env.vintage.env(...) after a plain `import speed_env` (the package is
    # imported by speed_env/registration.py, which lists the games' packages).
    code = (
        "import speed_env\n"
        "env = speed_env.vintage.env(num_players=3)\n"
        "env.reset(seed=0)\n"
        "assert 'vintage' in speed_env.__all__\n"
        "print(env.agents)\n"
    )
    assert run_python("-c", code).strip() == "['player_0', 'player_1', 'player_2']"


def test_importing_speed_env_registers_without_loading_heavy_or_kit_packages():
    code = (
        "import sys, speed_env, gymnasium, pettingzoo\n"
        "assert 'speed_env/Speed-v1' in gymnasium.registry\n"
        "assert 'speed_env/speed-v1' in pettingzoo.parallel_registry\n"
        "heavy = ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib', 'ray', 'supersuit',\n"
        "         'tianshou', 'torchrl', 'PIL', 'tqdm', 'agents', 'train', 'speed_lab',\n"
        "         'speed_table', 'speed_cli')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    assert run_python("-c", code).strip() == "[]"


def test_importing_the_cli_loads_no_kit_layer_and_no_heavy_package():
    code = (
        "import sys, speed_cli\n"
        "heavy = ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib', 'ray', 'tqdm',\n"
        "         'numpy', 'PIL', 'speed_env', 'agents', 'train', 'speed_lab', 'speed_table')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    assert run_python("-c", code).strip() == "[]"


def test_python_m_speed_cli_runs_the_speed_command():
    out = run_python("-m", "speed_cli", "agents")
    assert out.split()[0] == "random" and "chain@pro" in out


# ----------------------------------------------------------------- obs_format="box"
def _random_actions(rng: np.random.Generator, masks: dict[str, np.ndarray]) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()}


@pytest.mark.parametrize("rules", ["us", "japanese"])
def test_box_parallel_env_carries_the_dict_forms_numbers(rules):
    as_dict = speed_env.parallel_env(rules)
    as_box = speed_env.parallel_env(rules, obs_format="box")
    assert (
        as_box.observation_space("player_0") == as_dict.observation_space("player_0")["observation"]
    )
    obs_d, _ = as_dict.reset(seed=3)
    obs_b, info_b = as_box.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    while as_dict.agents:
        for a in as_dict.agents:
            assert np.array_equal(obs_b[a], obs_d[a]["observation"])
            assert info_b[a]["action_mask"].dtype == np.int8
            assert np.array_equal(info_b[a]["action_mask"], obs_d[a]["action_mask"])
            assert as_box.observation_space(a).contains(obs_b[a])
        actions = _random_actions(rng, {a: obs_d[a]["action_mask"] for a in as_dict.agents})
        obs_d, rew_d, term_d, trunc_d, _ = as_dict.step(actions)
        obs_b, rew_b, term_b, trunc_b, info_b = as_box.step(actions)
        assert (rew_b, term_b, trunc_b) == (rew_d, term_d, trunc_d)
        steps += 1
    assert as_box.agents == [] and steps > 50


def test_box_mask_in_infos_is_a_fresh_array_each_step():
    env = speed_env.parallel_env(obs_format="box")
    _, info0 = env.reset(seed=1)
    _, _, _, _, info1 = env.step({"player_0": 0, "player_1": 0})
    assert not np.shares_memory(info0["player_0"]["action_mask"], info1["player_0"]["action_mask"])


def test_box_aec_env_masks_travel_in_infos():
    aec = speed_env.env(obs_format="box")
    aec.reset(seed=2)
    reference = speed_env.parallel_env()
    ref_obs, _ = reference.reset(seed=2)
    for agent in ("player_0", "player_1"):  # one tick: player_0's turn, then player_1's
        assert aec.agent_selection == agent
        obs, _, _, _, info = aec.last()
        assert np.array_equal(obs, ref_obs[agent]["observation"])
        assert np.array_equal(info["action_mask"], ref_obs[agent]["action_mask"])
        aec.step(0)


def test_box_aec_env_refuses_an_illegal_action_by_its_infos_mask():
    aec = speed_env.env(obs_format="box", illegal_action="raise")
    aec.reset(seed=2)
    illegal = int(np.flatnonzero(aec.infos["player_0"]["action_mask"] == 0)[0])
    with pytest.raises(speed_env.ActionError, match=f"action {illegal} of player_0 is illegal now"):
        aec.step(illegal)
    aec.step(0)  # the env is left usable
    assert aec.agent_selection == "player_1"


def test_box_single_seat_and_dict_single_seat_agree():
    box = speed_env.SpeedGymEnv(opponent=RandomPolicy(1))
    as_dict = speed_env.SpeedGymEnv(opponent=RandomPolicy(1), obs_format="dict")
    assert box.obs_format == "box"  # this env's observation has always been the flat vector
    obs_b, info_b = box.reset(seed=4)
    obs_d, info_d = as_dict.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(300):
        assert np.array_equal(obs_b, obs_d["observation"])
        assert np.array_equal(info_b["action_mask"], obs_d["action_mask"])
        assert np.array_equal(box.action_masks(), as_dict.action_masks())
        assert as_dict.observation_space.contains(obs_d)
        action = int(rng.choice(np.flatnonzero(box.action_masks())))
        obs_b, r_b, t_b, tr_b, info_b = box.step(action)
        obs_d, r_d, t_d, tr_d, info_d = as_dict.step(action)
        assert (r_b, t_b, tr_b) == (r_d, t_d, tr_d)
        if t_b or tr_b:
            obs_b, info_b = box.reset()
            obs_d, info_d = as_dict.reset()


def test_box_batch_env_returns_what_a_gymnasium_vector_env_returns():
    plain = speed_env.BatchEnv(8)
    box = speed_env.BatchEnv(8, obs_format="box")
    obs_p, mask_p = plain.reset(seed=9)
    obs_b, info_b = box.reset(seed=9)
    assert np.array_equal(obs_b, obs_p) and np.array_equal(info_b["action_mask"], mask_p)
    rng = np.random.default_rng(9)
    policy = RandomPolicy(9)
    ended = 0
    for _ in range(400):
        actions = np.stack([policy.act(obs_p[s], mask_p[s]) for s in range(2)])
        obs_p, mask_p, rew_p, term_p, trunc_p, infos_p = plain.step(actions)
        obs_b, rew_b, term_b, trunc_b, infos_b = box.step(actions)
        assert np.array_equal(obs_b, obs_p)
        assert infos_b["action_mask"].dtype == np.int8
        assert np.array_equal(infos_b["action_mask"], mask_p)
        assert np.array_equal(rew_b, rew_p) and np.array_equal(term_b, term_p)
        assert np.array_equal(trunc_b, trunc_p)
        ended += int(term_p.sum())
    assert ended > 0, "some games should end (and restart) within 400 ticks"
    del rng


def test_box_format_passes_pettingzoo_checkers():
    parallel_api_test(speed_env.parallel_env(obs_format="box"), num_cycles=1000)
    api_test(speed_env.env(obs_format="box"), num_cycles=300)


def test_dict_single_seat_passes_gymnasium_and_sb3_checkers():
    from gymnasium.utils.env_checker import check_env

    check_env(
        speed_env.SpeedGymEnv(opponent=RandomPolicy(0), obs_format="dict"), skip_render_check=True
    )
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(speed_env.SpeedGymEnv(opponent=RandomPolicy(0), obs_format="dict"), warn=True)


@pytest.mark.parametrize(
    "make", [speed_env.parallel_env, speed_env.env, speed_env.SpeedGymEnv, speed_env.BatchEnv]
)
def test_an_unknown_obs_format_is_refused_by_name(make):
    args = (4,) if make is speed_env.BatchEnv else ()
    with pytest.raises(
        ValueError, match=r"obs_format must be one of \('dict', 'box'\), got 'flat'"
    ):
        make(*args, obs_format="flat")


# ----------------------------------------------------------------- max_cycles, rendering
def test_pettingzoo_max_cycles_test_passes():
    max_cycles_test(types.SimpleNamespace(parallel_env=speed_env.parallel_env, env=speed_env.env))


def test_max_cycles_truncates_after_n_ticks_paying_nothing():
    env = speed_env.parallel_env(max_cycles=3)
    env.reset(seed=0)
    for tick in range(1, 4):
        _, rewards, terms, truncs, _ = env.step({"player_0": 0, "player_1": 0})
        assert truncs == dict.fromkeys(["player_0", "player_1"], tick == 3)
    assert env.agents == [] and rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not any(terms.values()) and env.snapshot()["phase"] != "over"
    env.reset(seed=0)  # the count starts again with each episode
    env.step({"player_0": 0, "player_1": 0})
    assert env.agents == ["player_0", "player_1"]


def test_a_copy_counts_cycles_from_where_the_original_was():
    env = speed_env.parallel_env(max_cycles=5, obs_format="box")
    env.reset(seed=0)
    env.step({"player_0": 0, "player_1": 0})
    env.step({"player_0": 0, "player_1": 0})
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for e in [env, *copies]:
        e.step({"player_0": 0, "player_1": 0})
        e.step({"player_0": 0, "player_1": 0})
        assert e.agents == ["player_0", "player_1"]
        _, _, _, truncs, infos = e.step({"player_0": 0, "player_1": 0})
        assert all(truncs.values()) and e.agents == []
        assert infos["player_0"]["action_mask"].dtype == np.int8


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_a_bad_max_cycles_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="max_cycles must be a whole number of ticks"):
        speed_env.parallel_env(max_cycles=bad)


def test_pettingzoo_render_test_passes_and_human_mode_prints_the_table(capsys):
    render_test(speed_env.env)
    printed = capsys.readouterr().out
    assert "Speed (us)" in printed and "clock" in printed


def test_human_single_seat_prints_after_reset_and_step(capsys):
    env = speed_env.SpeedGymEnv(render_mode="human")
    env.reset(seed=0)
    env.step(0)
    assert env.render() is None
    assert capsys.readouterr().out.count("Speed (us)") == 3


# ----------------------------------------------------------------- lifetime, typing, call order
def test_asking_for_spaces_does_not_keep_envs_alive():
    refs = []
    for _ in range(20):
        env = speed_env.parallel_env()
        env.observation_space("player_0")
        env.action_space("player_1")
        assert env.observation_space("player_0") is env.observation_space("player_1")
        refs.append(weakref.ref(env))
        del env
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0


def test_py_typed_is_shipped_as_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    for package in ("speed_env", "agents"):
        assert (ROOT / package / "py.typed").is_file()
        assert any(fnmatch("py.typed", pattern) for pattern in data["*"]), data


def test_aec_env_enforces_pettingzoo_call_order():
    aec = speed_env.env()
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = aec.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        aec.step(0)
    aec.reset(seed=0)
    aec.step(0)
    assert aec.agent_selection == "player_1"
