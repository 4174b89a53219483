"""The play record: one seat's decisions in one real-time game, as a versioned JSON file.

A record is what a dataset needs from a game, from the point of view of one
seat (the *recorded seat*, ego-centric like every observation of the kit):

=====================  =====================================================================
key                    what
=====================  =====================================================================
``format``             ``"speed-play-record"``
``version``            :data:`VERSION` (a change to the keys or their meaning bumps it)
``kit_version``        the kit that wrote it; ``env_id`` the env (``speed_env/Speed-v1``)
``source``             ``"table"`` (a person at ``speed play --record``) or ``"generate"``
``seat_kind``          who played the recorded seat: ``"human"`` (a person; only from the
                       table), ``"bot"`` or ``"simulated"`` (a simulated person, from
                       ``speed data generate --person``; both ``"generate"``)
``agent``              the recorded seat's agent spec (``"you"`` for a person): provenance
``rules``              every rule option (``Rules.to_dict()``), inline: ``preset`` is a
                       preset name, never a file; ``tick_ms`` the tick
``name``               ``null``, or the name the person chose to add (``--name``)
``reaction``           both seats' env latency profiles ``[player_0, player_1]`` as
                       ``{"mu", "sigma", "tau", "floor", "name"}`` (a person's is a fixed
                       1 ms: their reaction happened before their play reached the table)
``opponent``           ``{"spec", "reaction"}``: the other seat's agent and its profile;
                       provenance only: no reader builds an agent from it (a replay plays
                       ``opponent_actions``)
``seed``, ``deal``     ``Speed-v1`` reset seed and the deal (``reset(options={"deal": …})``)
``n_decisions``        steps of the recorded seat, one per tick
``obs_dim``,           sizes of the observation vector and the action space
``n_actions``
``observations``       float32 ``(n_decisions + 1, obs_dim)``: the observation before each
                       decision, then the last one (base64 of the little-endian bytes)
``masks``              int8 ``(n_decisions + 1, n_actions)``, same layout
``actions``            the recorded seat's action per decision (``0`` waits)
``opponent_actions``   the other seat's action on the same ticks
``rewards``            the recorded seat's reward per decision
``terminated``,        how the game ended (Gymnasium's flags)
``truncated``
``reaction_ms``        per decision: the person's measured reaction time in ms for a play
                       (from the tick the play became legal to the play reaching the
                       table, :mod:`speed_table.clock`), or a simulated person's drawn
                       one; ``null`` for waits and for bots
``winner``             ``"player_0"``, ``"player_1"``, ``"draw"`` or ``null``
=====================  =====================================================================

The recorded seat is always ``player_0`` and a game replays in ``Speed-v1``
with ``seat=0``, ``reaction`` as recorded, the opponent replaying
``opponent_actions`` and ``reset(seed=seed, options={"deal": deal})``
(:mod:`speed_data.replay`). Nothing in a record names a person unless
``name`` was given.

Version 1 still: ``"simulated"`` is a value added to ``seat_kind``, no key was added or
changed its meaning, and every version-1 record the kit wrote reads as before (a kit that
predates ``"simulated"`` refuses such a record by its ``seat_kind``). What the checks of
:mod:`speed_data.record_check` refuse (a path as ``rules.preset``, a ``"human"`` record not
from the table) was never written by the kit.

:func:`check_record` is the schema check (:func:`read_record` runs it), and
:func:`speed_data.record_check.read_record` adds the record checked against the game it
claims to be, as every reader of the kit reads; :func:`write_record`
writes one atomically (temporary file, fsync, rename, fsync of the folder), so a
file named ``*.speedrec.json`` is always a whole game.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from speed_env.rules import PRESETS, Rules, RulesError

FORMAT = "speed-play-record"
"""The ``format`` key of every record."""
VERSION = 1
"""The record format's version."""
SUFFIX = ".speedrec.json"
"""A record file's name ends so; other files in a records folder are ignored."""
SOURCES = ("table", "generate")
SEAT_KINDS = ("human", "bot", "simulated")
WINNERS = ("player_0", "player_1", "draw", None)
PROFILE_KEYS = ("mu", "sigma", "tau", "floor", "name")


class RecordError(ValueError):
    """A play record is malformed: the message names the file and the key."""


def encode_array(a: np.ndarray) -> str:
    """An array's little-endian bytes as base64 text (the dtype and shape are the schema's)."""
    # Little-endian whatever this machine is, so a record reads the same on any other.
    return base64.b64encode(
        np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
    ).decode("ascii")


