"""Refusals that change nothing and constructors that refuse what cannot be meant, one case
at a time; each env is used again after the refusal.

The property over every env kind and any interleaving is
``test_env_state_machine.py``; these are the cases one at a time, each named.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers_copy import plain

import speed_env
from speed_env import ActionError, DealError, RandomPolicy, RulesError
from speed_env.vintage import PackError
from speed_env.vintage import env as vintage_env
from speed_env.vintage.single import VintageSingleEnv


def _dup_deal(rules: str = "us") -> dict:
    """A deal of ``rules`` with one card dealt twice (and one missing)."""
    deal = speed_env.deal_from_seed(speed_env.make_rules(rules), 1).to_dict()
    deal["hands"][0][0] = deal["hands"][1][0]
    return deal


# ----------------------------------------------------------------- refused resets


@pytest.mark.parametrize("seed", [None, 99])
def test_parallel_refused_deal_neither_reseeds_nor_draws(seed):
    """Before: the refused reset reseeded (or drew from) the seed generator first, so later
    unseeded games differed from an untouched copy's."""
    env = speed_env.parallel_env()
    env.reset(seed=5)
    twin = copy.deepcopy(env)
    with pytest.raises(DealError, match="more than once"):
        env.reset(seed=seed, options={"deal": _dup_deal()})
    for _ in range(3):
        assert plain(env.reset()) == plain(twin.reset())


def test_aec_refused_deal_neither_reseeds_nor_draws():
    env = speed_env.env()
    env.reset(seed=5)
    twin = copy.deepcopy(env)
    with pytest.raises(DealError):
        env.reset(seed=12, options={"deal": _dup_deal()})
    env.reset()
    twin.reset()
    assert plain(env.last()) == plain(twin.last())
    assert env.unwrapped.table() == twin.unwrapped.table()


def test_gym_refused_deal_draws_no_seat_and_does_not_reseed():
    """Before: the seat had been drawn and the generator reseeded (10 of 20 trials swapped
    the learner to the other seat of the old game)."""
    for start in range(6):
        env = speed_env.SpeedGymEnv(opponent=RandomPolicy(1))
        env.reset(seed=start)
        seat, state = env.seat, env.np_random.bit_generator.state
        twin = copy.deepcopy(env)
        with pytest.raises(DealError):
            env.reset(seed=1000 + start, options={"deal": _dup_deal()})
        assert env.seat == seat and env.np_random.bit_generator.state == state
        assert plain(env.step(0)) == plain(twin.step(0))
        assert plain(env.reset()) == plain(twin.reset())


def test_vintage_single_refused_deal_draws_no_seat_and_does_not_reseed():
    bad = {"hands": [["A1"], ["A1"], ["A2"]], "pack": [], "discard": []}
    for start in range(6):
        env = VintageSingleEnv(3, opponents=RandomPolicy(2))
        env.reset(seed=start)
        seat, state = env.seat, env.np_random.bit_generator.state
        twin = copy.deepcopy(env)
        with pytest.raises(ValueError, match="exactly once"):
            env.reset(seed=1000 + start, options={"deal": bad})
        assert env.seat == seat and env.np_random.bit_generator.state == state
        assert plain(env.reset()) == plain(twin.reset())


def _vintage_deal_where_seat_1_goes_out_first() -> dict:
    """Three players, dealer 0: seat 1 leads its only card and is out before seat 2 acts."""
    pack = vintage_env(num_players=3).unwrapped.rules.pack
    cards = [pack.tokens[k] for k in pack.cards(1)]
    rest = [c for c in cards if c not in ("A1", "A2", "A3")]
    return {"hands": [["A2"], ["A1"], ["A3"]], "pack": rest, "discard": [], "dealer": 0}


def test_vintage_single_deal_that_ends_before_the_learner_acts_changes_nothing():
    """The refusal that can only be seen after the other seats have played: the table, the
    generator, the seat and the opponents' generators are put back."""
    opponent = RandomPolicy(3)
    env = VintageSingleEnv(3, opponents=opponent, seat=2)
    env.reset(seed=4)
    twin = copy.deepcopy(env)
    with pytest.raises(ValueError, match="ends before the learner"):
        env.reset(seed=8, options={"deal": _vintage_deal_where_seat_1_goes_out_first()})
    assert env.opponents[0] is opponent  # the same object, its state put back
    assert plain(env.snapshot()) == plain(twin.snapshot())
    mask = env.action_masks()
    action = int(np.flatnonzero(mask)[0])
    assert plain(env.step(action)) == plain(twin.step(action))
    assert plain(env.reset()) == plain(twin.reset())


