"""The numpy MLP that plays a kit model (no torch): :class:`MLPPolicy`.

Built from a model's tensors (:mod:`agents.model_io.kit_model` reads and checks the
files); it plays the rules it was trained under only, refusing an observation
whose ``rules`` field names others. ``act`` reads only the rows with a choice
(a row with one legal action plays it), so that is where such an observation
is refused.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any, TypedDict

import numpy as np

from agents.model_io.tensor_file import ModelFormatError
from agents.model_io.version import ModelVersion, model_version
from speed_env.observation import layout_for_dim, rules_tag, tag_label
from speed_env.rules import PRESETS, Rules, RulesError

_RULE_KEYS = {f.name for f in dataclasses.fields(Rules)}  # to_dict leaves defaults out
ACTIVATIONS = ("tanh", "relu")
"""The hidden layers' activations a kit model may use."""


def checked_activation(activation: str, source: str) -> str:
    """``activation`` if it is one of :data:`ACTIVATIONS`.

    Anything else is a ``ModelFormatError`` naming it and the model ``source``.
    """
    if activation not in ACTIVATIONS:
        raise ModelFormatError(
            f"{source}: activation must be one of {ACTIVATIONS}, got {activation!r}"
        )
    return activation


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
                    # The symbol names differ by how numpy's OpenBLAS was built (64-bit ints,
                    # scipy-openblas wheels); the first pair found is used.
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
            # Skip the call when already single-threaded: it takes a lock inside OpenBLAS.
            if self.prev != 1:
                self.funcs[1](1)

    def __exit__(self, *exc: object) -> None:
        if self.funcs is not None and self.prev != 1:
            self.funcs[1](self.prev)


# Built on first use: scanning /proc and loading the library costs a few ms.
_BLAS: _SingleThreadBlas | None = None


def _single_thread_blas() -> _SingleThreadBlas:
    global _BLAS
    if _BLAS is None:
        _BLAS = _SingleThreadBlas()
    return _BLAS


