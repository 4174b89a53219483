"""Draw a real-time Speed table from a ``snapshot()`` dict, as text or as an RGB frame.

The environments' ``render_mode="human"`` / ``"ansi"`` / ``"rgb_array"`` (through
:func:`render_mode`), replays and videos all draw through the two pure functions here,
so a table looks the same wherever it is shown and a saved snapshot (plain JSON) can be
re-drawn later without an engine. One module a job:

- :mod:`~speed_env.render.modes`: :func:`render_mode`, what an env's ``render()`` returns in
  each mode.
- :mod:`~speed_env.render.snapshot`: the snapshot reader: the dict, checked, as the typed table
  both renderers draw.
- :mod:`~speed_env.render.text`: :func:`render_ansi`, a compact multi-line text table,
  optionally coloured.
- :mod:`~speed_env.render.image`: :func:`render_rgb`, an ``(H, W, 3)`` ``uint8`` frame drawn
  with Pillow (the ``[render]`` extra).
- :mod:`~speed_env.render.party_text`: a Party Speed table (three or four seats) as text, from
  the full ``table()`` (the n-seat envs' ``ansi`` and ``human`` modes).
- :mod:`~speed_env.render.party_image`: ``render_party_rgb``, a Party Speed ``snapshot()`` as an
  RGB frame, every seat in a row (the n-seat envs' ``rgb_array`` mode).
- :mod:`~speed_env.render.canvas`: the Pillow canvas, colours and cards both RGB layouts draw
  with.

Pillow is imported only when a frame is drawn, and a frame's size depends only on ``scale``
(and, at three or four seats, the seat count), so consecutive frames can go straight into a
video. Player 0 sits at the bottom, player 1 at the
top, and player *k*'s side pile is drawn beside centre pile *k*.
"""

from __future__ import annotations

from speed_env.render.canvas import RGB_CARD_SIZE
from speed_env.render.image import render_rgb, rgb_shape
from speed_env.render.modes import render_mode
from speed_env.render.text import render_ansi, strip_ansi

__all__ = ["RGB_CARD_SIZE", "render_ansi", "render_mode", "render_rgb", "rgb_shape", "strip_ansi"]
