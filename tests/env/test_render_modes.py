"""The real-time envs' render modes are one list (``speed_env.game.RENDER_MODES``) and one
dispatch (``speed_env.render.modes.render``), at two seats and at three or four; a frame's
``scale`` is checked in one place for both layouts."""

from __future__ import annotations

import gymnasium
import pytest

import speed_env
from speed_env.game import RENDER_MODES
from speed_env.render.image import render_rgb
from speed_env.render.modes import render
from speed_env.render.party_image import render_party_rgb


def test_every_real_time_env_declares_the_one_list_of_render_modes():
    envs = [
        speed_env.parallel_env(),
        speed_env.parallel_env(players=4),
        gymnasium.make("speed_env/Speed-v1").unwrapped,
        gymnasium.make_vec("speed_env/Speed-v1", num_envs=2),
    ]
    for env in envs:
        assert env.metadata["render_modes"] == list(RENDER_MODES) == ["human", "ansi", "rgb_array"]


@pytest.mark.parametrize("players", [2, 4])
def test_each_mode_draws_only_what_it_returns(players, capsys):
    env = speed_env.parallel_env(players=players, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and text
    drawn: list[str] = []

    def said() -> str:
        drawn.append("text")
        return "TABLE"

    def frame():
        drawn.append("frame")
        return "FRAME"

    assert render("ansi", said, frame) == "TABLE" and drawn == ["text"]
    assert render("human", said, frame) is None and capsys.readouterr().out == "TABLE\n"
    assert render("rgb_array", said, frame) == "FRAME" and drawn == ["text", "text", "frame"]
    with pytest.raises(ValueError, match="'human', 'ansi' or 'rgb_array', got 'svg'"):
        render("svg", said, frame)
    assert drawn == ["text", "text", "frame"]  # a bad mode draws nothing


@pytest.mark.parametrize("scale", [0, True, 1.5])
def test_both_layouts_refuse_a_bad_scale_alike(scale):
    two = speed_env.parallel_env()
    two.reset(seed=1)
    party = speed_env.parallel_env(players=3)
    party.reset(seed=1)
    said = f"scale must be an int >= 1, got {scale!r}"
    with pytest.raises(ValueError, match=rf"^{said}$"):
        render_rgb(two.unwrapped.snapshot(), scale=scale)
    with pytest.raises(ValueError, match=rf"^{said}$"):
        render_party_rgb(party.unwrapped.snapshot(), scale=scale)
