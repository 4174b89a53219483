"""The Vintage Speed pack: card kinds, tokens and the data file that defines them.

A pack is read from a TOML file (``pack.toml`` beside this module is the
default printing; its format is written at the top of that file) so a user
can replace the numbers with their own printing. Loading validates every
entry and refuses a bad one with a :class:`PackError` naming the file and
the entry.

Inside the engine a card is a *kind*, an integer index, and a hand is a
count per kind (two packs hold two copies of each card):

=================  ==============================================
kind               card
=================  ==============================================
0 … N-1            numbered cards, set by set in file order
                   (default: A1 … A9, T1 … T9, S1 … S8, M1 … M8,
                   H1/4 … H6/9; N = 40)
N (``pack.L``)     Lightning, token ``L``
N+1 (``pack.X``)   Extra Turn, token ``X``
=================  ==============================================

Tokens are the set letter and the number, ``A3``, or both numbers of a
two-number card, lower first: ``H2/5``. Parsing is case-insensitive and
accepts the pair either way round (``h5/2``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from speed_env.shown import shown
from speed_env.user_file import read_toml

DEFAULT_PACK_PATH = Path(__file__).with_name("pack.toml")
RESERVED_LETTERS = ("L", "X")
MAX_NUMBER = 99


class PackError(ValueError):
    """A pack file, or one of its entries, is not valid."""


class VintageCardError(ValueError):
    """A card token is not a card of the pack in use."""


@dataclass(frozen=True)
class Pack:
    """One printing of the Vintage Speed pack: its sets, cards and penalties.

    Build one with :func:`load_pack` (from a file) or :func:`pack_from_dict`;
    both validate. The derived tables (``tokens``, ``penalties`` …) are
    indexed by card kind.
    """

    name: str
    """Free text naming the printing."""
    set_letters: tuple[str, ...]
    """One capital letter per set, in file order (default ``A T S M H``)."""
    set_names: tuple[str, ...]
    """The sets' names (``Aeroplane`` …)."""
    numbers: tuple[tuple[int, ...], ...]
    """Numbers printed on each numbered kind (one, or two sorted ascending)."""
    kind_sets: tuple[int, ...]
    """Set index of each numbered kind."""
    lightning_count: int = 4
    """Lightning cards in one pack."""
    lightning_penalty: int = 15
    """Points against a player left holding a Lightning card."""
    extra_turn_count: int = 1
    """Extra Turn cards in one pack."""
    extra_turn_penalty: int = 20
    """Points against a player left holding the Extra Turn card."""
    source: str = field(default="<dict>", compare=False)
    """Where the pack came from (a file path), for error messages."""

    def __deepcopy__(self, memo: dict[int, object]) -> Pack:
        # Immutable, like a tuple: a copied env or search state shares it (copying its
        # cached tables made each copy of a game cost milliseconds).
        return self

    @cached_property
    def n_numbered(self) -> int:
        """Number of numbered kinds (40 in the default pack)."""
        return len(self.numbers)

    @cached_property
    def n_sets(self) -> int:
        """Number of sets (5 in the default pack)."""
        return len(self.set_letters)

    @cached_property
    def L(self) -> int:
        """Kind index of Lightning."""
        return self.n_numbered

    @cached_property
    def X(self) -> int:
        """Kind index of the Extra Turn card."""
        return self.n_numbered + 1

    @cached_property
    def n_kinds(self) -> int:
        """Number of card kinds: numbered kinds, Lightning and Extra Turn."""
        return self.n_numbered + 2

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        """Token of each kind (``A3``, ``H2/5``, ``L``, ``X``)."""
        numbered = (
            self.set_letters[s] + "/".join(str(n) for n in nums)
            for s, nums in zip(self.kind_sets, self.numbers, strict=True)
        )
        return (*numbered, "L", "X")

    @cached_property
    def penalties(self) -> tuple[int, ...]:
        """Points each kind counts against a player left holding it (the sum of its numbers)."""
        return (
            *(sum(nums) for nums in self.numbers),
            self.lightning_penalty,
            self.extra_turn_penalty,
        )

    @cached_property
    def copies(self) -> tuple[int, ...]:
        """Cards of each kind in one pack."""
        return (*([1] * self.n_numbered), self.lightning_count, self.extra_turn_count)

    @cached_property
    def set_of(self) -> tuple[int, ...]:
        """Set index of each kind; -1 for Lightning and Extra Turn."""
        return (*self.kind_sets, -1, -1)

    @cached_property
    def size(self) -> int:
        """Cards in one pack (45 by default)."""
        return sum(self.copies)

    @cached_property
    def matches(self) -> np.ndarray:
        """``matches[c, t]`` for numbered kinds: same set, or a number in common.

        This is the card data behind following (a Horse matches on either of
        its numbers); Lightning and Extra Turn are the engine's business.
        """
        n = self.n_numbered
        table = np.zeros((n, n), dtype=bool)
        for c in range(n):
            for t in range(n):
                same_set = self.kind_sets[c] == self.kind_sets[t]
                table[c, t] = same_set or bool(set(self.numbers[c]) & set(self.numbers[t]))
        table.flags.writeable = False
        return table

    @cached_property
    def followers_of(self) -> tuple[tuple[bool, ...], ...]:
        """``followers_of[t][c]`` is ``matches[c, t]`` as plain Python tuples, one per top card
        ``t`` (the scalar engine reads it per card, where numpy indexing is slow)."""
        n = self.n_numbered
        return tuple(tuple(bool(self.matches[c, t]) for c in range(n)) for t in range(n))

    @cached_property
    def _index(self) -> dict[str, int]:
        return {t: k for k, t in enumerate(self.tokens)}

    def cards(self, packs: int = 1) -> list[int]:
        """Every card of ``packs`` packs as kinds, in kind order."""
        return [k for k, c in enumerate(self.copies) for _ in range(c * packs)]

    def token(self, kind: int) -> str:
        """Token of card ``kind``."""
        return self.tokens[kind]

    def parse(self, token: str) -> int:
        """Kind of the card ``token`` (``A3``, ``h5/2``, ``L``); raises VintageCardError."""
        if not isinstance(token, str):
            raise VintageCardError(
                f"a card must be a token like 'A3' or 'H2/5', got {shown(token)}"
            )
        key = _canonical(token)
        kind = self._index.get(key)
        if kind is None:
            raise VintageCardError(
                f"{shown(token)} is not a card of the pack {self.name!r}; tokens are a set "
                f"letter ({', '.join(self.set_letters)}) and a number, e.g. "
                f"{self.tokens[0]!r} or {self.tokens[self.n_numbered - 1]!r}, or 'L', 'X'"
            )
        return kind

    def parse_many(self, tokens: Iterable[str] | str) -> list[int]:
        """Kinds of a list of tokens, or of one string of tokens separated by spaces/commas."""
        if isinstance(tokens, str):
            tokens = tokens.replace(",", " ").split()
        return [self.parse(t) for t in tokens]

    def set_index(self, letter: str) -> int:
        """Index of the set with ``letter``; raises VintageCardError for an unknown letter."""
        key = letter.strip().upper() if isinstance(letter, str) else letter
        if key not in self.set_letters:
            raise VintageCardError(
                f"{shown(letter)} is not a set of this pack; sets are {', '.join(self.set_letters)}"
            )
        return self.set_letters.index(key)


