"""Time per rgb_array frame of the renderer (target: well under 5 ms at scale 2).

Run: python benchmarks/render_frame.py
"""

from __future__ import annotations

import time

import speed_env
from speed_env.render.image import render_rgb


def main() -> None:
    """Render frames of a real game and print the mean time per frame at scales 1, 2, 4."""
    env = speed_env.parallel_env()
    env.reset(seed=0)
    snap = env.snapshot()
    for scale in (1, 2, 4):
        render_rgb(snap, scale=scale)
        n = 200
        start = time.perf_counter()
        for _ in range(n):
            render_rgb(snap, scale=scale)
        print(f"scale {scale}: {(time.perf_counter() - start) / n * 1e3:.2f} ms per frame")


if __name__ == "__main__":
    main()
