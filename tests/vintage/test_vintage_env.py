"""The Vintage Speed AEC env: PettingZoo's checks, reset options, actions, observations."""

from __future__ import annotations

import importlib
import json
import pickle
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from vintage_helpers import parse_table, play, table

from speed_env.vintage import DealError, env, raw_env
from speed_env.vintage.engine import legal_actions

NAME = "vintage_speed_v0"


@pytest.fixture
def dict_observations_known(monkeypatch: pytest.MonkeyPatch) -> None:
    # api_test warns about dict observations unless the env's name is on its list of
    # classic-style envs ({"observation", "action_mask"}); ours is one of those.
    module = importlib.import_module("pettingzoo.test.api_test")
    monkeypatch.setattr(module, "env_obs_dicts", [*module.env_obs_dicts, NAME])
    monkeypatch.setattr(module, "env_obs_space", [*module.env_obs_space, NAME])


@pytest.mark.usefixtures("dict_observations_known")
@pytest.mark.parametrize("num_players", range(2, 11))
def test_pettingzoo_api(num_players: int) -> None:
    api_test(env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", [2, 7])
def test_pettingzoo_seed_test(num_players: int) -> None:
    seed_test(lambda: env(num_players=num_players), num_cycles=200)


def play_out(e: raw_env, seed: int) -> list[tuple[str, int]]:
    """Play one game with seeded random legal actions; the (agent, action) trail."""
    rng = np.random.default_rng(seed)
    trail = []
    while not e.game.over:
        agent = e.agent_selection
        legal = np.flatnonzero(e.observe(agent)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        trail.append((agent, action))
        e.step(action)
    return trail


@pytest.mark.parametrize("num_players", [2, 4, 6, 10])
def test_whole_games_are_determined_by_the_seed(num_players: int) -> None:
    runs = []
    for _ in range(2):
        e = raw_env(num_players=num_players, games=3)
        e.reset(seed=11)
        trails = [play_out(e, 5)]
        for g in range(2):
            e.reset(options={"next_game": True})
            trails.append(play_out(e, 6 + g))
        runs.append((trails, e.snapshot()))
    assert runs[0] == runs[1]
    other = raw_env(num_players=num_players)
    other.reset(seed=12)
    assert play_out(other, 5) != runs[0][0][0]


def test_metadata_agents_and_spaces() -> None:
    e = raw_env(num_players=5)
    e.reset(seed=0)
    assert e.metadata["name"] == NAME
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    obs = e.observe(e.agent_selection)
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (174,)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (48,)
    assert e.observation_space("player_0").contains(obs)


@pytest.mark.parametrize(
    ("num_players", "size", "pack"),
    [(2, 6, 33), (3, 6, 27), (4, 5, 25), (5, 5, 20), (6, 6, 54), (10, 6, 30)],
)
def test_deal_sizes_by_player_count(num_players: int, size: int, pack: int) -> None:
    e = raw_env(num_players=num_players)
    e.reset(seed=3)
    snap = e.snapshot()
    assert [len(p["hand"]) for p in snap["players"]] == [size] * num_players
    assert snap["pack"] == pack and snap["discard_top"] is None


def test_action_names_round_trip() -> None:
    e = raw_env()
    names = [e.action_name(i) for i in range(48)]
    assert [e.action_index(n) for n in names] == list(range(48))
    assert names[13] == "play T5" and names[35] == "play H2/5"
    assert names[42] == "play L call S" and names[45:] == ["play X", "draw", "pass"]
    assert e.action_index("PLAY  h5/2") == 35
    for bad in ("play", "play L", "play L call Q", "play Q3", "jump"):
        with pytest.raises(ValueError, match="unknown action name"):
            e.action_index(bad)
    with pytest.raises(ValueError, match="out of range"):
        e.action_name(48)
    with pytest.raises(ValueError) as err:
        e.action_index("jump")
    # The hint lists each kind of name once, separated.
    assert str(err.value).endswith("'play X', 'draw', 'pass'")


def test_an_illegal_action_raises_naming_the_legal_ones_and_changes_nothing() -> None:
    e = table(
        """
        discard: T5
        player_0: T2 S3
        player_1: A1
        """
    )
    before = e.snapshot()
    for bad in (e.action_index("play S3"), 48, -1, "draw", None, 1.5):
        with pytest.raises(ValueError, match=r"legal: 10 \(play T2\)"):
            e.step(bad)
    assert e.snapshot() == before
    with pytest.raises(ValueError, match="player_0"):
        e.step(e.action_index("draw"))
    e.step(np.int64(10))  # numpy ints are fine
    assert e.snapshot()["discard_top"] == "T2"


def test_observation_slices_say_what_the_docs_say() -> None:
    e = table(
        """
        discard: L T5
        called: S
        player_0: S1 S2 X
        player_1: A1 A2
        player_2: M1
        """,
        games=4,
    )
    play(e, "play S1")  # player_0 places S1 and holds X: it may add X
    lay = e.layout
    o = e.observe("player_0")["observation"]
    pack = e.rules.pack
    assert (
        o[lay["hand"]][pack.parse("S2")] == 1
        and o[lay["hand"]][pack.X] == 1
        and o[lay["hand"]].sum() == 2
    )
    assert o[lay["top"]][pack.parse("S1")] == 1 and o[lay["top"]].sum() == 1
    assert o[lay["lead"]][0] == 0 and o[lay["called"]].sum() == 0
    assert o[lay["extra"]][0] == 1
    assert o[lay["discard"]].sum() == 3
    assert o[lay["pack"]][0] == e.snapshot()["pack"]
    assert list(o[lay["hand_sizes"]][:3]) == [2, 1, 0] and list(o[lay["seated"]][:3]) == [1, 1, 0]
    assert list(o[lay["game"]]) == [0, 4]
    o1 = e.observe("player_1")
    assert o1["observation"][lay["extra"]][0] == 0 and not o1["action_mask"].any()
    play(e, "pass")
    o1 = e.observe("player_1")["observation"]
    assert list(o1[lay["hand_sizes"]][:2]) == [1, 2]  # player_2 then player_0
    assert e.observation_space("player_1").contains(e.observe("player_1"))


def test_called_set_and_stuck_seats_are_observed() -> None:
    e = table(
        """
        discard: T5
        player_0: L T1
        player_1: A9
        """
    )
    play(e, "play L call M", "draw")
    o = e.observe("player_0")["observation"]
    lay = e.layout
    assert o[lay["called"]][3] == 1  # A T S M H: M is set 3
    assert o[lay["stuck"]][0] == 1  # player_1 drew


def test_explicit_deal_errors_name_the_problem_and_leave_the_env_alone() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=1)
    before = e.snapshot()
    good = parse_table(
        """
        discard: T5
        player_0: T2
        player_1: A1
        """
    )
    cases = [
        ({**good, "hands": good["hands"][:1]}, "1 hands"),
        ({**good, "hands": [["T2", "Q7"], ["A1"]]}, "hands[0][1]: 'Q7'"),
        ({**good, "hands": [["T2", "A1"], ["A1"]]}, "A1 appears 2 time"),
        ({**good, "pack": good["pack"][1:]}, "appears 0 time"),
        ({**good, "hands": [[], ["A1", "T2"]]}, "hands[0] is empty"),
        (
            {**good, "discard": ["L"], "pack": swap_one(good["pack"], "L", "T5")},
            "give the set it called",
        ),
        ({**good, "called": "S"}, "the discard's top is not L"),
        ({**good, "dealer": 2}, "dealer 2"),
        ({**good, "trumps": "A"}, "unknown deal key"),
        ("nonsense", "a deal must be a dict"),
    ]
    for deal, message in cases:
        with pytest.raises(DealError, match=re.escape(message)):
            e.reset(options={"deal": deal})
        assert e.snapshot() == before
    assert issubclass(DealError, ValueError)


def swap_one(cards: list[str], old: str, new: str) -> list[str]:
    """``cards`` with its first ``old`` replaced by ``new``."""
    i = cards.index(old)
    return [*cards[:i], new, *cards[i + 1 :]]


def test_unknown_reset_options_are_ignored() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=9, options={"colour": "blue", "next_game": False})
    b.reset(seed=9)
    assert a.snapshot() == b.snapshot()


