"""``speed train league``: a population that grows by a best response to its own meta-strategy.

PSRO (Lanctot et al., 2017) on the kit's pieces, round by round:

0. The starting population (``random``, ``greedy``, ``chain`` and ``include``) plays every
   pairing on paired deals (:mod:`train.league.payoff`); its meta-strategy is solved
   (:mod:`agents.league.meta`: the Nash equilibrium by a linear program, or α-Rank).
1. A member trains against the meta-strategy, its opponents drawn per game by weight
   (:mod:`train.league.member`: the exploiter's trainer, :func:`train.exploit.best_response`),
   fresh or from the previous member (``init``).
2. It plays a gauntlet against every member; its score against the meta-strategy before it,
   above 1/2, is the round's *gain* (PSRO's exploitability estimate), and the table grows.
3. The new table's meta-strategy is solved, and the round is written whole
   (:mod:`train.league.files`) before the next begins.

The folder is one run's (:mod:`agents.runtime.run_identity`: locked while it runs, a finished
league of other settings never replaced). Ctrl-C keeps every finished round, dropping the
member in training; ``resume`` continues at the next round with the saved settings (``rounds``
and ``minutes`` may be given anew), and plays what an uninterrupted run would have: every
round's seeds are fixed by the round's number.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.league import meta, record
from train.league import files, payoff
from train.league.member import MemberBudget, MemberInterrupted, TrainMember, train_member

START = ("random", "greedy", "chain")
"""The bundled bots every league starts from."""
INITS = ("fresh", "previous")
COMMAND = "speed train league"


@dataclass(frozen=True)
class LeagueSettings:
    """Everything a league's results depend on (and its length).

    Each field's docstring is the help of its ``speed train league`` flag.
    """

    rules: str = "us"
    """preset (us, pagat, japanese) or a .toml file"""
    rounds: int = 3
    """members to add, a round each (default 3)"""
    minutes: float | None = None
    """wall-clock budget of the whole league: no round starts after it (the last finishes)"""
    timesteps_per_round: int = 500_000
    """learner decisions each member trains for (default 500,000)"""
    init: str = "fresh"
    """each member starts fresh or from the previous member"""
    include: tuple[str, ...] = ()
    """more starting members, after random, greedy and chain (agent specs: ppo:...,
    py:FILE.py:NAME ...)"""
    games_per_pairing: int = 400
    """paired-deal games of each pairing in the payoff table (default 400)"""
    seed: int = 0
    """seed of the payoff table's deals and of each member's training (default 0)"""
    method: str = "nash"
    """the meta-strategy: the Nash equilibrium (a linear program) or α-Rank's mass"""
    reaction: str = "human"
    """reaction profile of every seat"""
    think: str = "off"
    """charge the frozen members' thinking (random, greedy, chain, --include) as latency, in
    training and in the payoff games alike: off (what each declares itself), declared (each
    --include must declare: @think=MS; the bundled bots pay what they declare, nothing),
    calibrated (each timed before round 0, recorded in OUT/think.json); measured is refused
    (training plays batches). Learned members are charged nothing"""
    think_file: str | None = None
    """with --think calibrated: charge the costs recorded in FILE (a run's think.json) instead
    of timing the members again"""


RESUMABLE = ("rounds", "minutes")
"""Settings a resumed league takes from its command line; the rest are the saved ones."""


def check(settings: LeagueSettings) -> Any:
    """Refuse settings that cannot work, naming the flag; the rules."""
    import agents
    from agents.think import record as think_record
    from speed_env.rules import make_rules
    from train.common.think import check_agents, check_mode

    if settings.rounds < 1:
        raise ValueError(f"--rounds must be at least 1, got {settings.rounds}")
    if settings.timesteps_per_round < 1:
        raise ValueError("--timesteps-per-round must be at least 1")
    if settings.games_per_pairing < 2:
        raise ValueError("--games-per-pairing must be at least 2 (each deal is played twice)")
    if settings.init not in INITS:
        raise ValueError(f"--init must be one of {', '.join(INITS)}, got {settings.init!r}")
    if settings.method not in meta.METHODS:
        raise ValueError(f"--method must be one of {', '.join(meta.METHODS)}")
    if settings.minutes is not None and not settings.minutes > 0:
        raise ValueError(f"--minutes must be above 0, got {settings.minutes}")
    check_mode(settings.think, settings.think_file)
    population = [*START, *settings.include]
    for spec in settings.include:
        if "," in spec:
            raise ValueError(f"--include {spec!r}: a league member's spec cannot hold a comma")
        try:
            agents.parse_spec(spec)  # an unknown agent is refused here, before any work
        except ValueError as exc:
            raise ValueError(f"--include {spec!r}: {exc}") from None
    if len(set(population)) < len(population):
        raise ValueError(f"--include repeats a member: {', '.join(population)}")
    try:
        rules = make_rules(settings.rules)
    except ValueError as exc:
        raise ValueError(f"--rules {settings.rules!r}: {exc}") from None
    if rules.players != 2:  # its exploiters and payoff games are duels
        raise ValueError(
            f"--rules {settings.rules!r}: a league seats two players; these rules seat "
            f"{rules.players} (Party Speed has no league yet)"
        )
    if settings.think in ("declared", "calibrated"):  # a member it cannot charge: refused now
        check_agents(settings.think, population, rules, START)
        if settings.think_file is not None:
            think_record.read(settings.think_file, population, rules)
    return rules


