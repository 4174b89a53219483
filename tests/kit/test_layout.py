"""The house rules of the layout (docs/development.md, "Layout"), checked on the source itself.

Layers import only downward (``speed_env`` <- ``agents`` <- ``speed_data`` <- ``train`` <-
``speed_lab``, ``speed_table`` <- ``speed_cli``), no module imports itself
back through others (lazy imports inside functions included), and no library
module but the compiled engine kernels passes 500 lines. Inside ``agents`` and ``train`` the
rooms are floors as well (``ROOMS``, bottom up): a module imports only its own room and those
below. Every kit module is imported under its own name, or its name with a prefix saying which
where two names clash (``vintage_registry``). Docstrings point to the docs page
that has what they cite, not to the README (a landing page whose sections moved there).

Each package's ``__init__`` docstring is its map, naming every module and subpackage it holds
and nothing else, and the page's layout tree is the one the maps make
(``docs/hooks/layout_map.py``). Only a package's ``__init__`` re-exports. The test folders
mirror the packages.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = {
    "speed_env": 0,
    "agents": 1,
    "speed_data": 1.5,
    "train": 2,
    "speed_lab": 3,
    "speed_table": 3,
    "speed_cli": 4,
}
HOOK = ROOT / "docs" / "hooks" / "layout_map.py"
TEST_FOLDERS = {
    "env",
    "vintage",
    "agents",
    "train",
    "table",
    "cluster",
    "kit",
    "data",
    "lab",
    "fixtures",
}
"""The folders of ``tests/``: one a package (``env`` for ``speed_env``, ``table`` for
``speed_table`` ...), ``vintage`` for the vintage game across the packages, ``kit`` for the kit
as a whole (CLI, docs, packaging, this file), ``cluster`` for Ray, ``fixtures`` for data."""
KERNELS = {"speed_env/engine.py"}  # numba kernels: one compiled unit, exempt from the size rule
ROOMS = {
    "agents": (
        "errors",
        "runtime",
        "stats",
        "alpharank",
        "model_io",
        "greedy",
        "chain_party",
        "chain",
        "search",
        "openspiel_bots",
        "think",
        "league",
        "specs",
        "vintage",
        "tournament",
        "reaction_sweep",
        "think_sweep",
        "evaluate",
        "games",
    ),
    "train": (
        "policy",
        "common",
        "vec_env",
        "bc",
        "bc_data",
        "realtime",
        "vintage",
        "rllib",
        "party_ppo",
        "ppo",
        "exploit_settings",
        "exploit",
        "exploit_card",
        "vintage_ppo",
        "vintage_value",
        "vintage_expert",
        "rllib_ppo",
        "league",
    ),
}
"""The rooms of ``agents`` and ``train``, bottom up: a subpackage or a top-level module each
(the package's maps say the same order). A module imports only its own room and those before
it; importing the package itself (``import agents``) imports the rooms its ``__init__`` does."""
KNOWN_UPWARD: dict[tuple[str, str], str] = {}
"""Imports against the rooms' order still in the code, each with why: a stale one fails."""
ALIAS_FOLDERS = ("benchmarks", "docs/hooks", "examples", "tests")
"""Where kit modules are imported besides the packages themselves."""


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYER:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> list[str]:
    """Every module name ``path`` imports, at any depth (lazy imports in functions too)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return names


def _owner(name: str) -> str | None:
    """The kit module ``name`` refers to (a function or class imported from it -> the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _graph(facades: bool = False) -> dict[str, set[str]]:
    """Which kit modules each imports; with ``facades``, its own packages' ``__init__`` too."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for name in _imports(path):
            target = _owner(name)
            # A package's own __init__ is where its modules live, not an import of it (but its
            # façade, ``import agents`` inside agents, imports the rooms the __init__ does).
            own = module.startswith(target + ".") if target else False
            if target and target != module and (facades or not own):
                graph[module].add(target)
    return graph


def test_layers_import_only_downward():
    upward = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if LAYER[target.split(".")[0]] >= LAYER[module.split(".")[0]]
        and target.split(".")[0] != module.split(".")[0]
    ]
    assert upward == []


def _room(module: str) -> tuple[str, str] | None:
    """``(package, room)`` of a module of a package with rooms; ``None`` for the package itself."""
    package, _, rest = module.partition(".")
    return (package, rest.split(".")[0]) if package in ROOMS and rest else None


def _upward_in_rooms(graph: dict[str, set[str]]) -> dict[tuple[str, str], str]:
    """Each ``(module, room)`` where ``module`` imports a room declared above its own, with the
    import (``module -> target``); an unknown room counts as above every other."""
    found: dict[tuple[str, str], str] = {}
    for module, targets in sorted(graph.items()):
        own = _room(module)
        if own is None:
            continue
        package, room = own
        order = ROOMS[package]
        floor = order.index(room) if room in order else len(order)
        for target in sorted(targets):
            # the package's own __init__ stands for the rooms it imports
            via = sorted(graph.get(target, ())) if target == package else [target]
            for reached in via:
                other = _room(reached)
                if other is None or other[0] != package or other[1] == room:
                    continue
                if other[1] not in order or order.index(other[1]) > floor:
                    found.setdefault((module, other[1]), f"{module} -> {target}")
    return found


def test_rooms_import_only_downward():
    """Inside ``agents`` and ``train`` a module imports only its own room and those declared
    below it (``ROOMS``): the plumbing never knows the agent layer, the toolkit never knows a
    recipe."""
    upward = _upward_in_rooms(_graph(facades=True))
    unknown = sorted(f"{m} -> {room}" for (m, room) in upward if (m, room) not in KNOWN_UPWARD)
    assert unknown == [], "an import of a room declared above the importer's (tests/kit ROOMS)"
    stale = sorted(f"{m} -> {room}" for (m, room) in KNOWN_UPWARD if (m, room) not in upward)
    assert stale == [], "a known exception that is gone: delete it from KNOWN_UPWARD"


def test_every_room_has_its_floor():
    """A room added to ``agents`` or ``train`` is given its place in ``ROOMS``."""
    rooms = {room for module in MODULES if (room := _room(module)) is not None}
    missing = sorted(f"{p}.{r}" for p, r in rooms if r not in ROOMS[p])
    gone = sorted(f"{p}.{r}" for p in ROOMS for r in ROOMS[p] if (p, r) not in rooms)
    assert (missing, gone) == ([], [])


def test_the_rooms_check_finds_an_import_up():
    graph = {
        "train.policy.checkpoint": {"train.vec_env.pool", "train.policy.rankwise_policy"},
        "train.vec_env.env": {"train.vec_env.pool", "train.policy.rollout"},
        "agents.runtime.jobs": {"agents"},  # through the façade, to the specs room
        "agents": {"agents.specs.make"},
        "train.nursery.x": {"train.policy.rollout"},  # an undeclared room imports freely ...
        "train.ppo": {"train.nursery.x"},  # ... and is above every declared one
    }
    assert _upward_in_rooms(graph) == {
        ("train.policy.checkpoint", "vec_env"): "train.policy.checkpoint -> train.vec_env.pool",
        ("agents.runtime.jobs", "specs"): "agents.runtime.jobs -> agents",
        ("train.ppo", "nursery"): "train.ppo -> train.nursery.x",
    }


def test_no_module_imports_itself_back():
    graph = _graph()
    cycles = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_library_modules_stay_under_500_lines(module):
    path = MODULES[module]
    if path.relative_to(ROOT).as_posix() in KERNELS:
        pytest.skip("the engine kernels are one compiled unit")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


def test_docstrings_cite_docs_pages_not_the_readme():
    """About fifteen docstrings once sent the reader to README sections that had become docs
    pages; the README is a landing page, so a citation names the page (docs/...md)."""
    citing = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in MODULES.values()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "README" in line
    ]
    assert not citing, f"cite the docs page instead of the README: {citing}"


def _layout_map():
    spec = importlib.util.spec_from_file_location("layout_map", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("layout_map", module)
    spec.loader.exec_module(module)
    return module


REGENERATE = f"python {HOOK.relative_to(ROOT)}"


def test_each_package_map_names_its_modules_and_nothing_else():
    """A module added, renamed or removed without its line in the package's ``__init__`` map
    (``- :mod:`~package.module`: what it is.``) is named here."""
    hook = _layout_map()
    wrong = []
    for package in hook.packages():
        named = [target for target, _ in hook.read_map(package).entries]
        held = hook.members(package)
        wrong += [f"{package}: {m} is not in the map" for m in held if m not in named]
        wrong += [
            f"{package}: the map names {m}, not one of its own" for m in named if m not in held
        ]
        wrong += [
            f"{package}: the map names {m} twice" for m in sorted(set(named)) if named.count(m) > 1
        ]
        if not hook.read_map(package).summary:
            wrong.append(f"{package}: the map has no first line saying what the package is")
    assert not wrong, (
        f"{wrong}: give each module its line in its package's map, then run {REGENERATE}"
    )


def test_every_library_module_is_in_a_package():
    """A folder of modules without an ``__init__.py`` would hold modules no map names."""
    packages = {ROOT.joinpath(*p.split(".")) for p in _layout_map().packages()}
    outside = [
        str(path.relative_to(ROOT)) for path in MODULES.values() if path.parent not in packages
    ]
    assert outside == []


def test_the_layout_tree_is_the_one_the_maps_make():
    hook = _layout_map()
    page = hook.PAGE.read_text(encoding="utf-8")
    assert page.count(hook.OPENING) == 1 and page.count(hook.CLOSING) == 1, "layout-map markers"
    assert not hook.is_stale(), f"stale layout tree in docs/development.md: run {REGENERATE}"


def test_a_stale_tree_is_found_and_regenerated(tmp_path):
    hook = _layout_map()
    fresh = hook.regenerate(hook.PAGE.read_text(encoding="utf-8"))
    page = tmp_path / "development.md"
    page.write_text(fresh.replace("  aec.py ", "  aek.py ", 1), encoding="utf-8")
    assert hook.is_stale(page)
    assert hook.regenerate(page.read_text(encoding="utf-8")) == fresh
    # an opening marker alone is filled and closed; the site shows the tree without markers
    filled = hook.regenerate(f"# x\n\n{hook.OPENING}\n\ntext\n")
    assert filled.count(hook.CLOSING) == 1 and filled.endswith("\n\ntext\n")
    site = hook.on_page_markdown(filled)
    assert "layout-map" not in site and "  parallel.py " in site


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements outside functions and classes (inside ``if`` and ``try`` too)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for h in getattr(node, "handlers", []) for s in h.body]
            found += _top_level(inner)
    return found


def _reexports(path: Path) -> list[str]:
    """What ``path`` re-exports: ``from x import y as y`` anywhere, and names its ``__all__``
    lists that it does not define (an imported one, or one it does not have)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [
        f"{node.lineno}: {alias.name} as {alias.asname}"
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
        if alias.asname is not None and alias.asname == alias.name
    ]
    defined: set[str] = set()
    listed: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        for target in targets:
            names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
            defined.update(names)
            if names == ["__all__"] and node.value is not None:
                listed += list(ast.literal_eval(node.value))
    found += [
        f"__all__ lists {name}, which it does not define" for name in listed if name not in defined
    ]
    return found


def test_only_a_package_init_re_exports():
    """A name has one home: an ordinary module's ``__all__`` lists only what it defines, and it
    never marks an import as a re-export (``from x import y as y``); a package's ``__init__``
    gathers its modules' names."""
    ordinary = [path for path in MODULES.values() if path.name != "__init__.py"]
    found = {
        str(path.relative_to(ROOT)): problems for path in ordinary if (problems := _reexports(path))
    }
    assert found == {}


def test_the_reexport_check_sees_both_forms(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from os import path as path\nfrom sys import argv\n\n\ndef f(): ...\n\n"
        "X = 1\n__all__ = ['X', 'argv', 'f']\n",
        encoding="utf-8",
    )
    assert _reexports(module) == ["1: path as path", "__all__ lists argv, which it does not define"]


def test_the_test_folders_mirror_the_packages():
    tests = ROOT / "tests"
    # Folders of code only: a test may leave output in an ignored folder (tests/artifacts/).
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.rglob("*.py"))}
    assert sorted(folders - TEST_FOLDERS) == [], "a test folder that mirrors no package"
    assert sorted(p.name for p in tests.glob("test_*.py")) == [], "a test file left at tests/"


