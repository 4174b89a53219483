"""Read the docs as the checks of ``tests/kit/test_docs.py`` need them: fenced code blocks, inline
``speed …`` spans, and the ``speed`` command lines inside shell blocks.

A fence's info string gives its language (```` ```python ````, ```` ```bash ````); a block is
marked not to run by an HTML comment on the nearest non-blank line before it::

    <!-- docs-test: skip (trains for an hour; tests/train/test_training.py runs it small) -->

The reason in parentheses is required: a marker without one is reported as a defect, so
every skipped block says why.

In a ``speed`` command, the words of :data:`PLACEHOLDERS` (``...``, ``FLAGS``, ``OPTS`` …)
stand for more arguments and are dropped before parsing; any other word is parsed as written
(``FILE`` as a positional value, ``$N`` given the block's value of ``N`` or ``1``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PYTHON = frozenset({"python", "py", "python3", "pycon"})
"""Info strings of the blocks that run (``pycon``, or a block starting ``>>>``: as a doctest)."""

SHELL = frozenset({"bash", "console", "sh", "shell", "shell-session", ""})
"""Info strings of the blocks whose ``speed`` lines are parsed ("" = a bare fence)."""

PLACEHOLDERS = frozenset({"...", "…", "FLAGS", "OPTS", "OPTIONS", "ARGS"})
"""Words of a shown command that stand for "more arguments here"."""

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<what>[\w-]+)\s*(?P<rest>.*?)\s*-->\s*$")
_REASON = re.compile(r"^\((?P<reason>.*\S.*)\)$")
_INLINE = re.compile(r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)")
_VAR = re.compile(r"\$(?:\{(?P<braced>\w+)\}|(?P<name>\w+))")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file."""

    path: Path
    line: int
    """1-based line of the opening fence."""
    lang: str
    code: str
    skip: str | None
    """The reason given by a ``docs-test: skip (reason)`` marker; None when it runs."""

    @property
    def session(self) -> bool:
        """True for an interpreter session (``>>>`` prompts, outputs checked as a doctest)."""
        return self.lang == "pycon" or self.code.lstrip().startswith(">>>")


@dataclass(frozen=True)
class Command:
    """One ``speed`` command line shown in the docs, as the shell would split it."""

    path: Path
    line: int
    argv: tuple[str, ...]
    """The arguments after ``speed``."""
    complete: bool
    """True in a shell block (a command to run); False in an inline span (a mention, which
    may leave out required arguments)."""

    def __str__(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}: speed {shlex.join(self.argv)}"


class MarkerError(ValueError):
    """A ``docs-test`` marker that is malformed (unknown, or a skip without its reason)."""


def doc_files(root: Path = ROOT) -> list[Path]:
    """README.md, CHANGELOG.md (the site's changelog page includes it) and every Markdown file
    under docs/, in a stable order."""
    files = [root / "README.md", root / "CHANGELOG.md", *sorted((root / "docs").rglob("*.md"))]
    return [f for f in files if f.is_file()]


def _marker(lines: list[str], before: int, path: Path) -> str | None:
    """The skip reason of the marker on the nearest non-blank line above line ``before``."""
    i = before - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0 or "docs-test" not in lines[i]:
        return None
    where = f"{path}:{i + 1}"
    found = _MARKER.match(lines[i])
    if found is None or found["what"] != "skip":
        raise MarkerError(f"{where}: the only marker is <!-- docs-test: skip (reason) -->")
    reason = _REASON.match(found["rest"])
    if reason is None:
        raise MarkerError(f"{where}: docs-test: skip needs its reason in parentheses")
    return reason["reason"].strip()


def _dedent(line: str, indent: str) -> str:
    return line[len(indent) :] if line.startswith(indent) else line.lstrip()


