"""SB3's logs of a run (``OUT/logs``), continued, not truncated, when the run is resumed.

SB3's CSV writer opens ``progress.csv`` with ``w+``: a resumed run would lose every row
logged before it. :func:`logger` gives a resumed run a writer that keeps the rows up to the
checkpoint it resumes from (``time/total_timesteps`` at most that), drops any logged after it
(the resumed run trains those timesteps again, so they would appear twice), and appends. A
new run's logs are SB3's own. TensorBoard writes a new event file per run and keeps the old.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["STEP_COLUMN", "kept_rows", "logger"]

STEP_COLUMN = "time/total_timesteps"
"""The column of ``progress.csv`` that says at which timestep a row was logged."""


def kept_rows(path: Path, upto: int) -> tuple[list[str], list[list[str]]]:
    """The header of the CSV log ``path`` and its rows logged at timestep ``upto`` or before.

    All its rows where it has no :data:`STEP_COLUMN`; ``([], [])`` for no file.
    """
    if not path.exists():
        return [], []
    with path.open(newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    if not table:
        return [], []
    header, rows = table[0], table[1:]
    if STEP_COLUMN not in header:
        return header, rows
    at = header.index(STEP_COLUMN)

    def step(row: list[str]) -> float:
        try:
            return float(row[at])
        except (IndexError, ValueError):
            return float("inf")  # a torn last line (the run was killed while writing it)

    return header, [r for r in rows if step(r) <= upto]


def _continued_csv(path: Path, upto: int) -> Any:
    """SB3's CSV writer on ``path``, holding its rows up to ``upto`` and appending after them."""
    from stable_baselines3.common.logger import CSVOutputFormat

    header, rows = kept_rows(path, upto)
    with path.open("w", newline="", encoding="utf-8") as f:
        if header:
            writer = csv.writer(f, lineterminator="\n")  # SB3 writes "\n" line ends too
            writer.writerow(header)
            writer.writerows(rows)

    class ContinuedCSV(CSVOutputFormat):
        """SB3's writer, opened without truncating and knowing the header's columns (a new
        column still rewrites the file with it, SB3's way)."""

        # CSVOutputFormat's own __init__ opens the file with "w+" and would empty it.
        def __init__(self) -> None:
            self.file = path.open("r+", encoding="utf-8")
            # At the end: SB3 appends its rows under the header kept above.
            self.file.seek(0, 2)
            # SB3 rewrites the header only when a key is new to it.
            self.keys = list(header)
            self.separator = ","
            self.quotechar = '"'

    return ContinuedCSV()


def logger(folder: Path, formats: Sequence[str], *, resumed_at: int | None) -> Any:
    """An SB3 logger writing ``formats`` into ``folder``.

    - ``formats``: ``csv``, ``tensorboard``, ...;
    - ``resumed_at``: the timestep of the checkpoint a run resumes from; ``progress.csv`` is
      continued from that timestep rather than started again.
    """
    from stable_baselines3.common.logger import Logger, make_output_format

    folder.mkdir(parents=True, exist_ok=True)
    outputs = []
    for name in formats:
        if name == "csv" and resumed_at is not None:
            outputs.append(_continued_csv(folder / "progress.csv", resumed_at))
        else:
            outputs.append(make_output_format(name, str(folder)))
    return Logger(folder=str(folder), output_formats=outputs)
