"""Learned policies on disk: the kit's model format, its loader, and the numpy MLP that plays it.

A model is two files side by side:

- ``NAME.safetensors``: the network's tensors (float32), in the standard
  `safetensors <https://github.com/huggingface/safetensors>`_ layout (an
  8-byte header length, a JSON header, raw little-endian data). Readable by
  any safetensors library; read here by a small strict parser, so playing a
  model needs numpy only (no torch, no pickle).
- ``NAME.json``: the manifest. What the network was trained for and what it
  expects, checked on every load:

  ====================  ==============================================================
  key                   meaning
  ====================  ==============================================================
  ``format``            ``"speed-rl-policy"``; ``format_version`` 1
  ``weights``           the weights file's name (in the manifest's folder)
  ``weights_sha256``    SHA-256 of the weights file
  ``rules``             the rules preset and every option trained under (the first
                        rules, when it was trained under several)
  ``trained_rules``     every rules it was trained under (optional: absent, ``rules``)
  ``observation``       ``obs_dim``, ``n_actions`` and the observation ``layout``
                        (name, start, stop of each named slice) it was trained on
  ``reaction``          reaction profiles of the learner and the opponent in training
  ``tick_ms``           the tick the model was trained at
  ``net``               ``kind`` ``"mlp"``, ``hidden`` sizes, ``activation``
                        (``tanh`` / ``relu``), and each tensor's shape
  ``versions``          library versions that wrote it
  ``training``          free-form notes of the run (timesteps, opponent, seed …)
  ====================  ==============================================================

Tensors: ``pi.K.weight`` / ``pi.K.bias`` (hidden layer ``K`` of the policy),
``logits.weight`` / ``logits.bias``, and optionally the value head
``vf.K.*`` / ``value.*`` (used to resume training, not to play).

Saving checks the tensors first (shapes, finite values) and writes nothing
when they fail; the two files are then replaced so that ``NAME.json`` always
names whole weights matching its checksum, so a model already at that path
survives a refused or interrupted save (:func:`write_model`).

Loading refuses, with a message naming the file, anything that does not fit:
a manifest field of the wrong type (named), a changed, truncated or corrupted
weights file (SHA-256, checked before the weights are parsed), a header entry
that is not a known dtype, a shape of whole numbers and two byte offsets
(named), offsets that run past the data, a missing or misshapen tensor, or an
observation/action signature other than the rules asked for.

A model plays only the rules it was trained under (``trained_rules``; the
presets and the option flags of the observation's ``rules`` field): loading
it for other rules, or feeding it an observation whose ``rules`` field names
other rules, is refused naming both, never silently misread. A model saved
before a field was appended to the observation (the bundled one predates
``rules``) keeps its layout in the manifest and is fed the first ``obs_dim``
floats, which hold that layout unchanged; fields are matched by name.

Plain stable-baselines3 ``.zip`` files unpickle Python objects when loaded,
which can run arbitrary code. They load only when the caller says the file is
trusted: the spec ``ppo:PATH.zip?trust`` (or ``load_policy(path,
trust_pickle=True)``); without it they are refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import struct
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speed_env.observation import layout_for_dim, observation_layout, rules_tag, tag_label
from speed_env.observation import obs_dim as rules_obs_dim
from speed_env.rules import PRESETS, Rules, RulesError

_RULE_KEYS = set(Rules().to_dict())
FORMAT = "speed-rl-policy"
FORMAT_VERSION = 1
ACTIVATIONS = ("tanh", "relu")
BUNDLED = Path(__file__).parent / "models" / "trained.json"

_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}
_DTYPE_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}
_MAX_HEADER = 16 * 1024 * 1024


class ModelFormatError(ValueError):
    """A model file is missing, damaged, untrusted, or does not fit the rules asked for."""


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
            arr = arr.astype(np.float32)
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {
            "dtype": _DTYPE_NAMES[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [at, at + len(data)],
        }
        chunks.append(data)
        at += len(data)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + b"".join(chunks)


def write_safetensors(
    path: str | os.PathLike[str],
    tensors: Mapping[str, np.ndarray],
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """Write ``tensors`` as a safetensors file (atomically); return the bytes written."""
    blob = safetensors_bytes(tensors, metadata)
    _write_atomic(Path(path), blob)
    return blob


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
            .astype(dtype.newbyteorder("="))
        )
    return tensors, dict(meta)


def _is_count(x: Any) -> bool:
    """A JSON whole number >= 0 (``true`` and ``2.0`` are not)."""
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _tensor_entry(info: Any, what: str) -> tuple[np.dtype[Any], tuple[int, ...], tuple[int, int]]:
    """The dtype, shape and byte range of one header entry, each checked (a crafted header names its field)."""
    if not isinstance(info, dict):
        raise ModelFormatError(f"{what} has a header entry {info!r:.200} that is not an object")
    dtype_name, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(dtype_name, str) or dtype_name not in _DTYPES:
        raise ModelFormatError(
            f"{what}: dtype must be one of {', '.join(_DTYPES)}, got {dtype_name!r:.200}"
        )
    if not isinstance(shape, list) or not all(_is_count(s) for s in shape):
        raise ModelFormatError(
            f"{what}: shape must be a list of whole numbers >= 0, got {shape!r:.200}"
        )
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_count(x) for x in offsets)):
        raise ModelFormatError(
            f"{what}: data_offsets must be two whole numbers >= 0, got {offsets!r:.200}"
        )
    return np.dtype(_DTYPES[dtype_name]).newbyteorder("<"), tuple(shape), (offsets[0], offsets[1])


def _stage(path: Path, data: bytes) -> Path:
    """Write ``data`` to a new hidden temporary file beside ``path`` (flushed to disk); its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600); a model is an ordinary file, so honour the umask.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = _stage(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# ----------------------------------------------------------------- the policy
class _SingleThreadBlas:
    """Run numpy's OpenBLAS on one thread inside a ``with`` block (restored after; best effort).

    The policy's matrices are small: OpenBLAS's worker threads cost more than
    they give, and on a busy machine (cores shared with other processes) they
    make a forward pass 10-50 times slower. Finds the OpenBLAS numpy loaded and
    its get/set thread-count entry points; does nothing where there is none.
    """

    _NAMES = (
        ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
        ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
        ("openblas_get_num_threads", "openblas_set_num_threads"),
    )

    def __init__(self) -> None:
        self.funcs: tuple[Any, Any] | None = None
        self.prev = 1
        try:
            import ctypes
            import re

            with open("/proc/self/maps", encoding="utf-8") as f:
                libs = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", f.read())))
            for lib in libs:
                dll = ctypes.CDLL(lib)
                for get, set_ in self._NAMES:
                    if hasattr(dll, get) and hasattr(dll, set_):
                        getter, setter = getattr(dll, get), getattr(dll, set_)
                        getter.restype = ctypes.c_int
                        setter.argtypes = [ctypes.c_int]
                        self.funcs = (getter, setter)
                        return
        except (OSError, AttributeError):  # not Linux, or no OpenBLAS: leave threads alone
            self.funcs = None

    def __enter__(self) -> None:
        if self.funcs is not None:
            self.prev = int(self.funcs[0]())
            if self.prev != 1:
                self.funcs[1](1)

    def __exit__(self, *exc: object) -> None:
        if self.funcs is not None and self.prev != 1:
            self.funcs[1](self.prev)


_BLAS: _SingleThreadBlas | None = None


def _single_thread_blas() -> _SingleThreadBlas:
    global _BLAS
    if _BLAS is None:
        _BLAS = _SingleThreadBlas()
    return _BLAS


class MLPPolicy:
    """A saved actor network as a batch :class:`~speed_env.policy.Policy` (numpy, no torch).

    ``act`` plays the argmax of the logits over legal actions (deterministic),
    or with ``sample=True`` draws from the masked softmax with its own seeded
    generator (self-play opponents use that for variety).
    """

    def __init__(
        self,
        tensors: Mapping[str, np.ndarray],
        activation: str = "tanh",
        *,
        sample: bool = False,
        seed: int | None = None,
        manifest: dict[str, Any] | None = None,
        source: str = "<memory>",
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ModelFormatError(
                f"{source}: activation must be one of {ACTIVATIONS}, got {activation!r}"
            )
        self.activation = activation
        self.layers = []
        k = 0
        while f"pi.{k}.weight" in tensors:
            w = np.asarray(tensors[f"pi.{k}.weight"], np.float32)
            self.layers.append(
                (np.ascontiguousarray(w.T), np.asarray(tensors[f"pi.{k}.bias"], np.float32))
            )
            k += 1
        w = np.asarray(tensors["logits.weight"], np.float32)
        self.head = (np.ascontiguousarray(w.T), np.asarray(tensors["logits.bias"], np.float32))
        self.obs_dim = (self.layers[0][0] if self.layers else self.head[0]).shape[0]
        self.n_actions = self.head[0].shape[1]
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.manifest = manifest or {}
        self.source = source
        self.trained_tags = trained_tags(self.manifest)
        """The ``rules`` fields of the rules it was trained under (None: unknown, not checked)."""

    def reseed(self, seed: int) -> None:
        """Restart the sampling generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Raw logits ``(n, n_actions)`` for a batch of observations."""
        with _single_thread_blas():
            return self._logits(self.inputs(np.asarray(obs, np.float32)))

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """What the network reads of ``obs``: its first ``obs_dim`` floats, once the
        observation's ``rules`` field is found among the rules it was trained under."""
        width = obs.shape[-1]
        if width == self.obs_dim and self.trained_tags is None:
            return obs
        try:
            rules_at = layout_for_dim(width)["rules"]
        except ValueError as exc:
            raise ModelFormatError(f"{self.source}: {exc}") from None
        if self.trained_tags is not None:
            tags = obs[:, rules_at]
            known = (tags[:, None, :] == self.trained_tags[None]).all(axis=2).any(axis=1)
            if not known.all():
                row = int(np.flatnonzero(~known)[0])
                raise ModelFormatError(
                    f"{self.source} was trained on {_labels(self.trained_tags)} and cannot play an "
                    f"observation of {tag_label(tags[row])} (row {row}); use a model trained on those rules"
                )
        return obs[:, : self.obs_dim]

    def _logits(self, x: np.ndarray) -> np.ndarray:
        for w, b in self.layers:
            x = x @ w
            x += b
            if self.activation == "tanh":
                np.tanh(x, out=x)
            else:
                np.maximum(x, 0.0, out=x)
        return x @ self.head[0] + self.head[1]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The best legal action per row (or a sample from the masked softmax with ``sample``)."""
        z = self.logits(obs)
        if self.sample:
            z = z - np.log(
                -np.log(self.rng.random(z.shape, dtype=np.float32) + 1e-12) + 1e-12
            )  # Gumbel
        z = np.where(np.asarray(mask) > 0, z, -np.inf)
        return z.argmax(axis=1).astype(np.int64)


# ----------------------------------------------------------------- manifest
def signature(rules: Rules) -> dict[str, Any]:
    """The observation/action signature of ``rules``: what a model must match to play them."""
    from speed_env import engine

    return {
        "obs_dim": rules_obs_dim(rules),
        "n_actions": engine.n_actions(rules),
        "layout": [[name, s.start, s.stop] for name, s in observation_layout(rules).items()],
    }


def library_versions() -> dict[str, str]:
    """Versions of the libraries that matter for a saved model (those importable now)."""
    import importlib.metadata as md
    import platform

    out = {"python": platform.python_version()}
    for dist in ("speed-rl", "numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium"):
        with contextlib.suppress(md.PackageNotFoundError):
            out[dist] = md.version(dist)
    return out


def tensor_shapes(tensors: Mapping[str, np.ndarray]) -> dict[str, list[int]]:
    """Name → shape of each tensor (for the manifest)."""
    return {k: list(np.shape(v)) for k, v in sorted(tensors.items())}


def model_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """The weights and manifest paths of a model named by its stem, ``.json`` or ``.safetensors``."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix in (".json", ".safetensors") else p
    return stem.with_name(stem.name + ".safetensors"), stem.with_name(stem.name + ".json")


def save_model(
    path: str | os.PathLike[str],
    tensors: Mapping[str, np.ndarray],
    *,
    rules: Rules | Sequence[Rules],
    hidden: list[int],
    activation: str,
    reaction: Any = None,
    tick_ms: int = 50,
    training: dict[str, Any] | None = None,
) -> Path:
    """Write ``PATH.safetensors`` and the manifest ``PATH.json``; returns the manifest's path.

    ``rules``: the rules it was trained under (one, or a list when it was trained
    under several; all share one observation/action signature).

    ``path`` may end in ``.json``, ``.safetensors`` or neither. Written by
    :func:`write_model`: checked first, and a model already at ``path``
    survives a refused or interrupted save.
    """
    rules_list = [rules] if isinstance(rules, Rules) else list(rules)
    if not rules_list or {signature_key(r) for r in rules_list} != {signature_key(rules_list[0])}:
        raise ModelFormatError(
            "save_model needs one or more rules that share one observation/action signature"
        )
    manifest = {
        "rules": rules_list[0].to_dict(),
        "trained_rules": [r.to_dict() for r in rules_list],
        "observation": signature(rules_list[0]),
        "reaction": reaction,
        "tick_ms": tick_ms,
        "net": {"kind": "mlp", "hidden": [int(h) for h in hidden], "activation": activation},
        "versions": library_versions(),
        "training": training or {},
    }
    return write_model(path, tensors, manifest)


def write_model(
    path: str | os.PathLike[str], tensors: Mapping[str, np.ndarray], manifest: Mapping[str, Any]
) -> Path:
    """Check ``tensors`` against ``manifest``, then write both files as one step; the manifest's path.

    ``manifest`` holds everything but the format, the weights file's name and
    checksum and the tensor shapes, which are filled in here. Nothing is
    written when the check fails (a misshapen or non-finite tensor), and the
    files are committed so that ``PATH.json`` always names whole weights
    that match its checksum: the earlier model until the new one is complete
    (see :func:`_commit`).
    """
    weights_path, manifest_path = model_paths(path)
    tensors32 = {k: np.asarray(v, np.float32) for k, v in tensors.items()}
    blob = safetensors_bytes(tensors32, {"format": FORMAT})
    net = {**manifest["net"], "tensors": tensor_shapes(tensors32)}
    full = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "weights": weights_path.name,
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        **manifest,
        "net": net,
    }
    check_tensors(tensors32, full, str(weights_path))
    _commit(weights_path, manifest_path, blob, (json.dumps(full, indent=2) + "\n").encode())
    return manifest_path


def _commit(weights_path: Path, manifest_path: Path, blob: bytes, manifest_text: bytes) -> None:
    """Replace a model's two files so that an interruption at any point leaves a whole model.

    1. Both new files are written to hidden temporaries (nothing visible changes).
    2. If the manifest already there names the weights file about to be replaced,
       those weights are kept under a hidden name (a hard link) and that manifest
       is rewritten, atomically, to name them: the earlier model is unchanged.
    3. The new weights, then the new manifest, are renamed into place (the second
       rename is the moment the new model replaces the earlier one).
    4. The kept weights of the earlier model are removed.
    """
    staged = [_stage(weights_path, blob), _stage(manifest_path, manifest_text)]
    kept = weights_path.with_name(f".{weights_path.name}.earlier")
    try:
        _keep_earlier(manifest_path, weights_path, kept)
        os.replace(staged[0], weights_path)
        os.replace(staged[1], manifest_path)
    except BaseException:
        for tmp in staged:
            tmp.unlink(missing_ok=True)
        raise
    kept.unlink(missing_ok=True)  # no manifest names it now


def _keep_earlier(manifest_path: Path, weights_path: Path, kept: Path) -> None:
    """Point an earlier manifest at a hidden link to its weights (step 2 of :func:`_commit`)."""
    try:
        earlier = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no earlier model (or an unreadable one): nothing to keep
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
        _write_atomic(kept, weights_path.read_bytes())
    _write_atomic(
        manifest_path, (json.dumps({**earlier, "weights": kept.name}, indent=2) + "\n").encode()
    )


def check_tensors(tensors: Mapping[str, np.ndarray], manifest: dict[str, Any], where: str) -> None:
    """Refuse tensors that are missing or do not chain into the manifest's network."""
    net = manifest["net"]
    sig = manifest["observation"]
    dims = [int(sig["obs_dim"]), *[int(h) for h in net["hidden"]]]
    need: dict[str, tuple[int, ...]] = {}
    for k in range(len(net["hidden"])):
        need[f"pi.{k}.weight"] = (dims[k + 1], dims[k])
        need[f"pi.{k}.bias"] = (dims[k + 1],)
    need["logits.weight"] = (int(sig["n_actions"]), dims[-1])
    need["logits.bias"] = (int(sig["n_actions"]),)
    missing = [k for k in need if k not in tensors]
    if missing:
        raise ModelFormatError(
            f"{where} lacks the tensors {', '.join(missing)} the manifest's network needs"
        )
    for name, shape in need.items():
        if tuple(tensors[name].shape) != shape:
            raise ModelFormatError(
                f"{where}: tensor {name!r} has shape {tuple(tensors[name].shape)}, expected {shape}"
            )
        if not np.isfinite(tensors[name]).all():
            raise ModelFormatError(f"{where}: tensor {name!r} holds NaN or infinite values")


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFormatError(f"model manifest {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFormatError(f"cannot read model manifest {path}: {exc}") from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFormatError(
            f"model manifest {path} is not valid JSON (truncated or corrupted?): {exc}"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFormatError(f'{path} is not a {FORMAT} manifest (no "format": "{FORMAT}")')
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ModelFormatError(
            f"{path} has format_version {manifest.get('format_version')!r}; this kit reads {FORMAT_VERSION}"
        )
    for key in ("weights", "weights_sha256", "observation", "net", "rules"):
        if key not in manifest:
            raise ModelFormatError(f"model manifest {path} lacks the key {key!r}")
    for field, ok, want in _MANIFEST_FIELDS:
        value = _field(manifest, field)
        if not ok(value):
            raise ModelFormatError(
                f"model manifest {path}: {field} must be {want}, got {value!r:.200}"
            )
    net = manifest["net"]
    if net.get("kind") != "mlp" or net.get("activation") not in ACTIVATIONS:
        raise ModelFormatError(
            f"model manifest {path}: net must be an mlp with activation in {ACTIVATIONS}, got {net!r}"
        )
    name = manifest["weights"]
    if Path(name).name != name or name in ("", ".", ".."):
        raise ModelFormatError(
            f"model manifest {path}: weights must be a file name beside it, got {name!r}"
        )
    return manifest


def _is_size(x: Any) -> bool:
    return _is_count(x) and x > 0


# Each field a load reads, with its check and what it must be (named in the error).
_MANIFEST_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("weights", lambda v: isinstance(v, str), "a file name (a string)"),
    (
        "weights_sha256",
        lambda v: isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v),
        "a SHA-256 as 64 lowercase hex digits",
    ),
    ("rules", lambda v: isinstance(v, dict), "an object"),
    (
        "trained_rules",
        lambda v: v is None or (isinstance(v, list) and all(isinstance(d, dict) for d in v)),
        "a list of objects",
    ),
    ("observation", lambda v: isinstance(v, dict), "an object"),
    ("observation.obs_dim", _is_size, "a whole number > 0"),
    ("observation.n_actions", _is_size, "a whole number > 0"),
    ("net", lambda v: isinstance(v, dict), "an object"),
    (
        "net.hidden",
        lambda v: isinstance(v, list) and all(_is_size(h) for h in v),
        "a list of whole numbers > 0",
    ),
)