# ----------------------------------------------------------------- refused actions


def test_gym_illegal_action_under_raise_does_not_move_the_opponent():
    """Before: the opponent had already acted (its generator advanced) when the learner's
    illegal action was refused, so the game diverged from an untouched copy."""
    env = speed_env.SpeedGymEnv(seat=0, opponent=RandomPolicy(7), illegal_action="raise")
    env.reset(seed=3)
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    twin = copy.deepcopy(env)
    with pytest.raises(ActionError, match="legal:"):
        env.step(bad)
    assert env.opponent.rng.bit_generator.state == twin.opponent.rng.bit_generator.state
    for _ in range(20):
        assert plain(env.step(0)) == plain(twin.step(0))


def test_aec_finished_agent_given_an_action_is_refused_and_changes_nothing():
    """Before: PettingZoo's converter dropped the agent's pending entry, then failed an
    ``assert``; the env could not be stepped to its end after that."""
    env = speed_env.env(max_cycles=2)
    env.reset(seed=0)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(0)
    agent = env.agent_selection
    with pytest.raises(ActionError, match=f"{agent} has finished"):
        env.step(0)
    while env.agents:  # and it finishes as PettingZoo expects
        env.step(None)
    env.reset(seed=1)


@pytest.mark.parametrize("make", [speed_env.env, lambda: vintage_env(num_players=3)])
def test_a_refused_first_aec_reset_leaves_the_env_unreset(make):
    """Before: PettingZoo's order-enforcing wrapper marked itself reset before the env refused,
    so a later step reached the unreset env."""
    env = make()
    with pytest.raises(ValueError):
        env.reset(seed=-1)
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called"):
        env.step(0)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))


# ----------------------------------------------------------------- constructors (§6)


@pytest.mark.parametrize("seat", [True, False, 1.0, "0", 2, -1])
def test_gym_env_refuses_a_seat_that_is_not_0_1_or_random(seat):
    """Before: ``seat=True`` was taken as seat 1 (``True == 1``)."""
    with pytest.raises(ValueError, match="seat must be 0, 1 or 'random'"):
        speed_env.SpeedGymEnv(seat=seat)
    speed_env.SpeedGymEnv(seat=np.int64(1)).reset(seed=0)


@pytest.mark.parametrize("autoreset", ["no", 0, None])
def test_batch_env_refuses_an_autoreset_that_is_not_a_bool(autoreset):
    """Before: ``autoreset="no"`` was truthy, so finished games restarted."""
    with pytest.raises(TypeError, match="autoreset must be True or False"):
        speed_env.BatchEnv(2, autoreset=autoreset)
    speed_env.BatchEnv(2, autoreset=False).reset(seed=0)


class _Returns:
    """A broken opponent: ``act`` returns ``value`` whatever it is shown."""

    def __init__(self, value):
        self.value = value

    def act(self, obs, mask):
        return self.value


@pytest.mark.parametrize(
    "value",
    [np.zeros(0, np.int64), np.zeros(2, np.int64), np.zeros((1, 1), np.int64), []],
    ids=["empty", "two", "2d", "empty-list"],
)
def test_an_opponent_returning_the_wrong_shape_is_named(value):
    """Before: an empty array gave ``IndexError: index 0 is out of bounds``."""
    env = speed_env.SpeedGymEnv(seat=0, opponent=_Returns(value))
    env.reset(seed=0)
    with pytest.raises(ActionError) as err:
        env.step(0)
    assert "_Returns" in str(err.value) and "shape (1,)" in str(err.value)
    env.opponent = RandomPolicy(0)  # the env plays on with a working opponent
    env.step(0)


@pytest.mark.parametrize("value", [np.zeros(0, np.int64), np.zeros(2, np.int64), np.array([0.5])])
def test_a_vintage_opponent_returning_the_wrong_shape_is_named(value):
    env = VintageSingleEnv(2, opponents=_Returns(value), seat=1, first_dealer=1)
    with pytest.raises(ValueError, match=r"the opponent _Returns \(seat 0\).*shape \(1,\)"):
        env.reset(seed=0)  # seat 0 leads: the opponent acts first
    env.opponents = [RandomPolicy(0)]
    env.reset(seed=0)


