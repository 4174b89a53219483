"""A table's bots wait their thinking before their cards fly (docs/table.md, docs/thinking-time.md).

:attr:`~speed_table.session.TableConfig.think` is the run's :class:`~agents.think.plan.ThinkPlan`
(``None``: ``off``). ``off`` and ``declared`` move a bot's profile by what it declares itself,
``calibrated`` by its recorded cost; ``measured`` times each decision (one call at batch one, as
the table always plays) and moves that game's seat by the time it took before the tick is
stepped, so the card a slow decision commits flies that much later. :class:`BotThinking` keeps
what each play was charged, for the replay (``think`` in a game's first frame, ``think_ms`` in a
tick's) and the result.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agents.specs.guarded import checked_act
from agents.think.plan import ThinkPlan, declared_ms
from speed_env.reaction import ReactionProfile, delayed

OFF = {"mode": "off", "repeatable": True}
"""What a game's replay and result say of thinking ``off``."""


def check_recordable(plan: ThinkPlan | None, record_dir: Any) -> None:
    """Refuse ``measured`` thinking where play records are kept: a record must replay exactly."""
    if record_dir is not None and plan is not None and not plan.repeatable:
        raise ValueError(
            "a play record replays exactly in Speed-v1, and measured thinking differs play "
            "by play: record with --think calibrated (a constant timed before play) or off"
        )


class BotThinking:
    """The thinking charged to a table's bots: their profiles, each decision, each play's charge."""

    def __init__(self, plan: ThinkPlan | None, bots: Mapping[int, Any], specs: Sequence[str]):
        self.plan = plan
        self.bots = bots
        self.specs = specs
        self.tick: dict[int, float] = {}
        """The charge of each bot seat's play in the tick just stepped (a seat that waited has
        none)."""
        self.game: dict[int, list[float]] = {seat: [] for seat in bots}
        """This game's charge of every play, by bot seat."""
        self.number = -1
        """The game's number in the page visit (the error naming a failing bot says it)."""

    @property
    def mode(self) -> str:
        """The mode: ``off``, ``declared``, ``calibrated`` or ``measured``."""
        return "off" if self.plan is None else self.plan.mode

    @property
    def measured(self) -> bool:
        """Whether each decision is timed and charged as it is made (not repeatable)."""
        return self.plan is not None and not self.plan.repeatable

    def constant_ms(self, seat: int) -> float:
        """The constant charged to every play of seat ``seat``'s bot (0 when measured).

        As :func:`agents.think.plan.seat_profile` charges it: off and declared, what the bot
        declares itself; calibrated, its recorded cost.
        """
        spec = self.specs[seat]
        if self.plan is None or self.plan.mode == "declared":
            return declared_ms(self.bots[seat], spec)
        return self.plan.cost(spec) if self.plan.mode == "calibrated" else 0.0

    def profile(self, seat: int, base: ReactionProfile) -> ReactionProfile:
        """``base`` moved by the constant charged to seat ``seat``'s bot."""
        return delayed(base, self.constant_ms(seat))

    def new_game(self, number: int) -> None:
        """Game ``number`` starts: no play charged yet."""
        self.number, self.tick, self.game = number, {}, {seat: [] for seat in self.bots}

    def new_tick(self) -> None:
        """A tick is about to be stepped: none of its plays charged yet."""
        self.tick = {}

    def act(
        self, seat: int, obs: Mapping[str, Any], latency: np.ndarray, profile: ReactionProfile
    ) -> int:
        """Seat ``seat``'s bot's action on its ``obs``, checked; its charge kept if it plays.

        Measured, the decision's own wall time moves ``latency`` (the seat's row of the game's
        engine profiles) to ``profile`` that much later, before the tick is stepped.
        """
        before = time.perf_counter()
        action = int(
            checked_act(
                self.bots[seat],
                obs["observation"][None],
                obs["action_mask"][None],
                spec=self.specs[seat],
                where=f"table game {self.number}, seat {seat}",
            )[0]
        )
        took = round((time.perf_counter() - before) * 1000.0, 3)
        if self.measured:
            latency[:] = delayed(profile, took).params()
        if action != 0:  # a wait commits no card: nothing to charge
            self.tick[seat] = took if self.measured else self.constant_ms(seat)
            self.game[seat].append(self.tick[seat])
        return action

    def frame(self, first: bool) -> dict[str, Any]:
        """What a replay frame says of thinking: the plan in a game's ``first``, else the
        charge of the plays its tick committed (nothing when none)."""
        if first:
            return {"think": OFF if self.plan is None else self.plan.to_dict()}
        if self.tick:
            return {"think_ms": {f"player_{seat}": ms for seat, ms in self.tick.items()}}
        return {}

    def summary(self) -> dict[str, Any]:
        """The game's thinking for its result: the mode, whether it repeats, every charge."""
        plan = OFF if self.plan is None else {"mode": self.mode, "repeatable": not self.measured}
        charged = {f"player_{seat}": list(ms) for seat, ms in self.game.items()}
        return {**plan, "charged_ms": charged}


__all__ = ["OFF", "BotThinking", "check_recordable"]
