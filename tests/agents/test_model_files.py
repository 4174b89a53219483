"""Model files (agents/model_io/kit_model.py): a save is checked before anything is written, an
earlier model survives a refused or interrupted save, and a damaged or crafted file is refused with
an error naming the file and what in it is wrong (numpy only: no torch needed)."""

from __future__ import annotations

import hashlib
import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.model_io import kit_model, rules_signature, tensor_file
from agents.model_io.tensor_file import ModelFormatError
from speed_env.rules import make_rules

RULES = make_rules("us")


def _tensors(seed: int, hidden: int = 8) -> dict[str, np.ndarray]:
    sig = rules_signature.signature(RULES)
    rng = np.random.default_rng(seed)
    return {
        "pi.0.weight": rng.normal(size=(hidden, sig["obs_dim"])).astype(np.float32),
        "pi.0.bias": rng.normal(size=hidden).astype(np.float32),
        "logits.weight": rng.normal(size=(sig["n_actions"], hidden)).astype(np.float32),
        "logits.bias": rng.normal(size=sig["n_actions"]).astype(np.float32),
    }


def _save(path, tensors):
    return kit_model.save_model(path, tensors, rules=RULES, hidden=[8], activation="tanh")


def _loaded(path) -> dict[str, np.ndarray]:
    tensors, _, _ = kit_model.read_model(path)
    return tensors


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ----------------------------------------------------------------- saving


def test_refused_save_leaves_the_earlier_model_loadable(tmp_path):
    good = _tensors(0)
    _save(tmp_path / "m", good)
    bad = _tensors(1)
    bad["pi.0.bias"][3] = np.nan
    with pytest.raises(ModelFormatError, match=r"tensor 'pi\.0\.bias' holds NaN"):
        _save(tmp_path / "m", bad)
    assert _same(_loaded(tmp_path / "m"), good)
    assert _files(tmp_path) == ["m.json", "m.safetensors"]  # no temporaries left behind


def test_misshapen_save_writes_nothing(tmp_path):
    bad = _tensors(0)
    del bad["logits.bias"]
    with pytest.raises(ModelFormatError, match=r"lacks the tensors logits\.bias"):
        _save(tmp_path / "m", bad)
    assert _files(tmp_path) == []


class Crash(BaseException):
    """The process stops here (as a kill or a power cut would, but catchable in a test)."""


# os.replace calls of a save over an earlier model: 1 the earlier manifest renamed to name
# its kept weights, 2 the new weights, 3 the new manifest (between 2 and 3: the two files).
@pytest.mark.parametrize("crash_at", [1, 2, 3])
def test_interrupted_save_leaves_the_earlier_model_whole(tmp_path, monkeypatch, crash_at):
    good, new = _tensors(0), _tensors(1)
    _save(tmp_path / "m", good)
    real_replace, calls = kit_model.os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == crash_at:
            raise Crash
        real_replace(src, dst)

    monkeypatch.setattr(kit_model.os, "replace", replace)
    with pytest.raises(Crash):
        _save(tmp_path / "m", new)
    monkeypatch.undo()
    assert _same(_loaded(tmp_path / "m"), good)
    assert _same(_loaded(tmp_path / "m.safetensors"), good)  # by either name
    # The next save completes and leaves exactly the two files.
    _save(tmp_path / "m", new)
    assert _same(_loaded(tmp_path / "m"), new)
    assert _files(tmp_path) == ["m.json", "m.safetensors"]


def test_save_interrupted_after_the_manifest_has_the_new_model(tmp_path, monkeypatch):
    good, new = _tensors(0), _tensors(1)
    _save(tmp_path / "m", good)

    real_unlink, kept_unlinks = kit_model.Path.unlink, []

    def unlink(self, missing_ok=False):
        if self.name == ".m.safetensors.earlier":
            kept_unlinks.append(self)
            if len(kept_unlinks) == 2:  # the last step: removing the earlier model's kept weights
                raise Crash
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(kit_model.Path, "unlink", unlink)
    with pytest.raises(Crash):
        _save(tmp_path / "m", new)
    monkeypatch.undo()
    assert _same(_loaded(tmp_path / "m"), new)
    _save(tmp_path / "m", good)  # the leftover is cleared by the next save
    assert _files(tmp_path) == ["m.json", "m.safetensors"]


def test_copy_model_over_an_earlier_model(tmp_path):
    _save(tmp_path / "a", _tensors(0))
    _save(tmp_path / "b", _tensors(1))
    kit_model.copy_model(tmp_path / "a", tmp_path / "b.json")
    assert _same(_loaded(tmp_path / "b"), _tensors(0))
    assert json.loads((tmp_path / "b.json").read_text())["weights"] == "b.safetensors"


