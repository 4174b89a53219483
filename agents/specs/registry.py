"""A registry of agent kinds, one per game, and the spec strings that name them.

A spec is ``name[:arg][@tail]``: the agent's name, optionally an argument
(``ppo:PATH``, ``chain:run=1``) and after ``@`` either a reaction profile (ms
or a preset name, real-time Speed) or a search budget (``search@32``)
for an agent registered with ``budget``. A real-time spec may also declare its thinking cost
after ``@``, ``chain@think=5ms`` or ``chain@pro@think=5ms`` (:mod:`agents.think.declared`).
A user's own agent, ``py:PATH.py:NAME`` or ``package.module:NAME``
(:mod:`agents.specs.user_files`), is understood by every registry: the game it plays is the
one it is built for. Each game's room holds its registry (:mod:`agents.specs.realtime` ...),
which builds its own game's bots only; :mod:`agents.games.registry` asks them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agents.errors import AgentSpecError
from agents.specs import user_files
from agents.think.declared import split_think
from speed_env.reaction import ReactionError, ReactionProfile, make_profile

_T = TypeVar("_T")

REALTIME_GAME = "real-time Speed"
"""The real-time registry's ``game`` (a reaction profile after ``@`` is for it only)."""


_MODEL_SUFFIXES = (".json", ".zip", ".safetensors")


_OPTION = re.compile(r"[A-Za-z_]\w*=")
"""The start of one of a spec's options (``depth=10``): never the start of a spec."""


def split_specs(text: str) -> list[str]:
    """The agent specs of a comma-separated list, stripped, blanks dropped.

    A spec's own options are separated by commas too (``search:worlds=4,depth=10``): an item
    that is an option (``NAME=…``) after a spec with an argument (``name:…``) continues that
    spec, so ``chain,search:worlds=4,depth=10`` is two specs, not three.
    """
    out: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if out and _OPTION.match(item) and ":" in out[-1].partition("@")[0]:
            out[-1] = f"{out[-1]},{item}"
        elif item:
            out.append(item)
    return out


def _looks_like_path(text: str) -> bool:
    """Whether an agent spec's text is a file path (``runs/x/model.json``), not ``name[:arg]``."""
    return "/" in text or "\\" in text or text.lower().endswith(_MODEL_SUFFIXES)


class BarePathError(AgentSpecError):
    """A model file given where an agent spec belongs; the message shows the spellings."""


def bare_path_error(spec: str, kinds: list[tuple[str, str]]) -> BarePathError:
    """The error for a model file given where an agent spec belongs: it shows the spellings,
    one per ``(agent kind, game)`` of ``kinds`` that plays a saved model.

    A bare path is refused rather than guessed: the same file name could be a model of any
    game, and the spec names which (``ppo:`` ...)."""
    path = spec.strip()
    spellings = " or ".join(f"{kind}:{path} ({game})" for kind, game in kinds)
    return BarePathError(
        f"{path!r} is a file, not an agent spec: name a saved model by its kind, {spellings}"
    )


def python_file_error(spec: str) -> AgentSpecError:
    """The error for a Python file given where an agent spec belongs: the ``py:`` spelling.

    Where the file can be read, parsed but never run, the hint names what it defines at its
    top level.
    """
    import ast
    from pathlib import Path

    path = spec.strip()
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):  # ValueError: NUL, before 3.12
        names: list[str] = []  # the hint without names: the error itself must not fail
    else:
        names = [
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef | ast.FunctionDef) and not node.name.startswith("_")
        ]
    hint = f"py:{path}:NAME"
    if names:
        hint = f"{' or '.join(f'py:{path}:{n}' for n in names[:4])} (names it defines)"
    return AgentSpecError(
        f"{path!r} is a Python file, not an agent spec: name the agent in it (a Policy, a "
        f"class or a factory), {hint}"
    )


def spec_settings(kind: str, arg: str, parse: Callable[[], _T]) -> _T:
    """The settings ``parse()`` reads from a spec's argument ``arg``.

    Its ``ValueError`` becomes an :class:`AgentSpecError` naming ``kind`` and ``arg``:
    ``bad search spec 'worlds=0': …``.
    """
    try:
        return parse()
    except ValueError as exc:
        raise AgentSpecError(f"bad {kind} spec {arg!r}: {exc}") from None


@dataclass(frozen=True)
class AgentEntry:
    """How to build one kind of agent: ``build(context, seed, arg)``.

    ``context`` is what the game's bots need to be built (the real-time rules; nothing for a
    game whose bots read one default observation).
    """

    name: str
    description: str
    build: Callable[..., Any]
    budget: bool = False
    """``@`` in its spec is a search budget (``search@32``), not a reaction profile."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec string: agent name, its argument (``ppo:PATH``) and reaction profile."""

    text: str
    name: str
    arg: str
    reaction: ReactionProfile | None
    think_ms: float | None = None
    """A thinking cost the spec declares (``@think=5ms``), charged as the agent's ``think_ms``."""