def _field(manifest: dict[str, Any], dotted: str) -> Any:
    """``manifest["a"]["b"]`` for ``"a.b"`` (the parents were checked to be objects first)."""
    value: Any = manifest
    for part in dotted.split("."):
        value = value.get(part)
    return value


def signature_key(rules: Rules) -> tuple[int, int]:
    """``(obs_dim, n_actions)`` of ``rules``: rules alike in it can share one network."""
    from speed_env import engine

    return rules_obs_dim(rules), engine.n_actions(rules)


def trained_tags(manifest: dict[str, Any]) -> np.ndarray | None:
    """The observation ``rules`` fields of every rules a manifest says its model was trained
    under (``trained_rules``, else ``rules``), one row each; None when it does not say."""
    listed = manifest.get("trained_rules") or ([manifest["rules"]] if "rules" in manifest else [])
    rows = []
    for d in listed:
        if not isinstance(d, dict) or d.get("preset") not in PRESETS:
            return None  # e.g. an SB3 .zip: no record of its rules
        try:
            rows.append(rules_tag(Rules(**{k: v for k, v in d.items() if k in _RULE_KEYS})))
        except (RulesError, TypeError) as exc:
            raise ModelFormatError(f"the manifest's rules {d!r} are not valid: {exc}") from None
    return np.array(rows, np.float32) if rows else None


