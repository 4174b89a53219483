"""Bad input is refused with a clear error that names what is wrong
(docs/rules.md "Cards, deals, seeds"; the README on envs, deals and rules),
and never corrupts a running game."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers_deal import build_deal, make_env, play, start

import speed_env
from speed_env.policy import RandomPolicy
from speed_env.vintage.single import VintageSingleEnv

P0, P1 = "player_0", "player_1"


# ----------------------------------------------------------------- cards


@pytest.mark.parametrize("token", ["1S", "XX", "10Z", "", 11, "11S", "0H", "JJ", "S10", None])
def test_malformed_card_is_a_card_error_naming_the_token(token):
    with pytest.raises(speed_env.CardError) as err:
        speed_env.parse_card(token)
    assert repr(token) in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("10S", "10S"),
        ("TS", "10S"),
        ("t♠", "10S"),
        ("Q♣", "QC"),
        (" ah ", "AH"),
        ("RJ", "RJ"),
        ("bj", "BJ"),
    ],
)
def test_accepted_card_spellings(token, card):
    assert speed_env.card_str(speed_env.parse_card(token)) == card


@pytest.mark.parametrize("token", ["1S", "XX", "10Z", "", 11])
def test_malformed_card_in_a_deal_names_the_token(token):
    deal = build_deal("us", hands=["9D 10S QC 3H 7S", "JS 8D 8H 9C 9H"], centre=["8C", "JH"])
    deal["hands"][0][4] = token  # 7S is now missing too; the bad token must be what is reported
    env = make_env("us")
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"deal": deal})
    assert repr(token) in str(err.value)


# ------------------------------------------------------ deals that are not a partition of the deck


def us_deal():
    return build_deal("us", hands=["9D 10S QC 3H 7S", "JS 8D 8H 9C 9H"], centre=["8C", "JH"])


def jp_deal(**options):
    return build_deal(
        "japanese", hands=["AH 2H 3H 4H", "AS 2S 3S 4S"], draw_piles=["9D", "QC"], **options
    )


def _dup(d):
    d["draw_piles"][1][-1] = "9D"  # 9D twice (and the card it replaced is missing)
    return d


def _missing(d):
    d["side_piles"][1].pop()
    return d


def _joker(d):
    d["draw_piles"][0].append("RJ")
    return d


def _hand_over(d):
    d["hands"][0].append(d["draw_piles"][0].pop(0))
    return d


def _no_centre(d):
    d.pop("centre")
    return d


def _short_centre(d):
    d["centre"][1] = []
    return d


@pytest.mark.parametrize(
    ("rules", "make", "change", "named"),
    [
        ("us", us_deal, _dup, "9D"),
        ("us", us_deal, _missing, "missing 1 card"),
        ("us", us_deal, _joker, "RJ"),
        ("us", us_deal, _hand_over, "6 cards"),
        ("us", us_deal, _no_centre, "centre"),
        ("us", us_deal, _short_centre, "centre[1]"),
        ("japanese", jp_deal, _dup, "9D"),
        ("japanese", jp_deal, _joker, "RJ"),
        ("japanese", jp_deal, _hand_over, "5 cards"),
    ],
    ids=[
        "duplicate",
        "missing",
        "joker-without-jokers",
        "hand-over-size",
        "us-without-centre",
        "empty-centre-pile",
        "jp-duplicate",
        "jp-joker-without-jokers",
        "jp-layout-over-size",
    ],
)
def test_deal_that_is_not_a_partition_is_refused_naming_the_card_or_count(
    rules, make, change, named
):
    deal = change(make())
    env = make_env(rules)
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"deal": deal})
    assert named in str(err.value)


def test_deal_missing_a_card_names_it():
    deal = us_deal()
    last = deal["draw_piles"][1].pop()
    with pytest.raises(ValueError) as err:
        make_env("us").reset(seed=0, options={"deal": deal})
    assert last in str(err.value) and "missing 1" in str(err.value)


def test_japanese_deal_with_side_piles_is_refused():
    deal = jp_deal()
    deal["side_piles"] = [[deal["draw_piles"][0].pop()], []]
    with pytest.raises(ValueError) as err:
        make_env("japanese").reset(seed=0, options={"deal": deal})
    assert "side_piles" in str(err.value) or "side pile" in str(err.value)


def test_jokers_deal_without_its_jokers_is_refused():
    deal = jp_deal()  # dealt without jokers: RJ and BJ are missing from a jokers game
    with pytest.raises(ValueError) as err:
        make_env("japanese", jokers=True).reset(seed=0, options={"deal": deal})
    assert "RJ" in str(err.value) and "BJ" in str(err.value)


def test_a_refused_deal_leaves_the_running_game_untouched():
    env = make_env("us")
    start(env, us_deal())
    env.step({P0: play("9", 0), P1: 0})
    before = copy.deepcopy(env.unwrapped.table())
    with pytest.raises(ValueError):
        env.reset(seed=5, options={"deal": _dup(us_deal())})
    assert env.unwrapped.table() == before
    env.step({P0: 0, P1: 0})  # and it plays on
    assert env.unwrapped.table()["centre"][0][0] == "9D"


# ----------------------------------------------------------------- rules and options


def test_unknown_rules_preset():
    with pytest.raises(ValueError, match="french"):
        speed_env.parallel_env("french")
    with pytest.raises(speed_env.RulesError, match="french"):
        speed_env.make_rules("french")


@pytest.mark.parametrize("key", ["warp", "jokerz", "tick"])
def test_unknown_option_key_is_named(key):
    with pytest.raises(ValueError, match=repr(key)):
        speed_env.parallel_env("us", **{key: True})


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("wrap", "yes"),
        ("same_rank", 1),
        ("stuck_countdown_ms", 1.5),
        ("stuck_countdown_ms", "1000"),
        ("stuck_countdown_ms", -1),
        ("max_game_ms", 0),
        ("reserve_rule", "never"),
        ("match_target", True),
    ],
)
def test_bad_option_value_is_refused_naming_option_and_value(option, value):
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env("us", **{option: value})
    assert option in str(err.value) and repr(value) in str(err.value)


# (``jokers`` is no longer one of them: in us/pagat it shuffles in two wild jokers.)
@pytest.mark.parametrize("option", ["play_out", "stack_layout", "multi_play"])
@pytest.mark.parametrize("rules", ["us", "pagat"])
def test_japanese_only_option_on_another_preset(rules, option):
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env(rules, **{option: True})
    assert option in str(err.value) and "japanese" in str(err.value)


def test_key_value_overrides_are_typed_like_the_rules_want_them():
    from speed_env.rules import parse_overrides

    overrides = parse_overrides(
        ["wrap=False", " stuck_countdown_ms = 500 ", "reserve_rule=lock", "match_target=-3"]
    )
    assert overrides == {
        "wrap": False,
        "stuck_countdown_ms": 500,
        "reserve_rule": "lock",
        "match_target": -3,
    }
    assert speed_env.make_rules("us", **parse_overrides(["wrap=false"])).wrap is False


@pytest.mark.parametrize("pair", ["wrap", "=true", " =1"])
def test_an_override_without_key_and_value_is_refused_naming_it(pair):
    from speed_env.rules import parse_overrides

    with pytest.raises(speed_env.RulesError, match=f"--option takes KEY=VALUE, got {pair!r}"):
        parse_overrides([pair])


def test_speed_option_without_a_value_is_one_line_naming_it(capsys):
    from speed_cli import main

    assert main(["demo", "--option", "wrap"]) == 2
    err = capsys.readouterr().err
    assert err == "speed demo: error: --option takes KEY=VALUE, got 'wrap'\n"


def test_toml_file_with_an_unknown_key_names_key_and_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "us"\nwrap = false\nwarp = true\n', encoding="utf-8")
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env(str(path))
    assert "warp" in str(err.value) and str(path) in str(err.value)


def test_toml_file_with_a_bad_value_names_key_and_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "us"\nhand_size = 9\n', encoding="utf-8")
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env(path)
    assert "hand_size" in str(err.value) and str(path) in str(err.value)


def test_toml_file_that_is_not_toml(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("wrap = = true\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"house\.toml"):
        speed_env.parallel_env(path)


def test_nonexistent_toml_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env(str(path))
    assert str(path) in str(err.value)


class _Refused(Exception):
    """A caller's own error type, as read_json is given one."""