def decode_array(text: str, dtype: Any, shape: tuple[int, int], where: str) -> np.ndarray:
    """The array :func:`encode_array` wrote, checked to hold exactly ``shape``."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise RecordError(f"{where} is not base64 text") from None
    dt = np.dtype(dtype).newbyteorder("<")
    if len(raw) != dt.itemsize * shape[0] * shape[1]:
        raise RecordError(
            f"{where} holds {len(raw)} bytes, expected {shape[0]} x {shape[1]} {np.dtype(dtype)}"
        )
    return np.frombuffer(raw, dt).reshape(shape).astype(dtype)


def profile_dict(profile: Any) -> dict[str, Any]:
    """A :class:`~speed_env.reaction.ReactionProfile` as the record's plain dict."""
    return {k: getattr(profile, k) for k in PROFILE_KEYS}


def profile_of(data: dict[str, Any]) -> Any:
    """The :class:`~speed_env.reaction.ReactionProfile` of a record's profile dict."""
    from speed_env.reaction import ReactionProfile

    return ReactionProfile(
        float(data["mu"]),
        float(data["sigma"]),
        float(data["tau"]),
        float(data["floor"]),
        str(data["name"]),
    )


def _need(data: dict[str, Any], key: str, kind: Any, where: str) -> Any:
    if key not in data:
        raise RecordError(f"{where}: missing key {key!r}")
    value = data[key]
    # bool is an int subclass in Python, but JSON ``true`` is not a number.
    if not isinstance(value, kind) or (
        isinstance(value, bool) and kind in (int, float, (int, float))
    ):
        raise RecordError(f"{where}: key {key!r} has the wrong type ({type(value).__name__})")
    return value


def check_record(data: Any, where: str = "record") -> dict[str, Any]:
    """``data`` checked against the schema above; returns it.

    Raises :class:`RecordError` naming ``where`` and the first key that is wrong.
    """
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"{where}: key 'format' must be {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise RecordError(
            f"{where}: record version {data.get('version')!r} is not one this kit reads ({VERSION})"
        )
    for key in ("kit_version", "env_id", "source", "seat_kind", "agent"):
        _need(data, key, str, where)
    if data["source"] not in SOURCES:
        raise RecordError(f"{where}: key 'source' must be one of {SOURCES}")
    if data["seat_kind"] not in SEAT_KINDS:
        raise RecordError(f"{where}: key 'seat_kind' must be one of {SEAT_KINDS}")
    if data.get("name") is not None and not isinstance(data["name"], str):
        raise RecordError(f"{where}: key 'name' must be text or null")
    _need(data, "rules", dict, where)
    _need(data, "deal", dict, where)
    tick = _need(data, "tick_ms", int, where)
    if not 1 <= tick <= 1000:
        raise RecordError(f"{where}: key 'tick_ms' must be 1-1000, got {tick}")
    _need(data, "seed", int, where)
    reaction = _need(data, "reaction", list, where)
    if len(reaction) != 2:
        raise RecordError(f"{where}: key 'reaction' needs two profiles (player_0, player_1)")
    opponent = _need(data, "opponent", dict, where)
    _need(opponent, "spec", str, f"{where}: opponent")
    for i, prof in enumerate([*reaction, opponent.get("reaction")]):
        here = f"{where}: reaction[{i}]" if i < 2 else f"{where}: opponent.reaction"
        if not isinstance(prof, dict) or set(prof) != set(PROFILE_KEYS):
            raise RecordError(f"{here} must hold exactly {', '.join(PROFILE_KEYS)}")
        try:
            profile_of(prof)
        except (ValueError, TypeError) as exc:
            raise RecordError(f"{here}: {exc}") from None
    n = _need(data, "n_decisions", int, where)
    obs_dim = _need(data, "obs_dim", int, where)
    n_actions = _need(data, "n_actions", int, where)
    if n < 1 or obs_dim < 1 or n_actions < 1:
        raise RecordError(f"{where}: n_decisions, obs_dim and n_actions must be at least 1")
    obs = decode_array(
        _need(data, "observations", str, where),
        np.float32,
        (n + 1, obs_dim),
        f"{where}: key 'observations'",
    )
    masks = decode_array(
        _need(data, "masks", str, where), np.int8, (n + 1, n_actions), f"{where}: key 'masks'"
    )
    if not np.isfinite(obs).all():
        raise RecordError(f"{where}: key 'observations' holds a non-finite number")
    if not ((masks == 0) | (masks == 1)).all():
        raise RecordError(f"{where}: key 'masks' must hold only 0 and 1")
    for key, kind in (
        ("actions", int),
        ("opponent_actions", int),
        ("rewards", (int, float)),
        ("reaction_ms", (int, float, type(None))),
    ):
        values = _need(data, key, list, where)
        if len(values) != n:
            raise RecordError(
                f"{where}: key {key!r} has {len(values)} entries, expected n_decisions = {n}"
            )
        for v in values:
            if isinstance(v, bool) or not isinstance(v, kind):
                raise RecordError(f"{where}: key {key!r} holds {v!r}")
    for key in ("actions", "opponent_actions"):
        if not all(0 <= a < n_actions for a in data[key]):
            raise RecordError(f"{where}: key {key!r} holds an action outside 0..{n_actions - 1}")
    if any(v is not None and not (np.isfinite(v) and v >= 0) for v in data["reaction_ms"]):
        raise RecordError(f"{where}: key 'reaction_ms' holds a negative or non-finite time")
    for key in ("terminated", "truncated"):
        _need(data, key, bool, where)
    if data.get("winner", None) not in WINNERS:
        raise RecordError(f"{where}: key 'winner' must be one of {WINNERS}")
    return data


