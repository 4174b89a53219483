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
=================  ==================================================================

:func:`read` gives the members' specs with their files resolved in the folder, so
``league:DIR`` plays the same wherever it is run from.
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


@dataclass(frozen=True)
class LeagueMixture:
    """The final meta-strategy of a league: member names, playable specs and weights."""

    folder: Path
    names: tuple[str, ...]
    specs: tuple[str, ...]
    weights: tuple[float, ...]


def member_spec(folder: Path, member: dict[str, Any]) -> str:
    """The agent spec that plays ``member`` from anywhere: a model's path under ``folder``."""
    path = member.get("path")
    return f"ppo:{folder / path}" if path else str(member["spec"])


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


def read(folder: str | os.PathLike[str]) -> LeagueMixture:
    """The league in ``folder``: its members and final meta-strategy.

    A ValueError names the file and what is wrong with it.
    """
    root = Path(folder)
    path = root / LEAGUE_FILE
    data = load_json(path)
    members, meta = data["members"], data.get("meta")
    weights = meta.get("weights") if isinstance(meta, dict) else None
    if not isinstance(weights, list) or len(weights) != len(members):
        raise ValueError(f"{path}: meta.weights must hold one weight per member")
    return LeagueMixture(
        root,
        tuple(str(m["name"]) for m in members),
        tuple(member_spec(root, m) for m in members),
        tuple(float(w) for w in weights),
    )