# ----------------------------------------------------------------- the manifest


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("weights_sha256", 5),
        ("weights_sha256", "abc"),
        ("weights", 7),
        ("rules", ["us"]),
        ("trained_rules", "us"),
        ("trained_rules", ["us"]),
        ("observation", "128"),
        ("observation.obs_dim", "128"),
        ("observation.obs_dim", True),
        ("observation.n_actions", 27.0),
        ("net", [64]),
        ("net.hidden", "64"),
        ("net.hidden", [8, -1]),
    ],
)
def test_manifest_field_of_the_wrong_type_is_named(tmp_path, field, value):
    path = _save(tmp_path / "m", _tensors(0))
    manifest = json.loads(path.read_text())
    parent, _, key = field.rpartition(".")
    (manifest[parent] if parent else manifest)[key] = value
    path.write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=rf"m\.json: {field} must be"):
        kit_model.read_model(path)


# ----------------------------------------------------------------- the weights file


def _with_header(path, edit) -> None:
    """Rewrite a saved model's safetensors header with ``edit(header)``, fixing its checksum."""
    weights = path.with_suffix(".safetensors")
    blob = weights.read_bytes()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    text = json.dumps(edit(header)).encode() if callable(edit) else edit
    crafted = struct.pack("<Q", len(text)) + text + blob[8 + n :]
    weights.write_bytes(crafted)
    manifest = json.loads(path.read_text())
    manifest["weights_sha256"] = hashlib.sha256(
        crafted
    ).hexdigest()  # the crafted file passes the checksum
    path.write_text(json.dumps(manifest))


def _set(name, key, value):
    def edit(header):
        header[name][key] = value
        return header

    return edit


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (_set("pi.0.bias", "shape", ["8"]), r"tensor 'pi\.0\.bias': shape must be"),
        (_set("pi.0.bias", "shape", [-8]), r"tensor 'pi\.0\.bias': shape must be"),
        (
            _set("pi.0.bias", "shape", [2**70, 2**70]),
            r"tensor 'pi\.0\.bias' of shape .* does not match",
        ),
        (_set("pi.0.bias", "shape", [8.0]), r"tensor 'pi\.0\.bias': shape must be"),
        (
            _set("pi.0.bias", "data_offsets", [0, "32"]),
            r"tensor 'pi\.0\.bias': data_offsets must be",
        ),
        (_set("pi.0.bias", "data_offsets", [32]), r"tensor 'pi\.0\.bias': data_offsets must be"),
        (
            _set("pi.0.bias", "data_offsets", [-32, 0]),
            r"tensor 'pi\.0\.bias': data_offsets must be",
        ),
        (_set("pi.0.bias", "dtype", ["F32"]), r"tensor 'pi\.0\.bias': dtype must be"),
        (_set("pi.0.bias", "dtype", "I64"), r"tensor 'pi\.0\.bias': dtype must be"),
        (
            lambda h: {**h, "pi.0.bias": 3},
            r"tensor 'pi\.0\.bias' has a header entry 3 that is not an object",
        ),
        (lambda h: {**h, "__metadata__": [1]}, r"__metadata__ must map names to strings"),
        (lambda h: {**h, "__metadata__": {"format": 1}}, r"__metadata__ must map names to strings"),
        (b"[" * 100_000, r"header is not valid JSON"),
        (b"[1, 2]", r"header is not a JSON object"),
    ],
)
def test_crafted_safetensors_header_is_refused_naming_the_field(tmp_path, edit, named):
    path = _save(tmp_path / "m", _tensors(0))
    _with_header(path, edit)
    with pytest.raises(ModelFormatError, match=r"m\.safetensors.*" + named):
        kit_model.read_model(path)


def test_crafted_header_with_a_stale_checksum_fails_the_checksum_first(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    checksum = json.loads(path.read_text())["weights_sha256"]
    _with_header(path, _set("pi.0.bias", "shape", ["8"]))
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps({**manifest, "weights_sha256": checksum}))
    with pytest.raises(
        ModelFormatError, match=r"does not match the SHA-256 in m\.json.*shape must be"
    ):
        kit_model.read_model(path)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
_entry = st.fixed_dictionaries(
    {},
    optional={
        "dtype": st.sampled_from(["F32", "F16", "F64", "X"]) | _json,
        "shape": st.lists(st.integers(-3, 5), max_size=3) | _json,
        "data_offsets": st.lists(st.integers(-4, 40), max_size=3) | _json,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    header=st.dictionaries(st.text(max_size=6), _entry | _json, max_size=4),
    data=st.binary(max_size=40),
)
def test_any_header_parses_or_is_refused_cleanly(header, data):
    text = json.dumps(header).encode()
    blob = struct.pack("<Q", len(text)) + text + data
    try:
        tensors, _ = tensor_file.parse_safetensors(blob, "f.safetensors")
    except ModelFormatError as exc:
        assert str(exc).startswith("f.safetensors")
    else:
        assert all(isinstance(t, np.ndarray) for t in tensors.values())
