"""``shown``: a value as an error message quotes it, cut to a readable length.

Errors name the bad input (a card token, a seed, an action, a rule value), but
that input may be 100 kB of text or a list nested thousands deep: quoted whole
it buries the message (or fails to print at all). Every error that echoes what
a user gave quotes it through :func:`shown`.
"""

from __future__ import annotations

LIMIT = 60
"""Characters of the value's ``repr`` an error quotes."""


def shown(value: object, limit: int = LIMIT) -> str:
    """``repr(value)``, cut to ``limit`` characters with its full length said when longer."""
    if isinstance(value, str) and len(value) > limit:
        # Only the head is quoted, so a huge string is not copied whole first.
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    try:
        text = repr(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"
