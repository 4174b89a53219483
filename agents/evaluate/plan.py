"""``speed evaluate``'s work: the games a report card plays, as a plan of chunked jobs.

:func:`make_plan` turns an agent spec and the protocol (:mod:`agents.evaluate.protocol`)
into a :class:`Plan`: the tournaments' own games (:mod:`agents.tournament.realtime` for
real-time Speed, paired deals, with the latency sweep of :mod:`agents.reaction_sweep.work`;
each other game's from its own card, :mod:`agents.evaluate.vintage`), cut into chunks, one
:class:`Job` each; :func:`card_chunks` numbers them as one plan, and :func:`run_plan` plays them
through the tournaments' runner (:func:`agents.tournament.harness.run_planned`), so a card is
the same for any number of workers and on either backend (a card's folder:
:mod:`agents.evaluate.card_folder`). What the agent refuses to play is
recorded with its reason: only a ``ValueError`` from building it (its rules check) is a
refusal. Any other exception, there or in a game, fails the card: an
:class:`agents.runtime.failures.AgentFailure` naming the agent and the whole message.
Importable from :mod:`agents.evaluate.make_card`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, NamedTuple

from agents.evaluate import protocol, thinking
from agents.runtime.jobs import Backend
from agents.specs.guarded import calling, positive_seconds
from agents.specs.realtime import REALTIME
from agents.tournament import chunk_checks, chunk_log, harness, realtime
from agents.tournament.harness import Chunk


class ChunkKind(NamedTuple):
    """How one game's tournament chunk is played, named, read back from a chunk log and checked
    (module-level functions and a class: a job is pickled to workers and Ray tasks)."""

    play: Callable[[Any, Chunk], Any]
    """``play(settings, chunk)``: the chunk's result."""
    describe: Callable[[Any, Chunk], str]
    """``describe(settings, chunk)``: the chunk in words."""
    result_type: Callable[..., Any]
    """The result's dataclass."""
    check: Callable[[Any, Any], str | None]
    """``check(settings, result)``: what is impossible in a logged result, or ``None``."""


class Job(NamedTuple):
    """A job of a plan: a chunk of one group's tournament."""

    group: str
    settings: Any
    """The group's tournament settings."""
    chunk: Chunk
    """The chunk, as its own tournament numbers it (its policies' seeds come from that)."""
    kind: ChunkKind


class EvaluationError(ValueError):
    """An agent or setting the evaluation cannot play: the message says what would be right."""


@dataclass
class Plan:
    """Everything a card plays: the jobs, and what each group of jobs is."""

    game: str
    spec: str
    games: int
    seed: int
    version: int
    jobs: list[Job] = field(default_factory=list)
    """A chunk of one group's tournament each, in the order the card sums them up."""
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per group (``us/chain``, ``latency/240``, ``table/0``): what it plays."""
    skipped: dict[str, str] = field(default_factory=dict)
    """What is not played (``pagat``, ``pagat/trained``) and why."""
    files: dict[str, str] = field(default_factory=dict)
    """Files the agent loads, with their SHA-256."""
    think_file: str | None = None
    """A calibration file holding the agent's cost (a protocol that charges thinking)."""
    thinking: dict[str, Any] | None = None
    """What a protocol that charges thinking charges (:mod:`agents.evaluate.thinking`)."""


def play_job(job: Job) -> Any:
    """One chunk of a group: its game's result (module level: pickled to workers)."""
    return job.kind.play(job.settings, job.chunk)


def describe_job(job: Job) -> str:
    """A job in words, for the line of a worker that died."""
    return f"{job.group} {job.kind.describe(job.settings, job.chunk)}"


@dataclass(frozen=True)
class CardChunk:
    """A played job: the card's chunk, its group and its game's result (a chunk log's line)."""

    chunk: Chunk
    """The job's place in :func:`card_chunks`."""
    group: str
    result: Any
    """The game's chunk result (its own ``chunk`` the job's)."""


def card_chunks(plan: Plan) -> list[Chunk]:
    """The card's chunks, one per job in plan order: the job's index, its group's place among
    ``plan.groups`` as the line-up, its deals."""
    place = {group: n for n, group in enumerate(plan.groups)}
    return [
        Chunk(i, place[job.group], job.chunk.start, job.chunk.count)
        for i, job in enumerate(plan.jobs)
    ]


def _card_job(job: tuple[Chunk, Job]) -> CardChunk:
    """One card chunk, played (module level: pickled to workers and Ray tasks)."""
    chunk, played = job
    return CardChunk(chunk, played.group, play_job(played))


def kinds(plan: Plan) -> dict[str, ChunkKind]:
    """The kind of chunk each group of ``plan`` plays."""
    return {job.group: job.kind for job in plan.jobs}


def read_back(kinds: Mapping[str, ChunkKind], chunk: Chunk, group: str, result: Any) -> CardChunk:
    """A :class:`CardChunk` from a chunk log's line, its game's result read back by its group's
    kind (of :func:`kinds`): a group not among them, or a result not its kind's, raises
    (``KeyError``, ``TypeError``), and the chunk log drops the line."""
    return CardChunk(chunk, group, chunk_log.result_from_doc(kinds[group].result_type, result))


