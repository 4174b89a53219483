"""Differential tests of three and four players: the batched engine against the plain referee.

The n-seat games (docs/rules.md, "Party Speed") run on the engine's own door,
:class:`speed_env.seats.SeatGames` (the envs seat two players yet), and one
:class:`tests.referee.Referee` per game plays the same rules in plain Python.
Both get the same seeded actions (mostly random legal ones from the mask, some
waits, a few random in-space actions that are often illegal and must count as
waits) and are compared transition by transition: every seat's mask, the
rewards and the whole table (every pile in order, every flight and counter)
after every step of every game. A finished game's slot is dealt the next seed.

The option sets cover three and four players in ``us`` and ``pagat``, wild
jokers, hand sizes 3 … 7, both reserve rules, the idle rule and truncation, and
``japanese`` (one suit of both decks each: owned jokers, stacks, multi-plays, play-out);
each must reach the rules it is there for (``MUST_SEE``: three cards landing
at one millisecond, rebuilds, locks, jokers placed and covered …) in the games
it plays, so a rule the random games never reach cannot pass unnoticed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from referee import Referee

from speed_env.reaction import ReactionProfile, fixed, make_profile
from speed_env.rules import Rules, make_rules
from speed_env.seats import SeatGames

OPTION_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "us-3": ("us", {"players": 3}),
    "us-4": ("us", {"players": 4}),
    "pagat-3": ("pagat", {"players": 3}),
    # A short idle period flips the side piles often: they run out, and lock the game.
    "pagat-4-lock-idle": ("pagat", {"players": 4, "reserve_rule": "lock", "idle_flip_ms": 60}),
    "us-3-jokers": ("us", {"players": 3, "jokers": True}),
    "us-4-jokers-hand3": ("us", {"players": 4, "jokers": True, "hand_size": 3}),
    "pagat-3-jokers-hand7-nowrap": (
        "pagat",
        {"players": 3, "jokers": True, "hand_size": 7, "wrap": False},
    ),
    "us-4-same_rank-idle": ("us", {"players": 4, "same_rank": True, "idle_flip_ms": 150}),
    "us-3-hand6-lock-idle": (
        "us",
        {"players": 3, "hand_size": 6, "reserve_rule": "lock", "idle_flip_ms": 120},
    ),
    # Frequent flips at once: several a tick, side piles rebuilt from their centre piles.
    "us-4-countdown0-idle": ("us", {"players": 4, "stuck_countdown_ms": 0, "idle_flip_ms": 60}),
    "us-3-max_game_ms": ("us", {"players": 3, "max_game_ms": 3_000, "idle_flip_ms": 0}),
    # japanese: one suit of both decks per player, each stock flipping onto its own pile.
    "japanese-3": ("japanese", {"players": 3}),
    "japanese-4-jokers": ("japanese", {"players": 4, "jokers": True}),
    "japanese-3-play_out-stack": (
        "japanese",
        {"players": 3, "play_out": True, "stack_layout": True, "hand_size": 5},
    ),
    "japanese-4-multi-hand6": ("japanese", {"players": 4, "multi_play": True, "hand_size": 6}),
}

# What each option set's games must reach (keys of the referee's ``seen``), beside a
# tie of two, a bounce and a flip, which every set must show.
MUST_SEE: dict[str, tuple[str, ...]] = {
    "us-3": ("tie3",),
    "us-4": ("tie3",),
    "pagat-3": ("tie3",),
    "pagat-4-lock-idle": ("tie3", "idle", "empty_lock"),
    "us-3-jokers": ("joker_placed", "wild_covered", "joker_flipped"),
    "us-4-jokers-hand3": ("tie3", "joker_placed", "wild_covered"),
    "pagat-3-jokers-hand7-nowrap": ("joker_placed", "wild_covered"),
    "us-4-same_rank-idle": ("tie3", "idle"),
    "us-3-hand6-lock-idle": ("idle", "empty_lock"),
    "us-4-countdown0-idle": ("tie3", "multi_flip_tick", "rebuild"),
    "us-3-max_game_ms": ("truncated",),
    "japanese-3": ("tie3",),
    "japanese-4-jokers": ("tie3", "joker_placed", "joker_blocked"),
    "japanese-3-play_out-stack": ("stack", "flip_choice", "default_layout_flip"),
    "japanese-4-multi-hand6": ("multi",),
}

# Reaction profiles (one per seat, the first ``players`` used), tick, chance to wait.
CONFIGS: list[tuple[tuple[ReactionProfile, ...], int, float]] = [
    ((fixed(250),) * 4, 50, 0.25),  # lock-step: landings of three and four seats tie
    (
        (make_profile("human"), make_profile("pro"), make_profile("human"), fixed(200)),
        100,
        0.3,
    ),
    ((fixed(20),) * 4, 100, 0.25),  # shorter than the tick: ties, two landings a tick
    # A lazy table: seats that mostly wait let the idle rule flip the side piles until
    # they run out (rebuilds, locks, several flips in one tick).
    ((fixed(30), make_profile("human"), fixed(30), make_profile("pro")), 250, 0.9),
]

SLOTS = 8  # games stepped at once
FAST_GAMES = 12  # per option set and config
SLOW_GAMES = 60  # per option set and config: 5x the fast run, about 90 s of the suite on 2 cores
P_ANY = 0.04  # a uniformly random in-space action (often illegal: counted as a wait)


def rules_of(name: str) -> Rules:
    preset, options = OPTION_SETS[name]
    return make_rules(preset, **options)


def first_difference(ref: Any, eng: Any, path: str = "table") -> str | None:
    """The first path where two nested values differ, with both values; None if equal."""
    if isinstance(ref, dict) and isinstance(eng, dict):
        for key in sorted(set(ref) | set(eng), key=str):
            if key not in ref or key not in eng:
                return f"{path}[{key!r}] only in {'engine' if key in eng else 'referee'}"
            found = first_difference(ref[key], eng[key], f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(ref, list) and isinstance(eng, list) and len(ref) == len(eng):
        for i, (a, b) in enumerate(zip(ref, eng, strict=True)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if ref == eng else f"{path}: referee {ref!r}, engine {eng!r}"


def run_games(name: str, config: int, games: int, seed: int) -> dict[str, int]:
    """Play ``games`` games in the engine and the referee, comparing after every step; return
    how often each rule fired (the referee's ``seen``) and how many games and steps ran."""
    rules = rules_of(name)
    n_seats = rules.players
    profiles, tick_ms, p_wait = CONFIGS[config]
    reactions = profiles[:n_seats]
    slots = min(SLOTS, games)
    eng = SeatGames(slots, rules, tick_ms=tick_ms, reactions=reactions, seed=seed)
    next_seed = seed + slots
    refs = [Referee(rules, reactions, tick_ms, seed + i) for i in range(slots)]
    assert eng.n_actions == refs[0].n_actions
    gen = np.random.default_rng([seed, config, len(name)])
    history: list[list[list[int]]] = [[] for _ in range(slots)]
    stats: dict[str, int] = {"games": 0, "steps": 0}

    def check(i: int, when: str) -> None:
        ref_table, eng_table = refs[i].table(), eng.table(i)
        if ref_table != eng_table:
            raise AssertionError(
                f"engine != referee: {name} (rules {rules.to_dict()}), config {config}, "
                f"seed {refs[i].seed}, {when}, actions {history[i][-4:]} (step "
                f"{len(history[i])}): {first_difference(ref_table, eng_table)}"
            )

    for i in range(slots):
        check(i, "at the deal")
    finished = 0
    while finished < games:
        masks = eng.masks()
        actions = np.zeros((n_seats, slots), np.int64)
        for i in range(slots):
            for p in range(n_seats):
                want = refs[i].legal_mask(p)
                if list(masks[p, i]) != want:
                    raise AssertionError(
                        f"{name} seed {refs[i].seed} step {len(history[i])}: seat {p}'s mask "
                        f"engine {np.flatnonzero(masks[p, i]).tolist()} != referee "
                        f"{[a for a, m in enumerate(want) if m]}"
                    )
                if gen.random() < P_ANY:
                    actions[p, i] = gen.integers(eng.n_actions)
                elif gen.random() >= p_wait:
                    actions[p, i] = gen.choice(np.flatnonzero(masks[p, i]))
        rewards = eng.step(actions)
        stats["steps"] += 1
        for i in range(slots):
            history[i].append(actions[:, i].tolist())
            ref_rewards, terminated, truncated = refs[i].step(*actions[:, i].tolist())
            assert rewards[:, i].tolist() == pytest.approx(list(ref_rewards), abs=1e-7), (
                f"{name} seed {refs[i].seed}: rewards engine {rewards[:, i]} != {ref_rewards}"
            )
            check(i, "after a step")
            if terminated or truncated:
                assert eng.over[i]
                points = eng.points()  # None in japanese (no match scoring), in both
                got = None if points is None else tuple(points[:, i].tolist())
                assert got == refs[i].points(), (
                    f"{name} seed {refs[i].seed}: points engine {got} != referee {refs[i].points()}"
                )
                assert abs(float(rewards[:, i].sum())) < 1e-6  # zero-sum, or all 0
                stats["games"] += 1
                finished += 1
                for key, count in refs[i].seen.items():
                    stats[key] = stats.get(key, 0) + count
                refs[i] = Referee(rules, reactions, tick_ms, next_seed)
                eng.reset_game(i, next_seed)
                history[i] = []
                next_seed += 1
                check(i, "at the deal")
            else:
                assert not eng.over[i]
    return stats


def _coverage(name: str, games: int, seed: int) -> dict[str, int]:
    total: dict[str, int] = {}
    for config in range(len(CONFIGS)):
        for key, count in run_games(name, config, games, seed + 1000 * config).items():
            total[key] = total.get(key, 0) + count
    return total


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_engine_matches_referee_with_three_and_four_players(name):
    stats = _coverage(name, FAST_GAMES, seed=10_000)
    missing = [k for k in ("tie", "bounce", *MUST_SEE[name]) if stats.get(k, 0) == 0]
    assert not missing, f"{name}: {missing} never happened in the games played; {stats}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_engine_matches_referee_with_three_and_four_players_many_games(name):
    stats = _coverage(name, SLOW_GAMES, seed=900_000)
    missing = [k for k in ("tie", "bounce", *MUST_SEE[name]) if stats.get(k, 0) == 0]
    assert not missing, f"{name}: {missing} never happened in the games played; {stats}"


def test_every_option_set_has_a_coverage_list():
    assert set(MUST_SEE) == set(OPTION_SETS)
