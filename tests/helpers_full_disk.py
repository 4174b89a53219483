"""A full disk for tests that cannot mount one (that needs root): writes that raise ``ENOSPC``.

``os.fdopen`` is the kit's one way to a staged temporary (:func:`agents.runtime.files.stage`), so
wrapping it meets every atomic write; the file handed back raises the error at ``write``, as a
full disk's does.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest


class FullFile:
    """A staged temporary on a full disk: nothing lands, ``write`` raises ``errno``."""

    def __init__(self, file: Any, code: int) -> None:
        self.file, self.code = file, code

    def __enter__(self) -> FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    def write(self, data: bytes) -> int:
        raise OSError(self.code, os.strerror(self.code))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def fill_disk_at(monkeypatch: pytest.MonkeyPatch, name: str, code: int = errno.ENOSPC) -> None:
    """Writes of the file called ``name`` (through its staged temporary) meet a full disk."""
    real_mkstemp, real_fdopen = tempfile.mkstemp, os.fdopen
    names: dict[int, str] = {}

    def mkstemp(*args: Any, **kw: Any) -> tuple[int, str]:
        fd, path = real_mkstemp(*args, **kw)
        names[fd] = path
        return fd, path

    def fdopen(fd: int, *args: Any, **kw: Any) -> Any:
        file = real_fdopen(fd, *args, **kw)
        # A staged temporary is named .TARGET.wPID-…: the target's name follows the dot.
        staged = Path(names.get(fd, "")).name.startswith(f".{name}.w")
        return FullFile(file, code) if staged else file

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "fdopen", fdopen)
