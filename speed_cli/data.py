"""``speed data``: play records as datasets and profiles.

``speed data generate`` records bot play (or a simulated person's,
``--person``), ``speed data export`` writes a
folder of records as a Minari dataset, ``speed data profile`` fits a person's
reaction profile to their records (:mod:`speed_data`; docs/human-data.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from speed_cli import specs
from speed_cli.common import (
    ENV_SEED,
    OverwriteFlag,
    RuleFlags,
    UsageError,
    add_command_flags,
    count,
    reactions,
)

GENERATED = "generate-*.speedrec.json"
"""The records ``generate --out`` writes: found with no run.json, an earlier run's."""

if TYPE_CHECKING:
    from speed_data.person import Person

PERSON_KINDS = ("human", "simulated")
"""The seat kinds whose records carry reaction times: a person's, and a simulated person's."""


@dataclass(kw_only=True)
class GenerateSettings(RuleFlags, OverwriteFlag):
    """``speed data generate``: whose play is recorded, how many games, and where they go."""

    agents: str | None = None
    """two agent specs, recorded,opponent (default chain,greedy); with --person, the opponent's
    one (default chain)"""
    person: str | None = field(default=None, metadata={"metavar": "PROFILE"})
    """record a simulated person with this reaction profile (a name such as human, or
    profile:FILE) instead of the first agent"""
    games: int = field(default=100, metadata={"type": count(1, 10_000_000)})
    """games to play"""
    tick_ms: int = field(default=50, metadata={"type": count(1, 1000)})
    """ms of game time per tick (default 50)"""
    reaction: str = field(default="human", metadata={"type": reactions(1)})
    """profile of an agent whose spec has no @ (default human)"""
    seed: int = field(default=0, metadata={"type": ENV_SEED})
    """game g is Speed-v1's seed SEED + g"""
    out: str | None = field(default=None, metadata={"metavar": "DIR"})
    """write the play records here"""
    minari: str | None = field(default=None, metadata={"metavar": "ID"})
    """write a Minari dataset ID"""


@dataclass
class ExportSettings:
    """``speed data export``: which records become which dataset."""

    folder: str = field(metadata={"metavar": "DIR"})
    """the records' folder (speed play --record DIR)"""
    minari: str = field(default="", metadata={"metavar": "ID"})
    """the dataset id to write"""
    seat: Literal["human", "bot", "simulated"] = "human"
    """whose decisions: a person's (default), a bot's or a simulated person's"""
    author: str | None = None
    """the dataset's author (default none)"""
    verify: bool = True
    """replay every record in Speed-v1 before writing (default on; --no-verify skips it)"""
    skip_bad: bool = False
    """leave bad records out (saying how many and why) instead of exporting nothing"""


@dataclass
class ProfileSettings:
    """``speed data profile``: whose records are fitted, and where the profile goes."""

    folder: str = field(metadata={"metavar": "DIR"})
    """the records' folder (speed play --record DIR)"""
    out: str | None = field(default=None, metadata={"metavar": "FILE"})
    """profile file (default DIR/profile.json)"""
    plot: str | None = field(default=None, metadata={"metavar": "PNG"})
    """Q-Q plot (default DIR/profile-qq.png)"""
    bootstrap: int = field(default=200, metadata={"type": count(0, 100_000)})
    """resamples for the intervals"""
    name: str | None = None
    """only the records carrying this name"""
    seed: int = field(default=0, metadata={"type": ENV_SEED})
    """seed of the bootstrap"""


def register(sub: Any) -> None:
    """Add ``speed data {generate,export,profile}`` to the subcommands ``sub``, each with one
    flag per field of its settings (:class:`GenerateSettings`, :class:`ExportSettings`,
    :class:`ProfileSettings`)."""
    from agents.runtime.flags import add_flags

    data = sub.add_parser("data", help="play records as Minari datasets and reaction profiles")
    cmds = data.add_subparsers(dest="data_command", required=True)

    gen = cmds.add_parser(
        "generate",
        help="record bot play (the first agent's seat), or a simulated person's (--person), as "
        "play records and/or a Minari dataset",
    )
    add_command_flags(gen, GenerateSettings)
    gen.set_defaults(func=run_generate)

    exp = cmds.add_parser("export", help="write a folder of play records as a Minari dataset")
    # --minari has no default to fall back on: argparse refuses a command line without it, by
    # name. --skip-bad is a switch alone beside --verify/--no-verify (on by default).
    extra: dict[str, dict[str, Any]] = {
        "minari": {"required": True},
        "skip_bad": {"action": "store_true"},
    }
    add_flags(exp, ExportSettings, extra=extra, show_defaults=False)
    exp.set_defaults(func=run_export)

    prof = cmds.add_parser(
        "profile", help="fit a person's ex-Gaussian reaction profile to their play records"
    )
    add_command_flags(prof, ProfileSettings)
    prof.set_defaults(func=run_profile)


