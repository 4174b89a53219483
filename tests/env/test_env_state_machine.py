"""A refused call changes nothing, not even what comes later.

A Hypothesis state machine per env kind (parallel, AEC, ``SpeedGymEnv``,
``BatchEnv``, the vintage AEC env and ``VintageSingleEnv``; box and dict
observations, ``illegal_action`` wait and raise) interleaves valid calls
(seeded and unseeded resets, runs of legal steps) with calls the env must
refuse (bad deals, seeds and options, actions outside the space, illegal
actions under ``"raise"``, a finished agent given an action). Before each
refused call it takes a ``copy.deepcopy`` of the env; after it, the env and
that copy must hold the same game (tables, generators) and go on the same
way under the same calls: legal steps drawn from one generator, then an
unseeded reset (which reads the env's seed generator and, for the
single-seat envs, draws the learner's seat), then more steps. Observations,
rewards, flags and snapshots are compared call by call.

Before this machine was written it failed for ``parallel``/AEC (a refused
bad-deal reset reseeded, or drew from, the seed generator) and for
``SpeedGymEnv`` (the same, the learner's seat drawn too; and a refused
illegal action under ``"raise"`` had already advanced the opponent's
generator), and for ``VintageSingleEnv`` (a refused deal had drawn the seat
and reseeded); ``BatchEnv`` and the vintage AEC env passed. (A deal giving a
seat no cards, refused now, was accepted then.)

Example counts are kept small (the file runs in seconds); the examples are
derandomized, as in ``test_properties.py``, so CI runs the same ones.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from helpers_copy import (
    AECDriver,
    BatchDriver,
    Driver,
    GymDriver,
    ParallelDriver,
    VintageDriver,
    VintageSingleDriver,
    _aec_record,
    pick,
    plain,
)
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

import speed_env
from speed_env.vintage.single import VintageSingleEnv

SETTINGS = settings(
    max_examples=6,
    stateful_step_count=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


# ----------------------------------------------------------------- how to read a whole env


def _seeds_state(gen: Any) -> Any:
    """A generator's state (None before any reset)."""
    return None if gen is None else gen.bit_generator.state


class ParallelKind(ParallelDriver):
    def view(self, env: Any) -> Any:
        return plain([super().view(env), _seeds_state(env._seeds), env._cycles])


class AECKind(AECDriver):
    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if not env.agents:
            env.reset()
            return plain(env.last())
        _, _, term, trunc, _ = env.last()
        mask = env.unwrapped.action_mask(env.agent_selection)  # in either obs_format
        env.step(None if term or trunc else pick(rng, mask))
        return _aec_record(env)

    def view(self, env: Any) -> Any:
        return plain([super().view(env), _seeds_state(env.unwrapped._seeds)])


class GymKind(GymDriver):
    def view(self, env: Any) -> Any:
        return plain([super().view(env), env.snapshot()])


class BatchKind(BatchDriver):
    def view(self, env: Any) -> Any:
        return plain([super().view(env), _seeds_state(env._seeds), env._seed, env._restarts])


class VintageKind(VintageDriver):
    pass


class VintageSingleKind(VintageSingleDriver):
    def make(self) -> Any:
        return VintageSingleEnv(3, opponents=speed_env.RandomPolicy(4), **self.options)


def future(driver: Driver, env: Any) -> list[Any]:
    """What ``env`` is and does from now under a fixed run of calls (it is played on)."""
    rng = np.random.default_rng(7)
    record = [driver.view(env)]
    record += [driver.step(env, rng) for _ in range(12)]
    driver.reset(env, None)  # an unseeded reset reads the seed generator (and draws a seat)
    record.append(driver.view(env))
    record += [driver.step(env, rng) for _ in range(12)]
    record.append(driver.view(env))
    return record


# ----------------------------------------------------------------- calls that must be refused


@dataclass(frozen=True)
class Refusal:
    """A call that must raise ``error`` and change nothing."""

    name: str
    call: Callable[[Any], Any]
    error: type[BaseException]


