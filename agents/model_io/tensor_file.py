"""The bytes of a kit model on disk: the safetensors codec and the atomic commit of its two files.

:mod:`agents.model_io.kit_model` holds the model format (the manifest, what it must say,
which game it plays); this module only turns tensors into the bytes of a
``.safetensors`` file and back, strictly (a crafted header is refused naming
its field), and replaces files so that an interruption never leaves half a
model (:func:`commit`).
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents.runtime import files
from speed_env.user_file import NotRegularFileError, open_regular, read_regular

_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}
_DTYPE_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}
# A crafted length field could ask for gigabytes; no real header comes near this cap.
_MAX_HEADER = 16 * 1024 * 1024
MAX_MANIFEST = 4 * 1024 * 1024
"""The most bytes a model manifest may hold (a real one is a few kilobytes)."""


class ModelFormatError(ValueError):
    """A model file is missing, damaged, untrusted, or does not fit the rules asked for."""


@contextmanager
def model_file_errors(path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Open and read the model file ``path``, its ``OSError`` made a :class:`ModelFormatError`.

    The error names the file as ``what``, say ``"model manifest"``: missing, not a regular
    file with :func:`speed_env.user_file.open_regular`'s own message, or unreadable.
    """
    try:
        yield
    except FileNotFoundError:
        raise ModelFormatError(f"{what} {path} does not exist") from None
    except NotRegularFileError as exc:
        raise ModelFormatError(str(exc.strerror)) from None
    except OSError as exc:
        raise ModelFormatError(f"cannot read {what} {path}: {exc.strerror}") from None


# ----------------------------------------------------------------- safetensors


