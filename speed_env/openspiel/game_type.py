"""What both OpenSpiel games declare alike: their ``pyspiel.GameType`` and their parameters."""

from __future__ import annotations

from typing import Any

import pyspiel


def game_type(
    short_name: str,
    long_name: str,
    *,
    dynamics: Any,
    utility: Any,
    players: tuple[int, int],
    params: dict[str, Any],
) -> pyspiel.GameType:
    """A kit game's type: explicit chance, imperfect information, terminal rewards, and every
    string and tensor view (the tensors are the kit's observation vectors)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players[1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def with_defaults(
    short_name: str, params: dict[str, Any], defaults: dict[str, Any]
) -> dict[str, Any]:
    """``params`` over ``defaults``; ValueError naming any parameter the game does not have."""
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ValueError(
            f"{short_name}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(defaults)}"
        )
    return {**defaults, **params}
