"""What an env's ``render()`` returns in each render mode: the text table or the RGB frame."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from speed_env.render.image import render_rgb
from speed_env.render.text import render_ansi


def render(
    mode: str, text: Callable[[], str], frame: Callable[[], np.ndarray]
) -> str | np.ndarray | None:
    """What ``render()`` returns in render mode ``mode``, the one place the modes are told apart.

    ``"human"`` prints ``text()`` to the terminal and returns ``None``; ``"ansi"`` returns it;
    ``"rgb_array"`` returns ``frame()``. Only the one asked for is drawn.
    """
    if mode == "rgb_array":
        return frame()
    if mode == "ansi":
        return text()
    if mode == "human":
        print(text(), flush=True)
        return None
    # speed_env.game.RENDER_MODES, which the envs check at construction
    raise ValueError(f"render mode must be 'human', 'ansi' or 'rgb_array', got {mode!r}")


def render_mode(snapshot: Mapping[str, Any], mode: str) -> str | np.ndarray | None:
    """What a two-seat env's ``render()`` returns in render mode ``mode`` (:func:`render`): the
    text table of :func:`render_ansi`, or :func:`render_rgb`'s frame."""
    return render(mode, lambda: render_ansi(snapshot), lambda: render_rgb(snapshot))


def render_party(
    snapshot: Mapping[str, Any], table: Mapping[str, Any], mode: str
) -> str | np.ndarray | None:
    """What an n-seat env's ``render()`` returns (:func:`render`): the text of the full ``table``
    (:func:`~speed_env.render.party_text.render_party_text`), or the frame of the public
    ``snapshot`` (:func:`~speed_env.render.party_image.render_party_rgb`)."""

    def text() -> str:
        from speed_env.render.party_text import render_party_text

        return render_party_text(table)

    def frame() -> np.ndarray:
        from speed_env.render.party_image import render_party_rgb

        return render_party_rgb(snapshot)

    return render(mode, text, frame)
