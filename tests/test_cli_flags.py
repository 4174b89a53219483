"""The ``speed`` command refuses what cannot be meant, naming the flag: abbreviated flags, a bare
model path where an agent spec belongs, numbers out of range (issues 22 and 23)."""

from __future__ import annotations

import argparse

import pytest

import speed_cli
from train import cli_args


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every parser below ``parser`` (itself included) with the words that reach it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


def _abbreviation(parser: argparse.ArgumentParser) -> tuple[str, str] | None:
    """A long flag of ``parser`` and a prefix of it that names no other flag, or None."""
    flags = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    for flag in flags:
        if flag == "--help" or len(flag) < 5:
            continue
        prefix = flag[:-1]
        if sum(f.startswith(prefix) for f in flags) == 1:
            return flag, prefix
    return None


def _positionals(parser: argparse.ArgumentParser) -> list[str]:
    """Placeholder values for the parser's required positional arguments."""
    return [
        "x"
        for a in parser._actions
        if not a.option_strings
        and not isinstance(a, argparse._SubParsersAction)
        and a.nargs not in ("?", "*", argparse.REMAINDER)
    ]


def _parsers():
    """(words, parser, how to run it) for every parser of ``speed``, ``speed train``'s included."""
    for path, parser in _walk(speed_cli.build_parser()):
        if path != ("train",):  # speed train hands its arguments to train.cli_args
            yield path, parser, speed_cli.main
    for path, parser in _walk(cli_args.build_parser()):
        yield ("train", *path), parser, speed_cli.main


def test_every_parser_refuses_abbreviations():
    walked = list(_parsers())
    assert len(walked) > 12  # speed, its commands, experiment reaction, train realtime/vintage
    for path, parser, _ in walked:
        assert parser.allow_abbrev is False, path


@pytest.mark.parametrize(
    ("path", "flag", "prefix"),
    [
        (path, *ab)
        for path, parser, _ in _parsers()
        if path and (ab := _abbreviation(parser)) is not None
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else str(v),
)
def test_an_abbreviated_flag_is_refused_by_name(path, flag, prefix, capsys):
    parser = {p: q for p, q, _ in _parsers()}[path]
    argv = [*path, prefix, "1", *_positionals(parser)]
    with pytest.raises(SystemExit) as exc:
        code = speed_cli.main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2, argv
    assert prefix in capsys.readouterr().err, argv


def test_the_issues_abbreviations_are_refused(tmp_path, capsys):
    # --out keeps a run that was wrongly started out of the checkout
    for argv in (
        ["train", "realtime", "--out", str(tmp_path), "--timestep", "1000"],
        ["train", "realtime", "--out", str(tmp_path), "--n-env", "8"],
        ["train", "vintage", "--out", str(tmp_path), "--n-env", "8"],
        ["train", "--out", str(tmp_path), "--timestep", "1000"],
    ):
        assert speed_cli.main(argv) == 2
        assert argv[-2] in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------- a model path where a spec belongs
@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--agents", "{m},chain", "--games", "2"],
        ["tournament", "--game", "vintage", "--agents", "{m},vintage-greedy", "--games", "8"],
        ["demo", "--agents", "greedy,{m}"],
        ["experiment", "reaction", "--agent", "{m}", "--games", "2"],
        ["experiment", "reaction", "--opponent", "{m}", "--games", "2"],
        ["watch", "--agents", "chain,{m}", "--no-browser"],
        ["play", "--opponent", "{m}", "--no-browser"],
        ["train", "realtime", "--opponent", "{m}", "--timesteps", "10"],
        ["train", "realtime", "--eval-opponents", "{m}", "--timesteps", "10"],
        ["train", "vintage", "--opponent", "{m}", "--timesteps", "10"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_bare_model_path_is_refused_showing_the_spec_to_write(argv, tmp_path, capsys):
    model = "runs/x/model.json"
    argv = [a.replace("{m}", model) for a in argv]
    if argv[0] == "train":
        argv += ["--out", str(tmp_path / "run")]
    elif argv[0] in ("tournament", "experiment"):
        argv += ["--out", str(tmp_path / "out")]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"ppo:{model}" in err, err
    assert not any(tmp_path.iterdir())  # refused before anything was written