def test_an_opponent_returning_a_float_action_is_named():
    env = speed_env.SpeedGymEnv(seat=1, opponent=_Returns(np.array([0.5])))
    env.reset(seed=0)
    with pytest.raises(ActionError, match=r"the opponent _Returns \(seat 0\)"):
        env.step(0)


def test_an_agent_spec_as_opponent_shows_how_to_build_it():
    """``speed_env`` never imports ``agents``; the error shows ``agents.make``."""
    with pytest.raises(TypeError, match=r"agents\.make\('greedy'\)"):
        speed_env.SpeedGymEnv(opponent="greedy")
    with pytest.raises(TypeError, match=r"agents\.make\('vintage-random'\)"):
        VintageSingleEnv(3, opponents="vintage-random")


def _deep_toml(path, depth=5000):
    path.write_text("preset = " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    return path


def test_a_rules_file_nested_too_deeply_names_the_file(tmp_path):
    """Before: ``RecursionError`` from tomllib."""
    path = _deep_toml(tmp_path / "deep.toml")
    with pytest.raises(RulesError, match=r"deep\.toml nests arrays or tables too deeply"):
        speed_env.parallel_env(path)
    speed_env.parallel_env("us").reset(seed=0)


def test_a_folder_given_as_rules_names_it(tmp_path):
    """Before: ``IsADirectoryError``."""
    folder = tmp_path / "house_rules"
    folder.mkdir()
    for rules in (folder, str(folder)):
        with pytest.raises(RulesError, match="house_rules is a directory, not a regular file"):
            speed_env.parallel_env(rules)


def test_a_vintage_pack_file_that_is_a_folder_or_too_deep_names_it(tmp_path):
    with pytest.raises(PackError, match=r"deep\.toml nests"):
        vintage_env(pack=_deep_toml(tmp_path / "deep.toml"))
    with pytest.raises(PackError, match="is a directory, not a regular file"):
        vintage_env(pack=tmp_path)


def test_a_huge_card_token_is_cut_in_the_error():
    """Before: a 100 kB token was echoed whole into the message."""
    token = "Q" * 100_000
    with pytest.raises(speed_env.CardError) as err:
        speed_env.parse_card(token)
    assert len(str(err.value)) < 300 and "100,000 characters" in str(err.value)
    deal = _dup_deal()
    deal["hands"][0][0] = token
    env = speed_env.parallel_env()
    with pytest.raises(DealError) as err:
        env.reset(options={"deal": deal})
    assert len(str(err.value)) < 300 and "hands[0]" in str(err.value)
    venv = vintage_env(num_players=2)
    with pytest.raises(ValueError) as err:
        venv.reset(options={"deal": {"hands": [[token], ["A1"]]}})
    assert len(str(err.value)) < 400 and "100,000 characters" in str(err.value)
    env.reset(seed=0)
    venv.reset(seed=0)


@pytest.mark.parametrize("rules", ["us", "pagat", "japanese"])
def test_a_seat_dealt_no_cards_is_refused(rules):
    """RULES.md: a seat wins when its last card lands (us/pagat) or its stock empties
    (japanese), so a seat dealt nothing has a game already decided: refused, naming it.
    Before: accepted."""
    deal = speed_env.deal_from_seed(speed_env.make_rules(rules), 2).to_dict()
    deal["draw_piles"][0] += deal["hands"][1] + deal["draw_piles"][1]
    deal["hands"][1], deal["draw_piles"][1] = [], []
    if rules == "japanese":  # with the centre dealt: no opening flip needs a stock card
        deal["centre"] = [[deal["draw_piles"][0].pop()], [deal["draw_piles"][0].pop()]]
    env = speed_env.parallel_env(rules)
    with pytest.raises(DealError, match=r"seat 1 is dealt no cards"):
        env.reset(seed=0, options={"deal": deal})
    short = speed_env.deal_from_seed(speed_env.make_rules(rules), 2).to_dict()
    short["draw_piles"][0] += short["hands"][1]
    short["hands"][1] = []  # no hand but a draw pile: a legal (short) deal
    env.reset(seed=0, options={"deal": short})
    env.step({"player_0": 0, "player_1": 0})
