"""A reaction sweep's output folder: the CSV, the JSON and the figures, written atomically."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.reaction_sweep.plots import curve_png, grid_png
from agents.reaction_sweep.results import rows_csv
from agents.reaction_sweep.work import SweepError
from agents.runtime.files import write_together
from speed_env import user_file

FILES = {
    "csv": "reaction.csv",
    "json": "reaction.json",
    "curve": "winrate_vs_latency.png",
    "grid": "latency_grid.png",
}
"""Names of the files a sweep writes in its output folder (the grid only for a grid sweep)."""


def load(folder: str | Path) -> dict[str, Any]:
    """The ``reaction.json`` document of an earlier sweep's output folder."""
    path = Path(folder) / FILES["json"]
    # The kit's reader of user files: a named pipe or a device is refused by name, not read.
    text = user_file.read_text(path, "an earlier sweep (--compare)", SweepError)
    try:
        doc = json.loads(text)  # not strict JSON: a sweep's fit may be written as NaN
    except json.JSONDecodeError:
        raise SweepError(f"{str(path)!r} is not a sweep's JSON") from None
    if not isinstance(doc, dict) or "points" not in doc or "settings" not in doc:
        raise SweepError(f"{str(path)!r} is not a sweep's JSON (no 'points' or 'settings')")
    return doc


def write_outputs(
    out: Path, doc: dict[str, Any], compare: Sequence[dict[str, Any]] = ()
) -> list[Path]:
    """Write a sweep's CSV, JSON and figures into ``out`` (all or none); return their paths.

    ``compare`` holds earlier sweeps' documents drawn beside this one on the curve.
    """
    files = {
        FILES["csv"]: rows_csv(doc).encode(),
        FILES["json"]: json.dumps(doc, indent=2).encode(),
        FILES["curve"]: curve_png([*compare, doc]),
    }
    if doc["settings"]["grid"]:
        files[FILES["grid"]] = grid_png(doc)
    # Together: a failure (a full disk) leaves the old set whole or none, never results
    # without their figures.
    return write_together({out / name: data for name, data in files.items()})