class ActorOptions(TypedDict, total=False):
    """The keyword options of every kit actor (:class:`MLPPolicy` and its subclasses)."""

    sample: bool
    seed: int | None
    manifest: dict[str, Any] | None
    source: str


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
        self._acting(activation, sample=sample, seed=seed, manifest=manifest, source=source)
        self.layers = []
        k = 0
        while f"pi.{k}.weight" in tensors:
            w = np.asarray(tensors[f"pi.{k}.weight"], np.float32)
            # Stored transposed and contiguous so the forward pass is x @ w with no copy.
            self.layers.append(
                (np.ascontiguousarray(w.T), np.asarray(tensors[f"pi.{k}.bias"], np.float32))
            )
            k += 1
        w = np.asarray(tensors["logits.weight"], np.float32)
        self.head = (np.ascontiguousarray(w.T), np.asarray(tensors["logits.bias"], np.float32))
        self.obs_dim = (self.layers[0][0] if self.layers else self.head[0]).shape[0]
        self.n_actions = self.head[0].shape[1]

    def _acting(
        self,
        activation: str,
        *,
        sample: bool = False,
        seed: int | None = None,
        manifest: dict[str, Any] | None = None,
        source: str = "<memory>",
    ) -> None:
        """What acting and the rules check read, set alike by this class and each subclass
        (:class:`~agents.model_io.rankwise.RankwisePolicy` builds other layers)."""
        self.activation = checked_activation(activation, source)
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.manifest = manifest or {}
        self.source = source
        rules = self.manifest.get("rules")
        party = isinstance(rules, dict) and rules.get("players", 2) != 2
        # The n-seat observation holds no rules field: its rules were checked at load.
        self.trained_tags = None if party else trained_tags(self.manifest, self.source)
        """The ``rules`` fields of the rules it was trained under (None: unknown, or a model of
        three or four seats, whose observation has none: not checked)."""

    @property
    def made_with(self) -> ModelVersion | None:
        """The env id and kit version its model file records.

        The version is ``pre-1.0`` for a manifest written before kit 1.0.0; None for a network
        built in memory, from no file.
        """
        return model_version(self.manifest) if self.manifest else None

    def reseed(self, seed: int) -> None:
        """Restart the sampling generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Raw logits ``(n, n_actions)`` for a batch of observations."""
        with _single_thread_blas():
            return self._logits(self.inputs(np.asarray(obs, np.float32)))

    def inputs(self, obs: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """What the network reads of ``obs``: its first ``obs_dim`` floats.

        Only once the observation's ``rules`` field is found among the rules it was trained
        under. ``rows`` are the rows' numbers in the caller's batch, for the error.
        """
        width = obs.shape[-1]
        # Nothing to check and nothing to cut: the common case skips the layout lookup.
        if width == self.obs_dim and self.trained_tags is None:
            return obs
        try:
            rules_at = _rules_field(width)
        except ValueError as exc:
            raise ModelFormatError(f"{self.source}: {exc}") from None
        if self.trained_tags is not None:
            tags = obs[:, rules_at]
            # (rows, trained, tag) compared at once: each row must equal some trained rules' tag.
            known = (tags[:, None, :] == self.trained_tags[None]).all(axis=2).any(axis=1)
            if not known.all():
                row = int(np.flatnonzero(~known)[0])
                named = row if rows is None else int(rows[row])
                raise ModelFormatError(
                    f"{self.source} was trained on {tags_label(self.trained_tags)} and cannot "
                    f"play an observation of {tag_label(tags[row])} (row {named}); use a model "
                    "trained on those rules"
                )
        # A wider observation of a later kit version starts with this layout; the tail is new.
        return obs[:, : self.obs_dim]

    def _logits(self, x: np.ndarray) -> np.ndarray:
        for w, b in self.layers:
            x = x @ w
            # In place: the forward pass allocates one array a layer, not two.
            x += b
            if self.activation == "tanh":
                np.tanh(x, out=x)
            else:
                np.maximum(x, 0.0, out=x)
        return x @ self.head[0] + self.head[1]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The best legal action per row (or a sample from the masked softmax with ``sample``).

        Only the rows with a choice (two or more legal actions) are read, checked against the
        rules it was trained under and go through the network: a row with one legal action
        plays it (in a tournament about 90% of rows can only wait). ``sample`` draws noise for
        every row, so the generator's stream does not depend on how many rows had a choice.
        """
        legal = np.asarray(mask) > 0
        actions = legal.argmax(axis=1).astype(np.int64)  # the one legal action (0 if none)
        # Drawn before the early return, for every row: the stream must not depend on
        # how many rows had a choice.
        noise = self.rng.random(legal.shape, dtype=np.float32) if self.sample else None
        rows = np.flatnonzero(legal.sum(axis=1) >= 2)
        if rows.size == 0:
            return actions
        obs = np.asarray(obs, np.float32)
        with _single_thread_blas():
            if rows.size == len(obs):
                z = self._logits(self.inputs(obs))
            else:
                z = self._logits(self.inputs(obs[rows], rows))
        if noise is not None:
            # The 1e-12 keeps a uniform of exactly 0 from giving an infinite key.
            z = z - np.log(-np.log(noise[rows] + 1e-12) + 1e-12)  # Gumbel
        z = np.where(legal[rows], z, -np.inf)
        actions[rows] = z.argmax(axis=1)
        return actions


@functools.lru_cache(maxsize=8)  # read on every call; building the layout costs ~30 us
def _rules_field(width: int) -> slice:
    """Where an observation of ``width`` floats holds its ``rules`` field."""
    return layout_for_dim(width)["rules"]


def trained_tags(manifest: dict[str, Any], where: str = "the manifest") -> np.ndarray | None:
    """The observation ``rules`` fields of every rules a model was trained under, one row each.

    The manifest says so in ``trained_rules``, else ``rules``; None when it does not say.
    ``where`` names the manifest's file in the error for rules that are not valid.
    """
    listed = manifest.get("trained_rules") or ([manifest["rules"]] if "rules" in manifest else [])
    rows = []
    for d in listed:
        if not isinstance(d, dict) or d.get("preset") not in PRESETS:
            return None  # e.g. an SB3 .zip: no record of its rules
        try:
            rows.append(rules_tag(Rules(**{k: v for k, v in d.items() if k in _RULE_KEYS})))
        except (RulesError, TypeError) as exc:
            raise ModelFormatError(
                f"{where}: the trained rules {d!r:.300} are not valid: {exc}"
            ) from None
    return np.array(rows, np.float32) if rows else None


def tags_label(tags: np.ndarray) -> str:
    """The rules of observation ``rules`` fields, one row each, in words."""
    return " and ".join(tag_label(t) for t in tags)


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
    check_shapes(tensors, need, where, "network")


def check_shapes(
    tensors: Mapping[str, np.ndarray], need: Mapping[str, tuple[int, ...]], where: str, net: str
) -> None:
    """Refuse tensors missing from ``need``, of another shape, or not finite.

    ``net`` names the network in the message.
    """
    missing = [k for k in need if k not in tensors]
    if missing:
        raise ModelFormatError(
            f"{where} lacks the tensors {', '.join(missing)} the manifest's {net} needs"
        )
    for name, shape in need.items():
        if tuple(tensors[name].shape) != shape:
            raise ModelFormatError(
                f"{where}: tensor {name!r} has shape {tuple(tensors[name].shape)}, expected {shape}"
            )
        if not np.isfinite(tensors[name]).all():
            raise ModelFormatError(f"{where}: tensor {name!r} holds NaN or infinite values")
