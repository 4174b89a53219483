"""Real-time Speed for RLlib's multi-agent env runners: a game per env, or a batch on ``BatchEnv``.

Two ways to feed RLlib 2.60's ``MultiAgentEnvRunner`` (the ``[ray]`` extra):

- ``games``: RLlib's own ``ParallelPettingZooEnv`` around ``speed_env.parallel_env``,
  one game per env, ``num_envs_per_env_runner`` of them stepped one after the
  other by RLlib's ``SyncVectorMultiAgentEnv``.
- ``batch``: :class:`BatchVectorEnv`, a ``VectorMultiAgentEnv`` whose ``n`` games
  are one :class:`speed_env.batch.BatchEnv`, stepped together by the compiled
  batch engine; :class:`BatchEnvRunner` is the env runner that builds it.

Both give RLlib the same agents (``player_0``, ``player_1``), spaces (the
dict observation with its ``int8`` mask), rewards and episode ends. One
difference: RLlib resets a finished env on the *next* step (its
``next_step`` autoreset), while ``BatchEnv`` deals the next game at once; the
batch env therefore plays that next step as a wait for both seats of the new
game, so every game after a runner's first starts one tick in (no card can
land within a tick of the deal, so nothing else changes).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

import speed_env
from speed_env.batch import BatchEnv

AGENTS = ("player_0", "player_1")
ENV_NAME = "speed_v1"
"""The name the recipe registers its env creator under (``ray.tune.registry.register_env``)."""


def env_options(env_config: dict[str, Any]) -> dict[str, Any]:
    """``rules``, ``tick_ms`` and ``reaction`` from an RLlib ``env_config`` (else kit defaults)."""
    return {
        "rules": env_config.get("rules", "us"),
        "tick_ms": int(env_config.get("tick_ms", 50)),
        "reaction": env_config.get("reaction"),
    }


def make_game_env(env_config: dict[str, Any]) -> MultiAgentEnv:
    """One game: ``speed_env.parallel_env`` in RLlib's ``ParallelPettingZooEnv`` (games)."""
    opts = env_options(env_config)
    return ParallelPettingZooEnv(
        speed_env.parallel_env(opts["rules"], tick_ms=opts["tick_ms"], reaction=opts["reaction"])
    )


class _Spaces(MultiAgentEnv):
    """What RLlib asks of each sub-env of a vector env (its agents and spaces); never stepped."""

    def __init__(self, obs_space: gym.Space, act_space: gym.Space) -> None:
        super().__init__()
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.observation_spaces = dict.fromkeys(AGENTS, obs_space)
        self.action_spaces = dict.fromkeys(AGENTS, act_space)


class BatchVectorEnv(VectorMultiAgentEnv):
    """``n`` games of one ``BatchEnv`` as an RLlib ``VectorMultiAgentEnv`` (``next_step`` reset)."""

    def __init__(self, n: int, env_config: dict[str, Any]) -> None:
        super().__init__()
        opts = env_options(env_config)
        self.batch = BatchEnv(n, opts["rules"], tick_ms=opts["tick_ms"], reaction=opts["reaction"])
        self.num_envs = n
        obs_space: gym.Space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(0.0, 1.0, (self.batch.obs_dim,), np.float32),
                "action_mask": gym.spaces.Box(0, 1, (self.batch.n_actions,), np.int8),
            }
        )
        act_space: gym.Space = gym.spaces.Discrete(self.batch.n_actions)
        self.single_observation_spaces: dict[str, gym.Space] = dict.fromkeys(AGENTS, obs_space)
        self.single_action_spaces: dict[str, gym.Space] = dict.fromkeys(AGENTS, act_space)
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)
        # One stand-in n times: only its spaces are read, the batch env does the stepping.
        self.envs = [_Spaces(obs_space, act_space)] * n
        # Gymnasium's next_step autoreset: the step after an ending restarts the game
        # and its actions are ignored (_restarting).
        self.metadata = {"autoreset_mode": "next_step"}
        self._restarting = np.zeros(n, bool)
        # The mask of a finished game's last observation: only waiting (nothing is acted on it).
        self._wait_only = np.zeros(self.batch.n_actions, np.int8)
        self._wait_only[0] = 1

    def _obs(self, obs: np.ndarray, mask: np.ndarray, i: int) -> dict[str, dict[str, np.ndarray]]:
        return {
            # Copies: the batch env writes the same arrays again on the next step.
            a: {"observation": obs[s, i].copy(), "action_mask": mask[s, i].copy()}
            for s, a in enumerate(AGENTS)
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[list, list]:
        """Deal every game (game ``i`` seeded ``seed + i``)."""
        obs, mask = self.batch.reset(seed=seed)
        self._restarting[:] = False
        return [self._obs(obs, mask, i) for i in range(self.num_envs)], [
            {} for _ in range(self.num_envs)
        ]

    def step(self, actions: list[dict[str, Any]]) -> tuple[list, list, list, list, list]:
        """One tick of every game; a game that ended last step reports its restart instead."""
        a = np.zeros((2, self.num_envs), np.int64)
        for i, acts in enumerate(actions):
            if not self._restarting[i]:
                for s, agent in enumerate(AGENTS):
                    if agent in acts:
                        a[s, i] = int(acts[agent])
        obs, mask, rewards, term, trunc, info = self.batch.step(a)
        out_obs: list[dict[str, Any]] = []
        out_rew: list[dict[str, float]] = []
        out_term: list[dict[str, bool]] = []
        out_trunc: list[dict[str, bool]] = []
        out_info: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            if self._restarting[i] or not (term[i] or trunc[i]):
                out_obs.append(self._obs(obs, mask, i))
                done = False
            else:
                final = info["final_obs"]
                out_obs.append(
                    {
                        a_: {
                            "observation": final[s, i].copy(),
                            "action_mask": self._wait_only.copy(),
                        }
                        for s, a_ in enumerate(AGENTS)
                    }
                )
                done = True
            restarting = bool(self._restarting[i])
            out_rew.append(
                # The restart step is no move of the game: it pays nothing.
                {a_: 0.0 if restarting else float(rewards[s, i]) for s, a_ in enumerate(AGENTS)}
            )
            t, u = done and bool(term[i]), done and bool(trunc[i])
            out_term.append({**dict.fromkeys(AGENTS, t), "__all__": t})
            out_trunc.append({**dict.fromkeys(AGENTS, u), "__all__": u})
            out_info.append({})
        # A game that ended now restarts on the next step; one that restarted now is fresh.
        self._restarting = (term | trunc) & ~self._restarting
        return out_obs, out_rew, out_term, out_trunc, out_info

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


class BatchEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner over a :class:`BatchVectorEnv`.

    The batch holds ``num_envs_per_env_runner`` games.
    """

    def make_env(self) -> None:
        """Build the batch of games (instead of ``num_envs_per_env_runner`` separate envs)."""
        old: Any = getattr(self, "env", None)
        # make_env may be called again to rebuild: the old batch is closed first.
        if old is not None:
            old.close()
        vector: Any = BatchVectorEnv(
            self.config.num_envs_per_env_runner, dict(self.config.env_config)
        )
        self.env = vector
        self.num_envs = vector.num_envs
        self._needs_initial_reset = True