def _plan(settings: LeagueSettings, rules: Any, folder: Path) -> Any:
    """The plan charging the frozen members (:mod:`train.common.think`), in the run folder."""
    from train.common.think import make_plan

    frozen = [*START, *settings.include]
    return make_plan(settings.think, settings.think_file, frozen, rules, folder, START)


def resumed(out: Path, given: dict[str, Any]) -> LeagueSettings:
    """The settings a resumed league runs with: the saved ones, and :data:`RESUMABLE` from
    ``given`` (the flags given, by field). Another value of a saved setting is refused, naming
    the flag. A folder with no league yet resumes as a new league of ``given``."""
    import json

    path = out / record.LEAGUE_FILE
    if not path.exists():
        return dataclasses.replace(LeagueSettings(), **given)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))["settings"]
        saved["include"] = tuple(saved["include"])
        base = LeagueSettings(**saved)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"--resume: {path} holds no league's settings ({exc})") from None
    for key, value in given.items():
        if key not in RESUMABLE and value != getattr(base, key):
            flag = "--" + key.replace("_", "-")
            raise ValueError(
                f"--resume: {flag} {value!r} is not the league's own ({getattr(base, key)!r}); "
                "a resumed league keeps its settings but --rounds and --minutes"
            )
    return dataclasses.replace(base, **{k: v for k, v in given.items() if k in RESUMABLE})


def included_files(settings: LeagueSettings, rules: Any) -> dict[str, dict[str, str]]:
    """Per ``--include`` spec, the files building it reads and their SHA-256.

    Built once here, so a member that cannot be built fails before any work, naming it; the
    digests are the run's inputs (a changed bot file is another league, never resumed as this).
    """
    import agents
    from agents.evaluate.agent_files import spec_files
    from agents.specs.guarded import calling

    files = {}
    for spec in settings.include:
        # A ValueError is the spec's own refusal (a py: file not there): bad input, said as such.
        try:
            with calling(spec, "building it", f"{COMMAND} --include", passthrough=(ValueError,)):
                files[spec] = spec_files(spec, partial(agents.make, spec, rules, 0))
        except ValueError as exc:
            raise ValueError(f"--include {spec!r}: {exc}") from None
    return files


def _member(name: str, spec: str, path: str | None, round_: int) -> dict[str, Any]:
    return {"name": name, "spec": spec, "path": path, "round": round_}


def _new_league(settings: LeagueSettings) -> dict[str, Any]:
    from speed_env.registration import made_with

    return {
        "format": record.FORMAT,
        "format_version": record.FORMAT_VERSION,
        **made_with("realtime"),
        "settings": {**dataclasses.asdict(settings), "include": list(settings.include)},
        "members": [_member(s, s, None, 0) for s in (*START, *settings.include)],
        "rounds": [],
        "table": None,
        "meta": None,
        "best": None,
        "timing": [],
    }


def _solve(league: dict[str, Any], table: np.ndarray) -> dict[str, Any]:
    names = [m["name"] for m in league["members"]]
    solved = meta.solve(table, names, league["settings"]["method"])
    league["table"] = table.tolist()
    league["meta"] = dataclasses.asdict(solved) | {"weights": list(solved.weights)}
    return league["meta"]


def _best(folder: Path, league: dict[str, Any]) -> dict[str, Any] | None:
    """The learned member scoring most against the final meta-strategy, copied to best.json."""
    from agents.model_io.kit_model import copy_model

    table = np.asarray(league["table"])
    against = (table - 0.5) @ np.asarray(league["meta"]["weights"])
    learned = [k for k, m in enumerate(league["members"]) if m["path"]]
    if not learned:
        return None
    k = max(learned, key=lambda i: (against[i], -i))
    copy_model(folder / league["members"][k]["path"], folder / files.BEST_FILE)
    return {"name": league["members"][k]["name"], "path": files.BEST_FILE,
            "gain_over_meta": round(float(against[k]), 6)}  # fmt: skip