def check_signature(manifest: dict[str, Any], rules: Rules, where: str) -> None:
    """Refuse a model that cannot play ``rules``: other actions, an observation layout this
    version does not start with, or rules it was not trained under (each named)."""
    have, want = manifest["observation"], signature(rules)
    trained = manifest.get("rules", {})
    if have.get("n_actions") != want["n_actions"]:
        raise ModelFormatError(
            f"{where} was trained for n_actions = {have.get('n_actions')} (rules {_rules_label(trained)}), "
            f"but rules {_rules_label(rules.to_dict())} have n_actions = {want['n_actions']}; load it with "
            f"rules of the same observation/action signature"
        )
    # The model's layout must be where this version's starts, field by field (by name).
    now = {name: (start, stop) for name, start, stop in want["layout"]}
    old = have.get("layout")
    dim = have.get("obs_dim")
    try:
        fields = {str(f[0]): (f[1], f[2]) for f in old} if isinstance(old, list) else None
    except (TypeError, IndexError, KeyError):
        fields = None
    inside = {name for name, (_, stop) in now.items() if isinstance(dim, int) and stop <= dim}
    if (
        fields is None
        or any(now.get(n) != span for n, span in fields.items())
        or inside != set(fields)
    ):
        raise ModelFormatError(
            f"{where} was trained for obs_dim = {dim} (rules {_rules_label(trained)}) with an observation "
            f"layout this version of speed_env does not start with, but rules {_rules_label(rules.to_dict())} "
            f"have obs_dim = {want['obs_dim']} (layout {old!r} vs {want['layout']!r}); retrain or convert it"
        )
    tags = trained_tags(manifest)
    if tags is not None and not (tags == rules_tag(rules)).all(axis=1).any():
        raise ModelFormatError(
            f"{where} was trained on {_labels(tags)}, not on {tag_label(rules_tag(rules))}; "
            f"load it with the rules it was trained on, or train one for these"
        )


