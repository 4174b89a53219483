"""Every agent of a run timed on the kit's fixed decision states: its thinking cost.

The agents are built through the games' registry (any spec, a user's ``py:`` file included, a
failure named as everywhere); each is timed by :func:`agents.think.calibrate.calibrate`, and the
costs become the calibration file a run records (:mod:`agents.think.record`). Used by the
commands that charge ``--think calibrated`` (``speed_cli/think.py``) and by training runs that
charge their frozen agents (``train/common/think.py``).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["calibrate_all"]


def calibrate_all(names: tuple[str, ...], rules: Any) -> dict[str, Any]:
    """Calibrate every agent of ``names`` on the fixed decision states; the calibration file."""
    from agents.games.registry import make
    from agents.specs.guarded import calling, checked_act
    from agents.think import record, states
    from agents.think.calibrate import calibrate

    obs_mask = states.decision_states(rules)
    done = {}
    for spec in names:
        with calling(spec, "building it", "calibrating its thinking"):
            bot = make(spec, rules, seed=0)

        def act(obs: Any, mask: Any, bot: Any = bot, spec: str = spec) -> Any:
            return checked_act(bot, obs, mask, spec=spec, where="calibrating its thinking")

        done[spec] = calibrate(spec, act, obs_mask)
        print(
            f"thinking: {spec} {done[spec].think_ms:g} ms a decision (median of "
            f"{done[spec].decisions}, p90 {done[spec].p90_ms:g} ms)",
            file=sys.stderr,
        )
    return record.make_record(done, rules)
