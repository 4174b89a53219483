"""The one reader of a user's file: regular files only, bounded, strict JSON, TOML.

Every file a user names to the kit (a report card, a play record, a rules or pack
TOML file, a reaction profile, a deal, a replay, a model manifest) is read here, so each
is refused the same way, in one line naming what it was meant to be and the path:

- only a regular file is read: the path is ``stat``-ed (links followed) *before*
  it is opened, so a named pipe is refused without blocking on it and a device
  (``/dev/zero``) before a byte is read ("... is a named pipe (FIFO), not a
  regular file"); the open is non-blocking and the opened file checked again, in
  case the path was swapped in between;
- a size bound, checked before reading and again while reading (a file that grows):
  "... is larger than N bytes";
- JSON is strict (:mod:`speed_env.strict_json`: no key twice, no NaN or infinity):
  "... is not JSON: ..."; TOML nested past the parser's stack is named, not a
  ``RecursionError``.

:func:`open_regular` and :func:`read_regular` raise ``OSError`` (a
:class:`NotRegularFileError` for the refusals above) for callers with their own
wording (model files); :func:`read_bytes`, :func:`read_json` and
:func:`read_toml` raise the caller's own error type.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

MAX_BYTES = 1 << 20
"""The default bound (1 MiB): rules, packs, profiles and deals are a few hundred bytes."""

StrPath = str | os.PathLike[str]


class NotRegularFileError(OSError):
    """A path that should be an ordinary file is a pipe, a device, a folder, or too big."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _refuse_irregular(path: Path, mode: int, what: str) -> None:
    if stat.S_ISREG(mode):
        return
    target = f" (a link to {os.path.realpath(path)})" if path.is_symlink() else ""
    raise NotRegularFileError(
        errno.EINVAL, f"{what} {path}{target} is {_kind(mode)}, not a regular file; refusing it"
    )


def _too_large(path: StrPath, what: str, limit: int, size: int | None) -> NotRegularFileError:
    held = "" if size is None else f" (it holds {size:,})"
    return NotRegularFileError(
        errno.EFBIG, f"{what} {path} is larger than {limit:,} bytes{held}; refusing to read it"
    )


def open_regular(path: StrPath, what: str = "file") -> tuple[BinaryIO, int]:
    """Open ``path`` for reading if it is a regular file; the open file and its size.

    Links are followed first. Anything else raises :class:`NotRegularFileError` naming
    ``what`` and the path, without having opened it: a named pipe would block the open, a
    device never ends.
    """
    path = Path(path)
    _refuse_irregular(path, os.stat(path).st_mode, what)
    # O_NONBLOCK: should the path be swapped for a pipe after the stat, the open still returns.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        # Again on what was opened: the path may have been swapped since the first stat.
        st = os.fstat(fd)
        _refuse_irregular(path, st.st_mode, what)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: StrPath, what: str = "file", limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, opened by :func:`open_regular`.

    A file over ``limit`` bytes is refused naming the limit, before it is read.
    """
    f, size = open_regular(path, what)
    with f:
        if limit is not None and size > limit:
            raise _too_large(path, what, limit, size)
        # One byte past the limit is enough to tell a file that grew after the stat.
        data = f.read() if limit is None else f.read(limit + 1)
    if limit is not None and len(data) > limit:  # it grew after the stat
        raise _too_large(path, what, limit, None)
    return data


def read_bytes(path: StrPath, what: str, error: type[Exception], limit: int = MAX_BYTES) -> bytes:
    """The bytes of the user's file ``path``; ``error`` naming ``what`` and the path otherwise.

    ``what`` says what the file was meant to be (``"deal file"``, ``"card"``)."""
    try:
        return read_regular(path, what, limit)
    except NotRegularFileError as exc:
        raise error(exc.strerror) from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def read_text(path: StrPath, what: str, error: type[Exception], limit: int = MAX_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (text that is not is ``error`` too)."""
    data = read_bytes(path, what, error, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text: {exc}") from None


def read_json(path: StrPath, what: str, error: type[Exception], limit: int = MAX_BYTES) -> Any:
    """The strict JSON document in the user's file ``path``; ``error`` naming it otherwise.

    A key given twice, NaN or an infinity is refused naming its key path
    (:mod:`speed_env.strict_json`)."""
    from speed_env import strict_json

    text = read_text(path, what, error, limit)
    try:
        return strict_json.loads(text)
    except ValueError as exc:  # JSONDecodeError, StrictJSONError, a number too long to read
        raise error(f"{what} {path} is not JSON: {str(exc)[:200]}") from None
    except RecursionError:
        raise error(f"{what} {path} is not JSON this kit reads: nested too deeply") from None


def read_toml(
    path: StrPath, what: str, error: type[Exception], limit: int = MAX_BYTES
) -> dict[str, Any]:
    """The TOML document in the user's file ``path``; ``error`` naming it otherwise."""
    import tomllib

    text = read_text(path, what, error, limit)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} {path} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per level: a 5,000-deep array
        raise error(f"{what} {path} nests arrays or tables too deeply to read") from None


__all__ = [
    "MAX_BYTES",
    "NotRegularFileError",
    "open_regular",
    "read_bytes",
    "read_json",
    "read_regular",
    "read_text",
    "read_toml",
]
