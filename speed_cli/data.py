"""``speed data``: play records as datasets and profiles.

``speed data generate`` records bot play, ``speed data export`` writes a
folder of records as a Minari dataset, ``speed data profile`` fits a person's
reaction profile to their records (:mod:`speed_data`; docs/human-data.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from speed_cli import specs
from speed_cli.common import (
    ENV_SEED,
    UsageError,
    add_overwrite_flag,
    add_reaction_flag,
    add_rule_flags,
    count,
)

GENERATED = "generate-*.speedrec.json"
"""The records ``generate --out`` writes: found with no run.json, an earlier run's."""


def register(sub: Any) -> None:
    """Add ``speed data {generate,export,profile}`` to the subcommands ``sub``."""
    data = sub.add_parser("data", help="play records as Minari datasets and reaction profiles")
    cmds = data.add_subparsers(dest="data_command", required=True)

    gen = cmds.add_parser(
        "generate",
        help="record bot play (the first agent's seat) as play records and/or a Minari dataset",
    )
    gen.add_argument("--agents", default="chain,greedy", help="two agent specs: recorded,opponent")
    gen.add_argument("--games", type=count(1, 10_000_000), default=100, help="games to play")
    add_rule_flags(gen, tick_help="ms of game time per tick (default 50)", tick_max=1000)
    add_reaction_flag(gen, 1, "human", "profile of an agent whose spec has no @ (default human)")
    gen.add_argument("--seed", type=ENV_SEED, default=0, help="game g is Speed-v1's seed SEED + g")
    gen.add_argument("--out", default=None, metavar="DIR", help="write the play records here")
    gen.add_argument("--minari", default=None, metavar="ID", help="write a Minari dataset ID")
    add_overwrite_flag(gen)
    gen.set_defaults(func=run_generate)

    exp = cmds.add_parser("export", help="write a folder of play records as a Minari dataset")
    exp.add_argument("folder", metavar="DIR", help="the records' folder (speed play --record DIR)")
    exp.add_argument("--minari", required=True, metavar="ID", help="the dataset id to write")
    exp.add_argument(
        "--seat",
        choices=("human", "bot"),
        default="human",
        help="whose decisions: a person's (default) or a bot's",
    )
    exp.add_argument("--author", default=None, help="the dataset's author (default none)")
    exp.set_defaults(func=run_export)

    prof = cmds.add_parser(
        "profile", help="fit a person's ex-Gaussian reaction profile to their play records"
    )
    prof.add_argument("folder", metavar="DIR", help="the records' folder (speed play --record DIR)")
    prof.add_argument(
        "--out", default=None, metavar="FILE", help="profile file (default DIR/profile.json)"
    )
    prof.add_argument(
        "--plot", default=None, metavar="PNG", help="Q-Q plot (default DIR/profile-qq.png)"
    )
    prof.add_argument(
        "--bootstrap", type=count(0, 100_000), default=200, help="resamples for the intervals"
    )
    prof.add_argument("--name", default=None, help="only the records carrying this name")
    prof.add_argument("--seed", type=ENV_SEED, default=0, help="seed of the bootstrap")
    prof.set_defaults(func=run_profile)


def _need_minari() -> None:
    if importlib.util.find_spec("minari") is None:
        raise UsageError("Minari datasets need the [data] extra (pip install 'speed-rl[data]')")


def run_generate(args: argparse.Namespace) -> int:
    """Play ``--games`` games of two agents in Speed-v1 and write what was asked."""
    if args.out is None and args.minari is None:
        raise UsageError("say where the games go: --out DIR (play records), --minari ID, or both")
    if args.minari is not None:
        _need_minari()
    pair = specs.agent_specs(args.agents, pair=True)
    rules = specs.make_rules(args)
    specs.check_specs(pair, rules)
    out = None if args.out is None else Path(args.out)
    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"--out {str(out)!r} is a file, not a folder")
    with _records_folder(args, pair, rules) as run_folder:
        if run_folder is not None and run_folder.done is not None:
            print(run_folder.done)
            return 0
        return _generate(args, pair, rules, run_folder)


