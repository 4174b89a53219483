"""The shared plotting helper (agents.runtime.plotting): PNGs as bytes or written atomically."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from agents.runtime import plotting

PNG = b"\x89PNG\r\n\x1a\n"


def test_interval_rows_and_heatmap_render_pngs():
    rows = [("a", 0.4, 0.3, 0.5), ("b", 0.6, 0.55, 0.7)]
    assert plotting.interval_rows_png(rows, "win rate").startswith(PNG)
    fig, ax, image = plotting.heatmap(
        np.array([[np.nan, 0.9], [0.1, np.nan]]),
        ["a", "b"],
        ["a", "b"],
        size=(3, 3),
        scale=plotting.Scale(0, 1, dark_beyond=0.3),
        cell_text=lambda v: f"{v:.1f}",
        fontsize=8,
    )
    # Only the two filled cells are labelled, white on the deep colours.
    assert sorted((t.get_text(), t.get_color()) for t in ax.texts) == [
        ("0.1", "white"),
        ("0.9", "white"),
    ]
    assert plotting.png_bytes(fig).startswith(PNG)


def test_heatmap_png_is_the_heatmap_titled_with_a_colour_bar():
    grid = np.array([[np.nan, 0.9], [0.1, np.nan]])
    png = plotting.heatmap_png(
        grid,
        ["a", "b"],
        ["a", "b"],
        title="win rate",
        axis_labels=("column", "row"),
        colorbar_label="win rate",
        size=(3, 3),
        scale=plotting.Scale(0, 1, dark_beyond=0.3),
        cell_text=lambda v: f"{v:.1f}",
        fontsize=8,
    )
    assert png.startswith(PNG)


def test_save_png_writes_the_file_whole_with_the_umask_and_leaves_no_temporary(tmp_path):
    fig, ax = plotting.figure(3, 2)
    ax.plot([0, 1, 2], [1, 2, 3])
    old = os.umask(0o027)
    try:
        path = plotting.save_png(fig, tmp_path / "sub" / "curve.png")
    finally:
        os.umask(old)
    assert path.read_bytes().startswith(PNG)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in path.parent.iterdir()] == ["curve.png"]
