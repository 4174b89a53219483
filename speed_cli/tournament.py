"""``speed tournament``: a round robin (or gauntlet) of agents, real-time Speed on paired deals
(agents/tournament/realtime.py) or vintage Speed at N-player tables (agents/tournament/vintage.py);
a leaderboard, ratings, result files and plots."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from speed_cli import specs
from speed_cli import think as think_flags
from speed_cli.common import (
    Progress,
    UsageError,
    add_act_timeout_flag,
    add_game_flag,
    add_out_flag,
    add_overwrite_flag,
    add_paired_deal_flags,
    add_reaction_flag,
    add_rule_flags,
    backend,
    count,
    finish,
    note_games,
    run_chunks,
)

PLAN_KEY = "chunk plan (chunks, deals a chunk)"
"""The chunk log header's entry for the plan: a resume needs the same chunks."""
RESULTS = ("results.json", "chunks.jsonl", "leaderboard.md")
"""Files a tournament leaves: found with no run.json, an earlier kit's run (never replaced)."""


def register(sub: Any) -> None:
    """Add ``speed tournament`` to the subcommands ``sub``."""
    tour = sub.add_parser(
        "tournament", help="round robin on paired deals: leaderboard, ratings, plots"
    )
    add_rule_flags(tour)
    add_reaction_flag(tour, 1, None, "reaction profile of agents without @: ms or a profile name")
    tour.set_defaults(reaction="human")
    tour.add_argument(
        "--agents", default="random,greedy,chain", help="agent specs, comma-separated"
    )
    add_paired_deal_flags(tour, "pairing", workers=1)
    add_act_timeout_flag(tour)
    think_flags.add_flags(tour)
    tour.add_argument(
        "--gauntlet", default=None, metavar="AGENT", help="only this agent against each other"
    )
    add_out_flag(tour, "results")
    tour.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted tournament in --out (give the same settings): only the "
        "chunks it did not finish are played, and the results are an uninterrupted run's",
    )
    add_overwrite_flag(tour)
    tour.add_argument(
        "--save-replays", type=count(0), default=0, metavar="N", help="record N games as JSON Lines"
    )
    tour.add_argument(
        "--match",
        action="store_true",
        help="us/pagat: also score matches, consecutive games of a pairing (seats alternating, "
        "paired deals) until a seat has match_target points (--option match_target=N)",
    )
    add_game_flag(
        tour,
        "realtime (two players, paired deals) or vintage (N players, seat rotation; "
        "--games per line-up, rule options as --option)",
    )
    tour.add_argument(
        "--players", type=count(2, 10), help="vintage: players at each table, 2-10 (default 4)"
    )
    tour.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Round robin (or gauntlet) on paired deals; leaderboard, files and plots."""
    if args.game == "vintage":
        if args.think != "off" or args.think_file is not None:
            raise UsageError("--think charges real-time play: Vintage Speed takes turns")
        if args.match:
            raise UsageError(
                "--match scores real-time Speed (us/pagat); a vintage match is its option 'games'"
            )
        return run_vintage(args)
    if args.players not in (None, 2):
        raise UsageError(
            f"--players {args.players}: real-time Speed has two players; use --game vintage"
        )
    import agents
    from agents.tournament import chunk_checks, report
    from agents.tournament import realtime as tournament
    from speed_env.reaction import make_profile

    names = tuple(specs.agent_specs(args.agents))
    if len(names) < 2:
        raise UsageError(f"--agents needs at least two agent specs, got {args.agents!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"--agents lists an agent twice: {args.agents!r}")
    specs.check_specs(names)  # an unknown agent fails here, before any work
    if args.gauntlet is not None and args.gauntlet not in names:
        raise UsageError(f"--gauntlet {args.gauntlet!r} is not one of --agents")
    rules = specs.make_rules(args)
    if args.match and rules.is_japanese:
        raise UsageError(
            "--match: match scoring (match_target) exists for the us and pagat presets only, "
            "not japanese"
        )
    settings = tournament.Settings(
        agents=names,
        games=args.games,
        rules=rules,
        reaction=make_profile(args.reaction),
        tick_ms=args.tick_ms,
        seed=args.seed,
        gauntlet=args.gauntlet,
        match=args.match,
        act_timeout=args.act_timeout,
        think=think_flags.plan(args, names, rules, Path(args.out)),  # before any game
    )
    # Built once each (a missing model file fails here), recording the files they read.
    files = specs.agent_files(names, lambda spec: agents.make(spec, settings.rules, seed=0))
    note_games(args.games, 2 * settings.deals, "pairing", "paired deals: each deal twice")
    game = _Game(
        tournament=tournament,
        label="tournament",
        header={
            "--rules/--option": settings.rules.to_dict(),
            "--reaction": settings.reaction.label(),
            "--tick-ms": args.tick_ms,
            "--seed": args.seed,
            "--gauntlet": args.gauntlet,
            "--match": args.match,
            "--save-replays": args.save_replays,
            **think_flags.header(settings.think),
        },
        check=chunk_checks.realtime,
        run=partial(tournament.run, record=args.save_replays),
        describe=tournament.describe_pairing,
        write=lambda out, summary, results: report.write_outputs(
            out, summary, tournament.replay_lines(results) if args.save_replays else None
        ),
        games=lambda summary: sum(m["games"] for m in summary["matches"]),  # a game: one pairing's
    )
    return _play(args, names, settings, files, game)


def run_vintage(args: argparse.Namespace) -> int:
    """Vintage Speed at N-player tables (agents/tournament/vintage.py): line-ups, seat rotation,
    shared deals."""
    from agents.tournament import chunk_checks
    from agents.tournament import vintage as vt

    if args.save_replays:
        raise UsageError("--save-replays records real-time games only")
    if args.rules != "us":
        raise UsageError(
            "--rules is for real-time Speed; give vintage rule options as --option KEY=VALUE"
        )
    text = (
        "vintage-random,vintage-greedy,vintage-tactician"
        if args.agents == "random,greedy,chain"
        else args.agents
    )
    names = tuple(specs.agent_specs(text))
    players = 4 if args.players is None else args.players
    if args.games < players:
        raise UsageError(
            f"--games {args.games}: a vintage tournament plays each deal once per seat rotation, "
            f"so --games must be at least --players ({players})"
        )
    settings = vt.VintageSettings(
        agents=names,
        players=players,
        games=args.games,
        seed=args.seed,
        gauntlet=args.gauntlet,
        options=tuple(sorted(specs.rule_overrides(args.option).items())),
        act_timeout=args.act_timeout,
    )
    from agents.vintage import registry as vintage_agents

    # Built once each (a missing model file fails here), recording the files they read.
    files = specs.agent_files(names, lambda spec: vintage_agents.make(spec, seed=0))
    note_games(
        args.games,
        settings.deals * settings.players,
        "line-up",
        f"{settings.deals} deals, each once per seat rotation of {settings.players} players",
    )
    lineups = settings.lineups()

    def check(result: Any) -> str | None:
        return chunk_checks.vintage(result, lineups[result.chunk.lineup], settings.players)

    header = {
        "--players": settings.players,
        "--option": settings.to_dict()["options"],
        "--seed": args.seed,
        "--gauntlet": args.gauntlet,
    }
    game = _Game(
        tournament=vt,
        label="vintage tournament",
        header=header,
        check=check,
        run=vt.run,
        describe=vt.describe_lineup,
        write=lambda out, summary, _: vt.write_outputs(out, summary),  # no replays kept
        # The settings count the games: a match row counts comparisons, several a game at a
        # table of more than two.
        games=lambda summary: summary["settings"]["games_played"],
    )
    return _play(args, names, settings, files, game)


@dataclass(frozen=True)
class _Game:
    """What :func:`_play` needs of one game's tournament; the rest of a run is the same for both."""

    tournament: ModuleType
    """The game's module (agents/tournament/realtime.py or vintage.py): ``plan``,
    ``CHUNK_DEALS``, ``ChunkResult``, ``summarise``."""
    label: str
    """The progress bar's label."""
    header: dict[str, Any]
    """The game's own settings in the chunk log's header, after ``--game``, ``--agents`` and
    ``--games`` (a resume must give the same)."""
    check: Callable[[Any], str | None]
    """What a logged chunk's result must hold before a resume trusts it."""
    run: Callable[..., tuple[list[Any], bool]]
    """``run(settings, workers=, progress=, backend=, done=, on_result=)``: play the chunks."""
    describe: Callable[[Any, Any], str]
    """``describe(settings, chunk)``: the line-up a chunk seats, in words."""
    write: Callable[[Path, dict[str, Any], list[Any]], list[Path]]
    """``write(out, summary, results)``: write the result files; their paths."""
    games: Callable[[dict[str, Any]], int]
    """The games the summary counts, for the closing line."""


