"""Numbers read from text (command-line flags, settings), refused unless they can be meant.

The one place the kit's commands check a number a person typed: every numeric flag of
``speed`` (``speed_cli``) and of the training recipes (:mod:`train.common.settings`) is parsed by a
function made here, given as argparse's ``type=``. A value that cannot be meant (a negative
count, zero workers, ``nan``, ``inf``, ``1e300`` seconds, a word) is refused before any work
starts, and argparse prints the flag with the reason (``argument --workers: must be a whole
number >= 1, got '0'``) and exits with code 2.

Each factory returns a parser of one string that raises ``argparse.ArgumentTypeError``, whose
message argparse prints whole after the flag's name. The module imports nothing but the
standard library.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["count", "count_list", "real"]


def _refuse(what: str, text: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"must be {what}, got {text!r}")


def count(low: int | None = 0, high: int | None = None) -> Callable[[str], int]:
    """A parser of a whole number from ``low`` to ``high`` (``None``: no bound that side)."""
    if low is None:
        what = "a whole number" if high is None else f"a whole number <= {high}"
    else:
        what = (
            f"a whole number >= {low}" if high is None else f"a whole number from {low} to {high}"
        )

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except (ValueError, AttributeError):
            raise _refuse(what, text) from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise _refuse(what, text)
        return value

    parse.__name__ = "count"
    return parse


def count_list(low: int = 1, high: int | None = None) -> Callable[[str], list[int]]:
    """A parser of a comma-separated list of whole numbers, each from ``low`` to ``high`` (at
    least one)."""
    span = f">= {low}" if high is None else f"from {low} to {high}"
    what = f"whole numbers {span} separated by commas"
    one = count(low, high)

    def parse(text: str) -> list[int]:
        items = [item.strip() for item in text.split(",")]
        if not items or any(not item for item in items):
            raise _refuse(what, text)
        try:
            return [one(item) for item in items]
        except argparse.ArgumentTypeError:
            raise _refuse(what, text) from None

    parse.__name__ = "count_list"
    return parse


def real(
    low: float | None = None,
    high: float | None = None,
    *,
    above: float | None = None,
    below: float | None = None,
) -> Callable[[str], float]:
    """A parser of a finite number (never ``nan`` or ``inf``) within the bounds given:
    ``low``/``high`` inclusive, ``above``/``below`` exclusive."""
    bounds = [
        f">= {low:g}" if low is not None else "",
        f"> {above:g}" if above is not None else "",
        f"<= {high:g}" if high is not None else "",
        f"< {below:g}" if below is not None else "",
    ]
    limits = " and ".join(b for b in bounds if b)
    what = f"a finite number {limits}".strip() if limits else "a finite number"

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except (ValueError, AttributeError):
            raise _refuse(what, text) from None
        if (
            not math.isfinite(value)
            or (low is not None and value < low)
            or (above is not None and value <= above)
            or (high is not None and value > high)
            or (below is not None and value >= below)
        ):
            raise _refuse(what, text)
        return value

    parse.__name__ = "real"
    return parse
