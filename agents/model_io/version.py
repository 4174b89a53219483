"""Which env version and kit version a model file says it was made with.

Model manifests written by kit 1.0.0 and later record ``env_id`` (the game's env id, e.g.
``speed_env/speed_v1``) and ``kit_version``. Earlier manifests, the bundled models' among
them, record neither: they load as before and report :data:`PRE_1_0`. A model made on another
env version still loads wherever its observation layout check passes (fields are matched by
name, :mod:`agents.model_io.rules_signature`); this only says where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PRE_1_0 = "pre-1.0"
"""The ``kit_version`` of a model whose manifest predates the field (kit before 1.0.0)."""


@dataclass(frozen=True)
class ModelVersion:
    """The env id and kit version a model file was made with."""

    env_id: str | None
    """The env id it was trained on; None when the manifest predates 1.0.0 (a revision of
    a game's first env id, ``speed_v0`` …, not recorded)."""
    kit_version: str
    """The kit's version that wrote it, or :data:`PRE_1_0`."""

    @property
    def pre_1_0(self) -> bool:
        """True when the manifest predates kit 1.0.0 (neither field recorded)."""
        return self.kit_version == PRE_1_0

    def __str__(self) -> str:
        if self.env_id is None:
            return f"{self.kit_version} (no env id recorded)"
        return f"{self.env_id}, kit {self.kit_version}"


def model_version(manifest: dict[str, Any]) -> ModelVersion:
    """What ``manifest`` says its model was made with (:data:`PRE_1_0` where it says nothing).

    >>> model_version({"env_id": "speed_env/speed_v1", "kit_version": "1.0.0"}).pre_1_0
    False
    >>> str(model_version({}))
    'pre-1.0 (no env id recorded)'
    """
    env_id, kit = manifest.get("env_id"), manifest.get("kit_version")
    return ModelVersion(
        env_id if isinstance(env_id, str) else None, kit if isinstance(kit, str) else PRE_1_0
    )
