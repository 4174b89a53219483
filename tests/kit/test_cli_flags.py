"""The ``speed`` command refuses what cannot be meant, naming the flag: abbreviated flags, a bare
model path where an agent spec belongs, numbers out of range (issues 22 and 23)."""

from __future__ import annotations

import argparse

import pytest

import speed_cli
from speed_cli import exploit, train_league
from train import bc_data
from train.common import cli_args


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


def _build_parsers():
    """(words, parser) for every parser of ``speed``, ``train``'s and ``exploit``'s included."""
    # speed train hands its arguments to train.common.cli_args, speed exploit to its parse()
    for path, parser in _walk(speed_cli.build_parser()):
        if path not in (("train",), ("exploit",)):
            yield path, parser
    for path, parser in _walk(cli_args.build_parser()):
        yield ("train", *path), parser
    yield ("train", "bc"), bc_data.build_parser()
    yield ("train", "league"), train_league.build_parser()
    yield ("exploit",), exploit.build_parser()


PARSERS = dict(_build_parsers())  # built once: the train recipes' parsers take a while


def _parsers():
    """(words, parser, how to run it) for every parser of ``speed``."""
    for path, parser in PARSERS.items():
        yield path, parser, speed_cli.main


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
    parser = PARSERS[path]
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
        ["exploit", "{m}", "--timesteps", "10"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_bare_model_path_is_refused_showing_the_spec_to_write(argv, tmp_path, capsys):
    model = "runs/x/model.json"
    argv = [a.replace("{m}", model) for a in argv]
    if argv[0] in ("train", "exploit"):
        argv += ["--out", str(tmp_path / "run")]
    elif argv[0] in ("tournament", "experiment"):
        argv += ["--out", str(tmp_path / "out")]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"ppo:{model}" in err, err
    assert not any(tmp_path.iterdir())  # refused before anything was written


# ------------------------------------------------------------- numbers that cannot be meant
NUMBER_TYPES = ("count", "real", "count_list", "layer_sizes")


def _numeric_flags():
    """(words, parser, flag, its action) for every flag of every parser that takes a number."""
    for path, parser, _ in _parsers():
        for action in parser._actions:
            if action.option_strings and action.type is not None and action.type is not str:
                yield path, parser, action.option_strings[-1], action


def test_every_numeric_flag_is_parsed_by_a_checked_type():
    flags = list(_numeric_flags())
    assert len(flags) > 100  # the train recipes' settings are most of them
    loose = [
        (" ".join(path), flag)
        for path, _, flag, action in flags
        if getattr(action.type, "__name__", "") not in NUMBER_TYPES
        and action.type.__module__ != "speed_cli.common"  # --jitter's preset names
    ]
    assert not loose, f"flags parsed by a bare int/float: {loose}"


def test_every_numeric_setting_of_the_recipes_has_its_bounds():
    import dataclasses

    from train.common.settings import FLAG_TYPES
    from train.exploit_settings import ExploitSettings
    from train.ppo import Config
    from train.rllib_ppo import Config as RLlibConfig
    from train.vintage_expert import ExpertConfig
    from train.vintage_ppo import VintageConfig

    missing = [
        f"{cls.__name__}.{f.name}"
        for cls in (Config, VintageConfig, RLlibConfig, ExpertConfig, ExploitSettings)
        for f in dataclasses.fields(cls)
        if str(f.type).startswith(("int", "float")) and f.name not in FLAG_TYPES
    ]
    assert not missing


@pytest.mark.parametrize(
    ("path", "flag", "value"),
    [(path, flag, value) for path, _, flag, _ in _numeric_flags() for value in ("nan", "inf", "x")],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else repr(v),
)
def test_no_numeric_flag_takes_what_is_no_finite_number(path, flag, value, capsys):
    parser = PARSERS[path]
    with pytest.raises(SystemExit) as exc:
        parser.parse_args([f"{flag}={value}", *_positionals(parser)])
    assert exc.value.code == 2
    assert f"argument {flag}:" in capsys.readouterr().err


# (command words, flag, value): what was once accepted or failed late, and the values
# of the same kinds (negative, zero where it means nothing, nan, inf, a word) for the others.
REFUSED = [
    (["replay", "FILE"], "--delay", "inf"),
    (["replay", "FILE"], "--delay", "1e300"),
    (["replay", "FILE"], "--delay", "-1"),
    (["replay", "FILE"], "--game", "-1"),
    (["train", "realtime"], "--clip-range", "-1"),
    (["train", "realtime"], "--clip-range", "inf"),
    (["train", "realtime"], "--clip-range", "0"),
    (["train", "realtime"], "--ent-coef", "nan"),
    (["train", "realtime"], "--ent-coef", "-0.1"),
    (["train", "realtime"], "--learning-rate", "0"),
    (["train", "realtime"], "--gamma", "1.5"),
    (["train", "realtime"], "--gae-lambda", "-0.5"),
    (["train", "realtime"], "--max-grad-norm", "0"),
    (["train", "realtime"], "--target-kl", "-1"),
    (["train", "realtime"], "--timesteps", "0"),
    (["train", "realtime"], "--n-envs", "-8"),
    (["train", "realtime"], "--seed", "-1"),
    (["train", "realtime"], "--self-fraction", "2"),
    (["train", "realtime"], "--wait-penalty", "nan"),
    (["train", "realtime"], "--tick-ms", "0"),
    (["train", "realtime"], "--n-envs", "x"),
    (["train", "realtime"], "--n-envs", "2000000"),  # above a batch's MAX_GAMES
    (["train", "realtime"], "--net-arch", "1000000000"),  # torch would ask for terabytes
    (["train", "realtime"], "--net-arch", "64,0"),
    (["train", "realtime"], "--net-arch", ",".join(["64"] * 9)),
    (["train", "vintage"], "--net-arch", "5000"),
    (["train", "vintage"], "--batch-size", "x"),
    (["train", "bc"], "--net-arch", "1000000000"),
    (["train", "bc"], "--epochs", "x"),
    (["train", "bc"], "--holdout", "0"),
    (["train", "bc"], "--seed", "-1"),
    (["train", "vintage"], "--players", "1"),
    (["train", "vintage"], "--players", "11"),
    (["train", "vintage"], "--clip-range", "-1"),
    (["train", "vintage"], "--eval-workers", "0"),
    (["train-expert"], "--holdout", "1"),
    (["train-expert"], "--workers", "0"),
    (["train-expert"], "--temperature", "0"),
    (["train-expert"], "--rounds", "0"),
    (["train-expert"], "--leaf", "-1"),
    (["train-expert"], "--value-games", "1"),  # a value network needs two games to fit
    (["train-rllib"], "--lr", "nan"),
    (["train-rllib"], "--num-env-runners", "-1"),
    (["tournament"], "--workers", "0"),
    (["tournament"], "--workers", "-1"),
    (["tournament"], "--save-replays", "-1"),
    (["tournament"], "--games", "0"),
    (["tournament"], "--games", "-2"),
    (["tournament"], "--seed", "-1"),
    (["tournament"], "--seed", str(2**32)),  # deal seeds are (seed << 32) + deal, 64 bits
    (["tournament"], "--players", "1"),
    (["tournament", "--game", "vintage"], "--players", "11"),
    (["tournament"], "--max-retries", "-1"),
    (["tournament"], "--tick-ms", "0"),
    (["tournament"], "--reaction", "slowish"),
    (["tournament"], "--reaction", "nan"),
    (["tournament"], "--reaction", "-5"),
    (["tournament"], "--reaction", "pro,human"),  # one profile: agents' own go after @
    (["demo"], "--reaction", "0"),
    (["demo"], "--reaction", "inf,pro"),
    (["experiment", "reaction"], "--jitter", "nosuch"),
    (["experiment", "reaction"], "--games", "0"),
    (["experiment", "reaction"], "--games", "1"),
    (["experiment", "reaction"], "--bootstrap", "-1"),
    (["experiment", "reaction"], "--workers", "0"),
    (["bench"], "--sizes", "x"),
    (["bench"], "--sizes", "0,256"),
    (["bench"], "--sizes", "1,,2"),
    (["bench"], "--seconds", "0"),
    (["bench"], "--seconds", "inf"),
    (["bench"], "--rounds", "0"),
    (["demo"], "--seed", "-1"),
    (["demo"], "--max-frames", "-1"),
    (["play"], "--port", "70000"),
    (["watch"], "--tick-ms", "5000"),
    (["watch"], "--countdown-ms", "-1"),
    (["watch"], "--replays-keep", "0"),
    (["watch"], "--replays-max-mb", "0"),
    (["watch"], "--max-games", "0"),
]


@pytest.mark.parametrize(
    ("words", "flag", "value"), REFUSED, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_a_value_that_cannot_be_meant_is_refused_naming_the_flag(
    words, flag, value, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)  # nothing may be written, here least of all
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(speed_cli.main([*words, f"{flag}={value}"]))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}:" in err
    assert len(err.strip().splitlines()) == 1, err  # one line, not the usage text
    assert not any(tmp_path.iterdir())


def test_vintage_games_below_players_names_both_flags(tmp_path, capsys):
    argv = ["tournament", "--game", "vintage", "--games", "3", "--out", str(tmp_path / "o")]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "--games 3" in err and "--players (4)" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("argv", "line", "requested", "played", "key"),
    [
        (
            ["tournament", "--agents", "random,greedy", "--games", "7"],
            "--games 7: playing 6 games per pairing (paired deals: each deal twice)",
            7,
            6,
            "games_per_pairing",
        ),
        (
            ["tournament", "--game", "vintage", "--players", "3", "--games", "10"],
            "--games 10: playing 9 games per line-up (3 deals, each once per seat rotation of 3 "
            "players)",
            10,
            9,
            "games_per_lineup",
        ),
    ],
)
def test_games_that_cannot_be_played_as_asked_are_said_and_recorded(
    argv, line, requested, played, key, tmp_path, capsys
):
    import json

    assert speed_cli.main([*argv, "--out", str(tmp_path)]) == 0
    assert line in capsys.readouterr().err
    settings = json.loads((tmp_path / "results.json").read_text())["settings"]
    assert settings["games_requested"] == requested and settings[key] == played