def _play(
    args: argparse.Namespace,
    names: tuple[str, ...],
    settings: Any,
    files: dict[str, dict[str, str]],
    game: _Game,
) -> int:
    """Play ``game``'s tournament into ``--out`` (locked against another writer), logging each
    chunk as it finishes; write the result files and print the leaderboard. The exit code."""
    from agents.runtime import run_identity
    from agents.tournament import report
    from agents.tournament.chunk_log import LOG_NAME, Run

    jobs = backend(args)
    out = Path(args.out)
    identity = run_identity.RunIdentity("speed tournament", run_identity.flag_settings(args), files)
    # One writer per folder (another run, or resume, on it is refused), and a finished run of
    # other settings is never replaced.
    with run_identity.RunOutput(
        out, identity, results=RESULTS, overwrite=args.overwrite, resume=args.resume
    ) as run_folder:
        if run_folder.done is not None:
            print(run_folder.done)
            return 0
        think_flags.keep(getattr(settings, "think", None), out)  # the calibration charged
        tournament = game.tournament
        plan = tournament.plan(settings)
        total = len(plan)
        header = {
            "--game": args.game,
            "--agents": list(names),
            "--games": args.games,
            **game.header,
            PLAN_KEY: [total, tournament.CHUNK_DEALS],
        }
        logged = Run(header, args.seed, files, plan, tournament.ChunkResult, game.check)
        done = _run_logged(
            game.label,
            out,
            logged,
            args.resume,
            lambda progress, finished, log: game.run(
                settings,
                workers=args.workers,
                progress=progress,
                backend=jobs,
                done=finished,
                on_result=log,
            ),
        )
        if done is None:
            return 130
        results, complete, wall, failure = done
        summary = tournament.summarise(settings, results)
        summary["settings"].update(
            games_requested=args.games, complete=complete, wall_s=round(wall, 2)
        )
        unfinished = _unfinished(plan, results, partial(game.describe, settings))
        summary = report.with_status(summary, len(results), total, _resume_hint(out))
        summary = report.with_alpharank(_failed(summary, failure, unfinished))
        paths = game.write(out, summary, results)
        if complete and failure is None:
            run_folder.finish([*paths, out / LOG_NAME])
        print(report.leaderboard(summary))
        return _finish(complete, failure, _written(game.games(summary), summary, paths))


