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


MAX_GAME_LENGTH = 2**31 - 1
"""OpenSpiel keeps a game's length in a C++ ``int``: a longer game cannot be declared."""


def int_param(short_name: str, params: dict[str, Any], name: str, low: int, high: int) -> int:
    """``params[name]`` as an int in ``[low, high]``; ValueError naming the parameter otherwise
    (a bool or a float is not a whole number here, as it is not in OpenSpiel's game strings)."""
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{short_name}: parameter {name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(
            f"{short_name}: parameter {name} must be between {low} and {high}, got {value}"
        )
    return value
