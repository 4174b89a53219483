"""The options of Vintage Speed as one frozen value.

:func:`make_vintage_rules` builds a :class:`VintageRules` from ``num_players``,
``games`` and keyword options, refusing unknown options and bad values with
a :class:`VintageRulesError` that names the option. Each decision the 1930s
rulebook leaves open (an [assumption], :mod:`speed_env.vintage.aec`) is an option here or an
entry of the pack file (the card numbers, the Lightning penalty):

==========================  ========  ============================================
option                      default   meaning
==========================  ========  ============================================
``may_draw_when_able``      False     a player who can follow may draw instead
``rebuild_pack``            True      an empty pack is rebuilt from the discard
                                      pile except its top; off: a player who must
                                      draw from an empty pack passes
``cut_horse``               "lower"   the number a Horse (two-number card) counts
                                      in the cut for first dealer: ``lower`` or
                                      ``higher``
``first_dealer``            None      seat of the first dealer; None: cut for it
``max_turns``               2000      a game still running after this many turns
                                      is truncated (no winner, rewards 0)
``pack``                    None      a :class:`~speed_env.vintage.pack.Pack` or
                                      the path of a pack file; None: the default
==========================  ========  ============================================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from speed_env.vintage.pack import Pack, resolve_pack

MIN_PLAYERS = 2
MAX_PLAYERS = 10
CUT_HORSE = ("lower", "higher")


class VintageRulesError(ValueError):
    """An option of Vintage Speed is unknown or has a bad value."""


@dataclass(frozen=True)
class VintageRules:
    """Every option of Vintage Speed (rules in ``aec.py``). Immutable and hashable."""

    num_players: int = 4
    """Players at the table, 2–10, seated clockwise as ``player_0`` …"""
    games: int = 5
    """Games in a match; penalty points carry from game to game."""
    may_draw_when_able: bool = False
    """[assumption] A player who can follow may draw instead."""
    rebuild_pack: bool = True
    """[assumption] Rebuild an empty pack from the discard pile except its top."""
    cut_horse: str = "lower"
    """[assumption] Which number of a two-number card counts in the cut."""
    first_dealer: int | None = None
    """Seat of the first dealer of a match; None: cut for it."""
    max_turns: int = 2000
    """Turns after which a game is truncated."""
    pack: Pack = field(default_factory=lambda: resolve_pack(None))
    """The printing in use (one copy for 2–5 players, two for 6–10)."""

    def __post_init__(self) -> None:
        check_rules(self)

    def __deepcopy__(self, memo: dict[int, object]) -> VintageRules:
        # Frozen and holding only immutable values: a copied game shares it.
        return self

    @property
    def packs(self) -> int:
        """Copies of the pack in play: 1 for 2–5 players, 2 for 6–10."""
        return 1 if self.num_players <= 5 else 2

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: 6 for 2–3 players, 5 for 4–5, 6 for 6–10."""
        return 5 if self.num_players in (4, 5) else 6

    @property
    def total_cards(self) -> int:
        """Cards in play: one pack, or two for 6–10 players."""
        return self.pack.size * self.packs


def check_rules(rules: VintageRules) -> None:
    """Raise VintageRulesError naming the first option with a bad value."""

    def bad(name: str, what: str) -> VintageRulesError:
        return VintageRulesError(f"option {name}={getattr(rules, name)!r}: {what}")

    def is_int(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(rules.num_players) or not MIN_PLAYERS <= rules.num_players <= MAX_PLAYERS:
        raise bad("num_players", f"must be a whole number {MIN_PLAYERS}–{MAX_PLAYERS}")
    if not is_int(rules.games) or rules.games < 1:
        raise bad("games", "must be a whole number of games, at least 1")
    for name in ("may_draw_when_able", "rebuild_pack"):
        if not isinstance(getattr(rules, name), bool):
            raise bad(name, "must be True or False")
    if rules.cut_horse not in CUT_HORSE:
        raise bad("cut_horse", f"must be one of {', '.join(CUT_HORSE)}")
    if rules.first_dealer is not None and (
        not is_int(rules.first_dealer) or not 0 <= rules.first_dealer < rules.num_players
    ):
        raise bad("first_dealer", f"must be None (cut) or a seat 0–{rules.num_players - 1}")
    if not is_int(rules.max_turns) or rules.max_turns < 1:
        raise bad("max_turns", "must be a whole number, at least 1")
    if not isinstance(rules.pack, Pack):
        raise bad("pack", "must be a Pack (make_vintage_rules also takes a path)")


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(VintageRules))


def make_vintage_rules(num_players: int = 4, games: int = 5, **options: Any) -> VintageRules:
    """A validated VintageRules; ``pack`` may be a Pack, a file path, or None."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise VintageRulesError(
            f"unknown option(s) {', '.join(unknown)}; Vintage Speed options are "
            f"{', '.join(n for n in OPTION_NAMES if n not in ('num_players', 'games'))}"
        )
    pack = options.pop("pack", None)
    if pack is None or isinstance(pack, str | Path):
        pack = resolve_pack(pack)
    return VintageRules(num_players=num_players, games=games, pack=pack, **options)
