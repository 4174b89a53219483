"""Every ``speed`` command's flags are made from a settings dataclass, none written by hand.

A command declares its settings as a dataclass, one field a flag with its docstring as the help
(``speed_cli.common.add_command_flags``, on :mod:`agents.runtime.flags`), so a flag's name, type,
default and help live in one place and every flag reaches the run as given. A module of
``speed_cli`` that calls argparse's ``add_argument`` itself writes a flag by hand:
:data:`HAND_WRITTEN` lists those that still do, each with why; the list is exact, so it can only
shrink.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import speed_cli
from speed_cli import common, demo, evaluate, experiment, replay, think, tournament

ROOT = Path(__file__).resolve().parents[2]
HAND_WRITTEN = {
    # their flags being made from settings (helper cliflags-b), and common.py's helpers they use
    "speed_cli/bench.py",
    "speed_cli/data.py",
    "speed_cli/table.py",
    "speed_cli/train_league.py",
    "speed_cli/common.py",
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
    (replay, "ReplaySettings"),
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
    from agents.runtime.flags import field_help

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