def _labels(tags: np.ndarray) -> str:
    return " and ".join(tag_label(t) for t in tags)


def _rules_label(d: dict[str, Any]) -> str:
    from speed_env.rules import Rules as R

    default = (
        R(preset=d.get("preset", "us")).to_dict()
        if d.get("preset") in ("us", "pagat", "japanese")
        else {}
    )
    extra = [f"{k}={v}" for k, v in d.items() if k != "preset" and default.get(k) != v]
    return str(d.get("preset", "?")) + (f" ({', '.join(extra)})" if extra else "")


def manifest_path_of(path: str | os.PathLike[str]) -> Path:
    """The manifest of a model named by its ``.json``, its ``.safetensors``, its stem, or its folder."""
    p = Path(path)
    if p.suffix == ".safetensors":
        return p.with_suffix(".json")
    if p.suffix == ".json":
        return p
    if p.is_dir():
        return p / "model.json"
    return p.with_name(p.name + ".json")


def copy_model(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> Path:
    """Copy a kit model to ``dst`` (a stem, ``.json`` or ``.safetensors``), checking it on the way.

    The manifest names its weights file, so copying the two files by hand would
    leave it pointing at the old name; this rewrites it (for example to bundle a
    run's ``model.json`` as ``agents/models/trained.json``).
    """
    tensors, manifest, _ = read_model(src)
    rest = {
        k: v
        for k, v in manifest.items()
        if k not in ("format", "format_version", "weights", "weights_sha256")
    }
    return write_model(dst, tensors, rest)


def read_model(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, Any], Path]:
    """Tensors, manifest and manifest path of a kit model, every check but the rules done."""
    manifest_path = manifest_path_of(path)
    manifest = _read_manifest(manifest_path)
    weights = manifest_path.parent / manifest["weights"]
    try:
        blob = weights.read_bytes()
    except FileNotFoundError:
        raise ModelFormatError(
            f"weights file {weights} named by manifest {manifest_path} does not exist"
        ) from None
    except OSError as exc:
        raise ModelFormatError(f"cannot read weights file {weights}: {exc.strerror}") from None
    digest = hashlib.sha256(blob).hexdigest()
    if digest != manifest["weights_sha256"]:
        # Say what is wrong as precisely as the bytes allow.
        try:
            parse_safetensors(blob, str(weights))
            what = "its contents changed"
        except ModelFormatError as exc:
            what = str(exc).removeprefix(f"{weights} ").removeprefix(f"{weights}: ")
        raise ModelFormatError(
            f"weights file {weights} does not match the SHA-256 in {manifest_path.name} "
            f"(expected {manifest['weights_sha256'][:12]}…, got {digest[:12]}…): {what}; refusing to load it"
        )
    tensors, _ = parse_safetensors(blob, str(weights))
    check_tensors(tensors, manifest, str(weights))
    return tensors, manifest, manifest_path


