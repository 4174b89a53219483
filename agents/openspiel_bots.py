"""Any OpenSpiel bot (``pyspiel.Bot``) as a seat in the kit's tournaments and evaluations.

Specs: ``openspiel:BOT`` (real-time Speed, on ``python_speed``; another game's room names
its own spec and seat: :mod:`agents.vintage.openspiel_seat`), where ``BOT`` is

- ``random``: OpenSpiel's uniform random bot (``pyspiel.make_uniform_random_bot``), in
  every game;
- a bot a game offers by name (:data:`REALTIME_BOTS` here; each game's seat lists its own);
- ``package.module:NAME``: a factory ``NAME(game, player, seed) -> pyspiel.Bot``
  importable from the Python path (``my_bots:make_bot``).

A kit seat sees only ``act(obs, mask)``. To ask an OpenSpiel bot, the seat
deals a complete state consistent with that observation with the game's fair
world sampler (:func:`speed_env.worlds.sample_worlds` here: hidden cards uniform over the
unseen ones) and calls ``bot.step`` on it. A bot that reads the whole state sees one
such world, never the true hidden cards, so every OpenSpiel bot plays fair by
construction. The bot is asked as the seat whose view the world was dealt
from and gets a fresh state every decision, so a bot that keeps a history
across ``step`` calls sees each decision as a new game.

Needs the ``[openspiel]`` extra; imported only when such a spec is built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.errors import AgentSpecError

BotFactory = Callable[[Any, int, int], Any]
"""``factory(game, player, seed) -> pyspiel.Bot``."""


def pyspiel_module() -> Any:
    """``pyspiel`` with the kit's games registered; refused, naming the extra, without it."""
    try:
        import pyspiel

        import speed_env.openspiel  # noqa: F401  (registers the kit's games)
    except ImportError as exc:
        raise AgentSpecError(
            f"OpenSpiel bots need OpenSpiel ({exc.name or exc}): pip install 'speed-rl[openspiel]'"
        ) from None
    return pyspiel


def random_bot(game: Any, player: int, seed: int) -> Any:
    """OpenSpiel's uniform random bot: the ``random`` every game offers."""
    return pyspiel_module().make_uniform_random_bot(player, seed)


def bot_factory(arg: str, builtins: dict[str, BotFactory], game: str) -> BotFactory:
    """The factory a spec's ``BOT`` names: one of ``builtins`` (the bots ``game``, in words,
    offers by name) or a user's ``package.module:FACTORY``."""
    if arg in builtins:
        return builtins[arg]
    module_name, sep, name = arg.partition(":")
    if not sep or not module_name or not name:
        raise AgentSpecError(
            f"unknown OpenSpiel bot {arg!r} for {game}; give one of {', '.join(builtins)} or "
            "package.module:FACTORY (FACTORY(game, player, seed) returns a pyspiel.Bot)"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentSpecError(
            f"OpenSpiel bot {arg!r}: cannot import {module_name!r}: {exc}"
        ) from None
    found = getattr(module, name, None)
    if not callable(found):
        raise AgentSpecError(
            f"OpenSpiel bot {arg!r}: module {module_name!r} has no callable {name!r} "
            "(a factory(game, player, seed) returning a pyspiel.Bot)"
        )
    user: BotFactory = found
    return user


class RealtimeOpenSpielSeat:
    """A real-time :class:`~speed_env.policy.Policy` that asks a ``pyspiel.Bot``.

    The bot is shown ``python_speed`` states rebuilt from each observation; how, and why it
    plays fair: the module docstring.
    """

    def __init__(self, rules: Any, factory: BotFactory, seed: int | None = None) -> None:
        self._pyspiel = pyspiel_module()
        from speed_env.openspiel.realtime_game import options_string

        self.rules = rules
        """The rules the seat plays (the game's parameters come from them)."""
        self.rng = np.random.default_rng(seed)
        self.game = self._pyspiel.load_game(
            "python_speed", {"preset": rules.preset, "options": options_string(rules)}
        )
        """The ``python_speed`` game the bot is shown states of."""
        seed0 = int(self.rng.integers(2**31))
        # A world keeps the observer at its own seat (the observation says which), so the bot
        # is built for each seat and asked as the one whose view the world was dealt from.
        self.bots = [factory(self.game, seat, seed0 + seat) for seat in (0, 1)]
        """The OpenSpiel bot for each seat of the rebuilt states."""

    def reseed(self, seed: int) -> None:
        """Restart the generator of the worlds shown to the bot from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row: the bot's move in a world rebuilt from that row's observation."""
        from speed_env.worlds import sample_worlds

        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask)
        out = np.zeros(len(obs), np.int64)
        # A seed for every row up front: a row's world does not hang on which rows had a choice.
        seeds = self.rng.integers(2**62, size=len(obs))
        for i in range(len(obs)):
            legal = [int(a) for a in np.flatnonzero(mask[i])]
            if len(legal) == 1:
                out[i] = legal[0]
                continue
            world = sample_worlds(self.rules, obs[i : i + 1], 1, seed=int(seeds[i]))
            state = self.game.state_from_world(world[0])
            seat = next(
                (p for p in (0, 1) if np.array_equal(state.observation_tensor(p), obs[i])), None
            )
            if seat is None:  # pragma: no cover - the sampler's worlds observe back exactly
                raise ValueError("a world sampled from this observation does not observe it back")
            out[i] = checked(int(self.bots[seat].step(state)), legal, "real-time")
        return out


REALTIME_BOTS: dict[str, BotFactory] = {"random": random_bot}
"""The OpenSpiel bots real-time Speed offers by name."""


def checked(action: int, legal: list[int], game: str) -> int:
    """``action``, refused (naming ``game`` and the legal actions) where it is not legal."""
    if action not in legal:
        raise ValueError(
            f"the OpenSpiel bot chose {action}, not a legal {game} action here (legal: {legal})"
        )
    return action
