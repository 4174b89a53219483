"""How every ``speed`` command reads agent specs, reaction profiles and rule overrides.

One place for the comma-separated ``--agents`` lists, the ``--reaction`` texts and the
``--option KEY=VALUE`` overrides, so that each command reads them the same way and an
unknown agent fails before any work starts. The rule overrides are typed by the library
(:func:`speed_env.rules.parse_overrides`), which training settings share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from speed_cli.common import UsageError


def split_list(text: str) -> list[str]:
    """The items of a comma-separated list, stripped, empty ones dropped."""
    return [s.strip() for s in text.split(",") if s.strip()]


def agent_specs(text: str, *, pair: bool = False) -> list[str]:
    """The agent specs of an ``--agents`` value; with ``pair``, exactly two (one game's seats).

    A spec's options stay with it: ``chain,search:worlds=4,depth=10`` is two specs."""
    from agents.specs.registry import split_specs

    specs = split_specs(text)
    if pair and len(specs) != 2:
        raise UsageError(f"--agents takes two agent specs separated by a comma, got {text!r}")
    return specs


def check_specs(
    specs: Iterable[str], rules: Any = None, *, build: bool = False, skip: str = ""
) -> None:
    """Refuse an unknown agent (and with ``build``, a missing model file) before any work.

    ``skip`` is a seat that is not an agent of the registry: ``you`` (the human seat of
    ``speed play``), ``self`` (training against itself). Each spec is its own game's
    (:func:`agents.games.registry.game_of_spec`); ``rules`` are the real-time game's.
    """
    from agents.games.registry import game_of_spec

    for spec in specs:
        if skip and spec == skip:
            continue
        owner = game_of_spec(spec)
        owner.parse_spec(spec)
        if build:
            owner.make_agent(spec, rules, 0)


def agent_files(names: Iterable[str], make: Callable[[str], Any]) -> dict[str, dict[str, str]]:
    """Per agent spec, the files building it (``make(spec)``) reads, with their SHA-256.

    What a tournament's chunk log and a run's ``run.json`` record, so that a resume is played
    by the same agents and a run of edited agents is not taken for the one already there.
    """
    from agents.evaluate.agent_files import spec_files

    return {spec: spec_files(spec, partial(make, spec)) for spec in names}


def rule_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """``--option wrap=false --option stuck_countdown_ms=500`` as typed rule overrides."""
    from speed_env.rules import parse_overrides

    return parse_overrides(pairs, "--option")


def make_rules(args: Any) -> Any:
    """The ``Rules`` of ``--rules`` with the ``--option`` overrides applied (checked)."""
    from speed_env.rules import make_rules as build

    return build(args.rules, **rule_overrides(args.option))


def env_reaction(text: str | None) -> str | tuple[str, ...] | None:
    """``--reaction``: one profile for both seats, or two separated by a comma (one a seat)."""
    if text is None:
        return None
    parts = text.split(",")
    return parts[0] if len(parts) == 1 else tuple(parts)


def with_reaction(spec: str, reaction: str) -> str:
    """``spec`` with the reaction profile ``reaction``, unless it names its own (``chain@pro``)."""
    return spec if "@" in spec else f"{spec}@{reaction}"
