"""The house rules of the layout (docs/development.md, "Layout"), checked on the source itself.

Layers import only downward (``speed_env`` <- ``agents`` <- ``speed_data`` <- ``train`` <-
``speed_lab``, ``speed_table`` <- ``speed_cli``), no module imports itself
back through others (lazy imports inside functions included), and no library
module but the compiled engine kernels passes 500 lines. Docstrings point to the docs page
that has what they cite, not to the README (a landing page whose sections moved there).
"""

from __future__ import annotations

import ast
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
KERNELS = {"speed_env/engine.py"}  # numba kernels: one compiled unit, exempt from the size rule


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


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for name in _imports(path):
            target = _owner(name)
            # A package's own __init__ is where its modules live, not an import of it.
            if target and target != module and not module.startswith(target + "."):
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
