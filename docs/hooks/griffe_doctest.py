"""Griffe extension for the API reference: docstring examples (``>>>`` blocks) as code.

The kit's docstrings are reStructuredText-flavoured and carry doctests (run by the test suite).
Rendered as Markdown, a ``>>>`` line would be a block quote and ``obs["player_0"]["observation"]``
a reference link that cannot resolve. This extension fences every doctest block (from its first
``>>>`` line to the next blank line) as a ``pycon`` code block before mkdocstrings renders it.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block wrapped in a ```` ```pycon ```` fence at its indent."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest blocks of every docstring (see the module docstring)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring once the object tree is complete."""
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