def check(plan: Plan, played: CardChunk) -> str | None:
    """What is impossible in a logged card chunk (its chunk is the plan's): another group,
    another game chunk, or what its game's check finds."""
    job = plan.jobs[played.chunk.index]
    if played.group != job.group:
        return f"group is {played.group!r}, the chunk's is {job.group!r}"
    if getattr(played.result, "chunk", None) != job.chunk:
        return f"its game's chunk is {getattr(played.result, 'chunk', None)}, not {job.chunk}"
    return job.kind.check(job.settings, played.result)


def _reason(exc: BaseException) -> str:
    """A refusal's message with the kit's own folder left out.

    So the card reads the same on every machine.
    """
    from agents.evaluate.agent_files import KIT_ROOT

    return str(exc).replace(f"{KIT_ROOT}/", "")


def _try_build(build: Callable[[], Any], spec: str, call: str) -> str | None:
    """``None`` when ``build()`` succeeds, else the reason it refused.

    The reason is a ``ValueError``'s message; any other exception is the agent's failure,
    :class:`AgentFailure`.
    """
    try:
        with calling(spec, call, passthrough=(ValueError,)):
            build()
    except ValueError as exc:
        return _reason(exc)
    return None


def _realtime_check(settings: Any, result: Any) -> str | None:
    """What is impossible in a logged real-time chunk (its settings need not be asked)."""
    return chunk_checks.realtime(result)


REALTIME_CHUNK = ChunkKind(
    realtime.run_chunk, realtime.describe_chunk, realtime.ChunkResult, _realtime_check
)
"""How a real-time chunk is played, named, read back and checked."""


