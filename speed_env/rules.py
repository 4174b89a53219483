"""The rules of real-time Speed as one frozen value, its presets and loaders.

``Rules`` holds every option of ``docs/rules.md``. Build one with
:func:`make_rules` from a preset name (``us``, ``pagat``, ``japanese``), an
existing ``Rules``, or the path of a TOML file, plus keyword overrides::

    make_rules("japanese", jokers=True, play_out=True)
    make_rules("my_rules.toml")        # preset = "us" and any option keys

A TOML file holds top-level keys: ``preset`` (optional, default ``us``) and
any option below. Unknown keys and bad values are refused with a
:class:`RulesError` that names the key (and the file).

Decisions the rule sources leave open ([assumption] in ``docs/rules.md``) are
options here: ``stuck_countdown_ms``, ``idle_flip_ms``, ``reserve_rule`` and the
lock, and the play-out default flip; ``docs/rules.md`` lists them.

The variants of the US Speed seed (Party Speed): ``jokers`` as wild cards in
``us``/``pagat``, ``hand_size`` 3 … 7 in every preset, and ``players``: 3 and 4
in every preset (two decks, a centre pile per player; ``japanese`` one suit of both decks per
player; ``docs/rules.md``, "Party Speed"), played by the engine (:mod:`speed_env.seats`)::

    make_rules("us", jokers=True, hand_size=7)
    make_rules("pagat", players=4, jokers=True)
"""

from __future__ import annotations

import dataclasses
import numbers
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from speed_env.shown import shown
from speed_env.user_file import read_toml

PRESETS = ("us", "pagat", "japanese")
MAX_MS = 10**12
"""The largest value of any time option, in ms (about 31.7 years): far beyond any game,
and small enough that the engine's int64 clock plus a tick, a latency and a countdown
can never overflow (it would otherwise wrap, or loop for ever in compiled code)."""
JAPANESE_ONLY = ("play_out", "stack_layout", "multi_play")
HAND_SIZES = range(3, 8)
"""The hand sizes ``hand_size`` may take (3 … 7; the hand refills to it)."""
PLAYERS = (2, 3, 4)
"""The seat counts of ``players`` (docs/rules.md, "Party Speed")."""
PLAYABLE_PLAYERS = {"us": (2, 3, 4), "pagat": (2, 3, 4), "japanese": (2, 3, 4)}
"""The seat counts each preset can deal (docs/rules.md, "Party Speed"); any other is refused
naming the preset and the count."""
DEFAULT_HAND = {"us": 5, "pagat": 5, "japanese": 4}
"""Each preset's own hand/layout size: what ``hand_size = 0`` (the default) means."""
SEAT_CARDS = {"us": 20, "pagat": 15, "japanese": 26}
"""Cards each seat owns at the deal (hand/layout + draw pile/stock), jokers aside: a larger
hand is a shorter draw pile."""
RESERVE_RULES = ("rebuild", "lock")


class RulesError(ValueError):
    """A rules preset, option or file is not valid."""


