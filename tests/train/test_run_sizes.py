"""A training run too large to hold is refused by its flags before torch or numpy allocate; a
missing [train] extra is named with how to install it without CUDA; ``speed train``'s own flag
errors are one line, as every other ``speed`` command's."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import speed_cli
from speed_env import batch_size
from train.common import sizes
from train.ppo import Config

# speed train refuses everything else first where the [train] extra is missing.
needs_train = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)


def _speed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = speed_cli.main(argv)
    except SystemExit as done:  # argparse's refusal
        code = int(done.code or 0)
    return code, capsys.readouterr().err


@needs_train
def test_a_net_arch_wider_than_the_bound_is_refused_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for words in (["train", "realtime"], ["train", "bc", "--data", "d", "--out", "o"]):
        code, err = _speed([*words, "--net-arch", "1000000000"], capsys)
        assert code == 2 and err.count("\n") == 1, err
        assert "argument --net-arch: must be whole numbers from 1 to 4096" in err
    # A saved config (--resume) did not come through the flag: the same bound holds there.
    with pytest.raises(ValueError, match="net_arch must be whole numbers from 1 to 4096"):
        sizes.hidden(Config(net_arch="64,1000000000"))
    assert sizes.hidden(Config(net_arch="4096,64")) == [4096, 64]


@needs_train
def test_a_rollout_above_the_bound_is_refused_naming_its_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code, err = _speed(["train", "realtime", "--n-steps", "100000", "--out", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--n-steps * --n-envs = 25,600,000 decisions" in err and "MAX_DECISIONS" in err
    argv = ["train", "realtime", "--init-bc", "chain", "--bc-decisions", "10000000"]
    code, err = _speed([*argv, "--out", str(out)], capsys)
    assert code == 2 and "--bc-decisions = 10,000,000 decisions" in err
    assert not out.exists()


@needs_train
def test_a_run_larger_than_the_memory_is_refused_by_its_estimate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a 1 GB limit, 500,000 games with a one-step rollout (about 4.3 GB): refused by the
    estimate, naming the flags, before the folder or a single game exists."""
    monkeypatch.setattr(batch_size, "memory_bound", lambda: (1_000_000_000, "a test's limit"))
    out = tmp_path / "run"
    argv = ["train", "realtime", "--n-envs", "500000", "--n-steps", "1", "--batch-size", "64"]
    code, err = _speed([*argv, "--out", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "--n-envs 500,000 with --n-steps 1 (a rollout of 500,000 decisions)" in err
    assert "1.0 GB of memory available under a test's limit" in err
    assert not out.exists()
    sizes.check_sizes(Config())  # the defaults fit


def test_a_missing_train_extra_says_how_to_install_it_without_cuda(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "sb3_contrib" else real(name)
    )
    code, err = _speed(["train", "realtime", "--timesteps", "10"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "`make setup`" in err
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in err


@needs_train
@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["train", "realtime", "--n-envs", "x"], "--n-envs"),
        (["train", "vintage", "--batch-size", "0"], "--batch-size"),
        (["train", "--learning-rate", "nan"], "--learning-rate"),
        (["train", "realtime", "--no-such-flag-value-missing", "--seed"], "--seed"),
        (["train", "bc", "--epochs", "x"], "--epochs"),
    ],
)
def test_speed_train_flag_errors_are_one_line_as_speed_tournaments_are(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _speed(argv, capsys)
    assert code == 2 and err.count("\n") == 1, err  # argparse printed ~40 lines of usage first
    assert flag in err and "(see speed train" in err
