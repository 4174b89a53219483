"""Tests for speed_env.render.modes: text and RGB tables drawn from snapshot() dicts.

Most tests use hand-written snapshots, so the renderers are checked against the
snapshot contract (README, ``snapshot()``) on their own; one test also draws real env
snapshots. The RGB frames are drawn with Pillow (the ``[render]`` extra).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from speed_env.render.image import render_rgb, rgb_shape
from speed_env.render.text import render_ansi, strip_ansi

PRESETS = ("us", "pagat", "japanese")


def _player(name: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": name,
        "hand": ["9S", None, "QC", "3S", "7S"],
        "hand_visible": True,
        "draw_pile": 14,
        "side_pile": 5,
        "in_flight": None,
        "played": 3,
        "bounced": 1,
    }
    return base | over


def _snapshot(preset: str = "us", **over: Any) -> dict[str, Any]:
    """A table in ``preset``'s shape, black cards only unless a test adds red ones."""
    japanese = preset == "japanese"
    hand = ["9S", None, "QC", "3S"] if japanese else ["9S", None, "QC", "3S", "7S"]
    side = 0 if japanese else 5
    snap: dict[str, Any] = {
        "clock_ms": 1250,
        "phase": "play",
        "preset": preset,
        "centre": [{"top": "8C", "size": 3}, {"top": "JS", "size": 1}],
        "players": [
            _player("player_0", hand=hand, side_pile=side),
            _player("player_1", hand=list(hand), side_pile=side, draw_pile=9, played=7),
        ],
        "winner": None,
        "flip_ms": None,
    }
    return snap | over


def _reddish(img: np.ndarray) -> np.ndarray:
    """Pixels in card-ink red (the felt, gold and card backs are far from it)."""
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (r > 150) & (g < 90) & (b < 90)


# ----------------------------------------------------------------------------- text


def test_ansi_shows_cards_counts_and_clock() -> None:
    snap = _snapshot()
    snap["players"][1]["hand"] = ["10S", "AS", None, "KC", "2C"]
    text = render_ansi(snap)
    for token in ("9S", "QC", "3S", "7S", "10S", "AS", "KC", "2C", "8C", "JS"):
        assert token in text
    assert "x3" in text and "x1" in text  # centre pile sizes
    assert "draw 14" in text and "draw 9" in text
    assert "side 5" in text
    assert "played 3" in text and "played 7" in text and "bounced 1" in text
    assert "1.250 s" in text and "play" in text
    assert "[   ]" in text  # the empty slot


def test_ansi_puts_player_1_on_top_and_player_0_at_the_bottom() -> None:
    lines = render_ansi(_snapshot()).splitlines()
    p1 = next(i for i, line in enumerate(lines) if line.startswith("player_1"))
    p0 = next(i for i, line in enumerate(lines) if line.startswith("player_0"))
    centre = next(i for i, line in enumerate(lines) if "pile 0" in line)
    assert p1 < centre < p0


def test_ansi_shows_the_winner_or_draw() -> None:
    assert "winner: player_1" in render_ansi(_snapshot(phase="over", winner="player_1"))
    assert "draw" in render_ansi(_snapshot(phase="over", winner="draw")).splitlines()[-1]
    assert "winner" not in render_ansi(_snapshot())
    truncated = render_ansi(_snapshot(phase="over", truncated=True))
    assert "truncated" in truncated


def test_ansi_shows_card_in_flight_with_arrow_and_landing_time() -> None:
    snap = _snapshot()
    snap["players"][0]["in_flight"] = {"card": "10H", "pile": 0, "lands_ms": 1400}
    assert "10H -> pile 0 @ 1.400 s" in render_ansi(snap)


def test_ansi_shows_stacks_and_multi_card_moves() -> None:
    snap = _snapshot("japanese")
    snap["players"][0]["in_flight"] = {
        "card": "5H",
        "cards": ["5H", "5D"],
        "pile": 1,
        "lands_ms": 2000,
    }
    snap["players"][1]["in_flight"] = {"card": "4S", "pile": None, "lands_ms": 1900}
    text = render_ansi(snap)
    assert "5H+5D -> pile 1" in text
    assert "4S -> stack" in text


def test_ansi_hides_a_hidden_hand() -> None:
    snap = _snapshot()
    snap["players"][1]["hand"] = ["KH", "KD", None, "KH", "KD"]
    snap["players"][1]["hand_visible"] = False
    text = render_ansi(snap)
    assert "KH" not in text and "KD" not in text
    assert text.count("[###]") == 4


