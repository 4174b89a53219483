"""Learned policies on disk, for both games: the kit's model format, checked on every load.

- :mod:`~agents.model_io.kit_model`: save, read, copy and load a kit model (both games), and
  convert an SB3 ``.zip``.
- :mod:`~agents.model_io.manifest`: the manifest (``model.json``), every field a load reads,
  checked.
- :mod:`~agents.model_io.rules_signature`: the observation/action signature a model must match.
- :mod:`~agents.model_io.version`: which env and kit version a model file says it was made with.
- :mod:`~agents.model_io.tensor_file`: the safetensors codec and the atomic commit of the two files.
- :mod:`~agents.model_io.mlp`: :class:`MLPPolicy`, the numpy MLP that plays a model (no torch).
- :mod:`~agents.model_io.rankwise`: :class:`RankwisePolicy`, the rank-relative network in numpy.
- :mod:`~agents.model_io.rankwise_gather`: its gather, which observation entry each play reads
  (two, three or four seats).
- :mod:`~agents.model_io.sb3_import`: SB3 ``.zip`` models, loaded only when trusted.
- :mod:`~agents.model_io.learned`: the learned agents built from model files (``ppo:PATH``,
  ``trained``, ``selfplay``).
- :mod:`~agents.model_io.vintage`: Vintage Speed's model files (``vintage-ppo:PATH``,
  ``vintage-expert``).

The package re-exports the public names of the module it replaced (``agents.model_io``).
"""

from __future__ import annotations

from agents.model_io.kit_model import (
    BUNDLED,
    as_policy,
    convert_sb3_zip,
    copy_model,
    library_versions,
    load_policy,
    manifest_path_of,
    model_paths,
    read_model,
    save_model,
    tensor_shapes,
    write_model,
)
from agents.model_io.manifest import (
    FORMAT,
    FORMAT_VERSION,
    NET_KINDS,
    check_net_tensors,
    read_manifest,
)
from agents.model_io.mlp import ACTIVATIONS, MLPPolicy
from agents.model_io.rules_signature import check_signature, signature, signature_key
from agents.model_io.tensor_file import ModelFormatError, write_safetensors
from agents.model_io.vintage import load_vintage_policy, save_vintage_model, vintage_signature

__all__ = [
    "ACTIVATIONS",
    "BUNDLED",
    "FORMAT",
    "FORMAT_VERSION",
    "NET_KINDS",
    "MLPPolicy",
    "ModelFormatError",
    "as_policy",
    "check_net_tensors",
    "check_signature",
    "convert_sb3_zip",
    "copy_model",
    "library_versions",
    "load_policy",
    "load_vintage_policy",
    "manifest_path_of",
    "model_paths",
    "read_manifest",
    "read_model",
    "save_model",
    "save_vintage_model",
    "signature",
    "signature_key",
    "tensor_shapes",
    "vintage_signature",
    "write_model",
    "write_safetensors",
]