def run_league(
    settings: LeagueSettings,
    out: str | Path,
    *,
    resume: bool = False,
    overwrite: bool = False,
    workers: int = 1,
    backend: Any = None,
    trainer: TrainMember | None = None,
    recipe: dict[str, Any] | None = None,
    progress: bool = False,
    say: Callable[[str], None] = print,
) -> int:
    """Run (or resume) the league into ``out``; 0 when it finished, 130 when interrupted.

    ``trainer`` trains a member (default :func:`train.league.member.train_member`, with
    ``recipe`` overriding fields of :class:`train.exploit_settings.ExploitSettings`); ``progress``
    shows bars on stderr, the members' and the games'.
    """
    from agents.runtime import run_identity
    from agents.runtime.interrupts import said_interrupted, sigint_deferred

    folder = Path(out)
    rules = check(settings)
    flags = {f"--{k.replace('_', '-')}": v for k, v in dataclasses.asdict(settings).items()}
    identity = run_identity.RunIdentity(
        COMMAND, flags | ({"recipe": recipe} if recipe else {}), included_files(settings, rules)
    )
    with run_identity.RunOutput(
        folder,
        identity,
        results=(record.LEAGUE_FILE, files.CSV_FILE, files.PNG_FILE),
        overwrite=overwrite,
        resume=resume,
    ) as run:
        if run.done is not None:
            say(run.done)
            return 0
        saved = folder / record.LEAGUE_FILE
        if saved.exists() and not resume:
            raise run_identity.FolderHoldsRun(
                f"{folder} holds an unfinished league; continue it with --resume, or pass "
                "--overwrite to move it aside"
            )
        think = _plan(settings, rules, folder)
        league = record.load_json(saved) if saved.exists() else _new_league(settings)
        league["think"] = _thinking(think, settings, rules)
        train = trainer or partial(
            train_member, recipe={"progress": progress, **(recipe or {})}, think=think
        )
        if league["settings"] != _new_league(settings)["settings"]:
            # --rounds or --minutes given anew: saved at once, so that a Ctrl-C before the next
            # round is written leaves a league that a plain --resume continues to them.
            league["settings"] = _new_league(settings)["settings"]
            files.write_all(folder, league)
        games = payoff.Games(rules, settings.games_per_pairing, settings.seed,
                             settings.reaction, workers, backend, think)  # fmt: skip
        say(estimate(settings, league))
        t0 = time.perf_counter()
        deadline = None if settings.minutes is None else t0 + 60 * settings.minutes
        if league["table"] is None:
            names = [m["spec"] for m in league["members"]]
            say(f"round 0: {len(names)} starting members play every pairing "
                f"({settings.games_per_pairing} games each)")  # fmt: skip
            table, whole = payoff.first_table(names, games, progress=progress)
            if not whole:
                say("interrupted before the starting table was played; nothing written")
                return 130
            with sigint_deferred():
                weights = _solve(league, table)["weights"]
                league["rounds"].append({"round": 0, "new_member": None, "gain": None,
                                         "scores": None, "table": league["table"],
                                         "meta": league["meta"]})  # fmt: skip
                files.write_all(folder, league)
            say(f"round 0: meta-strategy {_weights_line(league, weights)}")
        done = len(league["rounds"]) - 1
        for k in range(done + 1, settings.rounds + 1):
            if deadline is not None and time.perf_counter() >= deadline:
                say(f"the {settings.minutes:g}-minute budget is spent after round {k - 1}")
                break
            left = None if deadline is None else (deadline - time.perf_counter()) / 60
            try:
                _round(league, folder, k, settings, games, train, left, progress, say)
            except KeyboardInterrupt as exc:  # MemberInterrupted, or Ctrl-C between the steps
                say(f"{said_interrupted(exc)} in round {k}: {k - 1} finished rounds kept in "
                    f"{saved}; --resume continues at round {k}")  # fmt: skip
                return 130
        with sigint_deferred():
            league["best"] = _best(folder, league)
            outputs = files.write_all(folder, league)
            run.finish([*outputs, *([folder / files.BEST_FILE] if league["best"] else [])])
        last = league["rounds"][-1]
        say(f"league of {len(league['members'])} members; meta-strategy "
            f"{_weights_line(league, league['meta']['weights'])}; last gain "
            f"{_gain_text(last['gain'])}")  # fmt: skip
        if league["best"]:
            say(f"best single member: {league['best']['name']} ({folder / files.BEST_FILE}); "
                f"the league's agent: league:{folder}")  # fmt: skip
    return 0