def _bad_realtime_deals(rules: str) -> list[dict[str, Any]]:
    """Deals of ``rules`` that are refused: a card twice (one missing), a bad token, a seat
    dealt no cards at all."""
    good = speed_env.deal_from_seed(speed_env.make_rules(rules), 3).to_dict()
    twice = copy.deepcopy(good)
    twice["hands"][0][0] = twice["hands"][1][0]
    token = copy.deepcopy(good)
    token["draw_piles"][1][2] = "11S"
    empty = copy.deepcopy(good)
    empty["draw_piles"][1] = empty["draw_piles"][1] + empty["hands"][0] + empty["draw_piles"][0]
    empty["hands"][0], empty["draw_piles"][0] = [], []
    return [twice, token, empty]


BAD_VINTAGE_DEAL = {"hands": [["A1"], ["A1"], ["A2"]], "pack": [], "discard": []}


def _reset_refusals(deals: list[Any], reset: Callable[..., Any]) -> list[Refusal]:
    """Bad seeds, options and deals, seeded and not."""
    out = [
        Refusal("seed=-1", lambda env: reset(env, seed=-1), ValueError),
        Refusal("seed=1.5", lambda env: reset(env, seed=1.5), TypeError),
        Refusal("options='deal'", lambda env: reset(env, options="deal"), TypeError),
    ]
    for i, deal in enumerate(deals):
        out.append(
            Refusal(f"deal {i}", lambda env, d=deal: reset(env, options={"deal": d}), ValueError)
        )
        out.append(
            Refusal(
                f"seeded deal {i}",
                lambda env, d=deal: reset(env, seed=11, options={"deal": d}),
                ValueError,
            )
        )
    return out


def _reset(env: Any, **kwargs: Any) -> Any:
    return env.reset(**kwargs)


def _illegal_of(mask: np.ndarray) -> int | None:
    """An in-space action that is illegal under ``mask`` (None if every action is legal)."""
    zeros = np.flatnonzero(np.asarray(mask) == 0)
    return int(zeros[0]) if len(zeros) else None


def parallel_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    out = _reset_refusals(_bad_realtime_deals(rules), _reset)
    if not env.agents:  # the game is over
        return [*out, Refusal("step after the end", lambda e: e.step({}), RuntimeError)]
    n = env.games.n_actions
    out += [
        Refusal("out of space", lambda e: e.step({"player_0": n, "player_1": 0}), ValueError),
        Refusal("float action", lambda e: e.step({"player_0": 0, "player_1": 1.0}), ValueError),
        Refusal("unknown agent", lambda e: e.step({"player_2": 0}), ValueError),
    ]
    bad = _illegal_of(env.action_mask("player_1"))
    if raising and bad is not None:
        out.append(
            Refusal("illegal", lambda e: e.step({"player_0": 0, "player_1": bad}), ValueError)
        )
    return out


def aec_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    out = _reset_refusals(_bad_realtime_deals(rules), _reset)
    if not env.agents:
        return out
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return [*out, Refusal("action of a finished agent", lambda e: e.step(1), ValueError)]
    n = env.unwrapped.games.n_actions
    out += [
        Refusal("action out of space", lambda e: e.step(n), ValueError),
        Refusal("bool action", lambda e: e.step(True), ValueError),
    ]
    bad = _illegal_of(env.unwrapped.action_mask(agent))
    if raising and bad is not None:
        out.append(Refusal("illegal action", lambda e: e.step(bad), ValueError))
    return out


def gym_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    out = _reset_refusals(_bad_realtime_deals(rules), _reset)
    n = env.games.n_actions
    out += [
        Refusal("action out of space", lambda e: e.step(n), ValueError),
        Refusal("float action", lambda e: e.step(2.0), ValueError),
    ]
    bad = _illegal_of(env.action_masks())
    if raising and bad is not None and not env.games.over[0]:
        out.append(Refusal("illegal action", lambda e: e.step(bad), ValueError))
    return out


def batch_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    # A batch deals seeded games only: every deal is refused.
    good = speed_env.deal_from_seed(speed_env.make_rules(rules), 3).to_dict()
    out = _reset_refusals([good, *_bad_realtime_deals(rules)], _reset)
    shape = (2, env.n)
    out += [
        Refusal("wrong shape", lambda e: e.step(np.zeros((env.n, 2), np.int64)), ValueError),
        Refusal("out of space", lambda e: e.step(np.full(shape, e.n_actions)), ValueError),
        Refusal("float actions", lambda e: e.step(np.zeros(shape)), ValueError),
    ]
    _, mask = env.games.observe()
    bad = _illegal_of(mask[1, 0])
    if raising and bad is not None:
        actions = np.zeros(shape, np.int64)
        actions[1, 0] = bad
        out.append(Refusal("illegal action", lambda e: e.step(actions), ValueError))
    return out


