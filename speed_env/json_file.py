"""``read_json``: a user's JSON file (a reaction profile, a deal) read with errors that name it.

The JSON twin of :mod:`speed_env.toml_file`: a file that cannot be read or is not JSON is refused
by one error of the caller's type naming the file and what it was meant to be, never a bare
``OSError`` or ``json.JSONDecodeError``.
"""

from __future__ import annotations

import json
from typing import Any


def read_json(path: str, what: str, error: type[Exception]) -> Any:
    """The JSON document in the file ``path``, or ``error`` naming ``what`` (``"deal file"``)
    and it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise error(f"cannot read {what} {path!r}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{what} {path!r} is not JSON: {exc}") from None
