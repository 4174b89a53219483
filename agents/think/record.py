"""The calibration file, ``think.json``: each agent's calibrated cost and the machine it ran on.

A run with ``--think calibrated`` writes one into its folder and into its ``results.json``;
``--think-file FILE`` charges its costs again without timing anything, so a run repeats byte
for byte from its recorded calibration, on any machine. A file is refused when it was made by
another kit version, on other rules or at another seat count (``states.seats``: the decision
states are recorded at the run's, :mod:`agents.think.states`), or lacks an agent the run seats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.think import states
from agents.think.calibrate import QUANTILE, WARMUP, Calibration, machine_facts
from agents.think.plan import ThinkError, ThinkPlan
from speed_env.rules import Rules

FORMAT = "speed-think-calibration"
"""The ``format`` of a calibration file."""
VERSION = 1
"""The calibration file format's version."""
FILE_NAME = "think.json"
"""The calibration file's name in a run folder."""


def make_record(calibrations: Mapping[str, Calibration], rules: Rules) -> dict[str, Any]:
    """The calibration file's document for ``calibrations`` (spec to calibration)."""
    machine = machine_facts()
    return {
        "format": FORMAT,
        "version": VERSION,
        "kit_version": machine.pop("kit_version"),
        "quantile": QUANTILE,
        "warmup": WARMUP,
        "states": {
            "count": states.COUNT,
            "games": states.GAMES,
            "seed": states.SEED,
            "seats": rules.players,
            "rules": rules.to_dict(),
        },
        "machine": machine,
        "agents": {spec: c.to_dict() for spec, c in calibrations.items()},
    }


def plan_of(record: Mapping[str, Any], specs: Sequence[str]) -> ThinkPlan:
    """The ``calibrated`` plan charging each of ``specs`` its cost in ``record``."""
    costs = tuple((spec, float(record["agents"][spec]["think_ms"])) for spec in specs)
    kept = {**record, "agents": {spec: record["agents"][spec] for spec in specs}}
    return ThinkPlan("calibrated", costs, kept)


def read(path: str, specs: Sequence[str], rules: Rules) -> dict[str, Any]:
    """The calibration file ``path``, checked for this kit, these rules and these agents."""
    from speed_env import __version__
    from speed_env.user_file import read_json

    data = read_json(path, "calibration file", ThinkError)
    where = f"calibration file {path!r}"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ThinkError(
            f'{where} must be a JSON object with "format": "{FORMAT}" '
            "(speed tournament --think calibrated writes one: think.json)"
        )
    if data.get("version") != VERSION:
        raise ThinkError(f"{where} has version {data.get('version')!r}; this kit reads {VERSION}")
    if data.get("kit_version") != __version__:
        raise ThinkError(
            f"{where} was made by kit version {data.get('kit_version')!r}, not this one "
            f"({__version__}): calibrate again with --think calibrated"
        )
    states_entry = data.get("states")
    recorded: dict[str, Any] = states_entry if isinstance(states_entry, dict) else {}
    seats = recorded.get("seats", 2)  # a file from before seats were recorded: two-seat states
    if seats != rules.players:
        raise ThinkError(
            f"{where} was calibrated on decision states of {seats} players, not this run's "
            f"{rules.players}: calibrate again with --think calibrated"
        )
    made_on = recorded.get("rules")
    if made_on != rules.to_dict():
        raise ThinkError(f"{where} was calibrated on other rules than this run's")
    agents = data.get("agents")
    if not isinstance(agents, dict):
        raise ThinkError(f'{where} lacks its "agents"')
    for spec in specs:
        entry = agents.get(spec)
        if not isinstance(entry, dict):
            raise ThinkError(
                f"{where} has no calibration for agent {spec!r} (it calibrated "
                f"{', '.join(map(repr, agents)) or 'none'})"
            )
        cost = entry.get("think_ms")
        if isinstance(cost, bool) or not isinstance(cost, int | float) or not 0 <= cost < 1e9:
            raise ThinkError(f"{where}: agent {spec!r} has think_ms {cost!r}, not ms >= 0")
    return data