def safetensors_bytes(
    tensors: Mapping[str, np.ndarray], metadata: Mapping[str, str] | None = None
) -> bytes:
    """``tensors`` (and string ``metadata``) as the bytes of a safetensors file."""
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    chunks, at = [], 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        if arr.dtype not in _DTYPE_NAMES:
            # The codec writes only the dtypes of _DTYPES: anything else is stored as float32.
            arr = arr.astype(np.float32)
        # safetensors is little-endian on disk whatever the machine is.
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {
            "dtype": _DTYPE_NAMES[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [at, at + len(data)],
        }
        chunks.append(data)
        at += len(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    # The format pads the header with spaces so the data starts 8-byte aligned.
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(chunks)


def write_safetensors(
    path: str | os.PathLike[str],
    tensors: Mapping[str, np.ndarray],
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """Write ``tensors`` as a safetensors file (atomically); return the bytes written. Any
    values are stored (search targets hold NaN); a model checks its own with
    :func:`check_finite`."""
    blob = safetensors_bytes(tensors, metadata)
    write_atomic(Path(path), blob)
    return blob


def read_safetensors(
    path: str | os.PathLike[str], what: str
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Tensors and metadata of the safetensors file ``path``.

    A file that cannot be read is a :class:`ModelFormatError` naming it as ``what``:
    ``"value network"``, ...
    """
    return parse_safetensors(read_safetensors_bytes(path, what), str(path))


def read_safetensors_bytes(path: str | os.PathLike[str], what: str) -> bytes:
    """The bytes of the safetensors file ``path``, checked before the data is read.

    Read only when it is a regular file whose size is the one its header describes: a link to
    ``/dev/zero`` or a named pipe is refused at once, never read.
    """
    with model_file_errors(path, what):
        f, size = open_regular(path, what)
        with f:
            head = f.read(8)
            if len(head) == 8:
                (n,) = struct.unpack("<Q", head)
                # A length past the file or the cap is never read: the fallback below lets the
                # parser name it.
                if n <= min(_MAX_HEADER, size - 8):
                    header = f.read(n)
                    data = _data_size(header)
                    want = None if data is None else 8 + n + data
                    if want is not None and want != size:
                        raise ModelFormatError(
                            f"{what} {path} is {size} bytes, but its safetensors header "
                            f"describes {want}; refusing to read it (truncated, or not a model?)"
                        )
                    return head + header + f.read(size - 8 - n)
            # Too short or a header that does not fit: the parser names what is wrong.
            return head + f.read(min(size, _MAX_HEADER + 8) - len(head))


def _data_size(header: bytes) -> int | None:
    """The data bytes a safetensors header describes (the largest tensor end); None when the
    header is not well formed (the parser then names what is wrong)."""
    try:
        entries = json.loads(header.decode("utf-8"))
        ends = [
            e["data_offsets"][1]
            for k, e in entries.items()
            if k != "__metadata__" and is_count(e["data_offsets"][1])
        ]
    # Broad on purpose: any malformed header means "no size to check", and
    # parse_safetensors then names the exact fault.
    except (ValueError, RecursionError, TypeError, KeyError, IndexError, AttributeError):
        return None
    return max(ends, default=0)


def check_finite(tensors: Mapping[str, np.ndarray], where: str) -> None:
    """Refuse a tensor holding NaN or an infinity, naming it and ``where``.

    Every tensor of a file is checked: the policy's, the value head's, any other.
    """
    for name in sorted(tensors):
        if not np.isfinite(tensors[name]).all():
            raise ModelFormatError(f"{where}: tensor {name!r} holds NaN or infinite values")


def parse_safetensors(blob: bytes, where: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Tensors and metadata from a safetensors file's bytes; ``where`` names it in errors."""
    if len(blob) < 8:
        raise ModelFormatError(
            f"{where} is truncated: {len(blob)} bytes, not even a safetensors header"
        )
    (n,) = struct.unpack("<Q", blob[:8])
    if n > min(_MAX_HEADER, len(blob) - 8):
        raise ModelFormatError(
            f"{where} is truncated or not a safetensors file: its header claims {n} bytes, "
            f"the file holds {len(blob) - 8} after the length"
        )
    try:
        header = json.loads(blob[8 : 8 + n].decode("utf-8"))
    # RecursionError: a crafted header nested deeper than the JSON parser's stack.
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ModelFormatError(
            f"{where} is corrupted: its safetensors header is not valid JSON"
        ) from None
    if not isinstance(header, dict):
        raise ModelFormatError(f"{where} is corrupted: its safetensors header is not a JSON object")
    data = memoryview(blob)[8 + n :]
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise ModelFormatError(
            f"{where}: the header's __metadata__ must map names to strings, got {meta!r:.200}"
        )
    tensors: dict[str, np.ndarray] = {}
    for name, info in header.items():
        dtype, shape, (begin, end) = _tensor_entry(info, f"{where}: tensor {name!r}")
        size = math.prod(shape) * dtype.itemsize
        if end - begin != size:
            raise ModelFormatError(
                f"{where}: tensor {name!r} of shape {shape} does not match its byte range"
            )
        if end > len(data):
            raise ModelFormatError(
                f"{where} is truncated: tensor {name!r} ends at byte {end} of the data, "
                f"which holds only {len(data)} bytes"
            )
        tensors[name] = (
            np.frombuffer(data[begin:end], dtype=dtype)
            .reshape(shape)
            # A native-order copy: frombuffer alone is a read-only view that keeps the blob alive.
            .astype(dtype.newbyteorder("="))
        )
    return tensors, dict(meta)


def is_count(x: Any) -> bool:
    """A JSON whole number >= 0 (``true`` and ``2.0`` are not)."""
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _tensor_entry(info: Any, what: str) -> tuple[np.dtype[Any], tuple[int, ...], tuple[int, int]]:
    """The dtype, shape and byte range of one header entry, each checked (a crafted header's
    wrong field is named)."""
    if not isinstance(info, dict):
        raise ModelFormatError(f"{what} has a header entry {info!r:.200} that is not an object")
    dtype_name, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(dtype_name, str) or dtype_name not in _DTYPES:
        raise ModelFormatError(
            f"{what}: dtype must be one of {', '.join(_DTYPES)}, got {dtype_name!r:.200}"
        )
    if not isinstance(shape, list) or not all(is_count(s) for s in shape):
        raise ModelFormatError(
            f"{what}: shape must be a list of whole numbers >= 0, got {shape!r:.200}"
        )
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(is_count(x) for x in offsets)):
        raise ModelFormatError(
            f"{what}: data_offsets must be two whole numbers >= 0, got {offsets!r:.200}"
        )
    return np.dtype(_DTYPES[dtype_name]).newbyteorder("<"), tuple(shape), (offsets[0], offsets[1])


def stage(path: Path, data: bytes) -> Path:
    """Write ``data`` to a new hidden temporary file beside ``path``; returns its path.

    Flushed to disk; see :func:`agents.runtime.files.stage`: named for its writer, removed on
    failure.
    """
    return files.stage(path, data, fsync=True)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a flushed temporary file and a rename."""
    files.write_atomic(path, data, fsync=True)


def commit(weights_path: Path, manifest_path: Path, blob: bytes, manifest_text: bytes) -> None:
    """Replace a model's two files so that an interruption at any point leaves a whole model.

    1. Both new files are written to hidden temporaries (nothing visible changes).
    2. If the manifest already there names the weights file about to be replaced,
       those weights are kept under a hidden name (a hard link) and that manifest
       is rewritten, atomically, to name them: the earlier model is unchanged.
    3. The new weights, then the new manifest, are renamed into place (the second
       rename is the moment the new model replaces the earlier one).
    4. The kept weights of the earlier model are removed.
    """
    kept = weights_path.with_name(f".{weights_path.name}.earlier")
    staged: list[Path] = []
    try:  # a failure anywhere (a full disk at the second file) leaves no temporary behind
        staged.append(stage(weights_path, blob))
        staged.append(stage(manifest_path, manifest_text))
        _keep_earlier(manifest_path, weights_path, kept)
        os.replace(staged[0], weights_path)
        os.replace(staged[1], manifest_path)
    # BaseException: a Ctrl-C between the two renames must clean up too.
    except BaseException:
        for tmp in staged:
            tmp.unlink(missing_ok=True)
        raise
    kept.unlink(missing_ok=True)  # no manifest names it now


def _keep_earlier(manifest_path: Path, weights_path: Path, kept: Path) -> None:
    """Point an earlier manifest at a hidden link to its weights (step 2 of :func:`commit`)."""
    try:
        earlier = json.loads(read_regular(manifest_path, "model manifest", MAX_MANIFEST))
    except (OSError, ValueError, RecursionError):  # no earlier model, or not one: nothing to keep
        return
    if (
        not isinstance(earlier, dict)
        or earlier.get("weights") != weights_path.name
        or not weights_path.exists()
    ):
        return
    kept.unlink(missing_ok=True)  # a leftover of an interrupted save that no manifest names
    try:
        os.link(weights_path, kept)
    except OSError:  # a file system without hard links
        write_atomic(kept, read_regular(weights_path, "weights file"))
    write_atomic(manifest_path, files.json_bytes({**earlier, "weights": kept.name}))