def _need_minari() -> None:
    if importlib.util.find_spec("minari") is None:
        raise UsageError("Minari datasets need the [data] extra (pip install 'speed-rl[data]')")


def run_generate(args: argparse.Namespace) -> int:
    """Play ``--games`` games of two agents in Speed-v1 and write what was asked."""
    from agents.runtime.flags import from_args

    cfg = from_args(GenerateSettings, args)
    if cfg.out is None and cfg.minari is None:
        raise UsageError("say where the games go: --out DIR (play records), --minari ID, or both")
    if cfg.minari is not None:
        _need_minari()
    person = None if cfg.person is None else _person(cfg.person)
    pair = _generate_pair(cfg.agents, person)
    rules = specs.make_rules(cfg)
    specs.check_specs(pair[1:] if person is not None else pair, rules)
    out = None if cfg.out is None else Path(cfg.out)
    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} is a file, not a folder")
    with _records_folder(cfg, pair, rules, person) as run_folder:
        if run_folder is not None and run_folder.done is not None:
            print(run_folder.done)
            return 0
        return _generate(cfg, pair, rules, run_folder, person)


def _records_folder(
    cfg: GenerateSettings, pair: tuple[str, str], rules: Any, person: Person | None
) -> Any:
    """``--out``'s :class:`agents.runtime.run_identity.RunOutput` (locked, judged), or a
    context holding None without ``--out``."""
    import contextlib

    import agents
    from agents.runtime import run_identity

    if cfg.out is None:
        return contextlib.nullcontext(None)
    # A simulated person is no agent spec (its profile is in the settings): only the
    # agents built from specs have files to hash.
    built = pair[1:] if person is not None else pair
    identity = run_identity.RunIdentity(
        "speed data generate",
        run_identity.flag_settings(argparse.Namespace(**vars(cfg))),
        specs.agent_files(dict.fromkeys(built), lambda spec: agents.make(spec, rules, seed=0)),
    )
    # No --resume, and a rerun's records would sit beside the first's: an unfinished run is
    # refused with advice rather than started again over it.
    return run_identity.RunOutput(
        cfg.out, identity, results=(GENERATED,), overwrite=cfg.overwrite, restart=False
    )


def _generate(
    cfg: GenerateSettings,
    pair: tuple[str, str],
    rules: Any,
    run_folder: Any,
    person: Person | None,
) -> int:
    """Play and write the games: records into ``run_folder`` (locked) where ``--out`` was
    given, episodes streamed into the Minari dataset where ``--minari`` was."""
    import uuid

    from tqdm import tqdm

    from speed_data import records
    from speed_data.generate import play_records
    from speed_data.recorder import record_stem
    from speed_env.reaction import make_profile

    out = None if run_folder is None else run_folder.path
    # The run's own tag in every record's name: two runs never write the same file name.
    tag = f"s{cfg.seed}-{uuid.uuid4().hex[:6]}"
    written: list[Path] = []
    with _minari_sink(cfg.minari, estimate=("generate", cfg.games, cfg.tick_ms)) as sink:
        with tqdm(total=cfg.games, desc="games", unit="game", file=sys.stderr) as bar:
            for g, rec in enumerate(
                play_records(
                    pair,
                    rules,
                    cfg.games,
                    seed=cfg.seed,
                    tick_ms=cfg.tick_ms,
                    reaction=make_profile(cfg.reaction),
                    progress=bar.update,
                    person=person,
                )
            ):
                if out is not None:
                    written.append(records.write_record(out, rec, record_stem("generate", tag, g)))
                if sink is not None:
                    sink.add(rec)  # streamed: the games are not all held in memory
        if out is not None:
            print(f"{cfg.games} play records in {out}")
        if sink is not None:
            ds = sink.commit()
            print(f"Minari dataset {ds.dataset_id}: {ds.total_episodes} episodes, "
                  f"{ds.total_steps} steps")  # fmt: skip
    if run_folder is not None:
        run_folder.finish(written)
    return 0


@contextmanager
def _minari_sink(
    dataset_id: str | None, estimate: tuple[str, Any, int], author: str | None = None
) -> Iterator[Any]:
    """The checked, claimed Minari destination (a ``DatasetSink``), or None without ``--minari``.

    ``estimate``: ``("generate", games, tick_ms)`` or ``("export", files, 0)``. Entered before
    a game is played or a record read: a bad id, a taken one, a folder that cannot be written
    or a disk too small is refused first.
    """
    if dataset_id is None:
        yield None
        return
    from speed_data import minari_sink

    kind, what, tick_ms = estimate
    need = (
        minari_sink.estimate_generate_bytes(what, tick_ms)
        if kind == "generate"
        else minari_sink.estimate_export_bytes(what)
    )
    with minari_sink.DatasetSink(dataset_id, estimated_bytes=need, author=author) as sink:
        yield sink


