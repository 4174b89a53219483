"""The layout block of docs/development.md, generated from the packages' maps: committed in the
page, and the site's MkDocs hook.

Each package's ``__init__`` docstring is its map: a first short line saying what the package
is, then a bullet a module or subpackage, ``- :mod:`~package.module`: what it is.``, its
continuation lines indented two spaces (prose and headings between the bullets are the
package's own and are left out). The block is the tree of the kit's packages, in layer order,
each package with its first line and each module or subpackage with its bullet, in the map's
order, between a marker pair on lines of their own, so the page reads complete on GitHub::

    <!-- layout-map -->
    ```text
    speed_env/              Real-time Speed as PettingZoo / Gymnasium environments ...
      parallel.py           the PettingZoo ``ParallelEnv`` ...
    ```
    <!-- /layout-map -->

Regenerate it after adding, removing or re-describing a module (``tests/kit/test_layout.py``
fails while the page is stale, naming this command, and while a map misses a module)::

    python docs/hooks/layout_map.py           # rewrite the block in docs/development.md
    python docs/hooks/layout_map.py --check   # exit 1 if the block is stale

When the site is built (``on_page_markdown``) the block is generated again from the maps and
the markers dropped, so the site never shows a stale tree. The maps are read from the source
(``ast``), nothing is imported.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""
PAGE = ROOT / "docs" / "development.md"
"""The page that holds the block."""
PACKAGES = ("speed_env", "agents", "speed_data", "train", "speed_lab", "speed_table", "speed_cli")
"""The kit's top-level packages, in layer order (each imports only those before it)."""
OPENING = "<!-- layout-map -->"
CLOSING = "<!-- /layout-map -->"
BULLET = re.compile(r"^- :mod:`~?(?P<target>[\w.]+)`:\s*(?P<text>.*)$")
"""A map line: ``- :mod:`~package.module`: what it is.`` at the docstring's left margin."""
NAME_WIDTH = 24
"""The column the descriptions start at."""
WIDTH = 100
"""The block's longest line."""


@dataclass(frozen=True)
class PackageMap:
    """A package's map, read from its ``__init__`` docstring."""

    name: str
    """The package's dotted name."""
    summary: str
    """The docstring's first line: what the package is."""
    entries: tuple[tuple[str, str], ...]
    """``(dotted name, what it is)`` a bullet, in the map's order (continuation lines joined)."""


def package_dir(name: str, root: Path = ROOT) -> Path:
    """The folder of package ``name`` (``agents.vintage`` -> ``agents/vintage``)."""
    return root.joinpath(*name.split("."))


def read_map(name: str, root: Path = ROOT) -> PackageMap:
    """Package ``name``'s map, from its ``__init__.py`` docstring (parsed, not imported)."""
    init = package_dir(name, root) / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    lines = doc.splitlines()
    entries: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        bullet = BULLET.match(line)
        if bullet is None:
            continue
        words = [bullet["text"]]
        for more in lines[i + 1 :]:
            if not more.startswith("  ") or not more.strip():
                break
            words.append(more.strip())
        entries.append((bullet["target"], " ".join(words)))
    return PackageMap(name, lines[0].strip() if lines else "", tuple(entries))


def members(name: str, root: Path = ROOT) -> dict[str, bool]:
    """What package ``name`` holds: each module and subpackage's dotted name, True for a
    subpackage (a folder with an ``__init__.py``)."""
    folder = package_dir(name, root)
    found = {
        f"{name}.{path.stem}": False for path in folder.glob("*.py") if path.name != "__init__.py"
    }
    found |= {
        f"{name}.{path.name}": True
        for path in folder.iterdir()
        if path.is_dir() and (path / "__init__.py").is_file()
    }
    return dict(sorted(found.items()))


def packages(root: Path = ROOT) -> list[str]:
    """Every package of the kit, the top-level ones and all their subpackages."""
    found: list[str] = []

    def visit(name: str) -> None:
        found.append(name)
        for member, is_package in members(name, root).items():
            if is_package:
                visit(member)

    for top in PACKAGES:
        visit(top)
    return found


def plain(text: str) -> str:
    """RST inline markup as the block shows it: ``x`` as `x`, :role:`~a.b` as `b`,
    :role:`a.b` as `a.b`."""
    text = re.sub(r":\w+:`~[\w.]*?(\w+)`", r"`\1`", text)
    text = re.sub(r":\w+:`([^`]+)`", r"`\1`", text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def _row(name: str, text: str) -> list[str]:
    """``name`` and ``text`` as lines: the text from column ``NAME_WIDTH``, wrapped at ``WIDTH``
    (on the next line when the name reaches the column)."""
    indent = " " * NAME_WIDTH
    fits = len(name) < NAME_WIDTH - 1
    wrapped = textwrap.wrap(
        plain(text),
        WIDTH,
        initial_indent=name.ljust(NAME_WIDTH) if fits else indent,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return wrapped if fits else [name, *wrapped]


def _tree(name: str, text: str, depth: int, root: Path) -> list[str]:
    lines = _row("  " * depth + name.rpartition(".")[2] + "/", text)
    held = members(name, root)
    for target, what in read_map(name, root).entries:
        if target not in held:
            raise ValueError(
                f"{name}'s map names {target}, which is not a module or subpackage of it"
            )
        if held[target]:
            lines += _tree(target, what, depth + 1, root)
        else:
            lines += _row("  " * (depth + 1) + target.rpartition(".")[2] + ".py", what)
    return lines


def block(root: Path = ROOT) -> str:
    """The layout block: the fenced tree of every package, from the maps."""
    lines: list[str] = []
    for top in PACKAGES:
        lines += _tree(top, read_map(top, root).summary, 0, root)
    return "```text\n" + "\n".join(lines) + "\n```"


def regenerate(markdown: str, keep_markers: bool = True, root: Path = ROOT) -> str:
    """``markdown`` with the block between the markers generated again from the maps (an
    opening marker without its closing one gets it); without ``keep_markers`` the markers
    themselves are dropped (the built site). A page without the marker is returned as it is."""
    start = markdown.find(OPENING)
    if start < 0:
        return markdown
    after = start + len(OPENING)
    end = markdown.find(CLOSING, after)
    rest = markdown[end + len(CLOSING) :] if end >= 0 else markdown[after:]
    body = block(root)
    middle = f"{OPENING}\n{body}\n{CLOSING}" if keep_markers else body
    return markdown[:start] + middle + rest


def is_stale(page: Path = PAGE, root: Path = ROOT) -> bool:
    """Whether the committed block of ``page`` differs from the one the maps make."""
    text = page.read_text(encoding="utf-8")
    return regenerate(text, root=root) != text


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """The site's page: the block generated from the maps, markers dropped."""
    return regenerate(markdown, keep_markers=False)


def main(argv: list[str] | None = None) -> int:
    """Rewrite the layout block of docs/development.md (``--check``: only say if it is stale)."""
    # marked_blocks.py lies beside this file, on the path when it runs as a script.
    from marked_blocks import refresh_command

    return refresh_command(
        argv,
        "python docs/hooks/layout_map.py",
        "Regenerate the layout block of docs/development.md from the package maps.",
        lambda: [PAGE] if is_stale() else [],
        regenerate,
    )


if __name__ == "__main__":
    raise SystemExit(main())
