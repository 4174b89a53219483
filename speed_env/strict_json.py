"""JSON as the standard defines it: no key twice in an object, no NaN or infinite number.

Python's :func:`json.loads` keeps the last of two equal keys (another reader
may keep the first, so one file reads two ways) and accepts ``NaN``,
``Infinity`` and numbers too large for a float (read as infinity).
:func:`loads` refuses each, naming the key path where it sits
(``results.rule_sets.us.rating``). Every JSON file a user gives the kit (cards,
records, profiles, deals, model manifests) is read this way, through
:func:`speed_env.user_file.read_json`.
"""

from __future__ import annotations

import json
import math
from typing import Any


class StrictJSONError(ValueError):
    """Text that is not strict JSON; the message names the key path (the caller adds the file)."""


class _Bad:
    """A value the strict reading refuses, left in the tree so its key path can be named."""

    def __init__(self, what: str) -> None:
        self.what = what


class _Duplicated(dict):  # type: ignore[type-arg]
    """An object that held ``key`` twice."""

    key: str = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            # The first repeat is enough to name; what follows it in the object is not kept.
            dup = _Duplicated(out)
            dup.key = key
            return dup
        out[key] = value
    return out


def _float(text: str) -> Any:
    # float() reads an over-large literal as infinity without a word: caught here.
    value = float(text)
    return value if math.isfinite(value) else _Bad(f"the number {text[:40]} (too large: infinite)")


def _constant(name: str) -> _Bad:
    return _Bad(f"{name} (not a JSON number)")


def loads(text: str | bytes) -> Any:
    """Parse ``text`` as strict JSON.

    Raises:

    - :class:`StrictJSONError` naming the key path of a duplicated key, NaN or infinity;
    - ``json.JSONDecodeError`` for text that is not JSON.
    """
    doc = json.loads(text, object_pairs_hook=_pairs, parse_float=_float, parse_constant=_constant)
    # Walked without recursion, so a deeply nested document is measured, not a RecursionError.
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _Bad):
            raise StrictJSONError(f"{path or 'the document'} is {value.what}")
        if isinstance(value, _Duplicated):
            key = f"{path}.{value.key}" if path else value.key
            raise StrictJSONError(f"the key {key} is given twice")
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    return doc
