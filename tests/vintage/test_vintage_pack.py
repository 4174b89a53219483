"""The pack data file: the default printing, tokens, and validation errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from speed_env.vintage import PackError, VintageCardError, default_pack, load_pack, raw_env
from speed_env.vintage.pack import DEFAULT_PACK_PATH

GOOD = """
name = "my printing"

[[sets]]
letter = "A"
name = "Aeroplane"
cards = [1, 2, 3]

[[sets]]
letter = "H"
name = "Horse"
cards = [[1, 4], [5, 2]]

[lightning]
count = 2
penalty = 10

[extra_turn]
count = 1
penalty = 25
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pack.toml"
    path.write_text(text)
    return path


def test_default_pack_holds_the_45_cards_of_the_rulebook() -> None:
    pack = default_pack()
    assert pack.size == 45
    per_set = Counter(pack.set_letters[s] for s in pack.kind_sets)
    assert per_set == {"A": 9, "T": 9, "S": 8, "M": 8, "H": 6}
    assert (pack.lightning_count, pack.extra_turn_count) == (4, 1)
    assert [pack.tokens[k] for k in range(34, 40)] == [
        "H1/4",
        "H2/5",
        "H3/6",
        "H4/7",
        "H5/8",
        "H6/9",
    ]
    assert pack.penalties[pack.parse("H2/5")] == 7
    assert (pack.penalties[pack.L], pack.penalties[pack.X]) == (15, 20)


def test_tokens_parse_forgivingly_and_refuse_strangers() -> None:
    pack = default_pack()
    assert pack.parse("h5/2") == pack.parse("H2/5")
    assert pack.parse(" t9 ") == pack.parse("T9")
    assert pack.parse("L") == pack.L and pack.parse("x") == pack.X
    with pytest.raises(VintageCardError, match="'S9'"):
        pack.parse("S9")
    with pytest.raises(VintageCardError, match="'H2/6'"):
        pack.parse("H2/6")


def test_a_users_pack_file_replaces_the_printing(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, GOOD))
    assert pack.tokens == ("A1", "A2", "A3", "H1/4", "H2/5", "L", "X")
    assert pack.size == 8
    assert pack.penalties == (1, 2, 3, 5, 7, 10, 25)
    env = raw_env(num_players=2, pack=str(tmp_path / "pack.toml"))
    assert env.action_name(5) == "play L call A"
    assert env.action_index("play H5/2") == 4


@pytest.mark.parametrize(
    ("change", "entry"),
    [
        (('name = "my printing"', "name = 3"), "name"),
        (('name = "my printing"', 'colour = "red"'), "colour: unknown key"),
        (('letter = "A"', 'letter = "a"'), "sets[0].letter"),
        (('letter = "A"', 'letter = "L"'), "sets[0].letter: 'L' is reserved"),
        (('letter = "H"', 'letter = "A"'), "sets[1].letter: 'A' is already"),
        (
            ("cards = [1, 2, 3]", "cards = [1, 2, 2]"),
            "sets[0] (Aeroplane) cards[2]: A2 is listed twice",
        ),
        (("cards = [1, 2, 3]", 'cards = [1, "two", 3]'), "sets[0] (Aeroplane) cards[1]"),
        (("cards = [1, 2, 3]", "cards = [1, 2, -3]"), "cards[2]: -3 is out of range"),
        (("cards = [1, 2, 3]", "cards = [1, 2, 3.5]"), "cards[2]: 3.5 is not a card"),
        (
            ("cards = [[1, 4], [5, 2]]", "cards = [[1, 4], [5, 5]]"),
            "sets[1] (Horse) cards[1]: [5, 5] repeats",
        ),
        (("cards = [[1, 4], [5, 2]]", "cards = [[1, 4, 7]]"), "sets[1] (Horse) cards[0]"),
        (("cards = [1, 2, 3]", "cards = []"), "sets[0] (Aeroplane) cards: missing or empty"),
        (("count = 2", "count = -1"), "lightning.count"),
        (("penalty = 25", "penalty = true"), "extra_turn.penalty"),
        (("[lightning]\ncount = 2\npenalty = 10", ""), "lightning: missing"),
    ],
)
def test_a_bad_entry_is_refused_naming_the_file_and_the_entry(
    tmp_path: Path, change: tuple[str, str], entry: str
) -> None:
    old, new = change
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(PackError) as info:
        load_pack(path)
    message = str(info.value)
    assert message.startswith(str(path))
    assert entry in message


def test_a_file_that_is_not_toml_or_not_there_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="not valid TOML"):
        load_pack(write(tmp_path, "sets = [[[["))
    with pytest.raises(PackError, match=r"cannot read pack file .*missing\.toml: No such file"):
        load_pack(tmp_path / "missing.toml")


def test_the_shipped_file_is_the_default() -> None:
    assert load_pack(DEFAULT_PACK_PATH) == default_pack()
