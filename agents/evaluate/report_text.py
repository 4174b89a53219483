"""The text a report card and a leaderboard show: escaped, cut at a word, in readable units.

:func:`md_code` is how every agent spec is shown (``report.md`` and ``leaderboard.md`` alike);
:func:`md_text` escapes free text an agent may have written (a reason it refused rules);
:func:`shorten` cuts at a word; :func:`duration_text` picks the unit that keeps three digits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence


def md_code(text: str) -> str:
    """``text`` as a Markdown code span that stays one table cell: how every agent spec is shown.
    Control characters made spaces, ``|`` escaped, a fence longer than any backtick run inside."""
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""  # else it joins the fence
    return f"{fence}{pad}{text}{pad}{fence}"


def md_text(text: str, limit: int | None = None) -> str:
    """Free text (a skip reason, a note) as Markdown prose that stays one line and one cell.
    Control characters made spaces; ``\\``, ``|``, backticks, ``*``, ``_``, ``[`` and ``<``
    escaped, so an agent's error message cannot open a code span, a link or a new row.
    ``limit``: cut first, at a word boundary (:func:`shorten`)."""
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    if limit is not None:
        text = shorten(text, limit)
    return re.sub(r"([\\|`*_\[<])", r"\\\1", text)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with ``…`` if cut.
    A single word longer than half the limit is cut inside it (there is no boundary to keep)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:.-") + "…"


def plain_label(text: str) -> str:
    """``text`` for a matplotlib label: a ``$`` taken as a dollar, not as mathtext."""
    return text.replace("$", r"\$")


def pct_text(x: float | None) -> str:
    """A share as a percentage with one decimal (``–`` for none)."""
    return "–" if x is None else f"{100 * x:.1f}%"


def ci_text(ci: Sequence[float] | None, pct: bool = True, digits: int = 0) -> str:
    """An interval as `` [low, high]`` (percentages when ``pct``); nothing for none or NaN."""
    if not ci or any(v is None or (isinstance(v, float) and math.isnan(v)) for v in ci):
        return ""
    if pct:
        return f" [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"
    return f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def num_text(x: float | None, digits: int = 0) -> str:
    """A number with ``digits`` decimals (``–`` for none), never ``-0``."""
    if x is None:
        return "–"
    text = f"{x:.{digits}f}"
    return f"{0:.{digits}f}" if text.lstrip("-0.") == "" else text  # no "-0" for a tiny negative


SKIP_REASON_CHARS = 120
"""The longest skip reason a table cell shows (the whole reason is in ``report.json``)."""


def duration_text(us: float) -> str:
    """A duration given in microseconds, in the unit that shows it with 3 significant digits:
    ``42.1 ns``, ``4.47 µs``, ``12.3 ms``, ``1.50 s``; never rounded to ``0.0``."""
    us = float(f"{us:.3g}")  # rounded first: 999.96 µs is 1.00 ms, not 1.00e+03 µs
    for unit, scale in (("s", 1e6), ("ms", 1e3), ("µs", 1.0)):
        if abs(us) >= scale:
            return f"{us / scale:#.3g} {unit}".replace(". ", " ")
    return "0 µs" if us == 0 else f"{us * 1e3:#.3g} ns".replace(". ", " ")
