"""Docs that cannot rot: the Python blocks of README.md and docs/ run, their ``speed`` commands
parse, and the public modules' docstring examples run as doctests.

Python blocks: each Markdown file's ```` ```python ```` blocks run in order in one namespace,
like a notebook's cells (an interpreter session, ```` ```pycon ```` or a block starting with
``>>>``, runs as a doctest: its outputs are checked), in a fresh interpreter (a subprocess
with a timeout) whose working directory is a temporary folder, so a block that writes files
writes nothing into the repository. A block that must not run (a long training run) is preceded by
``<!-- docs-test: skip (reason) -->``; the reason is required (tests/helpers_docs.py).

Why a collector of our own rather than pytest-markdown-docs (0.9.2): that plugin runs each
block in the pytest process (a block's ``os.chdir``, its imports and its numba compilation
stay in the worker, and it has no timeout), shares names between blocks only through a
``continuation`` fence modifier, marks skips in the info string (```` ```python notest ````,
with no place for the reason), and would be one more
dependency and a second pytest invocation for ``make test`` (``pytest --markdown-docs
README.md docs/``: the suite's ``testpaths`` is ``tests``). Ours is ~200 lines, runs a file like a
notebook by default, skips with an HTML comment that renders as nothing and must give its
reason, and reads the same fences for the ``speed`` command check.

Commands: every ``speed …`` line of a shell block (```` ```bash ````, ``console``, ``sh`` or a
bare fence: continuation lines joined, ``$VARS`` given the block's own value or ``1``) and
every inline span starting with ``speed `` is parsed by the CLI's own parser
(:func:`speed_cli.build_parser`; ``speed train``'s flags by :func:`train.common.cli_args.parse`),
without running it: a renamed or removed flag fails here. An inline span is a mention, so
only its required arguments may be missing.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_docs import (
    PYTHON,
    ROOT,
    Block,
    Command,
    MarkerError,
    blocks,
    commands,
    doc_files,
    inline_spans,
    shell_commands,
)

import speed_cli

DOCS = doc_files()
IDS = [str(p.relative_to(ROOT)) for p in DOCS]
TIMEOUT_S = 600
"""Per file: the first import compiles the engine's kernels when numba's cache is cold."""

# Runs in the subprocess: the blocks (JSON on stdin) in order in one namespace, a session
# (>>> prompts) as a doctest; on the first failure, prints which block and exits 1.
_RUNNER = """
import doctest, json, sys, traceback
blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
for block in blocks:
    if block["session"]:
        path, _, line = block["where"].rpartition(":")
        test = doctest.DocTestParser().get_doctest(block["code"], namespace, block["where"], path,
                                                   int(line))
        runner = doctest.DocTestRunner(optionflags=flags)
        runner.run(test, out=sys.stderr.write, clear_globs=False)
        if runner.failures:
            print("FAILED: the session at " + block["where"], file=sys.stderr)
            sys.exit(1)
        continue
    try:
        exec(compile(block["code"], block["where"], "exec"), namespace)
    except BaseException:
        print("FAILED: the block at " + block["where"], file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
print(len(blocks))
"""


def _runnable(path: Path) -> list[Block]:
    """The Python blocks of ``path`` that run (not marked to skip)."""
    return [b for b in blocks(path) if b.lang in PYTHON and b.skip is None]


def _where(block: Block) -> str:
    path = block.path.relative_to(ROOT) if block.path.is_relative_to(ROOT) else block.path
    return f"{path}:{block.line}"


def run_blocks(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``path``'s Python blocks (in order, one namespace) in a fresh interpreter in ``cwd``."""
    payload = [{"where": _where(b), "code": b.code, "session": b.session} for b in _runnable(path)]
    # This tree's packages first, wherever cwd is (an installed kit may be another checkout).
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath, "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(payload),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_python_block_runs(path, tmp_path):
    runnable = _runnable(path)
    if not runnable:
        pytest.skip(f"{path.name} has no Python block to run")
    done = run_blocks(path, tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.split()[-1] == str(len(runnable))


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_docs_test_marker_gives_its_reason(path):
    try:
        blocks(path)
    except MarkerError as error:
        pytest.fail(str(error))


# ------------------------------------------------------------------ commands
def _lenient(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with nothing required, in every subcommand (for inline mentions)."""
    for action in parser._actions:
        action.required = False
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _lenient(sub)
    return parser


@functools.cache
def _parser(complete: bool) -> argparse.ArgumentParser:
    """The CLI's parser (built once: parsing leaves it as it was); lenient for mentions."""
    parser = speed_cli.build_parser()
    return parser if complete else _lenient(parser)


def check_command(command: Command) -> None:
    """Parse ``command`` with the CLI's parser; fail naming the command and argparse's error."""
    parser = _parser(command.complete)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args(command.argv)
            if args.command == "train" and (command.complete or args.argv):
                _check_train(args.argv)
    except SystemExit as exit:
        if exit.code == 0 and {"-h", "--help"} & set(command.argv):
            return
        pytest.fail(f"{command}\n{stderr.getvalue().strip()}", pytrace=False)
    except ValueError as error:
        pytest.fail(f"{command}\n{error}", pytrace=False)


def _check_train(argv: list[str]) -> None:
    """``speed train``'s flags go to the training toolkit's own parser (the [train] extra)."""
    pytest.importorskip("sb3_contrib", reason="speed train's flags need the [train] extra")
    if argv[:1] == ["bc"]:  # cloning recorded play has its own flags (train/bc_data.py)
        from train.bc_data import build_parser

        build_parser().parse_args(argv[1:])
        return
    if argv[:1] == ["league"]:  # the league has its own flags (speed_cli/train_league.py)
        from speed_cli.train_league import build_parser as league_parser

        league_parser().parse_args(argv[1:])
        return
    from train.common.cli_args import parse

    parse(argv)


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_speed_command_in_the_docs_parses(path):
    found = commands(path)
    if not found:
        pytest.skip(f"{path.name} shows no speed command")
    failures = []
    for command in found:
        try:
            check_command(command)
        except pytest.fail.Exception as failure:
            failures.append(str(failure))
    assert not failures, "\n\n".join(failures)


# ------------------------------------------------- the checks check something
def _doc(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text)
    return path


def test_blocks_of_one_file_share_a_namespace_and_run_outside_the_repository(tmp_path):
    page = _doc(
        tmp_path,
        (
            "```python\nx = 41\n```\n\ntext\n\n```python\nx += 1\n"
            "open('written.txt', 'w').write(str(x))\n```\n"
        ),
    )
    (tmp_path / "cwd").mkdir()
    done = run_blocks(page, tmp_path / "cwd")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cwd" / "written.txt").read_text() == "42"


def test_a_failing_block_fails_naming_its_file_and_line(tmp_path):
    page = _doc(tmp_path, "```python\nx = 1\n```\n\n```python\nraise RuntimeError('boom')\n```\n")
    done = run_blocks(page, tmp_path)
    assert done.returncode == 1
    assert f"{page}:5" in done.stderr and "boom" in done.stderr


def test_a_session_block_checks_its_outputs_in_the_files_namespace(tmp_path):
    good = "```python\nx = 2\n```\n\n```pycon\n>>> x + 1\n3\n```\n"
    assert run_blocks(_doc(tmp_path, good), tmp_path).returncode == 0
    bad = "```python\nx = 2\n```\n\n```python\n>>> x + 1\n4\n```\n"
    done = run_blocks(_doc(tmp_path, bad), tmp_path)
    assert done.returncode == 1 and f"the session at {tmp_path / 'page.md'}:5" in done.stderr


def test_a_marked_block_is_skipped_and_a_marker_needs_its_reason(tmp_path):
    marked = (
        "<!-- docs-test: skip (an hour of training) -->\n\n```python\nraise SystemExit(1)\n```\n"
    )
    (block,) = blocks(_doc(tmp_path, marked))
    assert block.skip == "an hour of training"
    for bad in (
        "<!-- docs-test: skip -->",
        "<!-- docs-test: skip () -->",
        "<!-- docs-test: run -->",
    ):
        with pytest.raises(MarkerError, match=r"page\.md:1"):
            blocks(_doc(tmp_path, f"{bad}\n```python\npass\n```\n"))


def test_shell_lines_are_joined_expanded_and_split_into_speed_commands(tmp_path):
    text = (
        "```bash\nGAMES=400\nspeed tournament --agents random,greedy \\\n"
        "    --games $GAMES --out ${OUT}/x  # a comment\n"
        "make setup && speed demo ...; echo done | speed agents\n$ speed bench --seconds 1\n```\n"
        "Run `speed replay FILE --delay 0` or `speed`, not `speedy`.\n"
    )
    found = commands(_doc(tmp_path, text))
    assert [(c.argv, c.complete, c.line) for c in found] == [
        (("tournament", "--agents", "random,greedy", "--games", "400", "--out", "1/x"), True, 3),
        (("demo",), True, 5),
        (("agents",), True, 5),
        (("bench", "--seconds", "1"), True, 6),
        (("replay", "FILE", "--delay", "0"), False, 8),
        ((), False, 8),
    ]


def test_a_renamed_flag_or_command_fails_and_a_mention_may_omit_required_arguments():
    path = ROOT / "README.md"
    check_command(Command(path, 1, ("tournament", "--agents", "random,greedy"), complete=True))
    check_command(Command(path, 1, ("replay",), complete=False))  # FILE left out of a mention
    for argv in (("tournament", "--agentz", "random"), ("tournaments",), ("demo", "--nope")):
        with pytest.raises(pytest.fail.Exception, match="speed "):
            check_command(Command(path, 1, argv, complete=False))


def test_speed_trains_flags_are_checked_by_the_training_parser():
    pytest.importorskip("sb3_contrib")
    path = ROOT / "README.md"
    check_command(Command(path, 1, ("train", "realtime", "--timesteps", "64"), complete=True))
    with pytest.raises(pytest.fail.Exception, match="--timestepz"):
        check_command(Command(path, 1, ("train", "realtime", "--timestepz", "64"), complete=True))
    with pytest.raises(pytest.fail.Exception, match="--rules"):  # not a vintage setting
        check_command(Command(path, 1, ("train", "vintage", "--rules", "us"), complete=False))


def test_inline_spans_wrap_across_lines_and_skip_fenced_code(tmp_path):
    text = "See `speed tournament\n--games 4` here.\n\n```\n`speed nope`\n```\n"
    assert list(inline_spans(_doc(tmp_path, text))) == [(1, "speed tournament --games 4")]
    assert shell_commands(blocks(_doc(tmp_path, text))[0]) == []


# ------------------------------------------------------------------ doctests
PACKAGES = ("speed_env", "agents", "speed_data", "train", "speed_lab", "speed_table", "speed_cli")
"""The kit's packages whose docstring examples run."""

OPTIONAL = frozenset(
    {
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "safetensors",
        "tensorboard",
        "ray",
        "matplotlib",
        "PIL",
        "starlette",
        "uvicorn",
        "websockets",
        "httpx",
        "playwright",
    }
)
"""Top-level modules of the optional extras: a module needing one that is absent is skipped."""


def modules_with_examples() -> list[str]:
    """Modules of :data:`PACKAGES` whose source holds a ``>>>`` example, found without importing
    any (so no optional stack is imported for a module that has none)."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


DOCTEST_MODULES = modules_with_examples()


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples_run(name):
    import doctest
    import importlib

    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {missing.name}, an optional extra not installed here")
        raise
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    out = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    assert results.attempted > 0, f"{name}: no example found"
    assert results.failed == 0, out.getvalue()


def test_the_central_public_functions_show_an_example():
    import doctest

    import agents
    import speed_env

    central = [
        speed_env.parallel_env,
        speed_env.make_rules,
        speed_env.observation_layout,
        speed_env.parse_card,
        speed_env.parse_cards,
        speed_env.card_str,
        agents.make,
    ]
    finder = doctest.DocTestFinder(recurse=False)
    bare = [f.__qualname__ for f in central if not any(t.examples for t in finder.find(f))]
    assert not bare, f"no >>> example in the docstring of {bare}"
    assert {f.__module__ for f in central} <= set(DOCTEST_MODULES)
