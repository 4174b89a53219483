"""Drivers that play any of the kit's envs the same way, for the copy tests.

A driver builds an env, resets it, takes one step with actions drawn from a
given generator over the legal ones (resetting, unseeded, when the episode is
over, so later games come from the env's own seed generator), and reads a
plain view of the whole game (tables, whose turn, generators' states). Two
envs holding the same game, driven with generators of the same seed, give
the same records step after step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import speed_env
from speed_env.policy import RandomPolicy
from speed_env.vintage import env as vintage_env
from speed_env.vintage.single import VintageSingleEnv


def plain(x: Any) -> Any:
    """``x`` with numpy arrays and scalars made lists and Python numbers (comparable by ``==``)."""
    if isinstance(x, np.ndarray):
        if x.dtype.names:  # a structured array (the engine's state): field by field
            return {name: x[name].tolist() for name in x.dtype.names}
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal action drawn with ``rng``."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


@dataclass
class Driver:
    """How to build, reset, step and read one kind of env."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def make(self) -> Any:
        raise NotImplementedError

    def reset(self, env: Any, seed: int | None) -> None:
        env.reset(seed=seed)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def view(self, env: Any) -> Any:
        raise NotImplementedError

    def over(self, env: Any) -> bool:
        raise NotImplementedError


class ParallelDriver(Driver):
    def make(self) -> Any:
        return speed_env.parallel_env(**self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if not env.agents:
            obs, infos = env.reset()
            return plain(obs)
        _, mask = env.unwrapped.games.observe()
        actions = {a: pick(rng, mask[p, 0]) for p, a in enumerate(env.agents)}
        return plain(env.step(actions))

    def view(self, env: Any) -> Any:
        return plain([env.table(), env.snapshot(), env.agents, env.games.state])

    def over(self, env: Any) -> bool:
        return not env.agents


def _aec_record(env: Any) -> Any:
    """Whose turn, who plays on, and what every agent left would read with ``last()``."""
    seen = {
        a: [env.observe(a), env.rewards[a], env.terminations[a], env.truncations[a], env.infos[a]]
        for a in env.agents
    }
    return plain([env.agent_selection, env.agents, seen])


class AECDriver(Driver):
    def make(self) -> Any:
        return speed_env.env(**self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if not env.agents:
            env.reset()
            return plain(env.last())
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(rng, obs["action_mask"]))
        return _aec_record(env)

    def view(self, env: Any) -> Any:
        u = env.unwrapped
        return plain([u.table(), u.games.state, _aec_record(env)])

    def over(self, env: Any) -> bool:
        return not env.agents


class GymDriver(Driver):
    def make(self) -> Any:
        return speed_env.SpeedGymEnv(opponent=RandomPolicy(5), **self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if self.over(env):
            return plain(env.reset())
        return plain(env.step(pick(rng, env.action_masks())))

    def view(self, env: Any) -> Any:
        return plain(
            [
                env.games.table(0),
                env.games.state,
                env.seat,
                env.np_random.bit_generator.state,
                env.opponent.rng.bit_generator.state,
            ]
        )

    def over(self, env: Any) -> bool:
        return bool(env.games.state["phase"][0] == 2)


class BatchDriver(Driver):
    def make(self) -> Any:
        return speed_env.BatchEnv(3, **self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        _, mask = env.games.observe()
        actions = np.array([[pick(rng, mask[p, i]) for i in range(env.n)] for p in range(2)])
        return plain(env.step(actions))

    def view(self, env: Any) -> Any:
        return plain([[env.table(i) for i in range(env.n)], env.games.state])

    def over(self, env: Any) -> bool:
        return bool(env._restarts.any())  # a game ended (and restarted at once)


class VintageDriver(Driver):
    def make(self) -> Any:
        return vintage_env(num_players=3, games=2, **self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if self.over(env):
            env.reset(options={"next_game": True})
            return plain(env.unwrapped.snapshot())
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else pick(rng, obs["action_mask"]))
        return _aec_record(env)

    def view(self, env: Any) -> Any:
        u = env.unwrapped
        return plain([u.snapshot(), _aec_record(env), u._rng.bit_generator.state])

    def over(self, env: Any) -> bool:
        return all(env.terminations.values()) or all(env.truncations.values())


class VintageSingleDriver(Driver):
    def make(self) -> Any:
        return VintageSingleEnv(3, opponents=RandomPolicy(4), **self.options)

    def step(self, env: Any, rng: np.random.Generator) -> Any:
        if self.over(env):
            return plain(env.reset())
        return plain(env.step(pick(rng, env.action_masks())))

    def view(self, env: Any) -> Any:
        return plain(
            [
                env.snapshot(),
                env.seat,
                env.np_random.bit_generator.state,
                env.opponents[0].rng.bit_generator.state,
            ]
        )

    def over(self, env: Any) -> bool:
        return env.table.game.over


DRIVERS = [
    ParallelDriver("parallel", {"reaction": 200}),  # fixed and equal: landing ties happen
    AECDriver("aec", {"rules": "japanese"}),
    GymDriver("gym", {"rules": "pagat"}),
    BatchDriver("batch"),
    VintageDriver("vintage"),
    VintageSingleDriver("vintage-single"),
]
