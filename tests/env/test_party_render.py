"""Party Speed drawn as an RGB frame (``render_mode="rgb_array"`` at three and four seats):
every seat and every pile, a fixed shape per seat count, and a different picture for a
different table."""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest

import speed_env
from speed_env.render.party_image import party_rgb_shape, render_party_rgb

pytest.importorskip("PIL")


def _snapshot(players: int, preset: str = "us", **options) -> dict:
    env = speed_env.parallel_env(preset, players=players, **options)
    env.reset(seed=5)
    return env.snapshot()


def _two_seat_snapshot() -> dict:
    env = speed_env.parallel_env("us")
    env.reset(seed=5)
    return env.snapshot()


def _reddish(img: np.ndarray) -> np.ndarray:
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (r > 150) & (g < 80) & (b < 80)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("scale", [1, 2])
def test_a_frame_has_the_shape_of_its_seat_count_and_is_uint8(players, scale):
    for preset, options in (("us", {}), ("pagat", {"jokers": True, "hand_size": 7})):
        img = render_party_rgb(_snapshot(players, preset, **options), scale=scale)
        assert img.shape == party_rgb_shape(players, scale) and img.dtype == np.uint8
    assert party_rgb_shape(4, scale)[0] > party_rgb_shape(3, scale)[0]  # a row more
    assert party_rgb_shape(3, scale)[1] == party_rgb_shape(4, scale)[1]


@pytest.mark.parametrize("players", [3, 4])
def test_every_seat_and_every_pile_is_drawn(players):
    base = _snapshot(players)
    img = render_party_rgb(base)
    for k in range(players):  # the last seat and the last pile change the frame too
        for change in ("centre", "hand", "draw_pile", "side_pile", "played", "flight"):
            snap = copy.deepcopy(base)
            if change == "centre":
                snap["centre"][k]["top"] = "QS" if snap["centre"][k]["top"] != "QS" else "KS"
            elif change == "hand":
                snap["players"][k]["hand"][0] = None
            elif change == "flight":
                snap["players"][k]["in_flight"] = {"card": "2S", "pile": k, "lands_ms": 700}
            else:
                snap["players"][k][change] += 1
            assert not np.array_equal(img, render_party_rgb(snap)), (k, change)


def test_different_states_of_a_game_draw_differently_and_one_state_alike():
    env = speed_env.parallel_env("us", players=4, render_mode="rgb_array", reaction=150)
    env.reset(seed=2)
    frames = [env.render()]
    for _ in range(8):
        env.step({a: int(np.flatnonzero(env.action_mask(a))[-1]) for a in env.agents})
        frames.append(env.render())
    assert all(f.shape == party_rgb_shape(4) for f in frames)
    assert len({f.tobytes() for f in frames}) > 1  # the game moved and the picture with it
    assert np.array_equal(frames[-1], render_party_rgb(env.snapshot()))  # deterministic


def test_second_deck_red_cards_draw_red_and_a_winner_and_hidden_hand_show():
    snap = _snapshot(3)
    for seat in snap["players"]:
        seat["hand"] = ["10S", "10S'", "AC", "AC'", None]
    for pile in snap["centre"]:
        pile["top"] = "2S'"
    assert not _reddish(render_party_rgb(snap)).any()
    twin = copy.deepcopy(snap)
    twin["centre"][2]["top"] = "9H'"  # the second deck's nine of hearts
    assert _reddish(render_party_rgb(twin)).any()
    won = copy.deepcopy(snap)
    won.update(phase="over", winner="player_2")
    assert not np.array_equal(render_party_rgb(snap), render_party_rgb(won))
    hidden = copy.deepcopy(twin)
    hidden["players"][0]["hand"] = ["KH", "KD'", "QH", "QD", "AH'"]
    hidden["players"][0]["hand_visible"] = False
    shown = copy.deepcopy(hidden)
    shown["players"][0]["hand_visible"] = True
    assert (_reddish(render_party_rgb(shown)).sum()) > (_reddish(render_party_rgb(hidden)).sum())


def test_every_n_seat_door_draws_frames():
    one = gymnasium.make("speed_env/SpeedParty-v0", players=3, render_mode="rgb_array")
    one.reset(seed=1)
    assert one.render().shape == party_rgb_shape(3)
    aec = speed_env.env("us", players=4, render_mode="rgb_array")
    aec.reset(seed=1)
    assert aec.render().shape == party_rgb_shape(4)
    vec = gymnasium.make_vec(
        "speed_env/SpeedParty-v0", num_envs=2, players=3, render_mode="rgb_array"
    )
    vec.reset(seed=1)
    frames = vec.render()
    assert len(frames) == 2 and all(f.shape == party_rgb_shape(3) for f in frames)
    assert not np.array_equal(frames[0], frames[1])  # two games, two deals


def test_a_bad_snapshot_is_refused_by_name():
    with pytest.raises(ValueError, match=r"drawn by speed_env\.render\.render_rgb"):
        render_party_rgb(_two_seat_snapshot())
    snap = _snapshot(3)
    snap["players"][1]["in_flight"] = {"card": "2S", "pile": 3, "lands_ms": 100}
    with pytest.raises(ValueError, match=r"players\[1\]\.in_flight pile must be 0, 1, 2 or None"):
        render_party_rgb(snap)
    snap = _snapshot(4)
    snap["centre"].pop()
    with pytest.raises(ValueError, match="3 or 4 players and a centre pile each, got 4 players"):
        render_party_rgb(snap)
