"""Model files refused by name, and saves that leave nothing behind: every tensor
checked for NaN (the value head too), only regular files opened (a pipe refused without blocking,
a device without reading), sizes checked against the header first, a crafted manifest (deep
nesting, ``format_version: true``, an unknown preset, invalid trained rules) refused naming the
file, and temporaries of failed or killed saves removed. After each refusal the loader still
loads a good model from the same folder."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import speed_env
from agents.model_io import kit_model, rules_signature, tensor_file
from agents.model_io import manifest as model_manifest
from agents.model_io.tensor_file import ModelFormatError
from agents.model_io.vintage import load_vintage_policy
from agents.runtime import files
from speed_env.rules import make_rules

RULES = make_rules("us")


def _tensors(seed: int, hidden: int = 8) -> dict[str, np.ndarray]:
    """A small policy with a value head (``vf.0.*``, ``value.*``), as training saves it."""
    sig = rules_signature.signature(RULES)
    rng = np.random.default_rng(seed)

    def normal(*shape: int) -> np.ndarray:
        return rng.normal(size=shape).astype(np.float32)

    return {
        "pi.0.weight": normal(hidden, sig["obs_dim"]),
        "pi.0.bias": normal(hidden),
        "logits.weight": normal(sig["n_actions"], hidden),
        "logits.bias": normal(sig["n_actions"]),
        "vf.0.weight": normal(hidden, sig["obs_dim"]),
        "vf.0.bias": normal(hidden),
        "value.weight": normal(1, hidden),
        "value.bias": normal(1),
    }


def _save(path, tensors):
    return kit_model.save_model(path, tensors, rules=RULES, hidden=[8], activation="tanh")


def _files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _still_loads(folder) -> None:
    """The loader is still usable: a good model saved beside the refused one loads and plays."""
    _save(folder / "good", _tensors(7))
    policy = kit_model.load_policy(folder / "good.json", RULES)
    env = speed_env.parallel_env()
    first = env.reset(seed=0)[0]["player_0"]
    action = policy.act(first["observation"][None], first["action_mask"][None])
    assert action.shape == (1,) and first["action_mask"][action[0]] == 1


# ----------------------------------------------------------------- NaN anywhere


@pytest.mark.parametrize("name", ["value.weight", "vf.0.bias", "value.bias"])
def test_nan_outside_the_policy_is_refused_on_save(tmp_path, name):
    bad = _tensors(1)
    bad[name].flat[0] = np.nan
    with pytest.raises(ModelFormatError, match=rf"m\.safetensors: tensor '{name}' holds NaN"):
        _save(tmp_path / "m", bad)
    assert _files(tmp_path) == []  # nothing written
    _still_loads(tmp_path)


def test_nan_outside_the_policy_is_refused_on_load(tmp_path):
    # A file written by another tool (or an older kit): the checksum matches, the value is NaN.
    path = _save(tmp_path / "m", _tensors(0))
    tensors, manifest, _ = kit_model.read_model(path)
    tensors["value.bias"][0] = np.inf
    blob = tensor_file.write_safetensors(tmp_path / "m.safetensors", tensors, {"format": "x"})
    manifest["weights_sha256"] = hashlib.sha256(blob).hexdigest()
    path.write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=r"m\.safetensors: tensor 'value\.bias' holds NaN"):
        kit_model.load_policy(path, RULES)
    _still_loads(tmp_path)


def test_vintage_value_network_with_nan_is_refused(tmp_path):
    from agents.vintage import value as vintage_value

    net = vintage_value.ValueNet(
        {
            "v.0.weight": np.ones((4, 3), np.float32),
            "v.0.bias": np.zeros(4, np.float32),
            "out.weight": np.ones((1, 4), np.float32),
            "out.bias": np.array([np.nan], np.float32),
        },
        "tanh",
        "<memory>",
        {},
    )
    with pytest.raises(ModelFormatError, match=r"v\.safetensors: tensor 'out\.bias' holds NaN"):
        vintage_value.save_value(tmp_path / "v.safetensors", net)
    assert _files(tmp_path) == []


# ----------------------------------------------------------------- only regular files


def _finishes(call, seconds: float = 10.0) -> BaseException | None:
    """Run ``call`` in a daemon thread; the exception it raised (a hang fails the test)."""
    out: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            out.append(exc)
        else:
            out.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert out, f"the call did not return within {seconds} s (blocked?)"
    return out[0]


def test_weights_linked_to_dev_zero_are_refused_at_once(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    (tmp_path / "m.safetensors").unlink()
    (tmp_path / "m.safetensors").symlink_to("/dev/zero")
    start = time.perf_counter()
    exc = _finishes(lambda: kit_model.read_model(path))
    assert isinstance(exc, ModelFormatError), exc
    assert "m.safetensors" in str(exc) and "character device" in str(exc)
    assert time.perf_counter() - start < 2.0
    _still_loads(tmp_path)


def test_manifest_that_is_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "m.json")
    exc = _finishes(lambda: kit_model.load_policy(tmp_path / "m.json", RULES))
    assert isinstance(exc, ModelFormatError), exc
    assert "m.json" in str(exc) and "named pipe" in str(exc)
    exc = _finishes(lambda: model_manifest.read_manifest(tmp_path / "m.json"))
    assert isinstance(exc, ModelFormatError), exc
    # A save over it does not block either: the pipe is replaced by the new manifest.
    assert _finishes(lambda: _save(tmp_path / "m", _tensors(0))) is None
    assert kit_model.load_policy(tmp_path / "m.json", RULES).obs_dim > 0


def test_weights_that_are_a_fifo_or_a_folder_are_refused(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    (tmp_path / "m.safetensors").unlink()
    os.mkfifo(tmp_path / "m.safetensors")
    exc = _finishes(lambda: kit_model.read_model(path))
    assert isinstance(exc, ModelFormatError) and "named pipe" in str(exc), exc
    (tmp_path / "m.safetensors").unlink()
    (tmp_path / "m.safetensors").mkdir()
    with pytest.raises(ModelFormatError, match=r"m\.safetensors is a directory"):
        kit_model.read_model(path)


def test_a_missing_or_unreadable_model_file_is_refused_naming_it(tmp_path, monkeypatch):
    # The manifest and the weights reader share one mapping of a file's OSError to the error.
    gone, folder = tmp_path / "gone", re.escape(str(tmp_path))
    with pytest.raises(ModelFormatError, match=f"^model manifest {folder}/gone does not exist$"):
        model_manifest.read_manifest(gone)
    with pytest.raises(ModelFormatError, match=f"^value network {folder}/gone does not exist$"):
        tensor_file.read_safetensors(gone, "value network")
    with pytest.raises(ModelFormatError, match=f"^value network {folder} is a directory, not a"):
        tensor_file.read_safetensors(tmp_path, "value network")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(model_manifest, "read_regular", denied)
    monkeypatch.setattr(tensor_file, "open_regular", denied)
    with pytest.raises(ModelFormatError, match=f"^cannot read model manifest {folder}/gone: Perm"):
        model_manifest.read_manifest(gone)
    with pytest.raises(ModelFormatError, match=f"^cannot read value network {folder}/gone: Perm"):
        tensor_file.read_safetensors(gone, "value network")


def test_weights_larger_than_the_header_says_are_refused_before_reading(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    weights = tmp_path / "m.safetensors"
    size = weights.stat().st_size
    with open(weights, "r+b") as f:
        f.truncate(2**30)  # 1 GiB, sparse: reading it would take seconds and the memory
    start = time.perf_counter()
    with pytest.raises(
        ModelFormatError,
        match=rf"m\.safetensors is {2**30} bytes, but "
        rf"its safetensors header describes {size}",
    ):
        kit_model.read_model(path)
    assert time.perf_counter() - start < 2.0
    _still_loads(tmp_path)


def test_manifest_over_the_size_limit_is_refused(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    with open(path, "r+b") as f:
        f.truncate(1024**3)
    refusal = r"m\.json is larger than 4,194,304 bytes \(it holds 1,073,741,824\)"
    with pytest.raises(ModelFormatError, match=refusal):
        kit_model.read_model(path)


def test_a_checkpoints_optimizer_state_that_is_a_fifo_is_refused(tmp_path):
    torch = pytest.importorskip("torch", reason="the [train] extra is not installed")
    from train.policy.checkpoint import read_optimizer

    good = tmp_path / "step.optim.pt"
    torch.save({"state": {}, "param_groups": []}, good)
    assert read_optimizer(good) == {"state": {}, "param_groups": []}
    os.mkfifo(tmp_path / "fifo.optim.pt")
    exc = _finishes(lambda: read_optimizer(tmp_path / "fifo.optim.pt"))
    assert isinstance(exc, ModelFormatError) and "fifo.optim.pt is a named pipe" in str(exc), exc


# ----------------------------------------------------------------- crafted manifests


def _edit_manifest(path, edit) -> None:
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_manifest_is_refused_by_name(tmp_path, depth):
    path = _save(tmp_path / "m", _tensors(0))
    text = path.read_text().rstrip().removesuffix("}")
    path.write_text(text + ', "training_notes": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(ModelFormatError, match=r"m\.json is nested more than 32 levels"):
        kit_model.load_policy(path, RULES)
    _still_loads(tmp_path)


@pytest.mark.parametrize("version", [True, 1.0, "1", None])
def test_format_version_must_be_the_whole_number_1(tmp_path, version):
    path = _save(tmp_path / "m", _tensors(0))
    _edit_manifest(path, lambda m: m.update(format_version=version))
    with pytest.raises(ModelFormatError, match=rf"m\.json has format_version {version!r}"):
        kit_model.load_policy(path, RULES)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # Python's json keeps the last of two keys, another reader the first: one file, two models.
        (lambda t: t.replace('"weights":', '"weights": "other.safetensors", "weights":', 1),
         "the key weights is given twice"),
        (lambda t: t.replace('"obs_dim":', '"obs_dim": 1, "obs_dim":', 1),
         "the key observation.obs_dim is given twice"),
        (lambda t: t.rstrip().removesuffix("}") + ', "lr": NaN}', "lr is NaN"),
        (lambda t: t.rstrip().removesuffix("}") + ', "lr": -Infinity}', "lr is -Infinity"),
        (lambda t: t.rstrip().removesuffix("}") + ', "ent": {"coef": 1e999}}',
         "ent.coef is the number 1e999"),
    ],
)  # fmt: skip
def test_duplicate_keys_nan_and_infinity_are_refused_naming_the_key(tmp_path, edit, message):
    path = _save(tmp_path / "m", _tensors(0))
    path.write_text(edit(path.read_text()))
    with pytest.raises(ModelFormatError, match=rf"model manifest .*m\.json: {message}"):
        kit_model.load_policy(path, RULES)
    _still_loads(tmp_path)


@pytest.mark.parametrize("preset", ["nosuch", None, 3])
def test_unknown_preset_without_trained_rules_is_refused(tmp_path, preset):
    path = _save(tmp_path / "m", _tensors(0))

    def edit(m):
        del m["trained_rules"]
        m["rules"]["preset"] = preset

    _edit_manifest(path, edit)
    with pytest.raises(
        ModelFormatError, match=rf"m\.json: rules\.preset must be one of .*got {preset!r}"
    ):
        kit_model.load_policy(path, RULES)
    for other in ("pagat", "japanese"):  # never loaded for other rules either
        with pytest.raises(ModelFormatError, match=r"rules\.preset"):
            kit_model.load_policy(path, make_rules(other))


def test_a_vintage_manifest_is_not_loaded_for_real_time_rules(tmp_path):
    # "game": "vintage" skips the real-time preset check, so it must not open the real-time door.
    path = _save(tmp_path / "m", _tensors(0))

    def edit(m):
        del m["trained_rules"]
        m["game"], m["rules"] = "vintage", {"game": "vintage"}

    _edit_manifest(path, edit)
    with pytest.raises(
        ModelFormatError, match=r"m\.json is a model of the game 'vintage', not one for real-time"
    ):
        kit_model.load_policy(path, RULES)
    assert (
        load_vintage_policy(kit_model.BUNDLED.parent / "vintage" / "expert.json").n_actions > 0
    )  # the vintage loader is unaffected


def test_unknown_preset_in_trained_rules_is_refused(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    _edit_manifest(path, lambda m: m["trained_rules"].append({"preset": "nosuch"}))
    with pytest.raises(ModelFormatError, match=r"m\.json: trained_rules\[1\]\.preset .*'nosuch'"):
        kit_model.read_model(path)


def test_invalid_trained_rule_names_the_file(tmp_path):
    path = _save(tmp_path / "m", _tensors(0))
    _edit_manifest(path, lambda m: m["trained_rules"][0].update(play_out=True))  # japanese only
    with pytest.raises(ModelFormatError, match=r"m\.json: the trained rules .* are not valid"):
        kit_model.load_policy(path, RULES)
    _still_loads(tmp_path)


# ----------------------------------------------------------------- temporaries


def _disk_full_at(monkeypatch, call: int) -> None:
    """The ``call``-th flush of a staged file fails as a full disk does."""
    real, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == call:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize("at", [1, 2])  # the weights' flush, the manifest's flush
def test_disk_full_save_leaves_no_temporary(tmp_path, monkeypatch, at):
    good = _tensors(0)
    _save(tmp_path / "m", good)
    _disk_full_at(monkeypatch, at)
    with pytest.raises(OSError, match="No space left"):
        _save(tmp_path / "m", _tensors(1))
    monkeypatch.undo()
    assert _files(tmp_path) == ["m.json", "m.safetensors"]
    tensors, _, _ = kit_model.read_model(tmp_path / "m")
    assert all(np.array_equal(tensors[k], good[k]) for k in good)


def test_disk_full_result_write_leaves_no_temporary(tmp_path, monkeypatch):
    def chmod(path, mode):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "chmod", chmod)
    with pytest.raises(OSError, match="No space left"):
        files.write_json(tmp_path / "state.json", {"a": 1})
    monkeypatch.undo()
    assert _files(tmp_path) == []


_KILLED_SAVE = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from test_model_file_checks import _save, _tensors
    os.replace = lambda src, dst: os._exit(9)  # killed at the first rename
    _save({out!r}, _tensors(1))
    """
)