def _person(text: str) -> Person:
    """The simulated person of ``--person``, or a one-line refusal naming the flag."""
    from speed_data.person import person_of

    try:
        return person_of(text)
    except ValueError as exc:
        raise UsageError(f"--person: {exc}") from None


def _generate_pair(text: str | None, person: Person | None) -> tuple[str, str]:
    """The recorded seat's spec and the opponent's, from ``--agents`` (and ``--person``)."""
    if person is None:
        first, second = specs.agent_specs(text or "chain,greedy", pair=True)
        return first, second
    from speed_data.generate import person_label

    opponent = specs.agent_specs(text or "chain")
    if len(opponent) != 1:
        raise UsageError(
            f"with --person, --agents takes one agent spec (the opponent), got {text!r}"
        )
    return person_label(person), opponent[0]


def run_export(args: argparse.Namespace) -> int:
    """Write the records of one seat kind in a folder as a Minari dataset."""
    from agents.runtime.flags import from_args

    cfg = from_args(ExportSettings, args)
    _need_minari()
    from speed_data import record_check, records

    files = records.record_files(cfg.folder)
    with _minari_sink(cfg.minari, ("export", files, 0), author=cfg.author) as sink:
        # Every file is checked before the first episode is written: a folder with a bad
        # record exports nothing unless --skip-bad; the good ones are then streamed.
        found = record_check.read_folder(cfg.folder, cfg.seat, verify_replay=cfg.verify)
        if found.bad and not cfg.skip_bad:
            _, problem = found.bad[0]
            others = len(found.bad) - 1
            more = f" (and {others} more bad record{'s' * (others != 1)})" if others else ""
            raise UsageError(
                f"{problem}{more}; nothing exported: fix or remove it, or pass --skip-bad"
            )
        if found.bad:
            print(f"skipped {found.summary()}", file=sys.stderr)
        if not found.good:
            raise UsageError(f"no {cfg.seat} play records in {cfg.folder!r}")
        for path in found.good:  # one at a time, streamed
            sink.add(record_check.read_record(path))
        ds = sink.commit()
    print(
        f"Minari dataset {ds.dataset_id}: {ds.total_episodes} episodes, {ds.total_steps} steps "
        f"({cfg.seat} seat)"
    )
    return 0


def run_profile(args: argparse.Namespace) -> int:
    """Fit the ex-Gaussian to the person's timed plays; write the profile file and a Q-Q plot."""
    from agents.runtime import files
    from agents.runtime.flags import from_args
    from speed_data import profile, record_check

    cfg = from_args(ProfileSettings, args)

    times: list[float] = []
    people: dict[str, int] = {}  # games by who played them: "human", or a simulated person
    for rec in record_check.read_records(cfg.folder):
        if rec["seat_kind"] not in PERSON_KINDS:
            continue
        if cfg.name is not None and rec["name"] != cfg.name:
            continue
        who = rec["agent"] if rec["seat_kind"] == "simulated" else "human"
        people[who] = people.get(who, 0) + 1
        times += [ms for ms in rec["reaction_ms"] if ms is not None]
    if not people:
        who = "" if cfg.name is None else f" named {cfg.name!r}"
        raise UsageError(f"no human or simulated play records{who} in {cfg.folder!r}")
    if len(people) > 1:
        games = ", ".join(f"{who}: {n}" for who, n in sorted(people.items()))
        raise UsageError(
            f"{cfg.folder!r} holds the play records of more than one player ({games} games): "
            "a profile is one person's, so fit each from a folder of its own"
        )
    who, n_games = next(iter(people.items()))
    simulated = who != "human"
    try:
        fitted = profile.fit(times, n_boot=cfg.bootstrap, seed=cfg.seed)
    except ValueError as exc:
        raise UsageError(f"{exc}: no profile written") from None
    folder = Path(cfg.folder)
    out = Path(cfg.out) if cfg.out else folder / "profile.json"
    plot = Path(cfg.plot) if cfg.plot else folder / "profile-qq.png"
    if plot.resolve() == out.resolve():
        raise UsageError(f"--plot and the profile file are one file ({str(out)!r}): name two")
    what = " of a simulated person" if simulated else ""
    written = {out: profile.profile_json(fitted, source=f"{n_games} games{what} in {folder}")}
    if importlib.util.find_spec("matplotlib") is not None:
        written[plot] = profile.qq_png(times, fitted)
    # Both or neither: a failure (a full disk, Ctrl-C) leaves no temporary and the old pair.
    files.write_together(written)
    if simulated:
        print(
            f"simulated: these {n_games} games were played by a simulated person "
            "(speed data generate --person), not a person"
        )
    print(profile.describe(fitted))
    if plot in written:
        print(f"Q-Q plot: {plot}")
    else:  # pragma: no cover - no [plot] extra
        print("no Q-Q plot: it needs the [plot] extra (matplotlib)")
    print(f"profile: {out}  (use it as --reaction profile:{out} or chain@profile:{out})")
    return 0
