"""agents/runtime/flags.py: a settings dataclass's fields as command-line arguments."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import Literal

import pytest

from agents.runtime.flags import FlagParser, add_flags, field_help, flag_name, from_args


def _number(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


@dataclass(kw_only=True)
class Shared:
    """A mixin: flags several commands share."""

    backend: Literal["local", "ray"] = "local"
    """Where it runs."""
    option: list[str] = field(default_factory=list, metadata={"metavar": "KEY=VALUE"})
    """Override one rule."""


@dataclass(kw_only=True)
class Command(Shared):
    """A command's settings."""

    spec: str = field(metadata={"metavar": "SPEC"})
    """The agent (100% yours)."""
    games: int = field(default=2000, metadata={"type": _number})
    """Games per pairing."""
    address: str | None = field(default=None, metadata={"metavar": "ADDRESS"})
    """The cluster to join."""
    jitter: str | None = field(default=None, metadata={"const": "human"})
    """Shape the latencies."""
    resume: bool = False
    """Continue the run."""


def _parser(**kwargs: object) -> FlagParser:
    parser = FlagParser(prog="cmd")
    add_flags(parser, Command, **kwargs)  # type: ignore[arg-type]
    return parser


def test_each_kind_of_field_is_parsed_as_its_annotation_says():
    argv = ["chain", "--games", "4", "--backend", "ray", "--option", "a=1", "--option", "b=2"]
    got = from_args(Command, _parser(negatable=False).parse_args([*argv, "--jitter", "--resume"]))
    assert got == Command(
        spec="chain",
        games=4,
        backend="ray",
        option=["a=1", "b=2"],
        address=None,
        jitter="human",
        resume=True,
    )


def test_defaults_reach_the_settings_untouched_and_lists_are_not_shared():
    parser = _parser(negatable=False)
    first = from_args(Command, parser.parse_args(["chain", "--option", "x=1"]))
    second = from_args(Command, parser.parse_args(["chain"]))
    assert second == Command(spec="chain")
    assert first.option == ["x=1"] and second.option == []


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["chain", "--backend", "mars"], "argument --backend: invalid choice: 'mars'"),
        (["chain", "--games", "0"], "argument --games: must be >= 1, got '0'"),
        ([], "the following arguments are required: SPEC"),
        (["chain", "--game", "3"], "unrecognized arguments: --game 3"),  # no abbreviations
    ],
)
def test_a_bad_command_line_is_one_line_naming_the_argument(argv, named, capsys):
    with pytest.raises(SystemExit) as exit_:
        _parser(negatable=False).parse_args(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and named in err, err


def test_the_help_is_each_fields_docstring_with_its_default():
    text = _parser(negatable=False).format_help()
    assert "The agent (100% yours)." in text  # % escaped for argparse's formatting
    assert "Games per pairing. (default 2000)" in text
    assert "--option KEY=VALUE" in text and "--address ADDRESS" in text
    assert "--resume" in text and "--no-resume" not in text
    plain = _parser(negatable=False, show_defaults=False).format_help()
    assert "Games per pairing.\n" in plain


def test_a_switch_is_negatable_by_default():
    parser = _parser()
    assert parser.parse_args(["chain", "--no-resume"]).resume is False
    assert "--resume, --no-resume" in parser.format_help()


def test_groups_hold_the_fields_their_class_declares_after_the_others():
    parser = FlagParser(prog="cmd")
    add_flags(parser, Command, groups={Shared: "shared (Shared)"}, negatable=False)
    text = parser.format_help().partition("options:")[2]  # the sections, not the usage line
    assert text.index("--games") < text.index("shared (Shared):") < text.index("--backend")
    usage = parser.format_usage()
    assert usage.index("--games") < usage.index("--backend")  # the usage follows the sections


def test_types_and_extra_fill_in_what_a_field_does_not_say():
    @dataclass
    class Counted:
        n: int = 3
        """How many."""
        game: str = "a"
        """The game."""

    with pytest.raises(TypeError, match="field 'n': no flag for a field of type 'int'"):
        add_flags(FlagParser(), Counted)
    parser = FlagParser()
    add_flags(parser, Counted, types={"int": _number}, extra={"game": {"choices": ("a", "b")}})
    assert from_args(Counted, parser.parse_args(["--n", "5", "--game", "b"])) == Counted(5, "b")
    with pytest.raises(SystemExit):
        parser.parse_args(["--game", "c"])


def test_unknown_metadata_and_a_true_switch_without_its_negation_are_refused():
    @dataclass
    class Typo:
        n: str = field(default="", metadata={"metvar": "N"})

    @dataclass
    class On:
        fast: bool = True

    with pytest.raises(TypeError, match=r"field 'n': unknown flag metadata \['metvar'\]"):
        add_flags(FlagParser(), Typo)
    with pytest.raises(TypeError, match="field 'fast'"):
        add_flags(FlagParser(), On, negatable=False)


def test_field_help_and_flag_names():
    assert field_help(Command)["backend"] == "Where it runs."
    assert flag_name("lambda_") == "--lambda" and flag_name("n_envs") == "--n-envs"
    assert [f.name for f in dataclasses.fields(Command)][:2] == ["backend", "option"]
