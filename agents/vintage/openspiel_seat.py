"""Any OpenSpiel bot as a seat at a vintage table: ``vintage-openspiel:BOT``.

The seat deals a world consistent with its observation
(:func:`speed_env.vintage.sample_world`) and asks the bot on ``python_vintage_speed``; how,
and why it plays fair: :mod:`agents.openspiel_bots`. ``BOT`` is one of :data:`BOTS`
(``random``; ``ismcts``, OpenSpiel's Python ``ISMCTSBot`` with its random rollout evaluator,
the same search as ``vintage-ismcts`` built through this route) or a user's
``package.module:FACTORY``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.openspiel_bots import BotFactory, checked, pyspiel_module, random_bot


def ismcts_bot(game: Any, player: int, seed: int) -> Any:
    """OpenSpiel's ISMCTS with vintage-ismcts's defaults (200 simulations, one rollout, uct_c 2)
    and its seeded resampler (OpenSpiel's own would draw from the machine's random device)."""
    from agents.vintage.ismcts import IsmctsSettings
    from agents.vintage.ismcts import ismcts_bot as seeded

    return seeded(game, IsmctsSettings(), seed)


BOTS: dict[str, BotFactory] = {"random": random_bot, "ismcts": ismcts_bot}
"""The OpenSpiel bots the vintage table offers by name."""


class VintageOpenSpielSeat:
    """A vintage :class:`~speed_env.policy.Policy` that asks a ``pyspiel.Bot``.

    How, and why it plays fair: the module docstring.
    """

    def __init__(self, factory: BotFactory, seed: int | None = None) -> None:
        self._pyspiel = pyspiel_module()
        self.factory = factory
        """Builds the bot for each table size."""
        self.rng = np.random.default_rng(seed)
        self._tables: dict[int, tuple[Any, Any]] = {}
        from speed_env.vintage.observation import ObservationLayout
        from speed_env.vintage.pack import default_pack

        self.layout = ObservationLayout(default_pack())
        """The vintage observation layout this seat reads (the default pack)."""

    def reseed(self, seed: int) -> None:
        """Restart the generator of the worlds shown to the bot (and the bot's seed): ``seed``."""
        self.rng = np.random.default_rng(seed)
        self._tables.clear()

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row: the bot's move in a world dealt from that row's observation."""
        from speed_env.vintage.worlds import sample_world

        obs = np.asarray(obs)
        if obs.ndim != 2 or obs.shape[1] != self.layout.size:
            raise ValueError(
                f"vintage-openspiel reads vintage observations shaped (n, {self.layout.size}); "
                f"got {obs.shape}"
            )
        out = np.zeros(len(obs), np.int64)
        for i, (row, legal_mask) in enumerate(zip(obs, np.asarray(mask), strict=True)):
            legal = [int(a) for a in np.flatnonzero(legal_mask)]
            if len(legal) == 1:  # no choice: no world dealt, no draw from the generator
                out[i] = legal[0]
                continue
            players = round(float(row[self.layout["seated"]].sum())) + 1  # the others, and me
            game, bot = self._table(players)
            world = sample_world(row, self.rng, rules=game.rules)
            out[i] = checked(int(bot.step(game.state_from_engine(world))), legal, "vintage")
        return out

    def _table(self, players: int) -> tuple[Any, Any]:
        if players not in self._tables:
            game = self._pyspiel.load_game("python_vintage_speed", {"players": players})
            # Player 0: a sampled world seats its observer at seat 0 (speed_env.vintage.worlds).
            self._tables[players] = (game, self.factory(game, 0, int(self.rng.integers(2**31))))
        return self._tables[players]