class Registry:
    """The agent kinds of one game, by name."""

    def __init__(self, game: str, model_kind: str | None = None) -> None:
        self.game = game
        """The game in words, for error messages (``real-time Speed``)."""
        self.model_kind = model_kind
        """The kind that plays a saved model file (``ppo``), if the game has one."""
        self.entries: dict[str, AgentEntry] = {}

    def register(
        self, name: str, description: str, build: Callable[..., Any], budget: bool = False
    ) -> None:
        """Add an agent kind under ``name`` (``name:ARG`` specs pass ARG to ``build``).

        With ``budget``, ``@K`` in a spec is the agent's search budget, passed to
        ``build`` as the tail of its argument (``name:ARG@K`` gives ``ARG@K``)."""
        self.entries[name] = AgentEntry(name, description, build, budget)

    def available(self) -> dict[str, str]:
        """Agent names and a one-line description of each."""
        return {name: entry.description for name, entry in self.entries.items()}

    def knows(self, spec: str) -> bool:
        """Whether ``spec`` names one of this game's agents (a malformed spec names none)."""
        if not isinstance(spec, str):
            return False
        return spec.strip().partition("@")[0].partition(":")[0] in self.entries

    def parse_spec(self, spec: str) -> AgentSpec:
        """Split ``name[:arg][@reaction]``; refuse unknown names and bad profiles.

        ``@K`` is the budget of a search agent.
        """
        if not isinstance(spec, str) or not spec.strip():
            raise AgentSpecError(f"agent spec must be a non-empty string, got {spec!r}")
        text = spec.strip()
        body, _, reaction_text = text.partition("@")
        name, _, arg = body.partition(":")
        # A user's spec first: ``py:dir/bot.py:Bot`` would otherwise look like a file path.
        if name not in self.entries and user_files.is_user_spec(text):
            return self._parse_user(text)
        if name not in self.entries and body.strip().lower().endswith(".py"):
            raise python_file_error(body)
        if name not in self.entries and _looks_like_path(body):
            kinds = [] if self.model_kind is None else [(self.model_kind, self.game)]
            raise bare_path_error(spec, kinds)
        if name not in self.entries:
            raise AgentSpecError(
                f"unknown agent {name!r} in spec {spec!r}; {self.game} agents: "
                f"{', '.join(self.entries)}"
            )
        reaction, think = None, None
        if reaction_text and self.game == REALTIME_GAME and not self.entries[name].budget:
            reaction_text, think = split_think(text, reaction_text)
        if reaction_text and self.entries[name].budget:
            arg = f"{arg}@{reaction_text}"  # the builder reads its budget from its argument
        elif reaction_text:
            try:
                reaction = make_profile(reaction_text)
            except ReactionError as exc:
                raise AgentSpecError(f"bad reaction in agent spec {spec!r}: {exc}") from None
        return AgentSpec(text, name, arg, reaction, think)

    def _parse_user(self, text: str) -> AgentSpec:
        """A user's agent (``py:PATH.py:NAME``, ``package.module:NAME``): checked in shape only."""
        parsed = user_files.parse(text)
        reaction, think, tail = None, None, parsed.tail
        if tail and self.game == REALTIME_GAME:
            tail, think = split_think(text, tail)
        if tail and self.game != REALTIME_GAME:
            raise AgentSpecError(
                f"agent spec {text!r}: a {self.game} agent takes no @{tail} "
                "(a reaction profile is for real-time Speed)"
            )
        if tail:
            try:
                reaction = make_profile(tail)
            except ReactionError as exc:
                raise AgentSpecError(f"bad reaction in agent spec {text!r}: {exc}") from None
        source = "py" if parsed.kind == "file" else parsed.source
        return AgentSpec(text, source, f"{parsed.source}:{parsed.name}", reaction, think)

    def make(self, spec: str, context: Any, seed: int | None) -> Any:
        """Build the agent a spec names with the game's ``context``.

        Its reaction profile is on ``.reaction``, its spec on ``.spec`` and a thinking cost the
        spec declares (``@think=5ms``) on ``.think_ms``.
        """
        parsed = self.parse_spec(spec)
        if parsed.name in self.entries:
            policy = self.entries[parsed.name].build(context, seed, parsed.arg)
        else:  # a user's agent: its file or module is loaded now
            policy = user_files.build(parsed.text, context, seed)
        try:
            policy.reaction = parsed.reaction
            policy.spec = parsed.text
        except AttributeError:  # pragma: no cover - slotted third-party policies
            pass
        if parsed.think_ms is not None:
            try:
                policy.think_ms = parsed.think_ms
            except AttributeError:  # search's think_ms is its ms_per_world's
                raise AgentSpecError(
                    f"agent spec {spec!r}: this agent computes its own think_ms (search: from "
                    "ms_per_world), so @think= cannot set it"
                ) from None
        return policy
