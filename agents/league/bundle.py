"""Bundling a finished league into the kit: the folder the ``league`` agent plays.

``speed train league --out DIR`` leaves a run folder (the members' training runs, curves,
logs). :func:`bundle_league` copies what playing its final meta-strategy needs into a folder of
its own, by default :data:`BUNDLED` (``agents/models/league/``)::

    league.json              the league's record, each member's path now inside the bundle,
                             and ``bundle``: the source folder, the SHA-256 of its record,
                             the run's inputs (the files its --include members were built
                             from) and the rules it was played on, the only ones it plays
    members/NAME.json        each learned member of weight above 0: its model
    members/NAME.safetensors   (copied and checked by agents.model_io.copy_model)
    best.json                the best single member's model (ppo:agents/models/league/best.json)
    best.safetensors

A learned member of weight 0 is left out (it is never played), and so is an ``--include`` of
weight 0 that is not a kit bot: its entry keeps its name and round, with no ``spec`` or
``path``. A member named by spec (``chain``, ``trained`` …) stays a
spec: it must be one of the kit's bots (:data:`agents.league.record.BUNDLE_KINDS`), since a
user's ``py:`` file or a model outside the league cannot travel with the bundle.

Refused, each in one line naming the path: a folder that holds no league, an unfinished one
(no final meta-strategy, or a ``run.json`` that never says finished: interrupted or running),
a member that cannot be bundled, and a destination that holds anything but an earlier bundle.
The bundle is written beside the destination and moved into place whole, so a refused or
failed bundling leaves the destination as it was. The command::

    python -m agents.league.bundle runs/league              # into agents/models/league/
    python -m agents.league.bundle runs/league --dest DIR
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.league import record

BUNDLED = Path(__file__).resolve().parent.parent / "models" / "league"
"""The kit's bundled league, which the ``league`` agent plays (read at call time: a test
bundles its own)."""
COMMAND = "python -m agents.league.bundle"
BEST = "best"
"""The best single member's model in the bundle: ``best.json`` and ``best.safetensors``."""
MEMBERS = "members"
"""The folder of the learned members' models in the bundle."""


@dataclass(frozen=True)
class BundleSettings:
    """The flags of ``python -m agents.league.bundle``."""

    league: str
    """a finished speed train league's folder (its --out)"""
    dest: str = str(BUNDLED)
    """the bundle's folder: empty, new, or an earlier bundle, which is replaced (default: the
    kit's agents/models/league/, which the league agent plays)"""


def finished_record(src: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record of the finished league in ``src`` and its run's inputs (``run.json``'s).

    ValueError in one line naming the path where ``src`` holds no finished league.
    """
    path = src / record.LEAGUE_FILE
    if not src.exists():
        raise ValueError(f"{src} does not exist: give a speed train league --out folder")
    if not src.is_dir():
        raise ValueError(f"{src} is not a folder: give a speed train league --out folder")
    if not path.exists():
        raise ValueError(f"{src} is not a league's folder: it holds no {record.LEAGUE_FILE}")
    data = record.load_json(path)
    if isinstance(data.get("bundle"), dict):
        raise ValueError(f"{path} is already a bundle; bundle the league's own folder")
    if not isinstance(data.get("meta"), dict):
        raise ValueError(f"{src} holds an unfinished league: {path} has no final meta-strategy")
    run = src / "run.json"
    try:
        held = json.loads(run.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        held = None
    if not isinstance(held, dict) or not isinstance(held.get("finished"), str):
        raise ValueError(
            f"{src} holds an unfinished league: {run} does not say it finished (interrupted "
            f"or still running); finish it with speed train league --out {src} --resume"
        )
    record.read(src)  # the same checks as league:DIR (paths inside the folder, the weights)
    # The files the run's --include members were built from (trained's model …): the bundle
    # says which of them its meta-strategy was solved against.
    inputs = held.get("inputs")
    return data, inputs if isinstance(inputs, dict) else {}


def solved_on(src: Path, data: dict[str, Any]) -> str:
    """The label of the rules the league was played on (``settings.rules``), as a model's."""
    from speed_env.observation import rules_tag, tag_label
    from speed_env.rules import make_rules

    settings = data.get("settings")
    given = settings.get("rules") if isinstance(settings, dict) else None
    try:
        if not isinstance(given, str):
            raise ValueError("a preset or a .toml file is needed")
        return tag_label(rules_tag(make_rules(given)))
    except (ValueError, OSError) as exc:
        raise ValueError(
            f"{src / record.LEAGUE_FILE}: settings.rules {given!r} names no rules ({exc})"
        ) from None


