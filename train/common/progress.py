"""A training run's progress bar: tqdm on stderr with the timesteps, the rate, the time left
and the latest evaluation as a note (:class:`Progress`, which :class:`train.common.run.Run`
draws); the lines a run prints go above it, on stdout."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm


class _Bar(tqdm):  # type: ignore[misc]
    """tqdm with the count and the total written with thousands separators, as ``n_c`` and
    ``total_c`` (tqdm's own ``{total:,}`` raises once the count is past the total: it hands
    the format ``total=None`` then)."""

    @property
    def format_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = super().format_dict
        d["n_c"] = f"{int(d['n']):,}"
        d["total_c"] = f"{int(d['total']):,}" if d["total"] else "?"
        return d


class Progress:
    """The training progress bar (tqdm, on stderr): timesteps, rate, time left and a note.

    With a wall-clock budget (``minutes``) the minutes end the run, not the timesteps (only
    their cap): the bar counts timesteps without a total and shows the time spent of the
    minutes, instead of a share and a time left of a total the run will not reach.
    """

    def __init__(
        self, total: int, enabled: bool, start: int = 0, minutes: float | None = None
    ) -> None:
        # n_c/total_c (_Bar), not {total:,}: tqdm passes total=None to the format once the
        # count is past it, and a format spec on None raises (it lost every run whose budget
        # was not a whole number of rollouts). The total is the budget in whole rollouts.
        bar_format = "{desc} [{bar:30}] {n_c}/{total_c} {rate_fmt} eta {remaining}{postfix}"
        if minutes is not None:
            budget = tqdm.format_interval(60.0 * minutes)
            bar_format = f"{{desc}} {{n_c}} steps {{rate_fmt}} {{elapsed}} of {budget}{{postfix}}"
        self.bar = _Bar(
            total=None if minutes is not None else total,
            initial=start,
            disable=not enabled,
            desc="train",
            unit="step",
            file=sys.stderr,
            mininterval=0.5,
            bar_format=bar_format,
        )

    def update(self, steps: int) -> None:
        """Move the bar to ``steps`` timesteps."""
        if steps > self.bar.n:
            self.bar.update(steps - self.bar.n)

    def restart_clock(self) -> None:
        """Measure the rate, and so the time left, from now.

        Called after a warm start that did not move the bar, cloning, whose minutes would
        otherwise read as a rate near 0.
        """
        bar = self.bar
        if bar.disable:
            return
        steps = bar.n
        bar.reset(bar.total)  # the clock and the rate's averages start again, the count at 0
        bar.initial = bar.n = bar.last_print_n = steps
        bar.refresh()

    def note(self, text: str) -> None:
        """Show ``text`` after the bar (the latest evaluation)."""
        self.bar.set_postfix_str(text, refresh=False)

    def print(self, line: str) -> None:
        """A line of output (stdout) above the bar."""
        tqdm.write(line, file=sys.stdout)

    def close(self, steps: int) -> None:
        """Final redraw and a newline."""
        self.update(steps)
        self.bar.close()