def test_unknown_env_options_and_bad_values_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown option"):
        raw_env(jokers=True)
    with pytest.raises(ValueError, match="num_players=11"):
        raw_env(num_players=11)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="human")


def test_pickle_round_trip() -> None:
    e = env(num_players=3, games=2, may_draw_when_able=True)
    e.reset(seed=4)
    clone = pickle.loads(pickle.dumps(e))
    clone.reset(seed=4)
    assert clone.unwrapped.rules == e.unwrapped.rules
    assert clone.unwrapped.snapshot() == e.unwrapped.snapshot()


def test_snapshot_is_json_ready_and_render_shows_the_table() -> None:
    e = raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=2)
    snap = e.snapshot()
    assert json.loads(json.dumps(snap)) == snap
    assert set(snap) >= {"players", "pack", "discard_top", "called", "current", "winner"}
    text = e.render()
    assert isinstance(text, str) and "player_0" in text and "pack: 27" in text
    for tokens in (p["hand"] for p in snap["players"]):
        assert " ".join(tokens) in text


def test_finished_agents_are_stepped_with_none_and_masks_stay_non_empty() -> None:
    e = env(num_players=3)
    e.reset(seed=8)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _reward, term, trunc, _ = e.last()
        assert obs["action_mask"].any()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
    assert e.agents == []


def test_mask_matches_engine_legal_actions() -> None:
    e = raw_env(num_players=4)
    e.reset(seed=21)
    rng = np.random.default_rng(1)
    while not e.game.over:
        mask = e.observe(e.agent_selection)["action_mask"]
        assert list(np.flatnonzero(mask)) == legal_actions(e.game)
        e.step(int(rng.choice(np.flatnonzero(mask))))


def test_the_documented_index_table_matches_the_layout() -> None:
    from speed_env.vintage import aec

    section = (aec.__doc__ or "").split("## Observations")[1].split("## Rewards")[0]
    rows = re.findall(r"^\| (\d+)(?:–(\d+))?\s+\| `(\w+)`", section, flags=re.M)
    documented = {name: (int(lo), int(hi or lo)) for lo, hi, name in rows}
    layout = raw_env().layout
    assert documented == {n: (s.start, s.stop - 1) for n, s in layout.slices.items()}