def test_a_json_file_missing_or_not_json_is_the_callers_error_naming_what_and_where(tmp_path):
    from speed_env.user_file import read_json

    missing, broken = str(tmp_path / "nowhere.json"), tmp_path / "deal.json"
    with pytest.raises(_Refused, match=r"^cannot read deal file .*nowhere\.json: No such file"):
        read_json(missing, "deal file", _Refused)
    broken.write_text("{hands: 1", encoding="utf-8")
    with pytest.raises(_Refused, match=r"^deal file .*deal\.json is not JSON: "):
        read_json(str(broken), "deal file", _Refused)
    broken.write_text('{"hands": [1]}', encoding="utf-8")
    assert read_json(str(broken), "deal file", _Refused) == {"hands": [1]}


def test_good_toml_file_is_read(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "pagat"\nwrap = false\nsame_rank = true\n', encoding="utf-8")
    rules = speed_env.parallel_env(str(path)).unwrapped.rules
    assert (rules.preset, rules.wrap, rules.same_rank) == ("pagat", False, True)


# ----------------------------------------------------------------- reaction and tick


@pytest.mark.parametrize(
    ("reaction", "named"),
    [
        (-5, "-5"),
        (0, "0"),
        (float("nan"), "nan"),
        ("warp", "warp"),
        ((100,), "1"),
        ((100, 200, 300), "3"),
        ((100, "slowpoke"), "slowpoke"),
        (True, "True"),
        ({"ms": 100}, "ms"),
    ],
)
def test_bad_reaction_is_refused_naming_the_value(reaction, named):
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env("us", reaction=reaction)
    assert named in str(err.value)


@pytest.mark.parametrize(
    "reaction", [100, 100.0, "100ms", "pro", ("human", 250), speed_env.make_profile("casual")]
)
def test_good_reaction_arguments(reaction):
    speed_env.parallel_env("us", reaction=reaction).reset(seed=0)


@pytest.mark.parametrize("tick", [0, -50, 12.5, "50", True, None])
def test_bad_tick_ms_is_refused_naming_the_value(tick):
    with pytest.raises(ValueError) as err:
        speed_env.parallel_env("us", tick_ms=tick)
    assert repr(tick) in str(err.value)


# Before: a tick of 2**62 hung the first step inside compiled code, 2**63 wrapped the
# clock, and max_game_ms / stuck_countdown_ms of 2**63 raised a bare OverflowError.
HUGE_TIMES = [
    ("tick_ms", 2**62),
    ("tick_ms", 2**63),
    ("tick_ms", speed_env.rules.MAX_MS + 1),
    ("max_game_ms", 2**63),
    ("max_game_ms", speed_env.rules.MAX_MS + 1),
    ("stuck_countdown_ms", 2**63),
    ("stuck_countdown_ms", 2**200),
]


@pytest.mark.parametrize(("option", "value"), HUGE_TIMES)
@pytest.mark.parametrize(
    "make",
    [
        speed_env.parallel_env,
        speed_env.SpeedGymEnv,
        speed_env.env,
        lambda **kw: speed_env.BatchEnv(2, **kw),
    ],
    ids=["parallel", "gym", "aec", "batch"],
)
def test_a_time_option_out_of_bounds_is_a_rules_error_naming_it(make, option, value):
    with pytest.raises(
        speed_env.RulesError, match=rf"'{option}' must be between \d+ and 1000000000000 ms"
    ):
        make(**{option: value})


def test_time_options_at_their_bound_play():
    top = speed_env.rules.MAX_MS
    env = speed_env.parallel_env("us", tick_ms=top, max_game_ms=top, stuck_countdown_ms=top)
    env.reset(seed=0)
    _, _, _, trunc, info = env.step({P0: 0, P1: 0})  # one tick reaches the cap: truncated
    assert trunc[P0] and info[P0]["clock_ms"] == top


def test_a_time_option_out_of_bounds_in_a_toml_file_names_option_and_file(tmp_path):
    path = tmp_path / "slow.toml"
    path.write_text(f'preset = "us"\nmax_game_ms = {2**63}\n', encoding="utf-8")
    with pytest.raises(speed_env.RulesError) as err:
        speed_env.parallel_env(path)
    assert "max_game_ms" in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("reaction", [2**70, 1e10, (250, 2**63), speed_env.rules.MAX_MS])
def test_a_reaction_too_slow_for_the_clock_is_refused(reaction):
    with pytest.raises(speed_env.ReactionError, match="between 0 and 1000000000"):
        speed_env.parallel_env("us", reaction=reaction)
    with pytest.raises(speed_env.ReactionError, match="'tau'"):
        speed_env.ReactionProfile(200, 10, 2e9)


def test_bad_illegal_action_policy():
    with pytest.raises(ValueError, match="explode"):
        speed_env.parallel_env("us", illegal_action="explode")


# ----------------------------------------------------------------- actions


# Before: parallel_env took True and 1.0 as actions, SpeedGymEnv took 1.5, "3" and True,
# and inf or 2**70 raised a bare OverflowError without the agent's name.
BAD_ACTIONS = [
    -1,
    27,
    1000,
    2**70,
    -(2**70),
    float("inf"),
    float("nan"),
    "a",
    1.5,
    1.0,
    "3",
    True,
    False,
    [1],
    np.array([1]),
    np.float64(2.0),
    np.bool_(True),
    np.array(1.0),
]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_action_outside_the_action_space_is_refused(action):
    env = make_env("us")
    start(env, us_deal())
    before = copy.deepcopy(env.unwrapped.table())
    with pytest.raises(speed_env.ActionError) as err:
        env.step({P0: action, P1: 0})
    assert P0 in str(err.value) and (
        repr(action) in str(err.value) or str(action) in str(err.value)
    )
    assert env.unwrapped.table() == before  # nothing happened
    env.step({P0: play("9", 0), P1: 0})  # and the game plays on
    assert env.unwrapped.table()["players"][0]["in_flight"] is not None


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_gym_env_refuses_the_same_actions(action):
    env = speed_env.SpeedGymEnv("us", opponent=RandomPolicy(0), seat=1)
    env.reset(seed=0)
    before = copy.deepcopy(env.games.table(0))
    with pytest.raises(speed_env.ActionError, match=r"the learner \(seat 1\)"):
        env.step(action)
    assert env.games.table(0) == before
    assert env.step(0)[0].shape == env.observation_space.shape


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_aec_env_refuses_a_bad_action_at_once_naming_its_agent(action):
    """Before: the converter stored player_0's bad action, refused it on player_1's turn
    (naming player_0 only by chance of the message), and refused every later step."""
    env = speed_env.env("us")
    env.reset(seed=0)
    before = copy.deepcopy(env.unwrapped.table())
    with pytest.raises(speed_env.ActionError, match=P0):
        env.step(action)
    assert env.agent_selection == P0 and env.unwrapped.table() == before
    env.step(0)
    with pytest.raises(speed_env.ActionError, match=P1):
        env.step(action)
    assert env.agent_selection == P1
    env.step(0)  # the tick resolves, and the env plays on
    assert env.unwrapped.table()["clock_ms"] == 50 and env.agent_selection == P0
    env.step(0)
    env.step(0)
    assert env.unwrapped.table()["clock_ms"] == 100


def test_aec_env_with_illegal_action_raise_refuses_at_once():
    env = speed_env.env("us", illegal_action="raise")
    env.reset(seed=0, options={"deal": us_deal()})
    with pytest.raises(speed_env.ActionError, match=rf"{play('K', 0)} of {P0} is illegal now"):
        env.step(play("K", 0))
    env.step(play("9", 0))
    env.step(0)
    assert env.unwrapped.snapshot()["players"][0]["in_flight"]["card"] == "9D"


@pytest.mark.parametrize("action", [np.int64(1), np.int8(1), np.uint64(1), np.array(1), 1])
def test_integer_actions_of_any_integer_type_are_taken(action):
    env = make_env("us")
    start(env, us_deal())
    env.step({P0: action, P1: None})  # None: a wait (PettingZoo's dead-agent action)
    gym_env = speed_env.SpeedGymEnv("us")
    gym_env.reset(seed=0)
    gym_env.step(action)


@pytest.mark.parametrize(
    "actions",
    [
        np.full((2, 2), 1.0),
        np.ones((2, 2), bool),
        np.full((2, 2), 2**40),
        np.array([[0, -1], [0, 0]]),
        np.zeros((2, 3), int),
        [["a", 0], [0, 0]],
    ],
    ids=["float", "bool", "huge", "negative", "shape", "str"],
)
def test_batch_env_refuses_actions_that_are_not_in_space_integers(actions):
    env = speed_env.BatchEnv(2)
    env.reset(seed=0)
    before = [env.table(i) for i in range(2)]
    with pytest.raises(speed_env.ActionError):
        env.step(actions)
    assert [env.table(i) for i in range(2)] == before
    env.step(np.zeros((2, 2), np.int64))


# ----------------------------------------------------------------- reset arguments


def _envs_to_reset():
    return {
        "parallel": speed_env.parallel_env(),
        "aec": speed_env.env(),
        "gym": speed_env.SpeedGymEnv(),
        "batch": speed_env.BatchEnv(2),
        "vintage": speed_env.vintage.env(num_players=3),
        "vintage-single": VintageSingleEnv(3),
    }


def _game_of(env):
    u = getattr(env, "unwrapped", env)  # BatchEnv is no wrapper
    if hasattr(u, "games"):
        return [u.games.table(i) for i in range(u.games.n)]
    return u.table.snapshot() if hasattr(u, "opponents") else u.snapshot()


# Before: options="deal" raised AttributeError, seed=1.5 was truncated to 1 without a word.
@pytest.mark.parametrize(
    ("kwargs", "error", "named"),
    [
        ({"options": "deal"}, TypeError, "'deal'"),
        ({"options": ["deal"]}, TypeError, "list"),
        ({"seed": 1.5}, TypeError, "1.5"),
        ({"seed": "3"}, TypeError, "'3'"),
        ({"seed": True}, TypeError, "True"),
        ({"seed": -1}, ValueError, "-1"),
        ({"seed": 2**64}, ValueError, str(2**64)),
    ],
    ids=[
        "options-str",
        "options-list",
        "seed-float",
        "seed-str",
        "seed-bool",
        "seed-negative",
        "seed-huge",
    ],
)
@pytest.mark.parametrize("name", ["parallel", "aec", "gym", "batch", "vintage", "vintage-single"])
def test_bad_reset_arguments_are_refused_and_change_nothing(name, kwargs, error, named):
    env = _envs_to_reset()[name]
    env.reset(seed=4)
    before = _game_of(env)
    with pytest.raises(error) as err:
        env.reset(**kwargs)
    assert named in str(err.value)
    assert _game_of(env) == before
    env.reset(seed=4, options={"unknown": 1})  # unknown option keys are still ignored
    assert _game_of(env) == before


def test_batch_env_refuses_a_deal_it_cannot_use():
    """Before: BatchEnv.reset(options={"deal": ...}) ignored the deal without a word."""
    env = speed_env.BatchEnv(2)
    with pytest.raises(ValueError, match=r"BatchEnv does not start from an explicit deal"):
        env.reset(seed=0, options={"deal": us_deal()})
    env.reset(seed=0)


def test_action_space_grows_with_jokers():
    env = make_env("japanese", jokers=True)
    start(
        env,
        build_deal(
            "japanese", jokers=True, hands=["AH 2H 3H 4H", "AS 2S 3S 4S"], draw_piles=["9D", "QC"]
        ),
    )
    env.step({P0: 28, P1: 0})  # in the space (a joker on pile 1), illegal here: a wait
    with pytest.raises(ValueError):
        env.step({P0: 29, P1: 0})


def test_illegal_in_space_action_is_a_counted_wait():
    env = make_env("us")
    start(env, us_deal())  # centre 8C / JH: a K is no play
    before = env.unwrapped.table()
    _, _rew, _term, _trunc, info = env.step({P0: play("K", 0), P1: play("9", 1)})
    after = env.unwrapped.table()
    assert info[P0]["illegal"] is True and info[P1]["illegal"] is True
    assert after["players"][0]["illegal"] == before["players"][0]["illegal"] + 1
    assert after["players"][1]["illegal"] == 1
    assert after["players"][0]["hand"] == before["players"][0]["hand"]
    assert after["players"][0]["in_flight"] is None and after["players"][0]["commits"] == 0
    assert after["clock_ms"] == 50  # the tick went on: it was a wait
    _, _, _, _, info = env.step({P0: play("9", 0), P1: 0})
    assert info[P0]["illegal"] is False and env.unwrapped.table()["players"][0]["illegal"] == 1


def test_illegal_action_raise_lists_the_legal_actions_and_changes_nothing():
    env = speed_env.parallel_env("us", reaction=(100, 200), illegal_action="raise")
    obs, _ = env.reset(seed=0, options={"deal": us_deal()})
    legal = [i for i, m in enumerate(obs[P0]["action_mask"]) if m]
    before = copy.deepcopy(env.unwrapped.table())
    with pytest.raises(ValueError) as err:
        env.step({P0: play("K", 0), P1: 0})
    assert str(legal) in str(err.value)
    assert str(play("K", 0)) in str(err.value)
    assert env.unwrapped.table() == before
    env.step({P0: legal[-1], P1: 0})  # a legal action still goes through


def test_gym_env_illegal_action_raise_lists_the_legal_actions_and_changes_nothing():
    env = speed_env.SpeedGymEnv("us", seat=0, illegal_action="raise")
    env.reset(seed=0, options={"deal": us_deal()})
    legal = np.flatnonzero(env.action_masks()).tolist()
    before = copy.deepcopy(env.games.snapshot(0))
    with pytest.raises(ValueError) as err:
        env.step(play("K", 0))
    assert str(legal) in str(err.value)
    assert env.games.snapshot(0) == before
    _obs, _r, _term, _trunc, info = env.step(legal[-1])  # a legal action still goes through
    assert info["illegal"] is False


def test_gym_env_takes_an_illegal_action_as_a_counted_wait_by_default():
    env = speed_env.SpeedGymEnv("us", seat=0)
    env.reset(seed=0, options={"deal": us_deal()})
    _obs, _r, _term, _trunc, info = env.step(play("K", 0))
    assert info["illegal"] is True


def test_unknown_agent_in_actions():
    env = make_env("us")
    start(env, us_deal())
    with pytest.raises(ValueError, match="player_2"):
        env.step({P0: 0, "player_2": 0})


def test_unknown_reset_option_keys_are_ignored():
    env = make_env("us")
    obs, _info = env.reset(seed=3, options={"colour": "blue", "render": True})
    plain, _ = make_env("us").reset(seed=3)
    for a in (P0, P1):
        assert (obs[a]["observation"] == plain[a]["observation"]).all()
    obs, _ = env.reset(seed=3, options={"deal": us_deal(), "whatever": 1})
    assert env.unwrapped.snapshot()["centre"][0]["top"] == "8C"


def test_japanese_deal_without_centre_needs_a_card_in_each_stock():
    """Without ``centre`` the opening flip turns up each stock's top (003 ③);
    a deal whose stock is empty would start with an empty centre pile
    (docs/rules.md: every centre pile needs a top card), so it is refused.
    (Here player_0's other red cards were put in player_1's stock.)"""
    reds = [
        r + s
        for s in "HD"
        for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    ]
    blacks = [
        r + s
        for s in "SC"
        for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    ]
    deal = {"hands": [reds[:4], blacks[:4]], "draw_piles": [[], blacks[4:] + reds[4:]]}
    with pytest.raises(ValueError):
        make_env("japanese").reset(seed=0, options={"deal": deal})