def _run_logged(
    label: str,
    out: Path,
    logged: Any,
    resume: bool,
    play: Callable[[Progress, dict[int, Any], Callable[[Any], None]], tuple[list[Any], bool]],
) -> tuple[list[Any], bool, float, Any] | None:
    """Run ``play(progress, finished, log)`` under a progress bar with ``out``'s chunk log
    (agents/tournament/chunk_log.py): each chunk's result is logged as it finishes, and with
    ``resume`` the chunks an interrupted run finished are handed in as ``finished`` and not played
    again. A resume of a run other than ``logged`` (a :class:`agents.tournament.chunk_log.Run`:
    other settings, by flag, or agents whose files changed) is refused.

    Returns ``(results, complete, wall seconds, failure)``: ``failure`` is the
    :class:`agents.runtime.jobs.RunStopped` naming the agents that failed (their chunks not played,
    the others played to the end), else ``None``. ``None`` when nothing finished (an
    agent's failure is raised then: there is nothing to write)."""
    from agents.runtime.jobs import RunStopped
    from agents.tournament import chunk_log

    earlier = None if resume else chunk_log.earlier_run(out)
    if earlier is not None:
        plan = earlier[0].get(PLAN_KEY) or [0]
        if earlier[1] < plan[0]:  # an unfinished run: say what starting over drops
            print(
                f"note: {out} holds an unfinished tournament ({earlier[1]} of {plan[0]} chunks); "
                "starting over (to continue it instead: the same command with --resume)",
                file=sys.stderr,
            )
    log, finished = chunk_log.open_log(out, logged, resume=resume)
    done = None
    try:
        if resume:
            print(
                f"--resume: {len(finished)} chunks already finished in {out}; playing the others",
                file=sys.stderr,
            )
        t0 = time.perf_counter()
        try:
            done = run_chunks(label, lambda progress: play(progress, finished, log.add))
        except RunStopped as stopped:
            if not stopped.results:
                raise
            return stopped.results, False, time.perf_counter() - t0, stopped
        return None if done is None else (*done, None)
    finally:
        log.close(complete=done is not None and done[1])


