"""The kit's version: ``pyproject.toml``'s ``version`` line is the one source of truth.

Code run from a source tree (a clone, ``pip install -e .``, ``PYTHONPATH=.``) reads
``pyproject.toml`` beside its packages, so the version is that of the code running even
when an editable install's metadata is older (metadata is written at install time; ``make
setup`` reinstalls when pyproject.toml changes). An installed wheel has no pyproject.toml
beside it and reads the distribution's metadata, which the build wrote from the same line.
Nothing else holds the number, so a release bumps one line.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "speed-rl"
"""The distribution name on PyPI and in ``pyproject.toml``."""

UNKNOWN = "0+unknown"
"""The version of a copy that is neither installed nor a source tree (PEP 440 local label)."""


def source_tree_version(root: Path) -> str | None:
    """``[project] version`` of ``root/pyproject.toml`` if it is this kit's; None otherwise."""
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return None
    if project.get("name") != DISTRIBUTION or not isinstance(project.get("version"), str):
        return None
    return str(project["version"])


def kit_version() -> str:
    """The source tree's version, else the installed distribution's, else :data:`UNKNOWN`."""
    source = source_tree_version(Path(__file__).resolve().parent.parent)
    if source is not None:
        return source
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN


__version__ = kit_version()