def _canonical(token: str) -> str:
    """Upper-case, no spaces, a pair's numbers ascending: the key tokens are looked up by."""
    text = token.strip().upper().replace(" ", "")
    if "/" in text and len(text) > 1:
        letter, rest = text[0], text[1:]
        parts = rest.split("/")
        if all(p.isdigit() for p in parts):
            return letter + "/".join(str(n) for n in sorted(int(p) for p in parts))
    if len(text) > 1 and text[1:].isdigit():
        return text[0] + str(int(text[1:]))
    return text


def load_pack(path: str | Path) -> Pack:
    """Read and validate a pack file (format: the comment atop ``pack.toml``)."""
    source = str(path)
    data = read_toml(Path(path), "pack file", PackError)
    return pack_from_dict(data, source=source)


@cache
def default_pack() -> Pack:
    """The default printing (``pack.toml`` beside this module), loaded once."""
    return load_pack(DEFAULT_PACK_PATH)


def resolve_pack(pack: Pack | str | Path | None) -> Pack:
    """A Pack from a Pack, a file path, or None for the default printing."""
    if pack is None:
        return default_pack()
    if isinstance(pack, Pack):
        return pack
    if isinstance(pack, str | Path):
        return load_pack(pack)
    raise PackError(f"pack must be a Pack, a path to a pack file, or None; got {pack!r}")


