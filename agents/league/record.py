"""``league.json``: what a league leaves in its folder, read back as a playable mixture.

The file (written by ``speed train league``, ``train/league/``) holds, besides each round's
record, the population and the final meta-strategy:

=================  ==================================================================
``members``        one entry per member, in the payoff table's order: ``name``, ``spec``
                   (an agent spec; a learned member's is ``ppo:`` and its ``path``),
                   ``path`` (its model file relative to the folder, or null for a bot)
``meta``           ``weights`` (one per member), ``value``, ``method``
``best``           the learned member that scores most against ``meta``, copied to
                   ``best.json`` in the folder (null before the first round)
``bundle``         only in a bundled league (:mod:`agents.league.bundle`): where it was
                   bundled from and the ``rules`` it was solved on; a member of weight 0
                   it left out has no ``spec``
=================  ==================================================================

:func:`read` gives the members' specs with their files resolved in the folder, so
``league:DIR`` plays the same wherever it is run from. A record is data, never code: a
member's ``path`` must name a file inside the folder, and in a bundled league each member
that plays (weight above 0) is one of its own model files or one of the kit's bots
(:data:`BUNDLE_KINDS`), never a user's file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEAGUE_FILE = "league.json"
"""The league's record inside its folder."""
FORMAT = "speed-league"
FORMAT_VERSION = 1
BUNDLE_KINDS = ("random", "greedy", "chain", "search", "trained", "selfplay")
"""The agents a bundled league may name by spec: the kit's own, built from no file given."""


@dataclass(frozen=True)
class LeagueMixture:
    """The final meta-strategy of a league: member names, playable specs and weights."""

    folder: Path
    names: tuple[str, ...]
    specs: tuple[str, ...]
    weights: tuple[float, ...]
    rules: str | None = None
    """The rules a bundled league was solved on (their label, ``japanese`` …); None for a
    league's own folder, whose learned members check the rules they are asked for."""


def member_spec(folder: Path, member: dict[str, Any]) -> str:
    """The agent spec that plays ``member`` from anywhere: a model's path under ``folder``.

    ``""`` for a member a bundle left out (weight 0: never played).
    """
    path = member.get("path")
    return f"ppo:{folder / path}" if path else str(member.get("spec") or "")


def spec_kind(spec: str) -> str:
    """The agent kind a spec names: ``chain`` of ``chain:plan=0@pro``, ``py`` of ``py:f.py:B``."""
    return spec.partition("@")[0].partition(":")[0].strip()


def member_problem(member: Any, weight: float, bundled: bool) -> str | None:
    """What is wrong with one member's entry (None: nothing), as the record's data allows.

    Its ``path`` must stay inside the league's folder (a record never reaches outside it); in
    a bundled league a member that plays must be a model file of its own or a kit bot.
    """
    if not isinstance(member, dict) or not isinstance(member.get("name"), str):
        return "is not an entry with a name"
    path, spec = member.get("path"), member.get("spec")
    if path is not None and (
        not isinstance(path, str) or Path(path).is_absolute() or ".." in Path(path).parts
    ):
        return f"path {path!r} is not a file inside the league's folder"
    if weight <= 0 or path:
        return None
    if not isinstance(spec, str) or not spec:
        return "has weight above 0 but no spec to play it by"
    if bundled and spec_kind(spec) not in BUNDLE_KINDS:
        return (
            f"spec {spec!r} is not one of the kit's bots ({', '.join(BUNDLE_KINDS)}); a "
            "bundled league plays only its own model files and those"
        )
    return None


def load_json(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A league record as saved; ValueError naming the file where it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"{path} does not exist: league:DIR names a speed train league folder"
        ) from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a league record (its format is not {FORMAT!r})")
    if not isinstance(data.get("members"), list) or not data["members"]:
        raise ValueError(f"{path} holds no members")
    return data


def read(folder: str | os.PathLike[str], *, bundled: bool = False) -> LeagueMixture:
    """The league in ``folder``: its members and final meta-strategy.

    ``bundled``: the folder must hold a bundled league (:mod:`agents.league.bundle`); a record
    that says it is one is checked as one either way. A ValueError names the file and what is
    wrong with it.
    """
    root = Path(folder)
    path = root / LEAGUE_FILE
    data = load_json(path)
    members, meta = data["members"], data.get("meta")
    if bundled and not isinstance(data.get("bundle"), dict):
        raise ValueError(
            f"{path} is a league's own record, not a bundled league "
            "(bundle one with python -m agents.league.bundle DIR)"
        )
    weights = meta.get("weights") if isinstance(meta, dict) else None
    if not isinstance(weights, list) or len(weights) != len(members):
        raise ValueError(f"{path}: meta.weights must hold one weight per member")
    if not all(isinstance(w, int | float) and not isinstance(w, bool) for w in weights):
        raise ValueError(f"{path}: meta.weights must be numbers")
    strict = isinstance(data.get("bundle"), dict)
    if strict and not isinstance(data["bundle"].get("rules"), str):
        raise ValueError(f"{path}: bundle.rules must name the rules the league was solved on")
    for k, (member, weight) in enumerate(zip(members, weights, strict=True)):
        problem = member_problem(member, float(weight), strict)
        if problem:
            raise ValueError(f"{path}: member {k} {problem}")
    return LeagueMixture(
        root,
        tuple(str(m["name"]) for m in members),
        tuple(member_spec(root, m) for m in members),
        tuple(float(w) for w in weights),
        data["bundle"]["rules"] if strict else None,
    )
