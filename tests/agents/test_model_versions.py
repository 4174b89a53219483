"""Model manifests record the env id and kit version they were made with; a manifest from
before kit 1.0.0 (the bundled models') loads as before and says it is pre-1.0; a model made
on another env version loads wherever its observation layout check passes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import speed_env
from agents.model_io import kit_model, mlp, rules_signature
from agents.model_io.tensor_file import ModelFormatError
from agents.model_io.version import PRE_1_0
from agents.model_io.vintage import load_vintage_policy, save_vintage_model, vintage_signature
from speed_env.rules import make_rules
from speed_env.vintage import make_vintage_rules

RULES = make_rules("us")


def _tensors(obs_dim: int, n_actions: int, hidden: int = 8) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "pi.0.weight": rng.normal(size=(hidden, obs_dim)).astype(np.float32),
        "pi.0.bias": rng.normal(size=hidden).astype(np.float32),
        "logits.weight": rng.normal(size=(n_actions, hidden)).astype(np.float32),
        "logits.bias": rng.normal(size=n_actions).astype(np.float32),
    }


def _save_realtime(path):
    sig = rules_signature.signature(RULES)
    tensors = _tensors(sig["obs_dim"], sig["n_actions"])
    return kit_model.save_model(path, tensors, rules=RULES, hidden=[8], activation="tanh")


def _edit(manifest_path, **fields):
    manifest = json.loads(manifest_path.read_text())
    for key, value in fields.items():
        if value is None:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    manifest_path.write_text(json.dumps(manifest))


def test_a_saved_real_time_model_records_speed_v1_and_the_kit_version(tmp_path):
    manifest_path = _save_realtime(tmp_path / "m")
    manifest = json.loads(manifest_path.read_text())
    assert (manifest["env_id"], manifest["kit_version"]) == (
        "speed_env/speed_v1",
        speed_env.__version__,
    )
    policy = kit_model.load_policy(manifest_path, RULES)
    assert policy.made_with is not None and not policy.made_with.pre_1_0
    assert (policy.made_with.env_id, policy.made_with.kit_version) == (
        "speed_env/speed_v1",
        speed_env.__version__,
    )


def test_a_saved_vintage_model_records_vintage_speed_v0(tmp_path):
    sig = vintage_signature()
    path = save_vintage_model(
        tmp_path / "v",
        _tensors(sig["obs_dim"], sig["n_actions"]),
        rules=make_vintage_rules(4, 1),
        hidden=[8],
        activation="tanh",
    )
    policy = load_vintage_policy(path)
    assert policy.made_with is not None
    assert (policy.made_with.env_id, policy.made_with.kit_version) == (
        "speed_env/vintage_speed_v0",
        speed_env.__version__,
    )


@pytest.mark.parametrize(
    "spec", ["trained", "selfplay", "vintage-ppo:agents/models/vintage/expert"]
)
def test_the_bundled_models_load_as_before_and_say_they_are_pre_1_0(spec, monkeypatch):
    monkeypatch.chdir(speed_env.__file__.rsplit("/speed_env/", 1)[0])
    policy = agents.make(spec, seed=0)
    made_with = policy.made_with
    assert made_with is not None and made_with.pre_1_0 and made_with.env_id is None
    assert made_with.kit_version == PRE_1_0 and str(made_with).startswith("pre-1.0")


def test_a_model_made_on_another_env_version_loads_where_its_layout_fits(tmp_path):
    manifest_path = _save_realtime(tmp_path / "m")
    _edit(manifest_path, env_id="speed_env/speed_v0", kit_version="0.1.0")
    policy = kit_model.load_policy(manifest_path, RULES)
    assert policy.made_with is not None
    assert (policy.made_with.env_id, policy.made_with.kit_version) == (
        "speed_env/speed_v0",
        "0.1.0",
    )
    obs, _ = speed_env.parallel_env("us").reset(seed=0)
    seat = obs["player_0"]
    assert policy.act(seat["observation"][None], seat["action_mask"][None]).shape == (1,)
    # The layout check still decides: the same model for rules of another signature is refused.
    with pytest.raises(ModelFormatError):
        kit_model.load_policy(manifest_path, make_rules("japanese", jokers=True))


def test_copying_a_model_keeps_what_it_was_made_with(tmp_path):
    manifest_path = _save_realtime(tmp_path / "m")
    _edit(manifest_path, env_id=None, kit_version=None)  # as a pre-1.0 manifest
    copied = kit_model.copy_model(manifest_path, tmp_path / "copy")
    manifest = json.loads(copied.read_text())
    assert "env_id" not in manifest and "kit_version" not in manifest
    assert kit_model.load_policy(copied, RULES).made_with.pre_1_0


@pytest.mark.parametrize(("field", "value"), [("env_id", 1), ("kit_version", ["1.0.0"])])
def test_a_manifest_field_of_the_wrong_type_is_refused_by_name(tmp_path, field, value):
    manifest_path = _save_realtime(tmp_path / "m")
    _edit(manifest_path, **{field: value})
    with pytest.raises(ModelFormatError, match=f"{field} must be"):
        kit_model.load_policy(manifest_path, RULES)


def test_a_network_built_in_memory_claims_no_file_version():
    sig = rules_signature.signature(RULES)
    assert mlp.MLPPolicy(_tensors(sig["obs_dim"], sig["n_actions"])).made_with is None
