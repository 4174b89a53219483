"""The game object: settings checked once, results read by name, a step over chosen games."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import pytest

from speed_env.game import Games
from speed_env.policy import sample_legal
from speed_env.rules import RulesError
from speed_env.settings import TableSettings, table_settings


def _random_actions(games: Games, rng: np.random.Generator) -> np.ndarray:
    """A random legal action for both seats of every game (waits in games that are over)."""
    _, mask = games.observe()
    n = games.n
    return sample_legal(mask.reshape(2 * n, -1), rng.random(2 * n)).reshape(2, n)


def _play_out(games: Games, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20_000):
        if games.over.all():
            return
        games.step(_random_actions(games, rng))
    raise AssertionError("the games did not end")


def test_settings_are_checked_once_and_passed_whole() -> None:
    settings = table_settings("japanese", tick_ms=20, reaction=100, jokers=True)
    assert isinstance(settings, TableSettings)
    assert settings.rules.jokers and settings.tick_ms == 20
    assert settings.reactions[0].mu == 100 and settings.reactions[1].mu == 100
    games = Games(2, settings)
    assert games.settings is settings and games.rules.jokers and games.tick_ms == 20
    assert table_settings(settings) is settings
    with pytest.raises(TypeError, match="either a TableSettings"):
        table_settings(settings, tick_ms=10)
    with pytest.raises(ValueError, match="illegal_action"):
        table_settings("us", illegal_action="ignore")
    with pytest.raises(RulesError, match="tick_ms"):
        table_settings("us", tick_ms=0)
    with pytest.raises(RulesError, match="colour"):
        table_settings("us", colour=True)


def test_results_by_name_match_the_game_ends() -> None:
    games = Games(6, "us", reaction=150)
    games.deal_seeded(np.arange(6), range(6))
    assert not games.over.any() and (games.winner == -1).all()
    _play_out(games)
    tables = [games.snapshot(b) for b in range(6)]
    stats = games.stats
    assert games.over.all()
    for b, snap in enumerate(tables):
        assert snap["phase"] == "over"
        winner = int(games.winner[b])
        assert snap["winner"] == {-1: None, 0: "player_0", 1: "player_1", 2: "draw"}[winner]
        assert bool(games.truncated[b]) == snap.get("truncated", False)
        for p in range(2):
            assert stats.played[p, b] == snap["players"][p]["played"]
            assert stats.bounced[p, b] == snap["players"][p]["bounced"]
        assert stats.clock_ms[b] == snap["clock_ms"]
    seats = np.array([0, 1, 0, 1, 0, 1])
    outcome = games.outcome(np.arange(6), seats)
    won = (games.winner == 0) | (games.winner == 1)
    assert np.array_equal(outcome[~won], np.zeros((~won).sum()))
    assert np.array_equal(outcome[won], np.where(games.winner[won] == seats[won], 1.0, -1.0))
    copy = games.winner
    copy[:] = 1  # a fresh array: the caller's to change, the games keep theirs
    assert not np.array_equal(games.winner, copy)


def test_stepping_chosen_games_moves_only_those() -> None:
    """Games 1 and 3 of four, stepped alone, follow exactly their twins stepped with the
    whole batch; games 0 and 2 do not move."""
    alone, whole = Games(4, "pagat"), Games(4, "pagat")
    for games in (alone, whole):
        games.deal_seeded(np.arange(4), [7, 8, 9, 10])
    still = alone.state[[0, 2]].copy()
    chosen = np.array([1, 3])
    rng = np.random.default_rng(3)
    ended_seen = np.zeros(2, bool)
    for _ in range(3000):
        actions = _random_actions(whole, rng)
        was_over = whole.over[chosen]
        ended = alone.step_games(chosen, actions[:, chosen])
        whole.step(actions)
        assert np.array_equal(ended, whole.over[chosen] & ~was_over)
        ended_seen |= ended
        if whole.over[chosen].all():
            break
    assert ended_seen.all()  # each game reported its end, once
    assert _same_records(alone.state[chosen], whole.state[chosen])
    assert _same_records(alone.state[[0, 2]], still)


def _same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Every field equal (the records' padding bytes are nobody's)."""
    return all(np.array_equal(a[name], b[name]) for name in a.dtype.names or ())


def test_an_image_frame_without_pillow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from speed_env.render.image import render_rgb
    from speed_env.render.text import render_ansi

    games = Games(1, "us")
    games.deal_seeded(np.zeros(1, np.int64), [0])
    snap = games.snapshot(0)
    real_import = builtins.__import__

    def no_pillow(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pillow)
    assert "player_0" in render_ansi(snap)  # text needs no Pillow
    with pytest.raises(ImportError, match=r"speed-rl\[render\]"):
        render_rgb(snap)
