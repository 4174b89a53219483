"""Real-time protocol 2: every agent's thinking charged on its card (docs/thinking-time.md).

Protocol 2 is protocol 1 (opponents, rule sets, deals, games, reaction, latency sweep) with one
entry more, ``think``: every play of every agent is charged its thinking as latency added to its
seat's reaction profile (:mod:`agents.think`, ``calibrated``):

- each reference bot at its **shipped** cost, :data:`POOL_FILE` (a calibration file made by
  ``python -m agents.evaluate.think_costs``), copied into the protocol's data, so a card binds
  the costs it was played at and a new calibration is a change of the protocol;
- the evaluated agent at its cost **calibrated** before play (the median ``act`` at batch one on
  the fixed decision states of the protocol's ``think.rule_set``), or the cost recorded for it in
  a calibration file given (``--think-file``: the card repeats byte for byte), or, for a
  reference bot evaluated, its shipped cost (it meets its own copy in the pool).

Each pairing is also played once more with nobody's thinking charged: protocol 1's own games,
rated against protocol 1's anchors, so the card shows each rating with thinking charged and
without. The latency sweep (what the agent's strategy is worth, in ms of reaction) is played
free too, and read against the agent's own thinking cost.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.evaluate import protocol

POOL_FILE = Path(__file__).parent.parent / "cards" / "think_realtime.json"
"""The reference bots' calibrated costs, shipped (``python -m agents.evaluate.think_costs``)."""
RULE_SET = "us"
"""The rule set whose decision states every agent is calibrated on."""
FREE_GROUP = "free/"
"""The prefix of a pairing's group played with no thinking charged (``free/us/chain``)."""
SOURCES = ("calibrated", "recorded", "reference pool")
"""Where the evaluated agent's cost comes from: timed now, a calibration file, the shipped one."""


class ThinkCardError(ValueError):
    """A thinking cost a card cannot charge: the message names the file, agent or field."""


def pool_costs(path: Path = POOL_FILE) -> dict[str, float]:
    """Each reference bot's shipped cost (ms), from the calibration file ``path``."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return {spec: float(entry["think_ms"]) for spec, entry in doc["agents"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ThinkCardError(
            f"{path}: the reference bots' thinking costs cannot be read ({exc}); make them with "
            "python -m agents.evaluate.think_costs"
        ) from None


def think_protocol(base: dict[str, Any], costs: dict[str, float]) -> dict[str, Any]:
    """Protocol ``base`` with every agent's thinking charged, the reference bots at ``costs``."""
    from agents.think.calibrate import LIMIT_S, QUANTILE, WARMUP
    from agents.think.states import COUNT

    missing = [opp for opp in base["opponents"] if opp not in costs]
    if missing:
        raise ThinkCardError(f"{POOL_FILE}: no thinking cost for {', '.join(missing)}")
    return {
        **base,
        "think": {
            "mode": "calibrated",
            "rule_set": RULE_SET,
            "states": COUNT,
            "warmup": WARMUP,
            "quantile": QUANTILE,
            "limit_s": LIMIT_S,
            "opponents_ms": {opp: costs[opp] for opp in base["opponents"]},
            "opponents_file": "agents/cards/think_realtime.json",
            # The ratings without thinking: the same games uncharged are protocol 1's.
            "free_protocol": 1,
        },
    }


@functools.cache
def realtime_2() -> dict[str, Any]:
    """Real-time Speed, protocol 2: protocol 1 with every agent's thinking charged, the reference
    bots at their shipped costs (read once; the same object after)."""
    return think_protocol(protocol.REALTIME_1, pool_costs())


# ------------------------------------------------------------------ the plan
def charge(plan: Any, proto: dict[str, Any], act_timeout: float | None = None) -> None:
    """Charge thinking in ``plan``'s pairings, each played again free; ``plan.thinking`` set.

    ``plan`` is an :class:`agents.evaluate.plan.Plan` holding protocol 1's games: its pairings
    first, then its latency sweep, which stays free. The free pairings go between the two, in
    jobs and in groups. The evaluated agent's cost is found first (:func:`agent_thinking`,
    ``act_timeout`` as in :func:`time_agent`), before any game.
    """
    from agents.think.plan import ThinkPlan

    thinking = agent_thinking(plan, proto, act_timeout)
    costs = {**thinking["opponents_ms"], plan.spec: thinking["agent_ms"]}
    think = ThinkPlan("calibrated", tuple(costs.items()))
    pairings = {g: about for g, about in plan.groups.items() if about["kind"] == "pairing"}
    others = {g: about for g, about in plan.groups.items() if g not in pairings}
    played = [job for job in plan.jobs if job.group in pairings]  # agents.evaluate.plan.Job
    charged = [job._replace(settings=replace(job.settings, think=think)) for job in played]
    free = [job._replace(group=FREE_GROUP + job.group) for job in played]
    plan.jobs[:] = charged + free + [job for job in plan.jobs if job.group in others]
    plan.groups.clear()
    plan.groups.update(pairings)
    plan.groups.update({FREE_GROUP + g: {**about, "free": True} for g, about in pairings.items()})
    plan.groups.update(others)
    plan.thinking = thinking