def _python_source(path: Path) -> str:
    """A ``.py`` file's text, or a notebook's code cells one after another."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return text
    cells = [c["source"] for c in json.loads(text)["cells"] if c["cell_type"] == "code"]
    return "\n".join("".join(c) if isinstance(c, list) else c for c in cells)


def _renamed_modules(path: Path) -> list[str]:
    """Each import in ``path`` that names a kit module otherwise than by its own name."""
    found = []
    for node in ast.walk(ast.parse(_python_source(path))):
        if isinstance(node, ast.Import):
            named = [(a.name, a.asname) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            named = [(f"{node.module}.{a.name}", a.asname) for a in node.names]
        else:
            continue
        for module, alias in named:
            own = module.rpartition(".")[2]
            if module in MODULES and alias and alias != own and not alias.endswith(f"_{own}"):
                found.append(f"{node.lineno}: {module} as {alias}")
    return found


def _alias_checked_files() -> list[Path]:
    files = [*MODULES.values()]
    for folder in ALIAS_FOLDERS:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files + sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_every_module_is_imported_under_its_own_name():
    """A reader who greps for the name an import gives finds the file: a kit module is imported
    under its own name (``from agents.tournament import realtime``), or, where two names clash,
    under its name with a prefix saying which (``registry as vintage_registry``, ``report as
    eval_report``): the alias is the module's own name or ends in ``_`` and it. The packages,
    tests, benchmarks, examples, docs hooks and notebooks are read. Third-party conventions
    (``numpy as np``) are not kit modules and are not checked."""
    found = {}
    for path in _alias_checked_files():
        if renamed := _renamed_modules(path):
            found[path.relative_to(ROOT).as_posix()] = renamed
    assert found == {}


def test_the_alias_check_sees_a_renamed_module(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import numpy as np\n"
        "from agents.tournament import realtime as tournament\n"
        "from agents.vintage import registry as vintage_registry\n"
        "from agents.evaluate import report as eval_report, protocol\n"
        "import agents.tournament.vintage as vt\n"
        "from agents.specs.make import make as build\n"  # a function, not a module
        "def f():\n    from train.common import run as run_mod\n",
        encoding="utf-8",
    )
    assert _renamed_modules(module) == [
        "2: agents.tournament.realtime as tournament",
        "5: agents.tournament.vintage as vt",
        "8: train.common.run as run_mod",
    ]