def load_policy(
    path: str | os.PathLike[str],
    rules: Rules,
    *,
    seed: int | None = None,
    sample: bool = False,
    trust_pickle: bool = False,
) -> MLPPolicy:
    """A saved model as a Policy for ``rules``: a kit manifest (``.json`` / ``.safetensors``),
    or with ``trust_pickle=True`` a stable-baselines3 ``.zip``."""
    p = Path(path)
    if p.suffix == ".zip":
        return _load_sb3_zip(p, rules, seed=seed, sample=sample, trust_pickle=trust_pickle)
    tensors, manifest, manifest_path = read_model(p)
    check_signature(manifest, rules, str(manifest_path))
    return MLPPolicy(
        tensors,
        manifest["net"]["activation"],
        sample=sample,
        seed=seed,
        manifest=manifest,
        source=str(manifest_path),
    )


def _load_sb3_zip(
    path: Path, rules: Rules, *, seed: int | None, sample: bool, trust_pickle: bool
) -> MLPPolicy:
    if not trust_pickle:
        raise ModelFormatError(
            f"{path} is a stable-baselines3 .zip, which unpickles Python objects (and so can run code) when "
            f"loaded; pass ppo:{path}?trust (or trust_pickle=True) if you trust where it came from, or convert "
            f"it once to the kit's format with agents.model_io.convert_sb3_zip"
        )
    if not path.exists():
        raise ModelFormatError(f"model file {path} does not exist")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:  # pragma: no cover - the [train] extra is missing
        raise ModelFormatError(
            f"loading {path} needs sb3-contrib (pip install 'speed-rl[train]')"
        ) from None
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as exc:  # any failure inside SB3's loader means a file it cannot read
        raise ModelFormatError(
            f"cannot load {path} as a MaskablePPO model: {type(exc).__name__}: {exc}"
        ) from None
    tensors, hidden, activation = sb3_policy_tensors(model.policy)
    sig = signature(rules)
    obs_shape = model.observation_space.shape or (0,)
    manifest = {
        "observation": {
            **sig,
            "obs_dim": int(obs_shape[0]),
            "n_actions": int(getattr(model.action_space, "n", 0)),
        },
        "rules": {"preset": "?"},
        "net": {"kind": "mlp", "hidden": hidden, "activation": activation},
    }
    check_signature(manifest, rules, str(path))
    check_tensors(tensors, manifest, str(path))
    return MLPPolicy(
        tensors, activation, sample=sample, seed=seed, manifest=manifest, source=str(path)
    )


