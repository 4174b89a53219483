"""Command-line flags made from a settings dataclass: one argument a field.

A command's settings are a dataclass, each field with a docstring under it (the CleanRL way);
:func:`add_flags` makes its arguments, :func:`from_args` reads the dataclass back from the
parsed namespace. No flag is written out by hand, so every flag given reaches the command as
given, and its help is the field's docstring (:func:`field_help`). What a field's annotation
and default say:

- no default: a positional argument (``list[str]``: one or more of them);
- ``bool``: a switch (``--flag``/``--no-flag``, or ``--flag`` alone with ``negatable=False``);
- ``Literal["a", "b"]``: a value among those choices;
- ``list[str]`` with ``default_factory=list``: a repeatable flag, each use appended;
- ``X | None = None``: an optional value, ``None`` when not given;
- anything else: one value, converted by the field's ``type`` (below) or the caller's table.

A field's ``metadata`` may hold (plain data, so a settings module imports nothing for it):
``type`` (the converter of the text, by field, as argparse's ``type=``), ``metavar``, and
``const`` (the flag may be given without a value, which then means ``const``). Any other key is
refused, naming the field, when the flags are made. A value a caller computes when the parser
is built (a registry's choices, help naming them) is passed as ``extra``.

Imports nothing but the standard library: the CLI's and the training recipes' parsers share it.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar

__all__ = [
    "METADATA",
    "FlagParser",
    "add_flags",
    "field_help",
    "flag_name",
    "from_args",
]

S = TypeVar("S")

METADATA = frozenset({"type", "metavar", "const"})
"""The keys of a field's ``metadata`` that :func:`add_flags` reads."""

_STR = frozenset({"str", "str | None"})
_LIST = frozenset({"list[str]"})


