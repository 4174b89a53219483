"""Real-time Speed as a PettingZoo AEC env: the parallel env, one seat's turn at a time.

PettingZoo's ``parallel_to_aec`` converter collects both seats' actions and
steps the parallel env once the last seat has acted, so a bad action of
``player_0`` would be refused only on ``player_1``'s turn, blamed on the
wrong seat, and kept for every later step. :class:`SpeedAECEnv` checks each
action the moment it is given (the check every Speed env shares), so the
error names the agent that gave it and the env is left as it was. A
finished agent is stepped with ``None``; any other action for it is refused
the same way. :func:`as_aec` makes the AEC factory of a parallel env's factory
(``speed_env.env`` of ``parallel_env``, Party Speed's ``speed_env.party.env``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ParamSpec

from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from speed_env.game import ActionError, check_action

P = ParamSpec("P")


class RefusalSafeOrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, whose flags a refused call leaves as they were.

    PettingZoo's wrapper marks itself reset (and stepped) before it passes the call on, so a
    refused first ``reset`` would leave an env that says it was reset and was not.
    """

    _has_reset: bool
    _has_updated: bool

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the env; if it refuses, the wrapper still says whether it had been reset."""
        flags = (self._has_reset, self._has_updated)
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated = flags
            raise

    def step(self, action: Any) -> None:
        """Step the env; if it refuses, the wrapper's flags are left as they were."""
        flags = (self._has_reset, self._has_updated)
        try:
            super().step(action)
        except BaseException:
            self._has_reset, self._has_updated = flags
            raise


class SpeedAECEnv(parallel_to_aec_wrapper):
    """PettingZoo's parallel-to-AEC converter over ``SpeedParallelEnv`` (or Party Speed's
    ``PartyParallelEnv``, three or four seats); bad actions fail now."""

    def step(self, action: Any) -> None:
        """Take ``action`` for ``agent_selection``; a bad one is refused now, naming that agent."""
        agent = self.agent_selection
        live = not (self.terminations.get(agent) or self.truncations.get(agent))
        if not live and action is not None:
            # PettingZoo's converter would drop the agent's pending entry, then fail an assert.
            raise ActionError(
                f"{agent} has finished: step it with None (PettingZoo's convention), got {action!r}"
            )
        if live and action is not None:
            parallel = self.env.unwrapped  # two seats' SpeedParallelEnv or Party Speed's
            action = check_action(action, parallel.action_space(agent).n, agent)
            mask = parallel.action_mask(agent)  # in either obs_format
            if parallel.illegal_action == "raise" and mask[action] == 0:
                legal = [int(a) for a in mask.nonzero()[0]]
                raise ActionError(f"action {action} of {agent} is illegal now; legal: {legal}")
        super().step(action)


def as_aec(make_parallel: Callable[P, ParallelEnv]) -> Callable[P, AECEnv]:
    """The AEC factory over ``make_parallel``: the same arguments (for mypy, ``inspect`` and
    the docs alike), the parallel env it makes, one seat's turn at a time."""

    def env(*args: P.args, **kwargs: P.kwargs) -> AECEnv:
        """Real-time Speed as a PettingZoo AEC env (the parallel env, one seat's turn at a time).

        It takes the parallel env's arguments. Each tick becomes one AEC
        turn per seat, player_0 then player_1 (… ``player_{n-1}`` with
        ``players=n``); the tick is resolved once every seat has acted. An
        action is checked when it is given (:class:`speed_env.aec.SpeedAECEnv`).
        Wrapped in PettingZoo's
        ``OrderEnforcingWrapper``, as its own classic envs are, so calls out of
        order (``step`` before ``reset`` …) are refused (a subclass whose flags a
        refused call leaves unchanged: a refused first ``reset`` leaves the env
        unreset); ``env.unwrapped`` is the parallel env.
        """
        return RefusalSafeOrderEnforcing(SpeedAECEnv(make_parallel(*args, **kwargs)))

    signature = inspect.signature(make_parallel).replace(return_annotation=AECEnv)
    env.__signature__ = signature  # type: ignore[attr-defined]
    return env