def blocks(path: Path, text: str | None = None) -> list[Block]:
    """The fenced code blocks of ``path`` (or of ``text``), in order."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"]
        end = i + 1
        # A closing fence: the same character, at least as long, nothing after it.
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        code = "\n".join(_dedent(line, indent) for line in lines[i + 1 : end]) + "\n"
        lang = info.lower().lstrip("{.").rstrip("}")
        found.append(Block(path, i + 1, lang, code, _marker(lines, i, path)))
        i = end + 1
    return found


def inline_spans(path: Path, text: str | None = None) -> Iterator[tuple[int, str]]:
    """(line, code) of every inline code span outside fenced blocks."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    fenced: set[int] = set()
    for block in blocks(path, "\n".join(lines)):
        fenced.update(range(block.line - 1, block.line + block.code.count("\n") + 1))
    # Spans may wrap onto the next line: join each paragraph, remembering where lines start.
    paragraph: list[tuple[int, str]] = []
    for number, line in [*enumerate(lines), (len(lines), "")]:
        if number in fenced or not line.strip():
            yield from _spans_of(paragraph)
            paragraph = []
        else:
            paragraph.append((number + 1, line))


def _spans_of(paragraph: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    if not paragraph:
        return
    text = " ".join(line.strip() for _, line in paragraph)
    starts, at = [], 0
    for number, line in paragraph:
        starts.append((at, number))
        at += len(line.strip()) + 1
    for span in _INLINE.finditer(text):
        line = max(n for offset, n in starts if offset <= span.start())
        yield line, span["code"].strip()


def _assignments(code: str) -> dict[str, str]:
    """``NAME=value`` (and ``export NAME=value``) lines of a shell block."""
    found: dict[str, str] = {}
    for line in code.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # unbalanced quotes: not an assignment
            continue
        if words[:1] == ["export"]:
            words = words[1:]
        if len(words) == 1 and re.fullmatch(r"\w+=.*", words[0]):
            name, _, value = words[0].partition("=")
            found[name] = value
    return found


def expand(text: str, variables: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` replaced by the block's own value, else by ``1`` (a value
    every number, count and path flag accepts)."""
    return _VAR.sub(lambda m: variables.get(m["braced"] or m["name"], "1"), text)


def speed_argv(command_line: str) -> list[list[str]]:
    """The argument lists after ``speed`` in one shell command line (``a && speed … | b``)."""
    lexer = shlex.shlex(command_line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    found: list[list[str]] = []
    words: list[str] = []
    for token in [*lexer, ";"]:
        if token in {"&&", "||", ";", "|", "&", "(", ")"}:
            while words and re.fullmatch(r"\w+=.*", words[0]):  # CI=true speed …
                words = words[1:]
            if words[:1] == ["$"]:  # a console prompt
                words = words[1:]
            if words and (words[0] == "speed" or words[0].endswith("/speed")):
                found.append(_drop_placeholders(words[1:]))
            elif (
                len(words) > 2
                and words[0].endswith("python")
                and words[1:3]
                == [
                    "-m",
                    "speed_cli",
                ]
            ):
                found.append(_drop_placeholders(words[3:]))
            words = []
        else:
            words.append(token)
    return found


def _drop_placeholders(words: list[str]) -> list[str]:
    return [w for w in words if w not in PLACEHOLDERS]


def shell_commands(block: Block) -> list[Command]:
    """The ``speed`` commands of a shell block: continuation lines joined, ``$VARS`` expanded."""
    variables = _assignments(block.code)
    found: list[Command] = []
    lines = block.code.splitlines()
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        stripped = line.strip()
        if stripped.startswith("$ "):  # a console prompt
            stripped = stripped[2:]
        try:
            argvs = speed_argv(expand(stripped, variables))
        except ValueError:  # unbalanced quotes: prose or output, not a command
            continue
        found.extend(
            Command(block.path, block.line + 1 + start, tuple(argv), complete=True)
            for argv in argvs
        )
    return found


def commands(path: Path) -> list[Command]:
    """Every ``speed`` command of ``path``: its shell blocks' lines and its inline spans."""
    found: list[Command] = []
    for block in blocks(path):
        if block.lang in SHELL and block.skip is None:
            found.extend(shell_commands(block))
    for line, code in inline_spans(path):
        if code.startswith("speed ") or code == "speed":
            try:
                words = shlex.split(expand(code, {}), comments=True)
            except ValueError:
                continue
            argv = tuple(_drop_placeholders(words[1:]))
            found.append(Command(path, line, argv, complete=False))
    return found
