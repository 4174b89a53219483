"""A user's own agent as a spec: ``py:PATH.py:NAME`` or ``package.module:NAME``.

The grammar (what the registries try first, so no registered name is shadowed):

- ``py:PATH:NAME[@TAIL]``: ``PATH`` ends in ``.py`` (relative to the working
  folder, or absolute; it may hold ``:`` or ``@``, the spec is split at its
  *last* ``:``), ``NAME`` is a Python identifier.
- ``MODULE:NAME[@TAIL]``: ``MODULE`` is a dotted import path with at least one
  dot (``my_pkg.bots``) and ``NAME`` an identifier. Registered agent names hold
  no dot (``chain``, ``search``), so ``chain:run=1``, ``ppo:model.json``
  and ``search:wait=0`` stay what they were; a top-level module (``my_bot``) is
  given as a file, ``py:my_bot.py:NAME``.
- ``@TAIL`` is a reaction profile (``py:bot.py:Bot@pro``) in real-time Speed;
  an agent of a game without reaction profiles takes none.

``NAME`` is looked up in the file or module and turned into a policy:

- an object with a callable ``act(obs, mask)`` (a ``speed_env.policy.Policy``)
  is used as it is;
- a class is called with ``(rules, seed)`` when its constructor takes two
  positional arguments, else with none;
- any other callable is a factory, called with ``(rules, seed)``.

``rules`` is the real-time :class:`~speed_env.rules.Rules` the agent plays, or
``None`` in a game without rules objects (whose bots read its default observation);
``seed`` is an int or ``None``. What the call returns must have ``act``. A file
or name that cannot be loaded is an :class:`UserAgentError` naming the file (or
module) and what is missing. The class or factory refuses rules it does not
play by raising ``ValueError`` (an :class:`AgentBuildError`, a *refusal*); any
other exception it raises, ``sys.exit`` included, is a bug of the agent's, an
:class:`agents.runtime.failures.AgentFailure` naming the spec and the whole message.

A file is executed afresh for each agent built (so two seats hold two
instances); a module is imported once, as Python does.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agents.errors import AgentSpecError
from agents.specs.guarded import calling, exits_refused
from speed_env import user_file

_IDENT = r"[A-Za-z_]\w*"
_MODULE_SPEC = re.compile(
    rf"^(?P<module>{_IDENT}(?:\.{_IDENT})+):(?P<name>{_IDENT})(?:@(?P<tail>.*))?$"
)
_NAME_TAIL = re.compile(rf"^(?P<name>{_IDENT})(?:@(?P<tail>.*))?$")

SOURCE_LIMIT = 64 << 20
"""The most bytes a ``py:`` agent file may hold (64 MiB: a bot's weights may sit in it)."""


class UserAgentError(AgentSpecError):
    """A ``py:`` or ``module:`` agent spec that cannot be loaded.

    The message names the file and what is wrong.
    """


class AgentBuildError(UserAgentError):
    """The user's class or factory refused to build the agent by raising ``ValueError``.

    That is the documented refusal of rules it does not play; the message names the class or
    factory and the reason.
    """


@dataclass(frozen=True)
class UserSpec:
    """A parsed user-agent spec."""

    text: str
    """The spec as given (stripped)."""
    kind: str
    """``file`` (``py:PATH:NAME``) or ``module`` (``MODULE:NAME``)."""
    source: str
    """The file path or the dotted module name."""
    name: str
    """The attribute to load."""
    tail: str
    """What followed ``@`` (a reaction profile), or ``""``."""

    @property
    def where(self) -> str:
        """The file or module, for messages."""
        return f"file {self.source}" if self.kind == "file" else f"module {self.source}"


def is_user_spec(spec: object) -> bool:
    """Whether ``spec`` is a ``py:`` or ``MODULE:NAME`` spec (by its shape; nothing loaded)."""
    if not isinstance(spec, str):
        return False
    text = spec.strip()
    return text.startswith("py:") or bool(_MODULE_SPEC.match(text))


def parse(spec: str) -> UserSpec:
    """Split a user-agent spec (see the module docstring); refuse a malformed one by name."""
    text = spec.strip()
    if text.startswith("py:"):
        path, sep, rest = text[3:].rpartition(":")  # the last colon: PATH may hold one
        m = _NAME_TAIL.match(rest)
        if not sep or not path.endswith(".py") or not m:
            raise UserAgentError(
                f"bad agent spec {spec!r}: a file agent is py:PATH.py:NAME (NAME a Python "
                f"identifier, optionally @REACTION), e.g. py:my_bot.py:Bot"
            )
        return UserSpec(text, "file", path, m["name"], m["tail"] or "")
    m = _MODULE_SPEC.match(text)
    if not m:
        raise UserAgentError(f"bad agent spec {spec!r}: a module agent is package.module:NAME")
    return UserSpec(text, "module", m["module"], m["name"], m["tail"] or "")


def _last_line(exc: BaseException) -> str:
    """The last line of an exception's own traceback (``NameError: name 'x' is not defined``)."""
    lines = traceback.format_exception_only(type(exc), exc)
    return lines[-1].strip() if lines else type(exc).__name__


def _failure(exc: BaseException, path: Path | None) -> str:
    """An import's failure in one line, with the file and line where it happened.

    A ``SyntaxError`` carries its own file and line (the file may be one the
    agent's file imports); any other error is placed at the deepest line of
    ``path`` in its traceback, where ``path`` is known and appears there.
    """
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.lineno else str(exc.filename)
        return f"{type(exc).__name__} in {where}: {exc.msg}"
    frames = traceback.extract_tb(exc.__traceback__)
    lines = [f.lineno for f in frames if path is not None and Path(f.filename) == path]
    if lines and lines[-1] is not None:
        return f"{_last_line(exc)} (at {path}, line {lines[-1]})"
    return _last_line(exc)


def module_name(path: Path) -> str:
    """The module name a user's agent file is loaded under: one per file, the same in every process.

    A digest of the resolved path, not ``hash()``: that is salted per process, and a name that
    changes between runs breaks whatever finds the module again by name in another process
    (numba's on-disk cache of a ``@njit(cache=True)`` function, pickling to workers).
    """
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    return f"_speed_user_agent_{digest}"


def _exec_file(parsed: UserSpec) -> ModuleType:
    path = Path(parsed.source).expanduser()
    if not path.exists():
        raise UserAgentError(f"agent spec {parsed.text!r}: no such file {path}")
    # Read once, through the kit's reader of user files: a named pipe or a device given as the
    # file is refused by name rather than blocking the import or filling memory.
    source = user_file.read_bytes(
        path, f"agent spec {parsed.text!r}: agent file", UserAgentError, SOURCE_LIMIT
    )
    name = module_name(path)
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None:  # pragma: no cover - a .py path always has a spec
        raise UserAgentError(f"agent spec {parsed.text!r}: cannot load {path} as Python")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name
    try:
        with exits_refused():
            # The bytes read above, compiled as the import system would (a coding line is
            # honoured); tracebacks and SyntaxErrors name the file.
            exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    except KeyboardInterrupt:
        sys.modules.pop(name, None)
        raise
    except BaseException as exc:  # sys.exit or os._exit at import too: one line, not an exit
        sys.modules.pop(name, None)
        raise UserAgentError(
            f"agent spec {parsed.text!r}: importing {path} failed: {_failure(exc, path)}"
        ) from None
    return module


def _import(parsed: UserSpec) -> ModuleType:
    try:
        return importlib.import_module(parsed.source)
    except ModuleNotFoundError as exc:
        # The module named, or a parent, is missing; else an import inside it failed.
        if exc.name is not None and parsed.source.startswith(exc.name):
            raise UserAgentError(
                f"agent spec {parsed.text!r}: no module named {exc.name!r} (is its folder on "
                f"PYTHONPATH? a file is given as py:PATH.py:{parsed.name})"
            ) from None
        raise UserAgentError(
            f"agent spec {parsed.text!r}: importing module {parsed.source} failed: "
            f"{_last_line(exc)}"
        ) from None
    except Exception as exc:  # a module's top level can raise anything: one line naming it
        raise UserAgentError(
            f"agent spec {parsed.text!r}: importing module {parsed.source} failed: "
            f"{_failure(exc, None)}"
        ) from None


def source_file(parsed: UserSpec) -> Path | None:
    """The Python file a user spec loads, for the evaluation manifest.

    For a module, its ``__file__``; ``None`` for a module without one.
    """
    if parsed.kind == "file":
        return Path(parsed.source).expanduser()
    module = _import(parsed)
    file = getattr(module, "__file__", None)
    return Path(file) if file else None


def _takes(fn: Any, n: int) -> bool:
    """Whether ``fn`` can be called with ``n`` positional arguments."""
    try:
        inspect.signature(fn).bind(*([None] * n))  # binding checks the arity without a call
    except TypeError:
        return False
    except ValueError:  # no signature (some builtins): assume it fits
        return True
    return True


def check_policy(obj: Any, what: str) -> None:
    """Refuse ``obj`` unless it has a callable ``act(obs, mask)``, naming ``what`` it is."""
    act = getattr(obj, "act", None)
    if not callable(act):
        raise UserAgentError(
            f"{what} is not a Policy: it has no act(obs, mask) method (got {type(obj).__name__})"
        )
    if not _takes(act, 2):
        raise UserAgentError(
            f"{what} is not a Policy: its act{inspect.signature(act)} cannot be called as "
            f"act(obs, mask)"
        )


def build(spec: str, rules: Any, seed: int | None) -> Any:
    """The policy a user spec names, for ``rules`` and ``seed``.

    ``rules`` is ``None`` in a game without rules objects.
    """
    parsed = parse(spec)
    module = _exec_file(parsed) if parsed.kind == "file" else _import(parsed)
    label = f"{parsed.name!r} in {parsed.where}"
    if not hasattr(module, parsed.name):
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        raise UserAgentError(
            f"agent spec {parsed.text!r}: no name {parsed.name!r} in {parsed.where}"
            + (f" (it defines {', '.join(public[:12])})" if public else "")
        )
    obj = getattr(module, parsed.name)
    # A class first: a Policy class has a callable act too, but must be built.
    if inspect.isclass(obj):
        args: tuple[Any, ...] = (rules, seed) if _takes(obj, 2) else ()
        if not args and not _takes(obj, 0):
            raise UserAgentError(
                f"class {label} cannot be built: its constructor{inspect.signature(obj)} takes "
                f"neither (rules, seed) nor no arguments"
            )
        policy = _call(obj, args, f"class {label}", parsed.text)
        check_policy(policy, f"class {label}")
    elif callable(getattr(obj, "act", None)):  # before callable(): a policy may be callable
        policy = obj
    elif callable(obj):
        if not _takes(obj, 2):
            raise UserAgentError(
                f"factory {label} has the wrong signature {inspect.signature(obj)}: a factory "
                f"is called as factory(rules, seed)"
            )
        policy = _call(obj, (rules, seed), f"factory {label}", parsed.text)
        check_policy(policy, f"what factory {label} returned")
    else:
        raise UserAgentError(
            f"{label} is not a Policy: it has no act(obs, mask) method and is not a class or "
            f"factory (got {type(obj).__name__})"
        )
    check_policy(policy, label)
    return policy


def _call(fn: Any, args: tuple[Any, ...], what: str, spec: str) -> Any:
    """Build the agent: a ``ValueError`` is its refusal, anything else an :class:`AgentFailure`.

    The refusal becomes an :class:`AgentBuildError`; the failure names ``spec``.
    """
    try:
        with calling(spec, f"building it ({what})", passthrough=(ValueError,)):
            return fn(*args)
    except AgentSpecError:  # a ValueError too, but already the right error: on as it is
        raise
    except ValueError as exc:
        raise AgentBuildError(f"{what} refused to build the agent: {_last_line(exc)}") from None
