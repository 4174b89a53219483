"""Every ``speed`` command's flags are made from a settings dataclass, none written by hand.

A command declares its settings as a dataclass, one field a flag with its docstring as the help
(``speed_cli.common.add_command_flags``, on :mod:`agents.runtime.flags`), so a flag's name, type,
default and help live in one place and every flag reaches the run as given. A module of
``speed_cli`` that calls argparse's ``add_argument`` itself writes a flag by hand:
:data:`HAND_WRITTEN` lists those that still do, each with why; the list is exact, so it can only
shrink.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
from pathlib import Path

import pytest

import speed_cli
from agents.runtime.flags import field_help, from_args
from speed_cli import (
    bench,
    common,
    data,
    demo,
    evaluate,
    experiment,
    experiment_think,
    replay,
    table,
    think,
    tournament,
    train_league,
)
from train.league.run import LeagueSettings

ROOT = Path(__file__).resolve().parents[2]
HAND_WRITTEN = {
    # argparse.REMAINDER: the command line handed whole to a parser made from the recipes'
    # settings (train/common/cli_args.py, speed_cli/exploit.py's build_parser); exploit's SPEC
    "speed_cli/train.py",
    "speed_cli/exploit.py",
}
"""Modules of ``speed_cli`` that still call ``add_argument`` by hand, each with why."""
SETTINGS = (
    (demo, "DemoSettings"),
    (tournament, "TournamentSettings"),
    (evaluate, "EvaluateSettings"),
    (evaluate, "LeaderboardSettings"),
    (experiment, "ReactionSettings"),
    (experiment_think, "ThinkSweepFlags"),
    (replay, "ReplaySettings"),
    (data, "GenerateSettings"),
    (data, "ProfileSettings"),
    (bench, "BenchSettings"),
    (table, "PlaySettings"),
    (table, "WatchSettings"),
)
"""The settings dataclasses of the commands, by module (every field a flag)."""


def _hand_written() -> set[str]:
    found = set()
    for path in sorted((ROOT / "speed_cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"
            ):
                found.add(path.relative_to(ROOT).as_posix())
    return found


def test_no_speed_cli_module_writes_a_flag_by_hand():
    assert _hand_written() - HAND_WRITTEN == set()


def test_the_list_of_modules_still_writing_flags_is_exact():
    assert HAND_WRITTEN - _hand_written() == set()


@pytest.mark.parametrize(("module", "name"), SETTINGS, ids=[name for _, name in SETTINGS])
def test_every_setting_is_a_documented_flag_and_every_flag_a_setting(module, name):
    settings = getattr(module, name)
    names = {f.name for f in dataclasses.fields(settings)}
    helps = field_help(settings)
    assert sorted(n for n in names if not helps.get(n)) == [], "fields without a docstring"
    parser = common.Parser(prog="x")
    common.add_command_flags(parser, settings)
    required = [
        "a"  # every positional of these commands takes a text
        for f in dataclasses.fields(settings)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    assert set(vars(parser.parse_args(required))) == names


@pytest.mark.parametrize("command", [["tournament"], ["experiment", "reaction"], ["demo"]])
def test_the_shared_groups_are_sections_of_each_commands_help(command, capsys):
    with pytest.raises(SystemExit):
        speed_cli.build_parser().parse_args([*command, "--help"])
    text = capsys.readouterr().out
    for group in (common.RuleFlags, think.ThinkFlags):
        assert f"\n{group.GROUP}:\n" in text


# ------------------------------------------------------------- each command's parser as built
# speed data export (a --verify that defaults on) and speed train league (the league's own
# LeagueSettings, read as None where not given) build theirs with add_flags: every command's
# parser, as the CLI builds it, is held to its settings here.
def _parser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser ``speed WORDS`` reaches (``speed train league``'s own)."""
    if words == ("train", "league"):
        return train_league.build_parser()
    parser = speed_cli.build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


COMMANDS = [
    (("data", "generate"), (data.GenerateSettings,), ()),
    (("data", "export"), (data.ExportSettings,), ("DIR", "--minari", "ID")),
    (("data", "profile"), (data.ProfileSettings,), ("DIR",)),
    (("bench",), (bench.BenchSettings,), ()),
    (("experiment", "think"), (experiment_think.ThinkSweepFlags,), ()),
    (("play",), (table.PlaySettings,), ()),
    (("watch",), (table.WatchSettings,), ()),
    (("train", "league"), (LeagueSettings, train_league.LeagueRun), ()),
]
"""(command words, the settings its flags are made from, the arguments it cannot do without)."""


def _arguments(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The parser's arguments by destination, but ``--help``."""
    return {a.dest: a for a in parser._actions if not isinstance(a, argparse._HelpAction)}


@pytest.mark.parametrize(("words", "classes", "needed"), COMMANDS, ids=lambda v: str(v))
def test_every_flag_is_a_settings_field_with_its_docstring_as_help(words, classes, needed):
    arguments = _arguments(_parser(words))
    fields = {f.name: cls for cls in classes for f in dataclasses.fields(cls)}
    assert set(arguments) == set(fields)  # no flag written by hand, no field without its flag
    for name, action in arguments.items():
        assert action.help == field_help(fields[name])[name].replace("%", "%%"), name


@pytest.mark.parametrize(("words", "classes", "needed"), COMMANDS[:-1], ids=lambda v: str(v))
def test_a_bare_command_line_reads_back_as_the_settings_defaults(words, classes, needed):
    (cls,) = classes
    args = _parser(words).parse_args(list(needed))
    positional = {f.name: "DIR" for f in dataclasses.fields(cls) if f.name == "folder"}
    given = {"minari": "ID"} if "--minari" in needed else {}
    assert from_args(cls, args) == cls(**positional, **given)


def test_bench_sizes_are_read_as_numbers():
    args = _parser(("bench",)).parse_args(["--sizes", "8,16"])
    assert from_args(bench.BenchSettings, args).sizes == [8, 16]


def test_watch_keeps_its_own_shorter_countdown():
    watch = from_args(table.WatchSettings, _parser(("watch",)).parse_args([]))
    play = from_args(table.PlaySettings, _parser(("play",)).parse_args([]))
    assert (watch.countdown_ms, play.countdown_ms) == (1000, 2000)


def test_league_settings_not_given_read_none_so_a_resume_keeps_its_own():
    args = _parser(("train", "league")).parse_args(["--rounds", "5", "--include", "a", "b"])
    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(LeagueSettings)}
    assert given["rounds"] == 5 and given["include"] == ["a", "b"]
    assert {k for k, v in given.items() if v is not None} == {"rounds", "include"}
    run = from_args(train_league.LeagueRun, args)
    assert (run.out, run.workers, run.no_progress) == ("runs/league", 1, False)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["data", "export", "DIR"], "the following arguments are required: --minari"),
        (["data", "export", "DIR", "--minari", "x", "--seat", "cat"], "argument --seat:"),
        (["train", "league", "--init", "later"], "argument --init:"),
        (["play", "--tick-ms", "1001"], "argument --tick-ms:"),
    ],
)
def test_a_refused_value_names_its_flag_in_one_line(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(speed_cli.main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1, err
