"""``read_toml``: a user's TOML file (rules, a vintage pack) read with errors that name it.

A path that is missing, a folder, unreadable, not UTF-8, not TOML, or TOML
nested too deeply for the parser (``tomllib`` recurses once per level: a
5,000-deep array overflows the stack) is refused by one error of the
caller's type naming the file, never a bare ``OSError`` or ``RecursionError``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20
"""Largest file read (1 MiB): rules and packs are a few hundred bytes."""


def read_toml(path: Path, what: str, error: type[Exception]) -> dict[str, Any]:
    """The TOML document at ``path``, or ``error`` naming ``what`` (``"rules file"``) and it."""
    if not path.exists():
        raise error(f"{what} {path} does not exist (no such {what})")
    if not path.is_file():
        raise error(f"{what} {path} is not a file (a folder or a device): give a .toml file")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise error(f"{what} {path} is {size:,} bytes; a {what} is at most {MAX_BYTES:,}")
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise error(f"{what} {path} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise error(f"{what} {path} nests arrays or tables too deeply to read") from None
