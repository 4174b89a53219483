"""Thinking time charged as latency (agents/think/): declared, calibrated, the file, the errors."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import agents
import speed_env
from agents.errors import AgentSpecError
from agents.think import record, states
from agents.think.calibrate import calibrate
from agents.think.plan import ThinkError, ThinkPlan, check_agent, declared_ms, seat_profile
from speed_env.reaction import delayed, fixed

SLEEP_MS = 20.0
TOLERANCE_MS = 8.0
"""A calibrated sleeper costs its sleep plus at most this (timer and scheduler overshoot)."""


class Sleeper:
    """Plays greedy's card after sleeping a known time each decision."""

    def __init__(self, rules: speed_env.Rules, ms: float = SLEEP_MS) -> None:
        self.ms = ms
        self.greedy = agents.make("greedy", rules, seed=0)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        time.sleep(self.ms / 1000)
        return self.greedy.act(obs, mask)


def first_landing(profile: speed_env.ReactionProfile, seed: int = 3) -> tuple[int, int]:
    """``(clock, lands_ms)`` of seat 0's first card in flight, seat 0 greedy with ``profile``.

    Seat 1 only waits, so seat 0's first commit comes at the same tick whatever its profile.
    """
    rules = speed_env.make_rules("us")
    env = speed_env.BatchEnv(1, rules, reaction=(profile, fixed(100)), autoreset=False)
    greedy = agents.make("greedy", rules, seed=0)
    obs, mask = env.reset(seed=seed)
    for _ in range(500):
        clock = env.snapshot(0)["clock_ms"]
        obs, mask, *_ = env.step(np.stack([greedy.act(obs[0], mask[0]), np.zeros(1, np.int64)]))
        flight = env.snapshot(0)["players"][0]["in_flight"]
        if flight is not None:
            return clock, flight["lands_ms"]
    raise AssertionError("seat 0 never played")


def test_a_sleeping_bot_is_calibrated_within_tolerance_and_charged_exactly_that_constant():
    rules = speed_env.make_rules("us")
    found = calibrate("sleeper", Sleeper(rules).act, states.decision_states(rules, 24), warmup=2)
    assert SLEEP_MS <= found.think_ms <= SLEEP_MS + TOLERANCE_MS
    assert found.decisions == 24
    plan = ThinkPlan("calibrated", (("sleeper", found.think_ms),))
    charged = seat_profile(Sleeper(rules), "sleeper", fixed(100), plan)
    assert charged.mu == 100 + found.think_ms and charged.is_fixed
    # The engine lands the charged seat's card exactly the constant later (in whole ms).
    clock, base = first_landing(fixed(100))
    clock_charged, lands = first_landing(charged)
    assert clock_charged == clock
    assert lands - base == round(100 + found.think_ms) - 100 >= SLEEP_MS


def test_the_decision_states_are_the_same_every_time_and_count_as_stated():
    rules = speed_env.make_rules("us")
    obs, mask = states.decision_states(rules)
    again, again_mask = states.decision_states(rules)
    assert obs.shape[0] == states.COUNT == mask.shape[0]
    assert np.array_equal(obs, again) and np.array_equal(mask, again_mask)
    assert (mask.sum(axis=1) > 1).any()  # real choices among them, not only waits


def test_an_agent_too_slow_to_calibrate_is_named_with_the_time_it_took():
    rules = speed_env.make_rules("us")
    bot = Sleeper(rules, ms=30)
    with pytest.raises(ThinkError, match=r"agent 'slow' is too slow to calibrate: .* took 0\.\d s"):
        calibrate("slow", bot.act, states.decision_states(rules, 40), warmup=0, limit_s=0.1)


def test_a_spec_declares_its_thinking_cost_after_at():
    bot = agents.make("chain@pro@think=5ms")
    assert (bot.think_ms, bot.reaction.name) == (5.0, "pro")
    assert agents.make("greedy@think=0.25").think_ms == 0.25
    assert agents.parse_spec("greedy@think=2ms@casual").reaction.name == "casual"
    human = speed_env.make_profile("human")
    assert agents.seat_reaction(bot, human) == delayed(speed_env.make_profile("pro"), 5.0)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("chain@think=-1ms", "think=-1ms must be a number of ms >= 0"),
        ("chain@think=nan", "think=nan must be a number of ms >= 0"),
        ("chain@think=fast", "think=fast must be a number of ms >= 0"),
        ("chain@think=1@think=2", "declares its thinking cost twice"),
        ("search@think=3", "computes its own think_ms"),
    ],
)
def test_a_bad_declared_cost_is_refused_naming_the_spec(spec: str, words: str):
    with pytest.raises(AgentSpecError, match=words):
        agents.make(spec)


