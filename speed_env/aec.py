"""Real-time Speed as a PettingZoo AEC env: the parallel env, one seat's turn at a time.

PettingZoo's ``parallel_to_aec`` converter collects both seats' actions and
steps the parallel env once the last seat has acted, so a bad action of
``player_0`` would be refused only on ``player_1``'s turn, blamed on the
wrong seat, and kept for every later step. :class:`SpeedAECEnv` checks each
action the moment it is given (the check every Speed env shares), so the
error names the agent that gave it and the env is left as it was. A
finished agent is stepped with ``None``; any other action for it is refused
the same way.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from speed_env.game import ActionError, check_action


class SpeedAECEnv(parallel_to_aec_wrapper):
    """PettingZoo's parallel-to-AEC converter over ``SpeedParallelEnv``; bad actions fail now."""

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
            games = self.env.unwrapped.games
            action = check_action(action, games.n_actions, agent)
            mask = self.env.unwrapped.action_mask(agent)  # in either obs_format
            if games.illegal_action == "raise" and mask[action] == 0:
                legal = [int(a) for a in mask.nonzero()[0]]
                raise ActionError(f"action {action} of {agent} is illegal now; legal: {legal}")
        super().step(action)
