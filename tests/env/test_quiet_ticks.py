"""Ticks where only the clock moves (``engine.quiet_ticks``), which the training env jumps over.

docs/rules.md "Time, reaction and simultaneous plays": a tick commits at the
clock, then resolves every landing, flip and idle countdown due by its end.
While none is due and both seats wait, a tick only moves the clock, so the
training env's skip loop (``train.vec_env.skip_loop.play_forced``) advances such a
game by ``k`` ticks at once. ``quiet_ticks`` must count exactly those ticks:
one too many would skip an event (a landing, the flip that ends a countdown,
an idle countdown's start, the truncation at ``max_game_ms``), one too few
only costs time. Scenarios use a fixed latency (player_0 300 ms, player_1
400 ms) and ``tick_ms=50``; the last test checks the count on many states of
random games of every preset.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_deal import build_deal, play

from speed_env.engine import OVER, quiet_ticks
from speed_env.game import Games


def table(rules="us", deal=None, **options):
    """One game from an explicit deal, player_0 landing 300 ms after a commit, player_1 400."""
    games = Games(1, rules, reaction=(300, 400), **options)
    games.deal_explicit(0, deal, seed=0)
    return games


def wait(games, ticks=1):
    for _ in range(ticks):
        games.step_games(np.array([0]), np.zeros((2, 1), np.int64))


def commit(games, p0=0, p1=0):
    games.step_games(np.array([0]), np.array([[p0], [p1]], np.int64))


def quiet(games):
    return quiet_ticks(games.state[0], games.cfg)


def moved_besides_the_clock(before, after):
    """bool per game: a field of the record other than the clock differs."""
    n = len(before)
    return np.any(
        [
            (before[f].reshape(n, -1) != after[f].reshape(n, -1)).any(axis=1)
            for f in before.dtype.names
            if f != "clock"
        ],
        axis=0,
    )


def playable_deal():
    """player_0 can put the 9D on the 8C; player_1 holds nothing that fits either pile."""
    return build_deal(
        "us",
        hands=["9D 2S 2H 2D 2C", "5S 5H 5D 5C 4S"],
        centre=["8C", "JH"],
        draw_piles=["KD", "KS"],
        avoid="7 9 10 Q",
    )


def test_a_card_in_flight_leaves_every_tick_before_its_landing_quiet():
    """player_0 commits the 9D at 0; it lands at 300. The ticks ending at 100 ... 250 only move
    the clock; the tick ending at 300 lands the card."""
    games = table(deal=playable_deal())
    commit(games, p0=play("9", 0))
    assert games.state[0]["clock"] == 50
    assert quiet(games) == 4
    before = games.state.copy()
    wait(games, 4)
    assert games.state[0]["clock"] == 250 and not moved_besides_the_clock(before, games.state)[0]
    assert quiet(games) == 0
    wait(games)
    assert games.stats.played[0, 0] == 1  # landed at 300


def test_a_stuck_countdown_is_quiet_until_the_tick_of_its_flip():
    """Nobody can play at the deal: the countdown runs from 0 to the flip at 1000, so the
    ticks ending at 50 ... 950 are quiet and the tick ending at 1000 flips."""
    deal = build_deal(
        "us", hands=["2S 2H 2D 2C 3S", "5S 5H 5D 5C 4S"], centre=["8C", "JH"], avoid="7 9 10 Q"
    )
    games = table(deal=deal)
    assert games.state[0]["flip_at"] == 1000
    assert quiet(games) == 19
    wait(games, 19)
    assert games.state[0]["flips"] == 0 and quiet(games) == 0
    wait(games)
    assert games.state[0]["flips"] == 1


def test_the_tick_that_reaches_max_game_ms_is_not_quiet():
    """A countdown that would flip at 1000 in a game cut at 300: quiet up to the tick ending
    at 250; the tick ending at 300 truncates the game."""
    deal = build_deal(
        "us", hands=["2S 2H 2D 2C 3S", "5S 5H 5D 5C 4S"], centre=["8C", "JH"], avoid="7 9 10 Q"
    )
    games = table(deal=deal, max_game_ms=300)
    assert quiet(games) == 5
    wait(games, 5)
    assert games.state[0]["phase"] != OVER
    wait(games)
    assert games.state[0]["truncated"]


def test_the_idle_countdown_starts_on_the_tick_its_period_runs_out():
    """player_0 holds a play and waits: with idle_flip_ms=1000 the table goes stuck at 1000
    (docs/rules.md "Idle"), so the ticks ending at 50 ... 950 are quiet, and the tick ending
    at 1000 starts the countdown."""
    games = table(deal=playable_deal(), idle_flip_ms=1000)
    assert quiet(games) == 19
    wait(games, 19)
    assert games.state[0]["flip_at"] == -1
    wait(games)
    assert games.state[0]["flip_at"] == 1000 + games.rules.stuck_countdown_ms


@pytest.mark.parametrize(
    ("rules", "options"),
    [
        ("us", {}),
        ("pagat", {"reserve_rule": "lock"}),
        ("japanese", {}),
        ("japanese", {"jokers": True, "play_out": True, "stack_layout": True, "multi_play": True}),
        ("us", {"idle_flip_ms": 0, "max_game_ms": 4000}),
    ],
    ids=["us", "pagat-lock", "japanese", "japanese-options", "us-no-idle-cut"],
)
def test_quiet_ticks_counts_exactly_the_ticks_that_move_only_the_clock(rules, options):
    """On every 7th tick of 96 random games: after ``quiet_ticks`` waits only the clock has
    changed, and one more wait changes something else (or ends the game)."""
    n = 96
    games = Games(n, rules, **options)
    games.deal_seeded(np.arange(n), list(range(n)))
    rng = np.random.default_rng(5)
    checked = 0
    for t in range(240):
        obs, mask = games.observe()
        if t % 7 == 0:
            ks = np.array([quiet_ticks(games.state[b], games.cfg) for b in range(n)])
            probe = Games(n, rules, **options)
            probe.state[:] = games.state
            probe.lat[:] = games.lat
            start = probe.state.copy()
            first_change = np.full(n, -1)
            for m in range(1, ks.max() + 2):
                probe.step_games(np.arange(n), np.zeros((2, n), np.int64))
                changed = moved_besides_the_clock(start, probe.state)
                first_change[(first_change < 0) & changed] = m
            running = start["phase"] != OVER
            assert (first_change[running] == ks[running] + 1).all()
            checked += int((ks[running] > 0).sum())
        actions = (rng.random(mask.shape) * mask).argmax(axis=2)
        actions[rng.random(actions.shape) < 0.7] = 0  # mostly waits: long quiet stretches
        games.step_games(np.arange(n), actions)
        over = np.flatnonzero(games.over)
        if over.size:
            games.deal_seeded(over, (over + 1000 * (t + 1)).tolist())
    assert checked > 200  # many states had quiet ticks ahead