def test_ansi_colour_only_adds_codes() -> None:
    snap = _snapshot(phase="over", winner="player_0", flip_ms=2000)
    snap["centre"][1]["top"] = "JH"
    plain = render_ansi(snap)
    coloured = render_ansi(snap, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[31m[ JH]" in coloured  # red suit in red
    assert strip_ansi(coloured) == plain


def test_ansi_unicode_suits_are_optional() -> None:
    snap = _snapshot()
    assert "♣" not in render_ansi(snap)
    assert "Q♣" in render_ansi(snap, unicode_suits=True)


def test_ansi_normalises_input_spellings() -> None:
    snap = _snapshot()
    snap["centre"][0]["top"] = "T♥"
    assert "10H" in render_ansi(snap)


def test_ansi_japanese_has_no_side_piles() -> None:
    text = render_ansi(_snapshot("japanese"))
    assert "side" not in text and "stock 14" in text


# ----------------------------------------------------------------------------- pixels


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_rgb_shape_is_fixed_and_uint8(scale: int) -> None:
    busy = _snapshot(phase="over", winner="draw", flip_ms=123456, clock_ms=299_999)
    busy["players"][0]["in_flight"] = {"card": "RJ", "pile": 1, "lands_ms": 300_000}
    busy["players"][1]["hand"] = ["10S"] * 7
    empty = _snapshot()
    empty["centre"] = [{"top": None, "size": 0}, {"top": None, "size": 0}]
    for p in empty["players"]:
        p.update(hand=[None] * 5, draw_pile=0, side_pile=0)
    for snap in (_snapshot(), busy, empty, _snapshot("japanese")):
        img = render_rgb(snap, scale=scale)
        assert img.shape == rgb_shape(scale)
        assert img.dtype == np.uint8


def test_rgb_scale_keeps_the_layout() -> None:
    # Every shape scales with ``scale``; only the text is drawn afresh at each size, so
    # sampling a larger frame at the centre of each base pixel gives the small frame back
    # except on the letters (a few percent of the pixels).
    small = render_rgb(_snapshot(), scale=1)
    for scale in (2, 3):
        sampled = render_rgb(_snapshot(), scale=scale)[scale // 2 :: scale, scale // 2 :: scale]
        assert (sampled == small).all(axis=2).mean() > 0.9, scale


def test_rgb_is_deterministic_and_json_safe() -> None:
    snap = _snapshot(phase="stuck", flip_ms=2250)
    snap["players"][0]["in_flight"] = {"card": "10H", "pile": 0, "lands_ms": 1400}
    again = json.loads(json.dumps(snap))
    assert np.array_equal(render_rgb(snap), render_rgb(again))
    assert render_ansi(snap) == render_ansi(again)


def test_red_card_draws_red_pixels() -> None:
    black = _snapshot()
    assert not _reddish(render_rgb(black)).any()
    for where in ("centre", "hand", "flight"):
        snap = copy.deepcopy(black)
        if where == "centre":
            snap["centre"][0]["top"] = "8H"
        elif where == "hand":
            snap["players"][1]["hand"][0] = "RJ"
        else:
            snap["players"][0]["in_flight"] = {"card": "4D", "pile": 1, "lands_ms": 1300}
        assert _reddish(render_rgb(snap)).any(), where


def test_hidden_red_cards_are_backs() -> None:
    snap = _snapshot()
    snap["players"][1]["hand"] = ["KH", "KD", "QH", "QD", "AH"]
    snap["players"][1]["hand_visible"] = False
    img = render_rgb(snap)
    assert not _reddish(img).any()
    shown = copy.deepcopy(snap)
    shown["players"][1]["hand_visible"] = True
    assert _reddish(render_rgb(shown)).any()


def test_changed_top_card_changes_the_image() -> None:
    a = _snapshot()
    b = copy.deepcopy(a)
    b["centre"][1]["top"] = "QS"
    assert not np.array_equal(render_rgb(a), render_rgb(b))
    c = copy.deepcopy(a)
    c["centre"][1]["size"] = 4
    assert not np.array_equal(render_rgb(a), render_rgb(c))


def test_counts_and_clock_change_the_image() -> None:
    base = render_rgb(_snapshot())
    for key, value in (("draw_pile", 13), ("side_pile", 4), ("played", 4), ("bounced", 2)):
        snap = _snapshot()
        snap["players"][0][key] = value
        assert not np.array_equal(base, render_rgb(snap)), key
    assert not np.array_equal(base, render_rgb(_snapshot(clock_ms=1300)))
    assert not np.array_equal(base, render_rgb(_snapshot(phase="over", winner="player_0")))


def test_none_slots_and_cards_in_flight_render() -> None:
    snap = _snapshot()
    base = render_rgb(snap)
    filled = copy.deepcopy(snap)
    filled["players"][0]["hand"][1] = "5S"
    assert not np.array_equal(base, render_rgb(filled))
    for seat in (0, 1):
        for pile in (0, 1, None):
            flying = copy.deepcopy(snap)
            flying["players"][seat]["in_flight"] = {"card": "10S", "pile": pile, "lands_ms": 1400}
            img = render_rgb(flying)
            assert img.shape == base.shape
            assert not np.array_equal(base, img), (seat, pile)


@pytest.mark.parametrize("preset", PRESETS)
def test_all_presets_render(preset: str) -> None:
    snap = _snapshot(preset, phase="over", winner="player_0")
    snap["players"][1]["in_flight"] = {"card": "AS", "pile": 0, "lands_ms": 1500}
    img = render_rgb(snap)
    assert img.shape == rgb_shape(2) and img.dtype == np.uint8
    text = render_ansi(snap)
    assert f"Speed ({preset})" in text and "winner: player_0" in text