def _unfinished(plan: list[Any], results: list[Any], name: Callable[[Any], str]) -> list[str]:
    """The line-ups (by ``name(chunk)``) with a chunk of ``plan`` not among ``results``."""
    finished = {r.chunk.index for r in results}
    missing = sorted({c.lineup: c for c in plan if c.index not in finished}.items())
    return [name(chunk) for _, chunk in missing]


def _failed(summary: dict[str, Any], failure: Any, unfinished: list[str]) -> dict[str, Any]:
    """``summary`` with the agents whose failures ended their chunks named in its status
    (``failed``: agent and one-line error each) and the pairings left unfinished listed."""
    if failure is None:
        return summary
    status = dict(summary["status"])
    status["failed"] = [{"agent": f.spec, "error": f.message} for f in failure.failures]
    status["unfinished"] = unfinished
    errors = " ".join(f"{f.message}." for f in failure.failures)
    ended = (
        "The run stopped there"
        if failure.halted
        else "The chunks the failed agents play in were not played; every other chunk was"
    )
    status["note"] = (
        f"INCOMPLETE: {errors} {ended}. Unfinished: {'; '.join(unfinished)}. "
        + status.get("note", "").removeprefix("INCOMPLETE: ")
    )
    return {**summary, "status": status}


def _finish(complete: bool, failure: Any, line: str) -> int:
    """The closing lines; the exit code: 1 when an agent failed (a line each on stderr), else
    as :func:`speed_cli.common.finish`."""
    if failure is None:
        return finish(complete, line)
    print(line)
    covered = (
        "the results cover the chunks that finished before it"
        if failure.halted
        else "its chunks were not played; the results cover every other chunk"
    )
    for f in failure.failures:
        print(
            f"speed tournament: error: {f.message}; {covered} (marked INCOMPLETE)", file=sys.stderr
        )
    return 1


def _resume_hint(out: Path) -> str:
    """How to resume the run in ``out``."""
    return f"the same speed tournament command with --resume --out {out}"


def _written(games: int, summary: dict[str, Any], paths: Any) -> str:
    """The closing line: games played, the wall time, the files written."""
    wall = summary["settings"]["wall_s"]
    return f"{games} games in {wall} s; wrote {', '.join(str(p) for p in paths)}"