def refuse(plan: Any, proto: dict[str, Any]) -> None:
    """Refuse an agent whose thinking the protocol cannot charge as asked: one that declares
    its own cost, or a reference bot given a ``--think-file`` (checked as its pairings are
    planned, before the card's folder or any timing)."""
    think = proto["think"]
    spec = plan.spec
    _refuse_declared(spec, _calibration_rules(plan, proto)[0])
    if spec in think["opponents_ms"] and plan.think_file is not None:
        raise ThinkCardError(
            f"--think-file: {spec!r} is a reference bot: it meets its own copy, so protocol "
            f"{plan.version} charges it its shipped cost ({think['opponents_ms'][spec]:g} ms); "
            "leave --think-file out"
        )


def agent_thinking(
    plan: Any, proto: dict[str, Any], act_timeout: float | None = None
) -> dict[str, Any]:
    """The card's ``results.thinking``: the evaluated agent's cost, where it comes from, and
    the reference bots' costs (the protocol's); the agent is one :func:`refuse` passed."""
    think = proto["think"]
    spec = plan.spec
    rules, where = _calibration_rules(plan, proto)
    out: dict[str, Any] = {"agent_ms": 0.0, "agent_source": "", "calibration": None}
    if plan.think_file is not None:
        from agents.think import record
        from agents.think.plan import ThinkError

        try:
            data = record.read(plan.think_file, [spec], rules)
        except ThinkError as exc:
            raise ThinkCardError(f"--think-file: {exc}") from None
        kept = {**data, "agents": {spec: data["agents"][spec]}}
        out.update(agent_ms=float(kept["agents"][spec]["think_ms"]), agent_source="recorded")
        out["calibration"] = kept
    elif spec in think["opponents_ms"]:
        out.update(agent_ms=think["opponents_ms"][spec], agent_source="reference pool")
    else:
        out["calibration"] = calibrate(spec, rules, act_timeout)
        out.update(
            agent_ms=out["calibration"]["agents"][spec]["think_ms"], agent_source="calibrated"
        )
    out["rule_set"] = where
    out["opponents_ms"] = dict(think["opponents_ms"])
    return out


def _calibration_rules(plan: Any, proto: dict[str, Any]) -> tuple[Any, str]:
    """The rules the agent is calibrated on: the protocol's ``think.rule_set``, or, where the
    agent refuses it, the first rule set it plays."""
    from speed_env.rules import make_rules

    order = [proto["think"]["rule_set"], *proto["rule_sets"]]
    rs = next(rs for rs in order if rs not in plan.skipped)
    cfg = proto["rule_sets"][rs]
    return make_rules(cfg["preset"], **cfg["options"]), rs


def _refuse_declared(spec: str, rules: Any) -> None:
    """An agent that declares its own cost (``@think=``, ``think_ms``) is refused: the card
    times it, and two costs would contradict each other."""
    from agents.specs.guarded import calling
    from agents.specs.realtime import REALTIME
    from agents.think.plan import ThinkError, declared_ms

    with calling(spec, "building it", "checking its thinking"):
        policy = REALTIME.make(spec, rules, 0)
    try:
        declared = declared_ms(policy, spec)
    except ThinkError as exc:
        raise ThinkCardError(str(exc)) from None
    if REALTIME.parse_spec(spec).think_ms is not None or declared > 0:
        raise ThinkCardError(
            f"{spec!r} declares its own thinking cost ({declared:g} ms), but this protocol times "
            "every agent: drop the declaration (--think-file FILE charges a recorded cost)"
        )


def calibrate(spec: str, rules: Any, act_timeout: float | None = None) -> dict[str, Any]:
    """``spec`` timed at batch one on the fixed decision states: a calibration file's record."""
    from agents.think import record

    return record.make_record({spec: time_agent(spec, rules, act_timeout)}, rules)