def test_temporaries_of_a_killed_save_are_removed_by_the_next_save(tmp_path):
    _save(tmp_path / "m", _tensors(0))
    script = _KILLED_SAVE.format(tests=os.path.dirname(__file__), out=str(tmp_path / "m"))
    proc = subprocess.Popen([sys.executable, "-c", script])
    assert proc.wait(timeout=120) == 9
    temps = [n for n in _files(tmp_path) if n.endswith(".tmp")]
    assert len(temps) == 3 and all(f".w{proc.pid}-" in n for n in temps), temps  # named for it
    _save(tmp_path / "m", _tensors(2))
    assert _files(tmp_path) == ["m.json", "m.safetensors"]


def test_stale_temporaries_are_removed_and_live_ones_kept(tmp_path):
    dead_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_pid.wait()
    host = files._host_tag()
    stale = tmp_path / f".state.json.w{dead_pid.pid}-{host}-abc123.tmp"
    live = tmp_path / f".state.json.w{os.getppid()}-{host}-def456.tmp"  # our parent runs
    other_host = tmp_path / f".state.json.w{dead_pid.pid}-00000000-ghi789.tmp"
    unrelated = tmp_path / ".state.json.notes"
    for p in (stale, live, other_host, unrelated):
        p.write_text("x")
    files.write_json(tmp_path / "state.json", {"a": 1})
    assert not stale.exists()
    assert live.exists() and other_host.exists() and unrelated.exists()
    assert json.loads((tmp_path / "state.json").read_text()) == {"a": 1}