def convert_sb3_zip(
    path: str | os.PathLike[str], out: str | os.PathLike[str], rules: Rules
) -> Path:
    """Convert a trusted stable-baselines3 MaskablePPO ``.zip`` (an ``MlpPolicy``) to the kit's format."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(path), device="cpu")
    tensors, hidden, activation = sb3_policy_tensors(model.policy)
    return save_model(
        out,
        tensors,
        rules=rules,
        hidden=hidden,
        activation=activation,
        training={"converted_from": str(path)},
    )


def sb3_policy_tensors(policy: Any) -> tuple[dict[str, np.ndarray], list[int], str]:
    """An SB3 ``MaskableActorCriticPolicy``'s MLP as kit tensors, hidden sizes and activation.

    Refuses anything but the plain ``MlpPolicy`` shape (Linear/activation
    stacks for the actor and the critic, no shared layers).
    """
    import torch.nn as nn

    extractor = policy.mlp_extractor
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    out: dict[str, np.ndarray] = {}
    hidden: list[int] = []
    activation = None
    for prefix, seq in (("pi", extractor.policy_net), ("vf", extractor.value_net)):
        k = 0
        for mod in seq:
            if isinstance(mod, nn.Linear):
                out[f"{prefix}.{k}.weight"] = mod.weight.detach().cpu().numpy().astype(np.float32)
                out[f"{prefix}.{k}.bias"] = mod.bias.detach().cpu().numpy().astype(np.float32)
                if prefix == "pi":
                    hidden.append(int(mod.out_features))
                k += 1
            elif type(mod) in acts:
                if activation not in (None, acts[type(mod)]):
                    raise ModelFormatError("the policy mixes activations; only one is supported")
                activation = acts[type(mod)]
            else:
                raise ModelFormatError(
                    f"unsupported layer {type(mod).__name__} in the policy network"
                )
    if getattr(extractor, "shared_net", None) is not None and len(list(extractor.shared_net)) > 0:
        raise ModelFormatError("policies with shared layers are not supported")
    out["logits.weight"] = policy.action_net.weight.detach().cpu().numpy().astype(np.float32)
    out["logits.bias"] = policy.action_net.bias.detach().cpu().numpy().astype(np.float32)
    out["value.weight"] = policy.value_net.weight.detach().cpu().numpy().astype(np.float32)
    out["value.bias"] = policy.value_net.bias.detach().cpu().numpy().astype(np.float32)
    return out, hidden, activation or "tanh"


# ----------------------------------------------------------------- agent specs
def policy_from_spec_arg(arg: str, rules: Rules, seed: int | None) -> MLPPolicy:
    """Build the ``ppo:PATH[?trust][?sample]`` agent (options after ``?``, joined by ``&`` or ``?``)."""
    path, _, query = arg.partition("?")
    flags = {f for f in query.replace("&", "?").split("?") if f}
    unknown = flags - {"trust", "sample"}
    if unknown:
        raise ModelFormatError(
            f"unknown option(s) {', '.join(sorted(unknown))} in ppo:{arg}; known: trust, sample"
        )
    if not path:
        raise ModelFormatError(
            "ppo needs a model path: ppo:PATH.json (or ppo:PATH.zip?trust for an SB3 file)"
        )
    return load_policy(
        path, rules, seed=seed, sample="sample" in flags, trust_pickle="trust" in flags
    )


def bundled_models() -> list[Path]:
    """The manifests of every bundled model: ``BUNDLED`` (the default) first, then the other
    ``*.json`` manifests beside it, by name."""
    others = sorted(p for p in BUNDLED.parent.glob("*.json") if p != BUNDLED)
    return ([BUNDLED] if BUNDLED.exists() else []) + others


def bundled_policy(rules: Rules, seed: int | None, arg: str = "") -> MLPPolicy:
    """The bundled learned agent that was trained on ``rules``: the first of
    :func:`bundled_models` that can play them; a clear error naming each bundled model and
    what it was trained on when none fits, or when none is bundled."""
    models = bundled_models()
    if not models:
        raise ModelFormatError(
            f"the bundled model {BUNDLED} is missing: this copy of the kit ships without a trained agent. "
            f"Train one (speed train --out runs/NAME), bundle it with "
            f"agents.model_io.copy_model('runs/NAME/model.json', '{BUNDLED.with_suffix('')}'), "
            f"or play a saved file with ppo:PATH"
        )
    refusals = []
    for path in models:
        try:
            check_signature(_read_manifest(path), rules, path.name)
        except ModelFormatError as exc:
            refusals.append(str(exc).split(";")[0])
            continue
        return load_policy(path, rules, seed=seed, sample=arg == "sample")
    raise ModelFormatError(
        f"no bundled model (in {BUNDLED.parent}) plays {tag_label(rules_tag(rules))}: "
        + "; ".join(refusals)
        + "; train one for these rules and bundle it with agents.model_io.copy_model"
    )
