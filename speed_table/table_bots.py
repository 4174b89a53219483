"""The bots of a browser table, built once per page visit, and the files each was built from.

The files (``{path: SHA-256}``, as a tournament records an agent's) are what a play record
keeps of its opponent: provenance, never opened again.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import agents
from agents.evaluate.agent_files import built_with_files
from agents.specs.guarded import calling


def build_bots(cfg: Any) -> dict[int, Any]:
    """The bots of a table by seat, each with its reaction profile on ``.reaction`` (never None).

    ``cfg`` is the table's :class:`~speed_table.session.TableConfig`.
    """
    return built_bots(cfg)[0]


def built_bots(cfg: Any) -> tuple[dict[int, Any], dict[int, dict[str, str]]]:
    """:func:`build_bots`, and per seat the files each bot was built from (``{path: SHA-256}``).

    The files are what a play record keeps of its opponent (provenance, never opened again).
    """
    seats = list(range(1 if cfg.mode == "play" else 0, len(cfg.agents)))  # play: seat 0 is yours
    bots: dict[int, Any] = {}
    files: dict[int, dict[str, str]] = {}
    for seat in seats:
        spec = cfg.agents[seat]
        seed = None if cfg.seed is None else cfg.seed + 1000 * seat  # a stream per seat
        bot: Any
        with calling(spec, "building it", f"table seat {seat}"):
            bot, files[seat] = built_with_files(
                spec, partial(agents.make, spec, cfg.rules, seed=seed)
            )
        if getattr(bot, "reaction", None) is None:
            bot.reaction = cfg.reaction
        bots[seat] = bot
    return bots, files


__all__ = ["build_bots", "built_bots"]