def pack_from_dict(data: dict[str, Any], source: str = "<dict>") -> Pack:
    """Validate the parsed contents of a pack file and build the Pack.

    Every error names ``source`` and the bad entry, e.g.
    ``my_pack.toml: sets[2] (Ship) cards[3]: ...``.
    """

    def fail(where: str, what: str) -> PackError:
        return PackError(f"{source}: {where}: {what}")

    allowed = {"name", "sets", "lightning", "extra_turn"}
    for key in data:
        if key not in allowed:
            raise fail(key, f"unknown key; a pack file holds {', '.join(sorted(allowed))}")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise fail("name", f"must be a non-empty string, got {name!r}")

    sets = data.get("sets")
    if not isinstance(sets, list) or not sets:
        raise fail("sets", "missing or empty; write one [[sets]] table per set")
    letters: list[str] = []
    names: list[str] = []
    numbers: list[tuple[int, ...]] = []
    kind_sets: list[int] = []
    for s, entry in enumerate(sets):
        where = f"sets[{s}]"
        if not isinstance(entry, dict):
            raise fail(where, "must be a table with letter, name and cards")
        for key in entry:
            if key not in ("letter", "name", "cards"):
                raise fail(f"{where}.{key}", "unknown key; a set holds letter, name and cards")
        letter = entry.get("letter")
        if not (isinstance(letter, str) and len(letter) == 1 and "A" <= letter <= "Z"):
            raise fail(f"{where}.letter", f"must be one capital letter A–Z, got {letter!r}")
        if letter in RESERVED_LETTERS:
            raise fail(
                f"{where}.letter", f"{letter!r} is reserved for Lightning (L) and Extra Turn (X)"
            )
        if letter in letters:
            raise fail(
                f"{where}.letter",
                f"{letter!r} is already the letter of sets[{letters.index(letter)}]",
            )
        set_name = entry.get("name")
        if not isinstance(set_name, str) or not set_name.strip():
            raise fail(f"{where}.name", f"must be a non-empty string, got {set_name!r}")
        where = f"{where} ({set_name})"
        cards = entry.get("cards")
        if not isinstance(cards, list) or not cards:
            raise fail(
                f"{where} cards", "missing or empty; list the numbers, e.g. cards = [1, 2, 3]"
            )
        seen: set[tuple[int, ...]] = set()
        for c, card in enumerate(cards):
            try:
                nums = _card_numbers(card)
            except ValueError as exc:
                raise fail(f"{where} cards[{c}]", str(exc)) from None
            if nums in seen:
                token = letter + "/".join(map(str, nums))
                raise fail(f"{where} cards[{c}]", f"{token} is listed twice; each card once")
            seen.add(nums)
            numbers.append(nums)
            kind_sets.append(s)
        letters.append(letter)
        names.append(set_name)

    specials: dict[str, tuple[int, int]] = {}
    for key in ("lightning", "extra_turn"):
        table = data.get(key)
        if not isinstance(table, dict):
            raise fail(
                key, f"missing; write [{key}] with count and penalty (count = 0 to leave it out)"
            )
        for sub in table:
            if sub not in ("count", "penalty"):
                raise fail(f"{key}.{sub}", "unknown key; this table holds count and penalty")
        values: list[int] = []
        for sub in ("count", "penalty"):
            value = table.get(sub)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 99:
                raise fail(f"{key}.{sub}", f"must be a whole number 0–99, got {value!r}")
            values.append(value)
        specials[key] = (values[0], values[1])

    return Pack(
        name=name.strip(),
        set_letters=tuple(letters),
        set_names=tuple(n.strip() for n in names),
        numbers=tuple(numbers),
        kind_sets=tuple(kind_sets),
        lightning_count=specials["lightning"][0],
        lightning_penalty=specials["lightning"][1],
        extra_turn_count=specials["extra_turn"][0],
        extra_turn_penalty=specials["extra_turn"][1],
        source=source,
    )


def _is_int(value: object) -> bool:
    # TOML booleans are Python bools, which are ints: refuse them explicitly.
    return isinstance(value, int) and not isinstance(value, bool)


def _card_numbers(card: object) -> tuple[int, ...]:
    """The sorted numbers of one ``cards`` entry, ``n`` or ``[a, b]``; ValueError says why not."""
    hint = "write a whole number 0–99, or a pair [a, b] of different numbers"
    if _is_int(card):
        nums: tuple[int, ...] = (card,)  # type: ignore[assignment]
    elif isinstance(card, list) and len(card) == 2 and all(_is_int(n) for n in card):
        if card[0] == card[1]:
            raise ValueError(f"{card!r} repeats a number; {hint}")
        nums = tuple(sorted(card))
    else:
        raise ValueError(f"{card!r} is not a card; {hint}")
    if not all(0 <= n <= MAX_NUMBER for n in nums):
        raise ValueError(f"{card!r} is out of range; {hint}")
    return nums
