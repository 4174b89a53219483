"""Thinking time charged to the frozen agents a learner trains against (docs/thinking-time.md).

``speed exploit``, ``speed train league`` and ``speed train realtime`` (its opponents and its
evaluation bots) charge each frozen agent (the exploited target,
the league's starting bots and ``--include`` agents) its thinking as latency on its seat, as
``speed tournament`` does (:mod:`agents.think`): ``off`` (only what an agent declares itself),
``declared`` or ``calibrated``. ``measured`` is refused: training plays hundreds of games in
one batch, so no decision is ever timed alone.

The learner is charged nothing: its training env times nothing, so neither do the games that
score it (a ``ppo:`` network's decision costs well under a millisecond, and cards land on
whole milliseconds). The same :class:`~agents.think.plan.ThinkPlan` charges the training env
(:func:`train.vec_env.mixture.frozen_pool`) and the paired games of the score or the payoff
table (:func:`train.common.paired_score.gauntlet`), so the number reported is the one trained
for.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.think.plan import MODES, ThinkPlan

TRAINABLE = ("off", "declared", "calibrated")
"""The modes a training run charges; ``measured`` is refused (:data:`NO_MEASURED`)."""
NO_MEASURED = (
    "--think measured cannot charge a training run: its games are played in batches, so no "
    "decision is timed alone; use declared or calibrated"
)


def check_mode(mode: str, think_file: str | None) -> None:
    """Refuse a mode a training run cannot charge, or a file without ``calibrated``."""
    if mode == "measured":
        raise ValueError(NO_MEASURED)
    if mode not in MODES:
        raise ValueError(f"--think must be one of {', '.join(TRAINABLE)}, got {mode!r}")
    if think_file is not None and mode != "calibrated":
        raise ValueError("--think-file FILE charges a calibration: give it with --think calibrated")


def check_agents(mode: str, specs: Sequence[str], rules: Any, exempt: Sequence[str] = ()) -> None:
    """Refuse an agent ``mode`` cannot charge honestly (:func:`agents.think.plan.check_agent`).

    ``exempt``: agents charged what they declare, 0 when nothing, without being asked to
    declare (the league's bundled starting bots, which no one can give a cost).
    """
    import agents
    from agents.think.plan import check_agent

    for spec in specs:
        if mode == "declared" and spec in exempt:
            continue
        bot = agents.make(spec, rules, seed=0)
        check_agent(bot, spec, mode, agents.parse_spec(spec).think_ms is not None)


def make_plan(
    mode: str,
    think_file: str | None,
    specs: Sequence[str],
    rules: Any,
    folder: Path,
    exempt: Sequence[str] = (),
) -> ThinkPlan | None:
    """The plan charging ``specs`` (the frozen agents) in the run folder ``folder``, checked.

    ``None`` for ``off``. ``calibrated`` charges ``think_file``'s costs, else those of the
    folder's own ``think.json`` (a resumed run: the same charges as before), else times every
    agent now and writes ``folder/think.json``.
    """
    import agents
    from agents.think import record
    from agents.think.plan import declared_ms

    check_mode(mode, think_file)
    if mode == "off":
        return None
    check_agents(mode, specs, rules, exempt)
    if mode == "declared":
        costs = tuple((s, declared_ms(agents.make(s, rules, seed=0), s)) for s in specs)
        return ThinkPlan("declared", costs)
    kept = folder / record.FILE_NAME
    if think_file is not None:
        data = record.read(think_file, specs, rules)
    elif kept.is_file():
        data = record.read(str(kept), specs, rules)
        print(f"thinking: charging the calibration recorded in {kept}", file=sys.stderr)
    else:
        from agents.games.think_calibration import calibrate_all

        data = calibrate_all(tuple(specs), rules)
    plan = record.plan_of(data, specs)
    _keep(plan, kept)
    return plan


def _keep(plan: ThinkPlan, path: Path) -> None:
    """Write a calibrated plan's record to ``path`` unless it holds it already."""
    import json

    from agents.runtime.files import write_json

    document = dict(plan.record or {})
    try:
        if json.loads(path.read_text(encoding="utf-8")) == document:
            return
    except (OSError, ValueError):
        pass
    write_json(path, document)
    print(f"thinking: calibration recorded in {path}", file=sys.stderr)


def charging_nothing_to(plan: ThinkPlan | None, specs: Sequence[str]) -> ThinkPlan | None:
    """``plan`` with each of ``specs`` it has no cost for charged 0 (a learner, a learned member).

    Only a ``calibrated`` plan lists costs by agent; ``off`` and ``declared`` charge what each
    agent declares, which a ``ppo:`` network does not.
    """
    if plan is None or plan.mode != "calibrated":
        return plan
    have = {spec for spec, _ in plan.costs}
    free = tuple((spec, 0.0) for spec in dict.fromkeys(specs) if spec not in have)
    return ThinkPlan(plan.mode, plan.costs + free, plan.record) if free else plan


def charged_ms(policy: Any, spec: str, plan: ThinkPlan | None) -> float:
    """The ms ``plan`` adds to every play of ``policy`` (``spec``'s)."""
    from agents.think.plan import declared_ms

    if plan is not None and plan.mode == "calibrated":
        return plan.cost(spec)
    return declared_ms(policy, spec)


def summary(plan: ThinkPlan | None, charged: dict[str, float]) -> dict[str, Any]:
    """The ``think`` entry of ``exploit.json`` or ``league.json``: the mode, what each frozen
    agent was charged (ms), the calibration it stands on, and that the learner paid nothing."""
    base = plan.to_dict() if plan is not None else {"mode": "off", "repeatable": True}
    return base | {
        "charged_ms": dict(charged),
        "learner": "charged nothing (its training times nothing, so neither does its score)",
    }


def charges(plan: ThinkPlan | None, specs: Sequence[str], rules: Any) -> dict[str, float]:
    """What ``plan`` charges each of ``specs`` per play, ms (each agent built to ask it)."""
    import agents

    return {spec: charged_ms(agents.make(spec, rules, seed=0), spec, plan) for spec in specs}


def check_think(mode: str, think_file: str | None, specs: Sequence[str], rules: Any) -> None:
    """Refuse, before any work, a mode a run cannot charge, or an agent or file it cannot."""
    from agents.think import record

    check_mode(mode, think_file)
    if mode in ("declared", "calibrated"):
        check_agents(mode, specs, rules)
        if think_file is not None:
            record.read(think_file, specs, rules)


def refuse_another_think(cfg: Any, out: Path) -> None:
    """Refuse a ``--resume`` naming a ``--think`` or ``--think-file`` other than the run's own.

    ``cfg``'s ``think`` and ``think_file`` are ``None`` where not given; the run's are those
    ``out/state.json`` records (a run saved before thinking was charged: ``off``), refused
    where ``config.json`` says otherwise (:func:`~train.common.run_folder.saved_settings`).
    """
    from train.common.run_folder import saved_settings

    own = saved_settings(out)
    if own is None:
        return
    for key in ("think", "think_file"):
        flag, mine = (
            "--" + key.replace("_", "-"),
            own.get(key) or ("off" if key == "think" else None),
        )
        if getattr(cfg, key) is not None and getattr(cfg, key) != mine:
            raise ValueError(
                f"--resume: {out} was trained with {flag} {mine}, not {getattr(cfg, key)}; "
                f"resume without {flag}, or choose another --out"
            )


def charge_once(
    cfg: Any, specs: Sequence[str], rules: Any, folder: Any
) -> tuple[ThinkPlan | None, dict[str, Any]]:
    """The plan charging ``specs`` in the run ``folder`` and its record (:func:`summary`).

    The record goes into the folder's state and what is charged is said on stderr; a resumed
    run whose agents would now be charged otherwise (a ``py:`` bot that declares another cost
    since) is refused, naming both charges.
    """
    plan = make_plan(cfg.think or "off", cfg.think_file, specs, rules, folder.path)
    thinking = summary(plan, charges(plan, specs, rules))
    was = folder.state.get("think")
    if was is not None and was.get("charged_ms") != thinking["charged_ms"]:
        raise ValueError(
            f"--resume: {folder.path} charged its opponents' thinking {_ms(was['charged_ms'])} "
            f"ms, now they would be charged {_ms(thinking['charged_ms'])}; choose another --out"
        )
    folder.state["think"] = thinking
    if thinking["mode"] != "off" or any(thinking["charged_ms"].values()):
        each = ", ".join(f"{s} {ms:g} ms" for s, ms in thinking["charged_ms"].items() if ms)
        print(
            f"thinking ({thinking['mode']}): charged to every play of {each or 'no one'}; "
            "the learner nothing",
            file=sys.stderr,
        )
    return plan, thinking


def _ms(charged: dict[str, float]) -> str:
    """``chain@think=5ms 5, greedy 0``: what each agent is charged, ms."""
    return ", ".join(f"{spec} {ms:g}" for spec, ms in charged.items())
