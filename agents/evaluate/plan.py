"""``speed evaluate``'s work: the games a report card plays, as a plan of chunked jobs.

:func:`make_plan` turns an agent spec and the protocol (:mod:`agents.evaluate.protocol`)
into a :class:`Plan`: the tournaments' own games (:mod:`agents.tournament.realtime` for
real-time Speed, paired deals, with the latency sweep of :mod:`agents.reaction_sweep.work`;
each other game's from its own card, :mod:`agents.evaluate.vintage`), cut into chunks;
:func:`run_plan` plays them through :func:`agents.runtime.jobs.run_jobs`, so a card is the
same for any number of workers and on either backend. What the agent refuses to play is
recorded with its reason: only a ``ValueError`` from building it (its rules check) is a
refusal. Any other exception, there or in a game, fails the card: an
:class:`agents.runtime.failures.AgentFailure` naming the agent and the whole message.
Importable from :mod:`agents.evaluate.make_card`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from agents.evaluate import protocol, thinking
from agents.runtime.jobs import Backend, run_jobs
from agents.specs.guarded import calling, positive_seconds
from agents.specs.realtime import REALTIME
from agents.tournament import harness, realtime

Job = tuple[str, Any, Any, Callable[[Any, Any], Any], Callable[[Any, Any], str]]
"""A job of a plan: ``(group, settings, chunk, play, describe)``."""


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
    """``(group, settings, chunk, play, describe)``: a chunk of one group's tournament, with
    the game's module-level ``play(settings, chunk)`` and ``describe(settings, chunk)``."""
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


def _job(job: Job) -> tuple[str, Any]:
    """One chunk of a group (module level: pickled to workers and Ray tasks)."""
    group, settings, chunk, play, _ = job
    return group, play(settings, chunk)


def _describe(job: Job) -> str:
    """A job in words, for the line of a worker that died."""
    group, settings, chunk, _, describe = job
    return f"{group} {describe(settings, chunk)}"


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


_REALTIME_CHUNK = (realtime.run_chunk, realtime.describe_chunk)
"""How a real-time chunk is played and named (a job's last two fields)."""


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
                plan.jobs.append((group, settings, chunk, *_REALTIME_CHUNK))
    if all(rs in plan.skipped for rs in proto["rule_sets"]):
        raise EvaluationError(
            f"{spec!r} plays none of the protocol's rule sets: "
            + "; ".join(f"{rs}: {plan.skipped[rs]}" for rs in proto["rule_sets"])
        )
    if "think" in proto:  # every agent's thinking charged, each pairing played free as well
        thinking.charge(plan, proto)
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
            plan.jobs.append((group, ts, chunk, *_REALTIME_CHUNK))
    return plan


def make_plan(
    spec: str,
    game: str = "realtime",
    games: int | None = None,
    seed: int | None = None,
    version: int = protocol.PROTOCOL_VERSION,
    act_timeout: float | None = None,
    think_file: str | None = None,
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
    return filled


def run_plan(
    plan: Plan,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[dict[str, list[Any]], bool]:
    """Play every job: the chunk results by group, in plan order, and whether all finished.
    An agent failing in a game raises :class:`agents.runtime.jobs.RunStopped` (a card needs every
    game)."""
    results, complete = run_jobs(_job, plan.jobs, workers, progress, backend, describe=_describe)
    by_group: dict[str, list[Any]] = {g: [] for g in plan.groups}
    for r in results:
        if r is not None:  # a job not run: the run stopped early (complete is False)
            by_group[r[0]].append(r[1])
    return by_group, complete