def _thinking(think: Any, settings: LeagueSettings, rules: Any) -> dict[str, Any]:
    """``league.json``'s ``think``: the mode and what each frozen member pays a play."""
    from train.common.think import charges, summary

    frozen = [*START, *settings.include]
    entry = summary(think, charges(think, frozen, rules))
    return entry | {"learner": "each learned member is charged nothing, in training and in "
                    "the payoff table"}  # fmt: skip


def estimate(settings: LeagueSettings, league: dict[str, Any]) -> str:
    """The line said before the work: what is left to play and train, and a rough time.

    The time is training's alone, at the nominal rate (:data:`train.common.budget.NOMINAL_RATE`)
    whatever the members cost: each member's own estimate (in its ``train.log``) times the
    mixture it trains against (:mod:`train.common.target_cost`). The games come on top, and the
    rounds' own lines say how long each took.
    """
    from train.common.budget import NOMINAL_RATE, rough_time

    members = len(league["members"])
    left = max(0, settings.rounds - max(0, len(league["rounds"]) - 1))
    table = "" if league["table"] is not None else (
        f"the starting table ({members * (members - 1) // 2} pairings), then "
    )  # fmt: skip
    took = rough_time(left * settings.timesteps_per_round / NOMINAL_RATE)
    cap = f"; --minutes {settings.minutes:g} stops it sooner" if settings.minutes else ""
    return (
        f"{COMMAND}: {table}{left} round(s) of {settings.timesteps_per_round:,} timesteps, "
        f"each member then playing {settings.games_per_pairing:,} games against every member; "
        f"roughly {took} of training at ~{NOMINAL_RATE:,} decisions/s plus the games{cap}"
    )


def _weights_line(league: dict[str, Any], weights: list[float]) -> str:
    names = [m["name"] for m in league["members"]]
    return ", ".join(f"{n} {w:.2f}" for n, w in zip(names, weights, strict=True) if w > 5e-3)


def _gain_text(gain: float | None) -> str:
    return "none (no round yet)" if gain is None else f"{100 * gain:+.1f} points"


def _round(
    league: dict[str, Any],
    folder: Path,
    k: int,
    settings: LeagueSettings,
    games: payoff.Games,
    train: TrainMember,
    minutes_left: float | None,
    progress: bool,
    say: Callable[[str], None],
) -> None:
    """Round ``k``: train a member, play its gauntlet, solve, write (module docstring)."""
    from agents.runtime.interrupts import sigint_deferred

    members = league["members"]
    before = list(league["meta"]["weights"])
    root = folder.resolve()
    specs = [record.member_spec(root, m) for m in members]
    where = folder / "members" / f"round_{k:02d}"
    if where.exists():  # a member whose round was interrupted: it is trained again
        shutil.rmtree(where)
    previous = [m for m in members if m["path"]]
    init = root / previous[-1]["path"] if settings.init == "previous" and previous else None
    name = f"r{k}"
    t0 = time.perf_counter()
    say(f"round {k} of {settings.rounds}: {name} trains {settings.timesteps_per_round:,} "
        f"timesteps against {_weights_line(league, before)}"
        + (f" (the last round took {league['timing'][-1]['wall_s']:.0f} s)"
           if league["timing"] else ""))  # fmt: skip
    budget = MemberBudget(settings.timesteps_per_round, minutes_left)
    model = train(specs, before, init, settings.rules, budget, settings.seed * 1009 + k, where)
    t1 = time.perf_counter()
    row, whole = payoff.gauntlet_scores(
        f"ppo:{model.resolve()}", specs, games, progress=progress, name=name
    )
    if not whole:
        raise MemberInterrupted(f"the games of round {k} were interrupted")
    gain = meta.gain(row, before)
    with sigint_deferred():  # the round is written whole or not at all
        members.append(_member(name, f"ppo:{model.relative_to(folder)}",
                               str(model.relative_to(folder)), k))  # fmt: skip
        table = payoff.extend(np.asarray(league["table"]), row)
        solved = _solve(league, table)
        league["rounds"].append({"round": k, "new_member": name, "gain": round(gain, 6),
                                 "scores": [round(s, 6) for s in row],
                                 "table": league["table"], "meta": solved})  # fmt: skip
        league["timing"].append({"round": k, "train_s": round(t1 - t0, 1),
                                 "wall_s": round(time.perf_counter() - t0, 1)})  # fmt: skip
        files.write_all(folder, league)
    say(f"round {k}: {name} scores {_gain_text(gain)} over the meta-strategy it trained "
        f"against; meta-strategy now {_weights_line(league, solved['weights'])}")  # fmt: skip
