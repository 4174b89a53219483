"""The training recipes, by game: the one place that lists them.

``speed train GAME`` runs the recipe registered here for ``GAME``: its module's ``train(cfg)``
with the settings dataclass named here, whose fields make the subcommand's flags
(:mod:`train.common.cli_args`). The recipes are named by module path, not imported, so reading
this table costs nothing (``speed --help`` does). A new game's recipe is a module in ``train/``
and a line in :data:`RECIPES`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Recipe:
    """A game's training recipe: where it lives and what ``speed train --help`` says of it."""

    module: str
    """The recipe's module (``train.ppo``): its ``train(cfg)`` runs it."""
    settings: str
    """The name of its settings dataclass in that module (the subcommand's flags)."""
    title: str
    """The game, as a sentence names it (``real-time Speed``)."""
    help: str
    """The subcommand's line in ``speed train --help``."""
    players: int | None = None
    """The seats of every table it trains at; ``None`` where ``--players`` sets them."""

    @property
    def path(self) -> str:
        """The recipe's file (``train/ppo.py``), as messages name it."""
        return self.module.replace(".", "/") + ".py"


RECIPES: dict[str, Recipe] = {
    "realtime": Recipe(
        module="train.ppo",
        settings="Config",
        title="real-time Speed",
        help="real-time Speed (train/ppo.py): the learner against bots, a mix or a self-play "
        "pool on the batched engine (--players 3|4: against bots); play the model with "
        "ppo:OUT/model.json",
    ),
    "vintage": Recipe(
        module="train.vintage_ppo",
        settings="VintageConfig",
        title="Vintage Speed",
        help="Vintage Speed (train/vintage_ppo.py): the learner at an N-player table; play the "
        "model with vintage-ppo:OUT/model.json",
    ),
}
"""Every game's recipe by its ``speed train`` subcommand; the first is the default game (the
older ``speed train FLAGS`` trains it)."""

DEFAULT = next(iter(RECIPES))
"""The game ``speed train FLAGS`` (no subcommand, no ``--game``) trains."""