@dataclass(frozen=True)
class Rules:
    """Every rule option of real-time Speed (docs/rules.md). Immutable and hashable."""

    preset: str = "us"
    """Deal: ``us`` (hand 5 + draw 15, side piles 5), ``pagat`` (hand 5 + draw 10,
    side piles 10) or ``japanese`` (one colour each: layout 4 + stock 22; with three or four
    players one suit of both decks each)."""
    wrap: bool = True
    """K–A–2 connect. Off: aces low only."""
    same_rank: bool = False
    """A card of the top card's rank may also be played."""
    jokers: bool = False
    """``us``/``pagat``: two jokers shuffled into the deck as wild cards (a joker goes on any
    centre pile, any card goes on a joker; each draw pile gets one more card).
    ``japanese``: each player shuffles one joker into their stock (that preset's own rule:
    only the player who put a joker down may cover it)."""
    play_out: bool = False
    """``japanese`` only: play on after the stock is empty until the layout is empty."""
    stack_layout: bool = False
    """``japanese`` only: two layout cards of one rank may be stacked (extra actions)."""
    multi_play: bool = False
    """``japanese`` only: several layout cards of one rank played in one move (extra actions)."""
    reserve_rule: str = "rebuild"
    """``us``/``pagat``: ``rebuild`` side piles from the centre piles when they run out,
    or ``lock`` the game as soon as they are empty. [assumption]"""
    stuck_countdown_ms: int = 1000
    """Time from the moment the table is stuck to the simultaneous flip. [assumption]"""
    idle_flip_ms: int = 5000
    """No card put on a centre pile (by play or flip) for this long in phase ``play``: the
    table goes on as when stuck (countdown, then flip), so no seat can stall a game to a
    draw by waiting. ``0`` turns it off. [assumption]"""
    match_target: int = 25
    """Match scoring (``us``/``pagat``): first to this many points wins the match."""
    max_game_ms: int = 300_000
    """A game still running at this clock is truncated (no winner, reward 0)."""
    hand_size: int = 0
    """Slots in a hand (``us``/``pagat``) or face-up layout (``japanese``): 3 … 7, refilled
    to it from the draw pile/stock, which holds the seat's other cards. ``0`` (the default)
    is the preset's own: 5, or 4 in ``japanese``."""
    players: int = 2
    """Seats at the table: 2, 3 or 4 (Party Speed, docs/rules.md: two decks, one centre pile
    and side pile per player; ``japanese``: one suit of both decks per player, no side piles)."""

    def __post_init__(self) -> None:
        if type(self.hand_size) is int and self.hand_size == 0 and self.preset in DEFAULT_HAND:
            # The preset's own size, stored so that ``rules.hand_size`` is always the size.
            object.__setattr__(self, "hand_size", DEFAULT_HAND[self.preset])
        check_rules(self)

    # Derived facts of the deal. They are properties, not fields, so a Rules
    # value can never hold sizes that disagree with its preset.
    @property
    def is_japanese(self) -> bool:
        """True for the ``japanese`` deal (layouts, own stocks, no side piles)."""
        return self.preset == "japanese"

    @property
    def draw_size(self) -> int:
        """Cards dealt to each player's draw pile / stock (before any opening flip): the seat's
        cards less its hand, plus one with jokers (``us`` 15, ``pagat`` 10, ``japanese`` 22)."""
        return SEAT_CARDS[self.preset] - self.hand_size + int(self.jokers)

    @property
    def side_size(self) -> int:
        """Cards in each side pile at the deal (0 in ``japanese``); with three or four players
        the cards no hand or draw pile takes, less the centre starts, split evenly."""
        if self.is_japanese:
            return 0
        if self.players == 2:
            return {"us": 5, "pagat": 10, "japanese": 0}[self.preset]
        return self._rest() // self.players

    @property
    def under_centre(self) -> int:
        """Cards dealt face up under the centre starts, one each from pile 0 on: what the side
        piles cannot split evenly (three players without jokers: 2; else 0)."""
        return 0 if self.players == 2 or self.is_japanese else self._rest() % self.players

    def _rest(self) -> int:
        """Cards left for the side piles and under the centre after hands, draws and starts."""
        return self.deck_size - self.players * (self.hand_size + self.draw_size + 1)

    @property
    def n_ranks(self) -> int:
        """Rank indices actions name: 13, or 14 with jokers (joker = 13)."""
        return 14 if self.jokers else 13

    @property
    def decks(self) -> int:
        """Standard decks shuffled together: 1 for two players, 2 for three or four."""
        return 1 if self.players == 2 else 2

    @property
    def deck_size(self) -> int:
        """Cards in the game: 52, or 54 with jokers, per deck (:attr:`decks`); ``japanese`` 26 a
        player, 27 with its joker (three players: the clubs and two jokers stay out)."""
        if self.is_japanese:
            return self.players * (SEAT_CARDS["japanese"] + int(self.jokers))
        return (54 if self.jokers else 52) * self.decks

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (checked like any other)."""
        return make_rules(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain JSON/TOML-ready dict.

        ``hand_size`` and ``players`` are left out at their defaults (the preset's hand, two
        seats), so the dict of every earlier game, and every file and hash made from it, is
        what it was before those options existed; ``Rules(**d)`` gives the same rules back.
        """
        out = dataclasses.asdict(self)
        if self.hand_size == DEFAULT_HAND[self.preset]:
            del out["hand_size"]
        if self.players == 2:
            del out["players"]
        return out


_FIELDS = {f.name: f for f in dataclasses.fields(Rules)}
_BOOL_FIELDS = {n for n, f in _FIELDS.items() if f.type in ("bool", bool)}
_INT_FIELDS = {n for n, f in _FIELDS.items() if f.type in ("int", int)}


