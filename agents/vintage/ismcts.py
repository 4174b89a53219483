"""``vintage-ismcts``: OpenSpiel's information-set MCTS playing Vintage Speed, fairly.

OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``)
searches one tree over information states, drawing a world for each
simulation from :meth:`~speed_env.openspiel.vintage_game.VintageSpeedState.resample_from_infostate`,
which deals the hidden cards with the kit's fair sampler
(:func:`speed_env.vintage.sample_world`) from the acting seat's observation.
The agent is a plain vintage :class:`~speed_env.policy.Policy`: from each
observation it deals one such world to start from, and the search never sees
anything else, so it is fair by construction. Every draw (the starting world,
the search's choices and rollouts, each simulation's world) comes from the
agent's seed (:func:`ismcts_bot`): the same seed plays the same games.

Spec: ``vintage-ismcts[:simulations=N,rollouts=R,uct_c=C,infer=0|1]``

==============  =======  ===================================================
option          default  meaning
==============  =======  ===================================================
``simulations`` 200      simulations per decision (each on a fresh world)
``rollouts``    1        random rollouts per leaf (OpenSpiel's evaluator)
``uct_c``       2.0      UCT exploration constant
``infer``       0        1: worlds also use what the stuck seats reveal
                         (``sample_world(infer=True)``)
==============  =======  ===================================================

Needs the ``[openspiel]`` extra (``open-spiel``); imported only when built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from speed_env.vintage.observation import ObservationLayout
from speed_env.vintage.pack import default_pack
from speed_env.vintage.worlds import sample_world

OPTIONS = ("simulations", "rollouts", "uct_c", "infer")
"""The spec's option names."""


@dataclass(frozen=True)
class IsmctsSettings:
    """The search's settings (module docstring)."""

    simulations: int = 200
    """Simulations per decision."""
    rollouts: int = 1
    """Random rollouts per leaf."""
    uct_c: float = 2.0
    """UCT exploration constant."""
    infer: bool = False
    """Worlds use what the stuck seats reveal."""


def parse_settings(arg: str) -> IsmctsSettings:
    """Settings from a spec's ``simulations=…,rollouts=…`` argument; ValueError names a bad one."""
    values: dict[str, Any] = {}
    for item in filter(None, arg.split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in OPTIONS:
            raise ValueError(
                f"bad option {item!r}; give simulations=N, rollouts=N, uct_c=NUMBER, infer=0|1"
            )
        if key in ("simulations", "rollouts"):
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"{key} must be a whole number, at least 1; got {value!r}")
            values[key] = int(value)
        elif key == "uct_c":
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"uct_c must be a number; got {value!r}") from None
            if not np.isfinite(values[key]) or values[key] < 0:
                raise ValueError(f"uct_c must be a finite number >= 0; got {value!r}")
        else:
            if value not in ("0", "1"):
                raise ValueError(f"infer must be 0 or 1; got {value!r}")
            values[key] = value == "1"
    return IsmctsSettings(**values)


def ismcts_bot(game: Any, settings: IsmctsSettings, seed: int) -> Any:
    """OpenSpiel's ``ISMCTSBot`` on a ``python_vintage_speed`` ``game``, every draw from ``seed``.

    Two generators, both derived from ``seed``: the search's (tree policy, chance
    outcomes, the rollouts) and the worlds' (the sampler handed to
    ``resample_from_infostate``, which seeds the kit's world sampler). What
    ``vintage-ismcts`` builds for each decision and ``vintage-openspiel:ismcts``
    for each table.
    """
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    # Independent streams: RandomState(s) and the C++ sampler seeded s are both a Mersenne
    # twister seeded alike, so one seed for both would tie the worlds to the search's choices.
    # 31 bits: the C++ sampler's seed is a signed 32-bit int.
    search_seed, world_seed = (
        int(v) & 0x7FFFFFFF for v in np.random.SeedSequence(seed).generate_state(2)
    )
    search_rng = np.random.RandomState(search_seed)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(settings.rollouts, search_rng),
        settings.uct_c,
        settings.simulations,
        random_state=search_rng,
    )
    # Without a resampler of its own the bot redeals each simulation's world with
    # UniformProbabilitySampler(0, 1), seeded from the machine's random device: a search
    # that plays differently every run whatever the seed.
    sampler = pyspiel.UniformProbabilitySampler(world_seed, 0.0, 1.0)
    infer = settings.infer
    bot.set_resampler(
        lambda state, player: state.resample_from_infostate(player, sampler, infer=infer)
    )
    return bot


class VintageIsmcts:
    """A vintage :class:`~speed_env.policy.Policy` that chooses by OpenSpiel's ISMCTS.

    The module docstring tells how it stays fair and what its spec's options are.
    """

    def __init__(self, settings: IsmctsSettings | None = None, seed: int | None = None) -> None:
        import pyspiel

        import speed_env.openspiel  # noqa: F401  (registers python_vintage_speed)

        self.settings = settings or IsmctsSettings()
        """The search's settings."""
        self.rng = np.random.default_rng(seed)
        self._pyspiel = pyspiel
        self._games: dict[int, Any] = {}
        self.layout = ObservationLayout(default_pack())
        """The observation layout this agent reads (the default pack)."""

    def reseed(self, seed: int) -> None:
        """Restart the agent's generator (worlds and the search's own draws) from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row, each chosen by a search of its own."""
        obs = np.asarray(obs)
        mask = np.asarray(mask)
        if obs.ndim != 2 or obs.shape[1] != self.layout.size:
            raise ValueError(
                f"vintage-ismcts reads vintage observations of {self.layout.size} entries "
                f"(default pack), shaped (n, {self.layout.size}); got {obs.shape}"
            )
        return np.array([self.choose(o, m) for o, m in zip(obs, mask, strict=True)], np.int64)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The action ISMCTS picks for the seat whose observation is ``obs``."""
        legal = [int(a) for a in np.flatnonzero(mask)]
        if len(legal) == 1:
            return legal[0]
        # ``seated`` marks the other players at the table; one more for this seat.
        players = round(float(obs[self.layout["seated"]].sum())) + 1
        game = self._game(players)
        # The starting world is one fair deal of the hidden cards; every simulation redeals
        # them from the same observation (the state's resample_from_infostate).
        world = sample_world(obs, self.rng, rules=game.rules, infer=self.settings.infer)
        state = game.state_from_engine(world)
        # A fresh bot per decision, seeded from the agent's generator: every decision draws
        # anew, and the same agent seed still plays the same games.
        bot = ismcts_bot(game, self.settings, int(self.rng.integers(2**31)))
        action = int(bot.step(state))
        if action not in legal:  # pragma: no cover - the world's legal moves are the seat's
            raise RuntimeError(f"vintage-ismcts chose {action}, not among the legal {legal}")
        return action

    def _game(self, players: int) -> Any:
        if players not in self._games:
            self._games[players] = self._pyspiel.load_game(
                "python_vintage_speed", {"players": players}
            )
        return self._games[players]
