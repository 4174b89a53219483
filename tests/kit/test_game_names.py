"""A game plugs in through its own room: shared modules name no game (here: Vintage Speed).

"vintage" may appear only in the vintage rooms (a package or module named for it:
``speed_env/vintage/``, ``agents/vintage/``, ``agents/tournament/vintage.py``,
``agents/games/vintage.py``, ``train/vintage_ppo.py`` ...) and where games are registered
(:data:`REGISTRATION`), and where 1.0.0 published a vintage name that must keep importing
(:data:`RELEASED`). Elsewhere a module may name a vintage room by its dotted or slashed path (a
package map, a pointer in a docstring), nothing more: no ``--game vintage`` branch, no vintage
spec, no vintage class. Each declared place must still name the game, so a stale one fails.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("speed_env", "agents", "speed_data", "train", "speed_lab", "speed_table", "speed_cli")
REGISTRATION = {
    "agents/games/registry.py",  # the games, by name
    "speed_env/registration.py",  # the env ids, by game, and the packages `import speed_env` loads
    "speed_env/openspiel/games.py",  # the OpenSpiel games, by name, and their classes
    "train/common/recipes.py",  # the training recipes, by game (`speed train GAME`)
}
"""Where games are registered: the one place each that lists them all."""
RELEASED = {
    # 1.0.0's flat agents/model_io.py defined vintage_signature, save_vintage_model and
    # load_vintage_policy; the package that replaced it re-exports them so that old imports
    # keep working (a package map is where re-exports belong, and a released name stays).
    "agents/model_io/__init__.py",
    # 1.0.0's speed_env.__all__ listed the vintage package (DESIGN.md: speed_env.vintage.env);
    # the name stays a static string there, since mkdocstrings reads __all__ without running
    # it. speed_env/registration.py imports the package.
    "speed_env/__init__.py",
}
"""Package maps that keep a released vintage name importable where 1.0.0 had it."""
ROOM = re.compile(r"vintage", re.IGNORECASE)
MODULE_PATH = re.compile(
    r"\b(?:" + "|".join(PACKAGES) + r")(?:[./]\w+)*?[./]\w*vintage\w*(?:[./]\w+)*(?:\.py)?"
)
"""A dotted or slashed path to a vintage room (``agents.tournament.vintage``,
``train/vintage_ppo.py``): naming a room is allowed, speaking of the game is not."""


MAP_ENTRY = re.compile(r"^(\s*)- :mod:`~?[\w.]*vintage[\w.]*`[^\n]*(?:\n\1  [^\n]*)*", re.MULTILINE)
"""A package map's entry for a vintage room (``- :mod:`~agents.vintage`: ...``, continuation
lines included): the map describes the room it names."""


ROOM_NAME = re.compile(r"``\w*vintage\w*``")
"""A room named on its own (``vintage``, ``vintage_ppo``), as a package's list of floors names
it; a spec (``vintage-greedy``) is not a room name."""


def _allowed_mentions_out(text: str) -> str:
    return ROOM_NAME.sub("", MODULE_PATH.sub("", MAP_ENTRY.sub("", text)))


def _is_room(path: str) -> bool:
    return any("vintage" in part for part in Path(path).with_suffix("").parts)


def _naming_the_game() -> set[str]:
    found = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if _is_room(rel) or rel in REGISTRATION | RELEASED:
                continue
            text = _allowed_mentions_out(path.read_text(encoding="utf-8"))
            if ROOM.search(text):
                found.add(rel)
    return found


def test_only_the_vintage_rooms_and_the_registration_name_the_vintage_game():
    assert _naming_the_game() == set()


def test_each_declared_place_still_names_the_game():
    """A registration or re-export that no longer names the game is a stale allowance."""
    for rel in sorted(REGISTRATION | RELEASED):
        path = ROOT / rel
        assert path.is_file(), f"{rel}: declared, and no such module"
        assert ROOM.search(_allowed_mentions_out(path.read_text(encoding="utf-8"))), rel


def test_a_room_path_or_map_entry_is_allowed_and_the_game_is_not():
    allowed = (
        "see agents/tournament/vintage.py and train.vintage_ppo\n"
        "- :mod:`~agents.vintage`: Vintage Speed's bots,\n  search and value network.\n"
        "Floors, bottom up: ``specs``, ``vintage``, ``tournament``.\n"
    )
    assert not ROOM.search(_allowed_mentions_out(allowed))
    for named in (
        'if args.game == "vintage":',
        "from agents.vintage import registry as vintage_agents",
        "give ``vintage-greedy`` a seat",
        "- :mod:`~agents.tournament`: tournaments of both games\n  and Vintage Speed's tables",
    ):
        assert ROOM.search(_allowed_mentions_out(named)), named
