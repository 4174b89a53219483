"""The games, registered by name: :func:`load_game` and the agent specs of every game.

Each game's own module provides its :class:`~agents.tournament.game.Game` (``GAME``); this is
the one place that lists them (OpenSpiel registers its games in ``games/``, pgx in
``pgx.make``). A new game is a module beside the others and a line in :data:`GAMES`.

The agent specs of all games meet here too: :func:`make` builds the agent a spec names for the
game whose registry knows it (a user's agent, ``py:FILE:NAME``, is the first game's).
"""

from __future__ import annotations

import os

from agents.games import realtime, vintage
from agents.specs.registry import AgentSpec, BarePathError, bare_path_error
from agents.tournament.game import Game
from speed_env.policy import Policy
from speed_env.rules import Rules

GAMES: dict[str, Game] = {game.name: game for game in (realtime.GAME, vintage.GAME)}
"""Every game by its ``--game`` name; the first is the default."""

DEFAULT = next(iter(GAMES))
"""The default game's name (``--game``'s default)."""


class UnknownGameError(ValueError):
    """A game name no module registers; the message lists the games."""


def load_game(name: str) -> Game:
    """The game registered as ``name`` (``realtime``, ``vintage``)."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(f"no game {name!r}; games: {', '.join(GAMES)}") from None


def game_names() -> tuple[str, ...]:
    """The registered games' names, the default first."""
    return tuple(GAMES)


def game_of_spec(spec: str) -> Game:
    """The game whose agents ``spec`` names; the default game for a user's agent."""
    for game in GAMES.values():
        if game.knows(spec):
            return game
    return GAMES[DEFAULT]


def available() -> dict[str, str]:
    """The default game's agent names, a line each (each game's: ``load_game(name).available``)."""
    return GAMES[DEFAULT].available()


def parse_spec(spec: str) -> AgentSpec:
    """Split ``name[:arg][@reaction]``, by the registry of the game the name is an agent of;
    refuse unknown names and bad profiles. ``@K`` is a search agent's budget."""
    try:
        parsed: AgentSpec = game_of_spec(spec).parse_spec(spec)
    except BarePathError:  # a model file: each game's spelling of it
        kinds = [(g.model_kind, g.title) for g in GAMES.values() if g.model_kind is not None]
        raise bare_path_error(spec, kinds) from None
    return parsed


def make(
    spec: str, rules: str | os.PathLike[str] | Rules | None = None, seed: int | None = None
) -> Policy:
    """Build the agent a spec string names (its reaction profile is on ``.reaction``).

    A real-time agent plays ``rules`` (a preset name, a rules file or
    :class:`~speed_env.rules.Rules`; ``None``: ``us``). An agent of a game without rules
    objects refuses them.

    >>> import speed_env
    >>> bot = make("chain@pro", rules="us", seed=0)
    >>> bot.spec, bot.reaction.name
    ('chain@pro', 'pro')
    >>> obs, infos = speed_env.parallel_env("us").reset(seed=0)
    >>> seat = obs["player_0"]  # act() takes a batch: one row here
    >>> bot.act(seat["observation"][None], seat["action_mask"][None]).shape
    (1,)
    """
    parse_spec(spec)  # a bare model path is refused naming every game's spelling
    policy: Policy = game_of_spec(spec).make_agent(spec, rules, seed)
    return policy
