"""The kit's figures: matplotlib set up once, the figure work they share, PNGs written atomically.

matplotlib (the ``[plot]`` extra) is imported only inside these functions, on
the non-interactive ``Agg`` backend, so importing this module (or ``agents``)
costs nothing without it. The tournaments' figures (:mod:`agents.tournament.report`,
:mod:`agents.tournament.vintage`), the training curves (``train``) and the
reaction sweeps (``speed_lab``) build on:

- :func:`pyplot` and :func:`figure`: ``matplotlib.pyplot`` and a new figure;
- :func:`png_bytes` and :func:`save_png`: a finished figure as PNG bytes, or
  written atomically (:func:`agents.runtime.files.write_atomic`), the figure closed;
- :func:`interval_rows_png`: one row per name, a point and its 95% interval;
- :func:`heatmap`: a win-rate grid (red to blue) with each cell's value
  written in it; :func:`heatmap_png`, the whole figure: titled, a colour bar, as PNG bytes.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from agents.runtime.files import write_atomic


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the ``Agg`` backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure(width: float, height: float, ncols: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    """A new figure of ``width`` x ``height`` inches and its axes (``ncols`` side by side)."""
    return pyplot().subplots(1, ncols, figsize=(width, height), **kwargs)


def png_bytes(fig: Any, dpi: int = 120, tight: bool = True) -> bytes:
    """The figure as PNG bytes (cropped to its content when ``tight``); the figure is closed."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, **({"bbox_inches": "tight"} if tight else {}))
    pyplot().close(fig)
    return buf.getvalue()


def save_png(fig: Any, path: str | os.PathLike[str], dpi: int = 110, tight: bool = False) -> Path:
    """Write the figure to ``path`` as a PNG, atomically, and close it; ``path``."""
    return write_atomic(path, png_bytes(fig, dpi, tight))


def interval_rows_png(
    rows: Sequence[tuple[str, float, float, float]], xlabel: str, **style: Any
) -> bytes:
    """``(name, value, low, high)`` rows as points with horizontal 95% error bars, as PNG bytes.

    The first row is drawn at the bottom; ``style`` goes to ``errorbar`` (a colour ...).
    """
    fig, ax = figure(6, 0.6 + 0.5 * len(rows))
    y = range(len(rows))
    values = [r[1] for r in rows]
    below = [r[1] - r[2] for r in rows]
    above = [r[3] - r[1] for r in rows]
    ax.errorbar(values, y, xerr=[below, above], fmt="o", capsize=4, **style)
    ax.set_yticks(list(y), [r[0] for r in rows])
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    return png_bytes(fig)


class Scale(NamedTuple):
    """A heatmap's colour scale: red at ``low``, blue at ``high``; a cell's text is white where its
    value is more than ``dark_beyond`` from 0.5 (the deep colours)."""

    low: float
    high: float
    dark_beyond: float


def heatmap(
    grid: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    size: tuple[float, float],
    scale: Scale,
    cell_text: Callable[[float], str],
    fontsize: int,
    origin: str | None = None,
    x_rotation: float | None = None,
) -> tuple[Any, Any, Any]:
    """A win-rate grid in red (low) to blue (high), each filled cell labelled; ``(fig, ax, image)``.

    A cell's label is white on the deep colours (:class:`Scale`), black elsewhere; NaN cells
    stay empty.
    """
    fig, ax = figure(*size)
    placed = {"origin": origin} if origin else {}
    image = ax.imshow(grid, cmap="RdBu", vmin=scale.low, vmax=scale.high, **placed)
    tilt = {"rotation": x_rotation, "ha": "right"} if x_rotation is not None else {}
    ax.set_xticks(range(len(x_labels)), x_labels, **tilt)
    ax.set_yticks(range(len(y_labels)), y_labels)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if not np.isnan(grid[i, j]):
                dark = abs(grid[i, j] - 0.5) > scale.dark_beyond
                ax.text(
                    j,
                    i,
                    cell_text(float(grid[i, j])),
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="white" if dark else "black",
                )
    return fig, ax, image


def heatmap_png(
    grid: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str,
    axis_labels: tuple[str, str] | None = None,
    colorbar_label: str | None = None,
    **style: Any,
) -> bytes:
    """A :func:`heatmap` (``style``: its keywords) as PNG bytes, with ``title``, ``axis_labels``
    (x, y) when given and a colour bar (labelled ``colorbar_label`` when given)."""
    fig, ax, image = heatmap(grid, x_labels, y_labels, **style)
    if axis_labels is not None:
        ax.set_xlabel(axis_labels[0])
        ax.set_ylabel(axis_labels[1])
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.8, **({"label": colorbar_label} if colorbar_label else {}))
    return png_bytes(fig)