def bundled_members(
    src: Path, data: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Path]]:
    """The bundle's member entries and the model each learned member of weight above 0 copies.

    A member of weight above 0 named by a spec other than a kit bot's is refused, naming it.
    """
    weights = data["meta"]["weights"]
    entries: list[dict[str, Any]] = []
    copies: dict[str, Path] = {}
    for k, (member, weight) in enumerate(zip(data["members"], weights, strict=True)):
        entry = dict(member)
        if member.get("path"):
            if weight > 0:
                # A file name from the member's (r1, r2 …), never a path a record could steer.
                plain = re.fullmatch(r"[A-Za-z0-9_-]{1,64}", member["name"])
                stem = f"{MEMBERS}/{member['name'] if plain else f'member_{k}'}"
                if stem in copies:
                    stem = f"{stem}_{k}"
                copies[stem] = src / member["path"]
                entry |= {"spec": f"ppo:{stem}.json", "path": f"{stem}.json"}
            else:
                entry |= {"spec": None, "path": None, "left_out": "weight 0"}
        elif record.spec_kind(str(member.get("spec"))) in record.BUNDLE_KINDS:
            pass  # a kit bot, played by its spec
        elif weight <= 0:  # never played, and its file stays behind: only its name is kept
            entry |= {"spec": None, "path": None, "left_out": "weight 0"}
        else:
            raise ValueError(
                f"{src}: member {member['name']!r} ({member.get('spec')}) has weight "
                f"{weight:g} but is not a model of the league's nor one of the kit's bots "
                f"({', '.join(record.BUNDLE_KINDS)}), so it cannot be bundled"
            )
        entries.append(entry)
    return entries, copies


def check_dest(dest: Path) -> None:
    """Refuse a destination that holds anything but an earlier bundle, naming it."""
    if not dest.exists():
        return
    if not dest.is_dir():
        raise ValueError(f"{dest} is a file, not a folder for the bundle")
    held = sorted(p.name for p in dest.iterdir())
    if not held:
        return
    try:
        earlier = isinstance(record.load_json(dest / record.LEAGUE_FILE).get("bundle"), dict)
    except ValueError:
        earlier = False
    known = {record.LEAGUE_FILE, MEMBERS, f"{BEST}.json", f"{BEST}.safetensors"}
    if not earlier or set(held) - known:
        raise ValueError(
            f"{dest} holds something other than a bundled league ({', '.join(held[:4])}"
            f"{' …' if len(held) > 4 else ''}); give --dest an empty or new folder"
        )


def bundle_league(src: str | Path, dest: str | Path = BUNDLED) -> Path:
    """Bundle the finished league in ``src`` into ``dest`` (module docstring); ``dest``.

    An earlier bundle in ``dest`` is replaced only once the new one is whole.
    """
    from agents.model_io.kit_model import copy_model, portable_paths

    src, dest = Path(src), Path(dest)
    data, inputs = finished_record(src)
    rules = solved_on(src, data)
    entries, copies = bundled_members(src, data)
    check_dest(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    source = src / record.LEAGUE_FILE
    bundle = {
        **data,
        "members": entries,
        "best": None if data.get("best") is None else {**data["best"], "path": f"{BEST}.json"},
        "bundle": {
            "source": portable_paths(str(src), Path.cwd()),  # no path of this machine
            "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
            "inputs": inputs,
            "rules": rules,
        },
    }
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    work.chmod(0o755)  # mkdtemp makes it private; a bundle is read by whoever runs the kit
    try:
        for stem, model in copies.items():
            copy_model(model, work / stem, portable_from=src)
        if data.get("best") is not None:
            copy_model(src / str(data["best"]["path"]), work / BEST, portable_from=src)
        (work / record.LEAGUE_FILE).write_text(json.dumps(bundle, indent=2) + "\n", "utf-8")
        record.read(work, bundled=True)  # the bundle reads back as the league agent reads it
        old = dest.with_name(work.name + ".old")
        if dest.exists():
            dest.rename(old)
        try:
            work.rename(dest)
        except OSError:
            if old.exists():
                old.rename(dest)  # the earlier bundle back in place
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.league.bundle LEAGUE [--dest DIR]``; 0, or 2 with one line."""
    from agents.runtime.flags import FlagParser, add_flags, from_args

    parser = FlagParser(
        prog=COMMAND,
        description="Copy a finished speed train league into the kit (agents/models/league/), "
        "where the league agent plays it: its record, the models of the members that play and "
        "its best single member.",
    )
    add_flags(parser, BundleSettings, show_defaults=False)
    settings = from_args(BundleSettings, parser.parse_args(argv))
    try:
        dest = bundle_league(settings.league, settings.dest)
    except (OSError, ValueError) as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return 2
    league = record.read(dest, bundled=True)
    playing = [f"{n} {w:.2f}" for n, w in zip(league.names, league.weights, strict=True) if w > 0]
    print(f"bundled {settings.league} into {dest}: meta-strategy {', '.join(playing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