def _records_folder(args: argparse.Namespace, pair: list[str], rules: Any) -> Any:
    """``--out``'s :class:`agents.runtime.run_identity.RunOutput` (locked, judged), or a
    context holding None without ``--out``."""
    import contextlib

    import agents
    from agents.runtime import run_identity

    if args.out is None:
        return contextlib.nullcontext(None)
    identity = run_identity.RunIdentity(
        "speed data generate",
        run_identity.flag_settings(args, skip=("data_command",)),
        specs.agent_files(dict.fromkeys(pair), lambda spec: agents.make(spec, rules, seed=0)),
    )
    # No --resume, and a rerun's records would sit beside the first's: an unfinished run is
    # refused with advice rather than started again over it.
    return run_identity.RunOutput(
        args.out, identity, results=(GENERATED,), overwrite=args.overwrite, restart=False
    )


def _generate(args: argparse.Namespace, pair: list[str], rules: Any, run_folder: Any) -> int:
    """Play and write the games (into ``run_folder``, locked, where ``--out`` was given)."""
    import uuid

    from tqdm import tqdm

    from speed_data import records
    from speed_data.generate import play_records
    from speed_data.recorder import record_stem
    from speed_env.reaction import make_profile

    out = None if run_folder is None else run_folder.path
    # The run's own tag in every record's name: two runs never write the same file name.
    tag = f"s{args.seed}-{uuid.uuid4().hex[:6]}"
    written: list[Path] = []
    kept: list[dict[str, Any]] = []
    with tqdm(total=args.games, desc="games", unit="game", file=sys.stderr) as bar:
        for g, rec in enumerate(
            play_records(
                (pair[0], pair[1]),
                rules,
                args.games,
                seed=args.seed,
                tick_ms=args.tick_ms,
                reaction=make_profile(args.reaction),
                progress=bar.update,
            )
        ):
            if out is not None:
                written.append(records.write_record(out, rec, record_stem("generate", tag, g)))
            if args.minari is not None:
                kept.append(rec)
    if out is not None:
        print(f"{args.games} play records in {out}")
    if args.minari is not None:
        from speed_data.minari_export import write_dataset

        ds = write_dataset(args.minari, kept)
        print(f"Minari dataset {args.minari}: {ds.total_episodes} episodes, {ds.total_steps} steps")
    if run_folder is not None:
        run_folder.finish(written)
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Write the records of one seat kind in a folder as a Minari dataset."""
    _need_minari()
    from speed_data import records
    from speed_data.minari_export import write_dataset

    recs = list(records.read_records(args.folder, args.seat))
    if not recs:
        raise UsageError(f"no {args.seat} play records in {args.folder!r}")
    ds = write_dataset(args.minari, recs, author=args.author)
    print(
        f"Minari dataset {args.minari}: {ds.total_episodes} episodes, {ds.total_steps} steps "
        f"({args.seat} seat)"
    )
    return 0


def run_profile(args: argparse.Namespace) -> int:
    """Fit the ex-Gaussian to the person's timed plays; write the profile file and a Q-Q plot."""
    from speed_data import profile, records

    times: list[float] = []
    n_games = 0
    for rec in records.read_records(args.folder, "human"):
        if args.name is not None and rec["name"] != args.name:
            continue
        n_games += 1
        times += [ms for ms in rec["reaction_ms"] if ms is not None]
    if n_games == 0:
        who = "" if args.name is None else f" named {args.name!r}"
        raise UsageError(f"no human play records{who} in {args.folder!r}")
    fitted = profile.fit(times, n_boot=args.bootstrap, seed=args.seed)
    folder = Path(args.folder)
    out = Path(args.out) if args.out else folder / "profile.json"
    plot = Path(args.plot) if args.plot else folder / "profile-qq.png"
    profile.write_profile(out, fitted, source=f"{n_games} games in {folder}")
    print(profile.describe(fitted))
    if importlib.util.find_spec("matplotlib") is not None:
        profile.qq_plot(times, fitted, plot)
        print(f"Q-Q plot: {plot}")
    else:  # pragma: no cover - no [plot] extra
        print("no Q-Q plot: it needs the [plot] extra (matplotlib)")
    print(f"profile: {out}  (use it as --reaction profile:{out} or chain@profile:{out})")
    return 0