def time_agent(spec: str, rules: Any, act_timeout: float | None = None) -> Any:
    """``spec``'s :class:`~agents.think.calibrate.Calibration` on ``rules``' decision states,
    its cost printed as ``--think calibrated`` prints it.

    ``act_timeout``: the untimed warm-up calls wait at most this long each, so an agent that
    never answers fails in one line (``--act-timeout``) instead of hanging the card; the timed
    calls run bare, so the deadline's thread adds nothing to the cost.
    """
    import sys

    from agents.specs.guarded import calling, checked_act
    from agents.specs.realtime import REALTIME
    from agents.think import states
    from agents.think.calibrate import WARMUP
    from agents.think.calibrate import calibrate as time_act
    from agents.think.plan import ThinkError

    with calling(spec, "building it", "calibrating its thinking"):
        policy = REALTIME.make(spec, rules, 0)

    calls = [0]

    def act(obs: Any, mask: Any) -> Any:
        calls[0] += 1
        timeout = act_timeout if calls[0] <= WARMUP else None
        return checked_act(
            policy, obs, mask, spec=spec, where="calibrating its thinking", timeout=timeout
        )

    try:
        found = time_act(spec, act, states.decision_states(rules))
    except ThinkError as exc:
        raise ThinkCardError(str(exc)) from None
    print(
        f"thinking: {spec} {found.think_ms:g} ms a decision (median of {found.decisions}, "
        f"p90 {found.p90_ms:g} ms)",
        file=sys.stderr,
    )
    return found


# ------------------------------------------------------------------ the card's check
def check_thinking(c: Any, value: Any, proto: dict[str, Any], agent: str) -> None:
    """A card's ``results.thinking``, failing ``c`` (a card check) by field: the reference bots
    charged the protocol's costs, the agent the cost its source gives."""
    from agents.think.record import FORMAT

    f = "results.thinking"
    t = c.obj(value, f)
    ms = c.number(t, "agent_ms", f"{f}.agent_ms", 0.0, 1e9)
    source = t.get("agent_source")
    if source not in SOURCES:
        c.fail(f"{f}.agent_source", f"must be one of {', '.join(SOURCES)}, got {source!r:.60}")
    if t.get("rule_set") not in proto["rule_sets"]:
        c.fail(
            f"{f}.rule_set",
            f"must be one of the protocol's rule sets, got {t.get('rule_set')!r:.60}",
        )
    # Compared as canonical JSON: value for value and type for type (1 is not 1.0).
    if protocol.canonical(t.get("opponents_ms")) != protocol.canonical(
        proto["think"]["opponents_ms"]
    ):
        c.fail(f"{f}.opponents_ms", "must be the protocol's shipped costs of the reference bots")
    if source == "reference pool":
        if t.get("opponents_ms", {}).get(agent) != ms or t.get("calibration") is not None:
            c.fail(f"{f}.agent_ms", f"must be reference bot {agent}'s shipped cost, uncalibrated")
        return
    cal = c.obj(t.get("calibration"), f"{f}.calibration")
    if cal.get("format") != FORMAT:
        c.fail(f"{f}.calibration.format", f"must be {FORMAT!r}")
    c.obj(cal.get("machine"), f"{f}.calibration.machine")
    entry = c.obj(
        c.obj(cal.get("agents"), f"{f}.calibration.agents").get(agent),
        f"{f}.calibration.agents.{agent}",
    )
    if entry.get("think_ms") != ms:
        c.fail(f"{f}.agent_ms", f"is {ms}, but its calibration found {entry.get('think_ms')!r:.40}")


# ------------------------------------------------------------------ the card's page
def thinking_section(card: dict[str, Any]) -> list[str]:
    """``report.md``'s thinking: each agent's cost beside its rating with thinking charged and
    without, per rule set, and the difference in points (nothing for a card that charges none)."""
    from agents.evaluate.report_text import md_code, md_text

    results = card["results"]
    t = results.get("thinking")
    if t is None:
        return []
    charged, free = results["rule_sets"], results["free"]["rule_sets"]
    rule_sets = list(charged)
    lines = ["", "## Thinking charged", ""]
    lines.append(
        "Every play of every agent is charged its thinking as latency on its seat "
        f"(docs/thinking-time.md): {md_code(card['agent'])} {t['agent_ms']:g} ms a decision, "
        f"{source_text(t)}; the reference bots at their shipped costs "
        f"(`{card['manifest']['protocol_data']['think']['opponents_file']}`). Each cell: the "
        "rating with thinking charged / without it (the same games, nobody's thinking charged: "
        "protocol 1's, on its anchors), and the difference in points."
    )
    lines += ["", "| agent | thinking cost | " + " | ".join(rule_sets) + " |"]
    lines.append("|---|---:|" + "---|" * len(rule_sets))
    rows = [(f"{md_code(card['agent'])} (evaluated)", t["agent_ms"], _own(charged, free))]
    for bot, ms in t["opponents_ms"].items():
        rows.append((md_code(bot), ms, _anchored(bot, charged, free)))
    for name, ms, pairs in rows:
        cells = [_pair_text(pairs.get(rs, (None, None))) for rs in rule_sets]
        lines.append(f"| {name} | {ms:g} ms | " + " | ".join(cells) + " |")
    calibration = t.get("calibration")
    if calibration is not None:
        m = calibration["machine"]
        lines += [
            "",
            f"Calibrated on {md_text(str(m.get('cpu')))}, {m.get('cores')} cores, load "
            f"{m.get('load_1min')}, kit {md_text(str(calibration.get('kit_version')))}: "
            f"p90 {calibration['agents'][card['agent']]['p90_ms']:g} ms.",
        ]
    return lines


