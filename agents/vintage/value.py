"""A value network for Vintage Speed: V(observation), a seat's expected finished-ahead share.

The network reads one seat's raw observation vector (the 174 entries of
:mod:`speed_env.vintage.observation`, scale folded into its first layer) and
predicts the share of the other seats that seat will finish ahead of (fewer
penalty points; ties count half), the tournament's pairwise measure. It is
what :mod:`agents.vintage.search` evaluates where a rollout is cut short
(``leaf=D``), and it is fitted by :mod:`train.vintage_value` on games of
cheap bots. Numpy only, so a search worker needs no torch.

File: one safetensors file, tensors ``v.K.weight`` / ``v.K.bias`` (hidden
layers) and ``out.weight`` / ``out.bias`` (one output, squashed by a
sigmoid), metadata ``format: vintage-value/1``, ``activation`` and
``training`` (JSON: the command's settings and its held-out fit).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from agents.model_io.mlp import _single_thread_blas
from agents.model_io.tensor_file import (
    ModelFormatError,
    check_finite,
    read_safetensors,
    write_safetensors,
)

FORMAT = "vintage-value/1"


def ahead_share(points: list[int], seat: int) -> float:
    """Share of the other seats ``seat`` has fewer penalty points than, ties counting half.

    It is what the network predicts, and what the search scores a finished rollout by with
    ``score=ahead``.
    """
    mine = points[seat]
    others = [p for s, p in enumerate(points) if s != seat]
    return sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others) / len(others)


class ValueNet:
    """V(obs) in [0, 1] for a batch of raw vintage observations (numpy, no torch)."""

    def __init__(
        self,
        tensors: Mapping[str, np.ndarray],
        activation: str = "tanh",
        source: str = "<memory>",
        training: dict[str, Any] | None = None,
    ) -> None:
        if activation not in ("tanh", "relu"):
            raise ModelFormatError(f"{source}: activation must be tanh or relu, not {activation!r}")
        self.activation = activation
        self.source = source
        self.training = training or {}
        self.layers: list[tuple[np.ndarray, np.ndarray]] = []
        k = 0
        while f"v.{k}.weight" in tensors:
            self.layers.append(_layer(tensors, f"v.{k}", source))
            k += 1
        self.out = _layer(tensors, "out", source)
        dims = [w.shape for w, _ in self.layers] + [self.out[0].shape]
        for (_, n_out), (n_in, _) in pairwise(dims):
            if n_out != n_in:
                raise ModelFormatError(f"{source}: its layers do not chain ({dims})")
        if self.out[0].shape[1] != 1:
            raise ModelFormatError(f"{source}: a value network has one output, not {dims[-1][1]}")
        self.obs_dim = dims[0][0]

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights by name, as saved (the inverse of the constructor)."""
        out = {}
        for k, (w, b) in enumerate(self.layers):
            out[f"v.{k}.weight"], out[f"v.{k}.bias"] = w.T.copy(), b.copy()
        out["out.weight"], out["out.bias"] = self.out[0].T.copy(), self.out[1].copy()
        return out

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Predicted finished-ahead share, ``(n,)``, of each row's seat."""
        x = np.asarray(obs, np.float32)
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ValueError(f"{self.source} reads (n, {self.obs_dim}) observations, not {x.shape}")
        with _single_thread_blas():  # small matrices: BLAS threads cost more than they give
            for w, b in self.layers:
                x = x @ w + b
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
            z = (x @ self.out[0] + self.out[1])[:, 0]
        return 1.0 / (1.0 + np.exp(-z))


def _layer(
    tensors: Mapping[str, np.ndarray], name: str, source: str
) -> tuple[np.ndarray, np.ndarray]:
    """Layer ``name``'s transposed float32 weight ``(in, out)`` and bias ``(out,)``.

    A missing or misshapen tensor is a :class:`ModelFormatError` naming it and the file.
    """
    if f"{name}.weight" not in tensors or f"{name}.bias" not in tensors:
        raise ModelFormatError(f"{source} lacks the tensors {name}.weight and {name}.bias")
    w = np.asarray(tensors[f"{name}.weight"], np.float32)
    b = np.asarray(tensors[f"{name}.bias"], np.float32)
    if w.ndim != 2 or b.shape != (w.shape[0],):
        raise ModelFormatError(
            f"{source}: {name}.weight {w.shape} and {name}.bias {b.shape} do not make a layer"
        )
    # Saved (out, in), as torch's Linear holds it; kept (in, out) so a batch is ``x @ w``.
    return np.ascontiguousarray(w.T), b


def save_value(path: str | os.PathLike[str], net: ValueNet) -> Path:
    """Write ``net`` (with its ``training`` record) to ``path``; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "activation": net.activation,
        "training": json.dumps(net.training, sort_keys=True),
    }
    check_finite(net.tensors(), str(path))  # a NaN weight is refused before anything is written
    write_safetensors(path, net.tensors(), meta)
    return path


def load_value(path: str | os.PathLike[str]) -> ValueNet:
    """A value network saved by :func:`save_value`; a clear error naming the file otherwise."""
    tensors, meta = read_safetensors(path, "value network")
    check_finite(tensors, str(path))
    if meta.get("format") != FORMAT:
        raise ModelFormatError(f"{path} is not a vintage value network (format {FORMAT})")
    training = json.loads(meta.get("training", "{}"))
    return ValueNet(tensors, meta.get("activation", "tanh"), str(path), training)
