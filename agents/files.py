"""Writing result files safely: the one atomic writer of the kit, and the output-folder check.

Every file a run or a tournament leaves behind (results, ``eval.csv``'s plots, a
training run's ``state.json``, ``summary.json`` ...) is written to a hidden
temporary name in its folder and renamed over the target, so an interrupted or
failed write never leaves a half-written file over a good one. The temporary
file is created private (``mkstemp`` makes it 0600) and is given the
permissions an ordinary ``open`` would have (``0o666`` less the umask) before
the rename: results are ordinary files.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["check_writable", "write_atomic", "write_json", "write_text"]


def check_writable(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` if needed and prove it writable; raise ``OSError`` naming it otherwise."""
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise OSError(
            f"output folder {str(path)!r} is not writable: {exc.strerror or exc}"
        ) from None
    return path


def _umask() -> int:
    """The process's umask (reading it means setting it, so it is set straight back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename; ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`write_atomic` for UTF-8 text."""
    return write_atomic(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike[str], value: Any) -> Path:
    """:func:`write_atomic` for a JSON document (indented, with a final newline)."""
    return write_text(path, json.dumps(value, indent=2) + "\n")