def check_rules(rules: Rules) -> None:
    """Raise :class:`RulesError` naming the first option of ``rules`` that is not valid."""
    if rules.preset not in PRESETS:
        raise RulesError(
            f"unknown rules preset {shown(rules.preset)}; choose one of {', '.join(PRESETS)}"
        )
    for name in _BOOL_FIELDS:
        if not isinstance(getattr(rules, name), bool):
            raise RulesError(
                f"rule option {name!r} must be true or false, got {shown(getattr(rules, name))}"
            )
    for name in _INT_FIELDS:
        value = getattr(rules, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RulesError(
                f"rule option {name!r} must be a whole number >= 0, got {shown(value)}"
            )
    for name in TIME_OPTIONS:
        check_ms(name, getattr(rules, name), low=1 if name == "max_game_ms" else 0)
    if rules.match_target <= 0:
        raise RulesError("rule option 'match_target' must be > 0")
    if rules.reserve_rule not in RESERVE_RULES:
        raise RulesError(
            f"rule option 'reserve_rule' must be one of {', '.join(RESERVE_RULES)}, "
            f"got {shown(rules.reserve_rule)}"
        )
    if rules.hand_size not in HAND_SIZES:
        raise RulesError(
            f"rule option 'hand_size' must be {HAND_SIZES[0]} … {HAND_SIZES[-1]} "
            f"(or 0 for the preset's own, {DEFAULT_HAND[rules.preset]}), got {rules.hand_size}"
        )
    playable = PLAYABLE_PLAYERS[rules.preset]
    if rules.players not in playable:
        raise RulesError(
            f"rule option 'players' must be one of {', '.join(map(str, playable))}, "
            f"got {rules.players}: {rules.preset!r} cannot deal {rules.players} players "
            "(docs/rules.md, 'Party Speed')"
        )
    if not rules.is_japanese:
        for name in JAPANESE_ONLY:
            if getattr(rules, name):
                raise RulesError(
                    f"rule option {name!r} belongs to the 'japanese' preset, not {rules.preset!r}"
                )


TIME_OPTIONS = ("stuck_countdown_ms", "idle_flip_ms", "max_game_ms")
"""The rule options that are times in ms, each bounded by :func:`check_ms`."""


def check_ms(name: str, value: object, *, low: int = 0, high: int = MAX_MS) -> int:
    """``value`` as an int number of ms in ``[low, high]``, else a :class:`RulesError` on ``name``.

    Every time option the engine reads (rule options, ``tick_ms``) passes through here:
    numpy integers are taken, bools and fractions are not.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RulesError(
            f"option {name!r} must be a whole number of milliseconds, got {shown(value)}"
        )
    if not low <= int(value) <= high:
        raise RulesError(f"option {name!r} must be between {low} and {high} ms, got {int(value)}")
    return int(value)


def _check_keys(options: dict[str, Any], where: str) -> None:
    for key in options:
        if key not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise RulesError(f"unknown rule option {shown(key)}{where}; known options: {known}")


def load_rules_file(path: str | os.PathLike[str]) -> Rules:
    """Read a TOML rules file; errors name the file and the bad key."""
    p = Path(path)
    where = f" in {p}"
    data = read_toml(p, "rules file", RulesError)
    if "rules" in data and isinstance(data["rules"], dict) and len(data) == 1:
        data = data["rules"]  # a [rules] table is accepted too
    _check_keys(data, where)
    try:
        return Rules(**data)
    except RulesError as exc:
        raise RulesError(f"{exc}{where}") from None


def make_rules(rules: str | os.PathLike[str] | Rules = "us", **options: Any) -> Rules:
    """Build a :class:`Rules` from a preset name, a ``Rules``, or a TOML path, plus overrides.

    >>> rules = make_rules("japanese", jokers=True)
    >>> rules.preset, rules.jokers, rules.n_ranks
    ('japanese', True, 14)
    >>> make_rules("japanese", jokerz=True)
    Traceback (most recent call last):
    ...
    speed_env.rules.RulesError: unknown rule option 'jokerz'; known options: hand_size, ...
    """
    if isinstance(rules, Rules):
        base = rules
    elif isinstance(rules, str) and rules in PRESETS:
        base = None
        options = {"preset": rules, **options}
    elif isinstance(rules, (str, os.PathLike)) and (
        str(rules).endswith(".toml") or os.path.sep in str(rules) or Path(rules).exists()
    ):
        base = load_rules_file(rules)
    else:
        raise RulesError(
            f"unknown rules {shown(rules)}: give a preset ({', '.join(PRESETS)}), "
            "a Rules object, or a .toml file"
        )
    _check_keys(options, "")
    if base is None:
        return Rules(**options)
    # From the dict, not dataclasses.replace: a hand size the base took from its preset
    # (left out of the dict) follows a new preset instead of sticking.
    return Rules(**{**base.to_dict(), **options}) if options else base


def parse_overrides(pairs: Iterable[str], what: str = "--option") -> dict[str, Any]:
    """``KEY=VALUE`` texts as typed keyword overrides for :func:`make_rules`.

    ``true``/``false`` become bools, whole numbers ints, anything else stays text (the rules
    check each value by its option). ``what`` names the source in the error: the ``--option``
    flag of the ``speed`` commands, the ``options`` setting of a training run.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not key:
            raise RulesError(f"{what} takes KEY=VALUE, got {pair!r}")
        low = value.lower()
        if low in ("true", "false"):
            out[key] = low == "true"
        elif re.fullmatch(r"-?\d+", low):
            out[key] = int(low)
        else:
            out[key] = value
    return out
