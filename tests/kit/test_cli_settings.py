"""``speed data``, ``speed bench``, ``speed play``/``watch`` and ``speed train league`` make their
flags from settings dataclasses: each flag is a field, its help the field's docstring, its
default the field's, and the parsed command line reads back as the settings."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

import speed_cli
from agents.runtime.flags import field_help, from_args
from speed_cli import bench, data, table, train_league
from train.league.run import LeagueSettings


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