class FlagParser(argparse.ArgumentParser):
    """An argument parser where a flag counts only spelled in full, and a refused command line
    is one line naming what was wrong (exit code 2).

    argparse by default reads an unambiguous prefix as the flag (``--timestep`` as
    ``--timesteps``), so a typo could silently set a different flag; ``allow_abbrev=False``
    refuses it by name instead. Its own error prints the whole usage text first, some forty
    lines for a training recipe. Subparsers are made of the same class (``add_subparsers``
    builds them with ``type(self)``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False  # --timestep is refused by name, not read as --timesteps
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Refuse the command line in one line naming what was wrong (exit code 2)."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def field_help(cls: type) -> dict[str, str]:
    """Each field's docstring: the string under it in the class body.

    A subclass's wins over its bases'; a field re-declared without one keeps its base's.
    """
    out: dict[str, str] = {}
    # Bases first, so a subclass's docstring replaces its base's.
    for klass in reversed([k for k in cls.__mro__ if k is not object]):
        # Python keeps no field docstrings at run time: they are read from the source (dedented:
        # a class may be defined inside a function).
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body  # type: ignore[attr-defined]
        for node, nxt in itertools.pairwise(body):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
            ):
                out[node.target.id] = " ".join(str(nxt.value.value).split())  # type: ignore[union-attr]
    return out


def flag_name(field: str) -> str:
    """The flag of a field: ``n_envs`` is ``--n-envs`` (``lambda_`` is ``--lambda``)."""
    # lambda_ dodges a keyword in Python; its flag is --lambda.
    return "--" + field.rstrip("_").replace("_", "-")


def _declared_in(cls: type, name: str) -> type:
    """The most basic class of ``cls`` that declares the field ``name``."""
    return next(k for k in reversed(cls.__mro__) if name in inspect.get_annotations(k))


def add_flags(
    parser: argparse.ArgumentParser,
    cls: type,
    *,
    types: Mapping[str, Callable[[str], Any]] | None = None,
    groups: Mapping[type, str] | None = None,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
    show_defaults: bool = True,
    negatable: bool = True,
) -> None:
    """One argument for each field of the dataclass ``cls`` (the module's docstring says how).

    - ``types``: the converter of a field's text, by field name or, failing that, by its
      annotation (``"int"``, ``"float | None"``); a field's own ``type`` metadata wins;
    - ``groups``: an argument group (its title) for the fields each base of ``cls`` declares,
      shown after the fields no group holds, in the mapping's order;
    - ``extra``: add_argument keywords of a field computed when the parser is built;
    - ``show_defaults``: end each option's help with its default, where it has one;
    - ``negatable``: a ``bool`` field is ``--flag``/``--no-flag``; else ``--flag`` alone
      (which sets ``True``; its default must be ``False``).
    """
    helps = field_help(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    # A field is in the group of the most basic class declaring it (a recipe re-declaring a
    # base's default leaves the field in the base's group).
    made = {
        base: parser.add_argument_group(title)
        for base, title in (groups or {}).items()
        if issubclass(cls, base)
    }
    home = {f.name: made.get(_declared_in(cls, f.name), parser) for f in fields}
    ordered = [f for f in fields if home[f.name] is parser]
    for group in made.values():
        ordered += [f for f in fields if home[f.name] is group]
    for f in ordered:
        kwargs = _argument(f, types or {}, show_defaults, negatable)
        kwargs["help"] = helps.get(f.name, "").replace("%", "%%") + kwargs.get("help", "")
        kwargs.update((extra or {}).get(f.name, {}))
        # An option is named by its flag (its dest: the field); a positional by the field.
        name = flag_name(f.name) if "dest" in kwargs else f.name
        home[f.name].add_argument(name, **kwargs)


def _argument(
    f: dataclasses.Field[Any],
    types: Mapping[str, Callable[[str], Any]],
    show_defaults: bool,
    negatable: bool,
) -> dict[str, Any]:
    """add_argument's keywords for the field ``f``."""
    unknown = set(f.metadata) - METADATA
    if unknown:
        raise TypeError(f"field {f.name!r}: unknown flag metadata {sorted(unknown)}")
    meta = dict(f.metadata)
    kind = str(f.type)
    convert = meta.get("type") or types.get(f.name) or types.get(kind)
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
        # A field the dataclass cannot do without: a positional argument, as in a signature.
        out: dict[str, Any] = {"nargs": "+"} if kind in _LIST else {}
        if convert is not None:
            out["type"] = convert
        return out | ({"metavar": meta["metavar"]} if "metavar" in meta else {})
    out = {"dest": f.name}
    if kind == "bool":
        if negatable:
            return out | {"action": argparse.BooleanOptionalAction, "default": f.default}
        if f.default is not False:
            raise TypeError(f"field {f.name!r}: a switch without --no-{f.name} defaults to False")
        return out | {"action": "store_true"}
    if kind in _LIST:
        # Each use of the flag appends to a copy of the list (argparse's append copies it).
        out |= {"action": "append", "default": f.default_factory()}  # type: ignore[operator]
        return out | {"metavar": meta.get("metavar", f.name.upper())}
    if kind.startswith("Literal["):
        # The choices are the annotation's, read from its text (annotations stay strings);
        # argparse shows them in place of a metavar.
        choices = tuple(ast.literal_eval(kind.removeprefix("Literal")))
        return out | {"choices": choices, "default": f.default}
    if convert is None and kind not in _STR:
        raise TypeError(f"field {f.name!r}: no flag for a field of type {f.type!r}")
    out |= {"type": convert or str, "default": f.default}
    out["metavar"] = meta.get("metavar", f.name.rstrip("_").upper())
    if "const" in meta:
        out |= {"nargs": "?", "const": meta["const"]}
    if show_defaults and f.default not in (None, ""):
        out["help"] = f" (default {f.default})"
    return out


def from_args(cls: Callable[..., S], args: argparse.Namespace) -> S:
    """The settings ``cls`` from parsed flags (every field, as given or its default)."""
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})  # type: ignore[arg-type]
