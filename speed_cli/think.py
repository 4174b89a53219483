"""``--think`` and ``--think-file``: each agent's thinking charged as latency.

The modes and the files: docs/thinking-time.md.

:class:`ThinkFlags` holds the flags (a command's settings extend it); :func:`plan` turns them,
the agent specs and the rules into the :class:`~agents.think.plan.ThinkPlan` a run plays with,
calibrating each agent (or reading its recorded calibration) before any game is played.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from speed_cli.common import UsageError


@dataclass(kw_only=True)
class ThinkFlags:
    """``--think MODE`` and ``--think-file FILE``: each agent's thinking charged as latency."""

    GROUP: ClassVar[str] = "thinking time (ThinkFlags)"
    think: str = "off"
    """charge each agent's thinking as latency on its plays: off (as before: only what an agent
    declares itself), declared (@think=MS or think_ms; every agent must declare), calibrated
    (its median act at batch one, timed before play), measured (each decision's own time;
    --workers 1; not repeatable)"""
    think_file: str | None = field(default=None, metadata={"metavar": "FILE"})
    """with --think calibrated: charge the costs recorded in FILE (a run's think.json) instead
    of timing the agents again, so the run repeats byte for byte"""

    @staticmethod
    def flag_extra() -> dict[str, dict[str, Any]]:
        """The modes (:data:`agents.think.plan.MODES`) as ``--think``'s choices."""
        from agents.think.plan import MODES

        return {"think": {"choices": MODES, "metavar": None}}


def plan(args: argparse.Namespace, names: tuple[str, ...], rules: Any, out: Path | None) -> Any:
    """The run's :class:`~agents.think.plan.ThinkPlan` (``None`` for ``off``), checked.

    ``calibrated`` reads ``--think-file``, else the ``think.json`` already in ``out`` (a
    resumed or repeated run), else times every agent; :func:`keep` writes it into the run
    folder once the folder is the run's. A command without a run folder (``speed demo``)
    gives ``out=None`` and has one worker.
    """
    import agents
    from agents.games import think_calibration
    from agents.think import measured, record
    from agents.think.calibrate import machine_facts
    from agents.think.plan import ThinkError, ThinkPlan, check_agent, declared_ms

    mode = args.think
    if args.think_file is not None and mode != "calibrated":
        raise UsageError("--think-file FILE charges a calibration: give it with --think calibrated")
    if mode == "off":
        return None
    if mode == "measured" and getattr(args, "workers", 1) != 1:
        raise UsageError(
            "--think measured times each decision as it is played: give --workers 1 (other "
            "workers would share the machine and slow every decision)"
        )
    try:
        declared = []
        for spec in names:
            bot = agents.make(spec, rules, seed=0)
            check_agent(bot, spec, mode, agents.parse_spec(spec).think_ms is not None)
            declared.append((spec, declared_ms(bot, spec)))
        if mode == "declared":  # charged as each agent declares; recorded in the results
            return ThinkPlan("declared", tuple(declared))
        if mode == "measured":
            return ThinkPlan("measured", record=measured.note(machine_facts()))
        data: dict[str, Any] | None = None
        if args.think_file is not None:
            data = record.read(args.think_file, names, rules)
        elif out is not None and not args.overwrite:
            data = _recorded(out / record.FILE_NAME, names, rules)
        return record.plan_of(data or think_calibration.calibrate_all(names, rules), names)
    except ThinkError as exc:
        raise UsageError(str(exc)) from None


def _recorded(path: Path, names: tuple[str, ...], rules: Any) -> dict[str, Any] | None:
    """The calibration a run folder already holds for these agents (a resumed or repeated run).

    ``None`` where there is none that fits: the agents are timed, and the folder's own check
    then says whether it holds another run.
    """
    from agents.think import record
    from agents.think.plan import ThinkError

    if not path.is_file():
        return None
    try:
        data = record.read(str(path), names, rules)
    except ThinkError:
        return None
    print(f"thinking: charging the calibration recorded in {path}", file=sys.stderr)
    return data


def keep(think: Any, out: Path) -> None:
    """Write a calibrated plan's record to ``out/think.json`` (the run folder, its lock held)."""
    from agents.runtime.files import write_json
    from agents.think import record

    if think is None or think.mode != "calibrated" or think.record is None:
        return
    path = out / record.FILE_NAME
    if _holds(path, dict(think.record)):
        return  # charged from this very file: nothing to write
    write_json(path, dict(think.record))
    print(f"thinking: calibration recorded in {path}", file=sys.stderr)


def charge_seats(games: Any, bots: list[Any], names: Any, think: Any) -> list[Any]:
    """Give one game's seats (``games``, an env's) their profiles with thinking charged.

    ``off`` leaves the env's profiles as they are (``speed demo`` as before); the others
    charge through :func:`agents.think.plan.seat_profile` and print what each seat plays at.
    Returns the seats' profiles before any measured charge.
    """
    from agents.think.plan import seat_profile

    base = list(games.reactions)
    if think is None:
        return base
    seats = [seat_profile(bots[p], names[p], base[p], think) for p in range(len(base))]
    games.set_reactions(tuple(seats))
    for p in range(len(base)):
        mode = "each decision's own time added" if not think.repeatable else think.mode
        print(f"thinking ({mode}): {names[p]} plays at {seats[p].label()}")
    return seats


def timed_act(
    bot: Any, seat_obs: dict[str, Any], games: Any, seat: int, seats: list[Any], measured: bool
) -> int:
    """``bot``'s action in one game; ``measured``: its time charged to ``seat`` in ``games``."""
    import numpy as np

    from agents.think.measured import act_and_charge

    obs, mask = seat_obs["observation"][None], seat_obs["action_mask"][None]
    if not measured:
        return int(bot.act(obs, mask)[0])
    row = games.lat[:, seat]
    action = act_and_charge(
        lambda _, o, m: bot.act(o, m), obs, mask, np.ones(1, bool), row, seats[seat]
    )
    return int(action[0])


def _holds(path: Path, document: dict[str, Any]) -> bool:
    """Whether the JSON file ``path`` holds ``document`` already."""
    import json

    try:
        return bool(json.loads(path.read_text(encoding="utf-8")) == document)
    except (OSError, ValueError):
        return False


def header(think: Any) -> dict[str, Any]:
    """The chunk log header's entry for the plan (none for ``off``): a resume charges the same."""
    return {} if think is None else {"--think": think.mode, "think charged ms": dict(think.costs)}


def for_request(
    args: argparse.Namespace,
) -> tuple[Callable[[tuple[str, ...], Any], Any] | None, Callable[[Path], None]]:
    """``--think`` as a game's tournament request takes it: ``think(agents, rules)``, the plan
    (:func:`plan`, made once the game has checked the agents and rules; ``None`` for off), and
    ``keep(folder)``, which writes a calibration into the run folder (:func:`keep`)."""
    planned: dict[str, Any] = {}

    def think(agents: tuple[str, ...], rules: Any) -> Any:
        planned["think"] = plan(args, agents, rules, Path(args.out))
        return planned["think"]

    on = args.think != "off" or args.think_file is not None
    return (think if on else None), lambda folder: keep(planned.get("think"), folder)
