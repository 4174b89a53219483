"""What an env's ``render()`` returns in each render mode: the text table or the RGB frame."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from speed_env.render.image import render_rgb
from speed_env.render.text import render_ansi


def render_mode(snapshot: Mapping[str, Any], mode: str) -> str | np.ndarray | None:
    """What an env's ``render()`` returns in render mode ``mode``.

    ``"human"`` prints the text table to the terminal and returns ``None``;
    ``"ansi"`` returns that text; ``"rgb_array"`` returns :func:`render_rgb`'s frame.
    """
    if mode == "human":
        print(render_ansi(snapshot), flush=True)
        return None
    if mode == "ansi":
        return render_ansi(snapshot)
    if mode == "rgb_array":
        return render_rgb(snapshot)
    raise ValueError(f"render mode must be 'human', 'ansi' or 'rgb_array', got {mode!r}")


def render_party(
    snapshot: Mapping[str, Any], table: Mapping[str, Any], mode: str
) -> str | np.ndarray | None:
    """What an n-seat env's ``render()`` returns: the text of the full ``table``
    (:func:`~speed_env.render.party_text.render_party_text`), printed for ``"human"``
    (returning ``None``), returned for ``"ansi"``; for ``"rgb_array"`` the frame of the public
    ``snapshot`` (:func:`~speed_env.render.party_image.render_party_rgb`)."""
    if mode == "rgb_array":
        from speed_env.render.party_image import render_party_rgb

        return render_party_rgb(snapshot)
    from speed_env.render.party_text import render_party_text

    text = render_party_text(table)
    if mode == "human":
        print(text, flush=True)
        return None
    if mode == "ansi":
        return text
    raise ValueError(f"render mode must be 'human', 'ansi' or 'rgb_array', got {mode!r}")