def plan_realtime(plan: Plan, act_timeout: float | None = None) -> Plan:
    """A real-time card's ``plan``, from :func:`make_plan`, filled with the card's games.

    Refuses a spec that names no agent or carries ``@``.

    ``act_timeout``
        seconds per decision before an agent fails; ``None``: no limit.
    """
    from agents.evaluate import agent_files
    from agents.reaction_sweep.work import SweepSettings, plan_chunks
    from agents.specs import user_files
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules

    spec, games, seed = plan.spec, plan.games, plan.seed
    proto = protocol.protocol("realtime", plan.version)
    parsed = REALTIME.parse_spec(spec)
    if parsed.reaction is not None:
        raise EvaluationError(
            f"{spec!r} carries its own reaction profile; the protocol gives every seat the "
            f"{proto['reaction']!r} profile, so give the spec without @"
        )
    plan.files.update(agent_files.source_files(spec))
    reaction = make_profile(proto["reaction"])
    for rs, cfg in proto["rule_sets"].items():
        rules = make_rules(cfg["preset"], **cfg["options"])
        try:
            with calling(spec, f"building it for rule set {rs}", passthrough=(ValueError,)):
                _, files = agent_files.files_read(partial(REALTIME.make, spec, rules, 0))
        except user_files.UserAgentError as exc:
            if not isinstance(exc, user_files.AgentBuildError):
                raise  # the file or name is wrong: nothing to evaluate
            plan.skipped[rs] = f"the agent refuses these rules: {_reason(exc)}"
            continue
        except ValueError as exc:  # after UserAgentError, itself a ValueError
            plan.skipped[rs] = f"the agent refuses these rules: {_reason(exc)}"
            continue
        plan.files.update(files)
        for opp in proto["opponents"]:
            reason = _try_build(
                partial(REALTIME.make, opp, rules, 0), opp, f"building it for rule set {rs}"
            )
            if reason is not None:
                plan.skipped[f"{rs}/{opp}"] = f"{opp} refuses these rules: {reason}"
                continue
            settings = realtime.Settings(
                agents=(spec, opp),
                games=games,
                rules=rules,
                reaction=reaction,
                tick_ms=proto["tick_ms"],
                seed=seed,
                match=rs in proto["match_rule_sets"],
                act_timeout=act_timeout,
            )
            group = f"{rs}/{opp}"
            plan.groups[group] = {"kind": "pairing", "rule_set": rs, "opponent": opp}
            for chunk in harness.plan(1, settings.deals, proto["chunk_deals"]):
                plan.jobs.append(Job(group, settings, chunk, REALTIME_CHUNK))
    if all(rs in plan.skipped for rs in proto["rule_sets"]):
        raise EvaluationError(
            f"{spec!r} plays none of the protocol's rule sets: "
            + "; ".join(f"{rs}: {plan.skipped[rs]}" for rs in proto["rule_sets"])
        )
    if "think" in proto:  # charged later (charge_thinking); an agent it cannot charge: now
        thinking.refuse(plan, proto)
    lat = proto["latency"]
    if lat["rule_set"] in plan.skipped or f"{lat['rule_set']}/{lat['opponent']}" in plan.skipped:
        plan.skipped["latency"] = f"the agent does not play {lat['rule_set']} against chain"
        return plan
    cfg = proto["rule_sets"][lat["rule_set"]]
    sweep = SweepSettings(
        agent=spec,
        opponent=lat["opponent"],
        latencies=tuple(str(ms) for ms in lat["agent_means_ms"]),
        opponent_latencies=(lat["opponent_reaction"],),
        games=max(2, lat["games"] * games // proto["games"]),  # --games scales the sweep too
        rules=make_rules(cfg["preset"], **cfg["options"]),
        tick_ms=proto["tick_ms"],
        seed=seed,
        jitter=lat["jitter"],
        # protocol 1 fixed its latencies as the shape's Gaussian centre mu ("agent_means_ms",
        # a name kept since the protocol is hashed into every card): medians 64 ms higher
        jitter_at="mu",
    )
    for k, point in enumerate(sweep.points()):
        ts = replace(sweep.tournament_settings(point), act_timeout=act_timeout)
        group = f"latency/{point[0]}"
        plan.groups[group] = {"kind": "latency", "point": k, "sweep": sweep}
        for chunk in plan_chunks(ts):
            plan.jobs.append(Job(group, ts, chunk, REALTIME_CHUNK))
    return plan


def make_plan(
    spec: str,
    game: str = "realtime",
    games: int | None = None,
    seed: int | None = None,
    version: int = protocol.PROTOCOL_VERSION,
    act_timeout: float | None = None,
    think_file: str | None = None,
    charge: bool = True,
) -> Plan:
    """The plan of a card.

    ``games``
        per pairing or table; default: the protocol's. Fewer make a quick card whose manifest
        says so. Rounded down to whole deals, each played once per seating.
    ``seed``
        the deal seed; default: the protocol's.
    ``act_timeout``
        the seconds an agent may take over one decision; ``None``: no limit. It never changes a
        card's numbers, so the card does not record it.
    ``think_file``
        a calibration file (``think.json``) whose cost for the agent a protocol that charges
        thinking charges, instead of timing it: the card then repeats byte for byte.
    ``charge``
        ``False`` leaves the thinking uncharged, for :func:`charge_thinking` to charge later (a
        card's folder is checked first: timing the agent is the slow part).
    """
    positive_seconds(act_timeout)
    proto = protocol.protocol(game, version)
    if think_file is not None and "think" not in proto:
        raise EvaluationError(
            f"--think-file charges a recorded thinking cost, but protocol {version} of {game} "
            "charges no thinking (protocol 2 of realtime does)"
        )
    games = proto["games"] if games is None else games
    least = proto.get("players", 2)
    if isinstance(games, bool) or not isinstance(games, int) or games < least:
        raise EvaluationError(
            f"--games must be a whole number of at least {least} (each deal is played once per "
            f"seating), got {games!r}"
        )
    seed = proto["seed"] if seed is None else seed
    # Whole deals only (each played once per seating): the card records the games played.
    games -= games % least
    filled: Plan = protocol.card_game(game).fill(
        Plan(game, spec, games, seed, version, think_file=think_file), act_timeout
    )
    if charge:
        charge_thinking(filled, act_timeout)
    return filled


def charge_thinking(plan: Plan, act_timeout: float | None = None) -> None:
    """Charge every agent's thinking in ``plan`` where its protocol does (real-time protocol 2:
    :func:`agents.evaluate.thinking.charge`, each pairing played free as well)."""
    proto = protocol.protocol(plan.game, plan.version)
    if "think" in proto:
        thinking.charge(plan, proto, act_timeout)


def play_plan(
    plan: Plan,
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
    done: Mapping[int, CardChunk] | None = None,
    on_result: Callable[[CardChunk], None] | None = None,
) -> tuple[list[CardChunk], bool]:
    """Play every job not ``done`` (by card chunk index): the played chunks in plan order, and
    whether all finished.

    The tournaments' runner, :func:`agents.tournament.harness.run_planned`; ``on_result`` gets
    each newly played chunk as it finishes. An agent failing in a game raises
    :class:`agents.runtime.jobs.RunStopped` (a card needs every game).
    """
    return harness.run_planned(
        _card_job,
        card_chunks(plan),
        lambda c: (c, plan.jobs[c.index]),
        describe=lambda job: describe_job(job[1]),
        workers=workers,
        progress=progress,
        backend=backend,
        done=done,
        on_result=on_result,
    )


def by_group(plan: Plan, played: list[CardChunk]) -> dict[str, list[Any]]:
    """The games' chunk results by group, in plan order: what a card sums up."""
    grouped: dict[str, list[Any]] = {g: [] for g in plan.groups}
    for chunk in played:
        grouped[chunk.group].append(chunk.result)
    return grouped


def run_plan(
    plan: Plan,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[dict[str, list[Any]], bool]:
    """Play every job, no folder kept: the chunk results by group, in plan order, and whether
    all finished (:func:`play_plan`, :func:`by_group`). An agent failing in a game raises
    :class:`agents.runtime.jobs.RunStopped` (a card needs every game)."""
    played, complete = play_plan(plan, workers=workers, progress=progress, backend=backend)
    return by_group(plan, played), complete