def rules_from(options: Any, where: str) -> Rules:
    """The :class:`~speed_env.rules.Rules` of a record's (or dataset's) ``rules`` dict.

    ``preset`` must be a preset name: rules travel inline, so no file named by the data
    is ever read. Refused with :class:`~speed_data.records.RecordError` naming ``where``.
    """
    if not isinstance(options, dict):
        raise RecordError(f"{where}: key 'rules' must be an object of rule options")
    preset = options.get("preset")
    if not isinstance(preset, str) or preset not in PRESETS:
        # Not quoted: it may be a path, and the data's paths are not the reader's business.
        raise RecordError(
            f"{where}: key 'rules.preset' must be a preset name ({', '.join(PRESETS)}); a "
            "record's rules are inline options, never a file"
        )
    try:
        return Rules(**options)
    except TypeError as exc:  # an unknown option name
        raise RecordError(f"{where}: key 'rules': {exc}") from None
    except RulesError as exc:
        raise RecordError(f"{where}: key 'rules': {exc}") from None


def arrays(record: dict[str, Any]) -> dict[str, np.ndarray]:
    """A checked record's per-step data as arrays.

    The keys: ``observations`` ``(n + 1, obs_dim)``, ``masks``, ``actions``,
    ``opponent_actions``, ``rewards``, and ``reaction_ms``, NaN where none.
    """
    n, d, a = record["n_decisions"], record["obs_dim"], record["n_actions"]
    return {
        "observations": decode_array(
            record["observations"], np.float32, (n + 1, d), "observations"
        ),
        "masks": decode_array(record["masks"], np.int8, (n + 1, a), "masks"),
        "actions": np.asarray(record["actions"], np.int64),
        "opponent_actions": np.asarray(record["opponent_actions"], np.int64),
        "rewards": np.asarray(record["rewards"], np.float64),
        "reaction_ms": np.array(
            [np.nan if v is None else v for v in record["reaction_ms"]], np.float64
        ),
    }


def write_record(folder: str | os.PathLike[str], record: dict[str, Any], stem: str) -> Path:
    """Write ``record`` (checked first) as ``folder/STEM.speedrec.json``; its path.

    The bytes go to a temporary file in the same folder, are fsync'd, and the
    file is renamed into place and the folder fsync'd: after this returns the
    game survives a crash, and a crash before leaves no partial record (only a
    ``.tmp`` file that readers ignore).
    """
    check_record(record, stem)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}{SUFFIX}"
    # A name of its own, so two writers never share a temporary; not ``*.speedrec.json``, so
    # readers pass it by.
    tmp = folder / f".{stem}.{uuid.uuid4().hex[:8]}.tmp"
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself is durable only once the folder is
    finally:
        os.close(fd)
    return path


MAX_RECORD_BYTES = 64 << 20
"""The largest record file read (64 MiB): a long game's observations take a few MB."""


def read_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The record in file ``path``, schema-checked: a regular file, bounded, strict JSON.

    Read through :func:`speed_env.user_file.read_json`. The kit's readers use
    :func:`speed_data.record_check.read_record`, which also checks the record against its game.
    """
    from speed_env import user_file

    data = user_file.read_json(path, "record", RecordError, limit=MAX_RECORD_BYTES)
    return check_record(data, f"record {str(path)!r}")


def record_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The record files of ``folder`` (sorted by name, which starts with the time)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RecordError(f"records folder {str(folder)!r} does not exist or is not a folder")
    return sorted(p for p in folder.iterdir() if p.name.endswith(SUFFIX) and p.is_file())


def read_records(
    folder: str | os.PathLike[str], seat_kind: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every record in ``folder`` (schema-checked), optionally only those of ``seat_kind``."""
    for path in record_files(folder):
        record = read_record(path)
        if seat_kind is None or record["seat_kind"] == seat_kind:
            yield record


__all__ = [
    "FORMAT",
    "SUFFIX",
    "VERSION",
    "RecordError",
    "arrays",
    "check_record",
    "decode_array",
    "encode_array",
    "profile_dict",
    "profile_of",
    "read_record",
    "read_records",
    "record_files",
    "rules_from",
    "write_record",
]