def source_text(t: dict[str, Any]) -> str:
    """Where the evaluated agent's cost comes from, in words."""
    if t["agent_source"] == "reference pool":
        return "its shipped cost as a reference bot"
    how = "calibrated before play" if t["agent_source"] == "calibrated" else "from --think-file"
    return f"{how} (the median act at batch one on the {t['rule_set']} rules' fixed states)"


def calibration_file(card: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The calibration file a card writes beside it (its name and document), ``None`` where it
    charged the agent no calibration (thinking free, or a reference bot's shipped cost)."""
    from agents.think.record import FILE_NAME

    calibration = (card["results"].get("thinking") or {}).get("calibration")
    return None if calibration is None else (FILE_NAME, calibration)


def repeat_text(card: dict[str, Any]) -> str:
    """Which runs of this evaluation give ``card``'s results again: a cost timed before play
    repeats only from its recorded calibration (``--think-file``), since timing differs from run
    to run."""
    from agents.think.record import FILE_NAME

    same = "every run of this evaluation (agent and files, games, seed, kit"
    t = card["results"].get("thinking")
    if t is None or t["agent_source"] == "reference pool":
        return f"{same}) gives this one."
    if t["agent_source"] == "recorded":
        return (
            f"{same}, and the --think-file cost, kept in `{FILE_NAME}` beside it) gives this one."
        )
    return (
        "the agent's thinking cost was timed before play, and timing differs from run to run, so "
        "a run that times it again can give other results. Its calibration is kept in "
        f"`{FILE_NAME}` beside this card: a run with `--think-file {FILE_NAME}` charges this cost "
        "again and gives these results, the cost marked recorded (so another results hash, the "
        "same for every such run)."
    )


def _own(charged: dict[str, Any], free: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {rs: (charged[rs].get("rating"), free[rs].get("rating")) for rs in charged}


def _anchored(bot: str, charged: dict[str, Any], free: dict[str, Any]) -> dict[str, Any]:
    return {
        rs: (charged[rs].get("anchors", {}).get(bot), free[rs].get("anchors", {}).get(bot))
        for rs in charged
    }


def _pair_text(pair: tuple[float | None, float | None]) -> str:
    """``1539 / 1540 (-1)``: with thinking charged, without, the difference; ``–`` for none."""
    from agents.evaluate.report_text import num_text

    on, off = pair
    if on is None and off is None:
        return "–"
    if on is None or off is None:
        return f"{num_text(on)} / {num_text(off)}"
    diff = int(num_text(on)) - int(num_text(off))  # of the numbers shown: the cell adds up
    return f"{num_text(on)} / {num_text(off)} ({'±0' if diff == 0 else f'{diff:+d}'})"


def break_even_text(card: dict[str, Any]) -> str:
    """The break-even line read against the agent's own thinking: ``worth 13 ms, costs 0.2 ms``
    (nothing for a card that charges none, or has no break-even)."""
    from agents.evaluate.report_text import num_text

    t = card["results"].get("thinking")
    worth = card["results"]["latency"].get("break_even_ms")
    if t is None or worth is None:
        return ""
    chain = t["opponents_ms"].get(card["results"]["latency"]["opponent"].split("@")[0], 0.0)
    spare = worth - (t["agent_ms"] - chain)
    return (
        f" Read against its own thinking: **worth {num_text(worth, 1)} ms, costs "
        f"{t['agent_ms']:g} ms** a decision (chain's: {chain:g} ms): its strategy nets "
        f"{num_text(spare, 1)} ms once each pays its own thinking (the sweep is played with "
        "thinking free)."
    )