def vintage_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    out = _reset_refusals([BAD_VINTAGE_DEAL], _reset)
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return out
    bad = _illegal_of(env.observe(agent)["action_mask"])
    out.append(Refusal("float action", lambda e: e.step(1.0), ValueError))
    if bad is not None:  # the vintage AEC env always refuses an illegal action
        out.append(Refusal("illegal action", lambda e: e.step(bad), ValueError))
    return out


def vintage_single_refusals(env: Any, raising: bool, rules: str) -> list[Refusal]:
    out = _reset_refusals([BAD_VINTAGE_DEAL], _reset)
    if env.table.game.over:
        return [*out, Refusal("step after the end", lambda e: e.step(0), RuntimeError)]
    out.append(Refusal("float action", lambda e: e.step(1.5), ValueError))
    bad = _illegal_of(env.action_masks())
    if raising and bad is not None:
        out.append(Refusal("illegal action", lambda e: e.step(bad), ValueError))
    return out


@dataclass(frozen=True)
class Kind:
    """One env kind under test: its driver, its refusals, and whether illegal actions raise."""

    driver: Driver
    refusals: Callable[[Any, bool, str], list[Refusal]]
    raising: bool = False
    rules: str = "us"


KINDS = {
    "parallel-dict": Kind(ParallelKind("p", {"reaction": 120}), parallel_refusals),
    "parallel-box-raise": Kind(
        ParallelKind("p", {"obs_format": "box", "illegal_action": "raise"}),
        parallel_refusals,
        raising=True,
    ),
    "aec-dict-raise": Kind(
        AECKind("a", {"rules": "japanese", "illegal_action": "raise"}),
        aec_refusals,
        raising=True,
        rules="japanese",
    ),
    "aec-box": Kind(AECKind("a", {"obs_format": "box", "max_cycles": 40}), aec_refusals),
    "gym-box-raise": Kind(
        GymKind("g", {"rules": "pagat", "illegal_action": "raise"}),
        gym_refusals,
        raising=True,
        rules="pagat",
    ),
    "gym-dict": Kind(GymKind("g", {"obs_format": "dict"}), gym_refusals),
    "batch-dict-raise": Kind(
        BatchKind("b", {"illegal_action": "raise"}), batch_refusals, raising=True
    ),
    "batch-box": Kind(BatchKind("b", {"obs_format": "box"}), batch_refusals),
    "vintage": Kind(VintageKind("v"), vintage_refusals),
    "vintage-single-raise": Kind(
        VintageSingleKind("vs", {"illegal": "raise"}), vintage_single_refusals, raising=True
    ),
}


# ----------------------------------------------------------------- the machine


class RefusalMachine(RuleBasedStateMachine):
    """Valid calls and refused ones on one env; a refused call must not change its future."""

    kind: Kind

    def __init__(self) -> None:
        super().__init__()
        self.env = self.kind.driver.make()
        self.kind.driver.reset(self.env, 0)

    @rule(seed=st.integers(0, 2**64 - 1))
    def reset_seeded(self, seed: int) -> None:
        self.kind.driver.reset(self.env, seed)

    @rule()
    def reset_unseeded(self) -> None:
        self.kind.driver.reset(self.env, None)

    @rule(steps=st.integers(1, 60), key=st.integers(0, 2**16))
    def play_legal(self, steps: int, key: int) -> None:
        rng = np.random.default_rng(key)
        for _ in range(steps):
            self.kind.driver.step(self.env, rng)

    @rule(data=st.data())
    def refused_call(self, data: st.DataObject) -> None:
        choices = self.kind.refusals(self.env, self.kind.raising, self.kind.rules)
        refusal = data.draw(st.sampled_from(choices), label="refused call")
        twin = copy.deepcopy(self.env)
        with pytest.raises(refusal.error):
            refusal.call(self.env)
        driver = self.kind.driver
        assert future(driver, self.env) == future(driver, twin), (
            f"{refusal.name} changed the env's future"
        )


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_refused_call_changes_nothing_not_even_what_comes_later(name: str) -> None:
    machine = type(f"RefusalMachine_{name}", (RefusalMachine,), {"kind": KINDS[name]})
    run_state_machine_as_test(machine, settings=SETTINGS)