def test_a_think_ms_attribute_that_is_negative_or_not_a_number_is_refused():
    class Bot:
        think_ms: object = -3

    with pytest.raises(ThinkError, match="agent 'bot' declares think_ms, which must be"):
        declared_ms(Bot(), "bot")
    Bot.think_ms = "5"
    with pytest.raises(ThinkError, match="got '5'"):
        agents.seat_reaction(Bot(), fixed(100))


def test_declared_needs_every_agent_to_declare_and_calibrated_refuses_a_declaration():
    with pytest.raises(ThinkError, match="'greedy' declares no thinking cost"):
        check_agent(agents.make("greedy"), "greedy", "declared", False)
    check_agent(agents.make("greedy@think=0"), "greedy@think=0", "declared", True)
    check_agent(agents.make("search:worlds=2"), "search:worlds=2", "declared", False)  # has one
    with pytest.raises(ThinkError, match="--think calibrated times every agent"):
        check_agent(agents.make("chain@think=5"), "chain@think=5", "calibrated", True)
    slow = agents.make("search:worlds=2,ms_per_world=1")
    with pytest.raises(ThinkError, match=r"declares its own cost \(2 ms\)"):
        check_agent(slow, "search", "measured", False)


def test_a_calibration_file_for_another_kit_rules_or_agent_is_refused(tmp_path):
    rules = speed_env.make_rules("us")
    found = calibrate("greedy", agents.make("greedy").act, states.decision_states(rules, 8))
    data = record.make_record({"greedy": found}, rules)
    path = tmp_path / "think.json"
    path.write_text(json.dumps(data))
    assert record.read(str(path), ["greedy"], rules) == data
    plan = record.plan_of(data, ["greedy"])
    assert plan.cost("greedy") == found.think_ms and plan.to_dict()["repeatable"]
    with pytest.raises(ThinkError, match="has no calibration for agent 'chain'"):
        record.read(str(path), ["greedy", "chain"], rules)
    with pytest.raises(ThinkError, match="calibrated on other rules"):
        record.read(str(path), ["greedy"], speed_env.make_rules("japanese"))
    path.write_text(json.dumps({**data, "kit_version": "0.0.1"}))
    with pytest.raises(ThinkError, match=r"made by kit version '0.0.1', not this one"):
        record.read(str(path), ["greedy"], rules)
    path.write_text("{}")
    with pytest.raises(ThinkError, match="must be a JSON object with"):
        record.read(str(path), ["greedy"], rules)


def test_the_calibration_record_holds_the_machines_facts():
    rules = speed_env.make_rules("us")
    found = calibrate("greedy", agents.make("greedy").act, states.decision_states(rules, 8))
    machine = record.make_record({"greedy": found}, rules)["machine"]
    assert {"cpu", "cores", "load_1min", "platform", "python"} <= set(machine)
    assert machine["cores"] >= 1 and machine["cpu"]


def test_measured_charges_each_running_games_decision_its_own_time():
    from agents.think.measured import act_and_charge

    rules = speed_env.make_rules("us")
    obs, mask = states.decision_states(rules, 3)
    latency = np.tile(fixed(100).params(), (3, 1))
    slept = {0: 25.0, 2: 5.0}

    def act_row(i: int, o: np.ndarray, m: np.ndarray) -> np.ndarray:
        time.sleep(slept[i] / 1000)
        return np.array([7], np.int64)

    running = np.array([True, False, True])
    actions = act_and_charge(act_row, obs, mask, running, latency, fixed(100))
    assert actions.tolist() == [7, 0, 7]  # a finished game's seat waits, unasked
    assert latency[1, 1] == 100  # and is not charged
    for i, ms in slept.items():
        assert 100 + ms <= latency[i, 1] <= 100 + ms + TOLERANCE_MS
