"""The compiled observation and the fused step agree with plain Python, on many seeded games.

``reference_observation`` reads one game's record the slow, obvious way,
field by field as the table in ``speed_env.observation`` describes it. The
compiled kernel (both seats in one pass, counts packed in registers) must
give exactly the same floats, and ``BatchEnv.step`` (step and observe fused
in one pass) must give exactly what the plain engine step followed by a
plain observation gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numba import njit

import speed_env
from speed_env import engine
from speed_env.observation import field_starts, obs_dim, observation_layout, observe_all, rules_tag
from speed_env.rules import Rules, make_rules

VARIANTS = [
    ("us", {}),
    ("pagat", {"reserve_rule": "lock"}),
    ("us", {"same_rank": True, "wrap": False}),
    ("japanese", {}),
    ("japanese", {"jokers": True, "play_out": True}),
    ("japanese", {"stack_layout": True, "multi_play": True, "jokers": True}),
]


def _rank(card: int) -> int:
    return 13 if card >= 52 else card % 13


def reference_observation(g: Any, rules: Rules, p: int) -> np.ndarray:
    """Seat ``p``'s observation of game record ``g``, computed plainly from the field table."""
    nr, hs, deck = rules.n_ranks, rules.hand_size, rules.deck_size
    lay = observation_layout(rules)
    out = np.zeros(obs_dim(rules), np.float64)
    o = 1 - p
    t = int(g["clock"])
    unknown = [4] * 13 + ([2] if nr == 14 else [])

    def cards_of(q: int) -> tuple[list[int], list[int]]:
        tops = [int(c) for c in g["hand"][q, :hs] if c >= 0]
        under = [int(g["stk"][q, i, j]) for i in range(hs) for j in range(int(g["stk_n"][q, i]))]
        return tops, under

    for q in range(2):
        for j in range(int(g["fl_n"][q])):
            unknown[_rank(int(g["fl_cards"][q, j]))] -= 1
    for k in range(2):
        for j in range(int(g["centre_n"][k])):
            unknown[_rank(int(g["centre"][k, j]))] -= 1
    tops, under = cards_of(p)
    for c in tops:
        out[lay["hand"].start + _rank(c)] += 0.25
        unknown[_rank(c)] -= 1
    for c in under:
        out[lay["stacked"].start + _rank(c)] += 0.25
        unknown[_rank(c)] -= 1
    for k in range(2):
        n = int(g["centre_n"][k])
        if n:
            top = _rank(int(g["centre"][k, n - 1]))
            out[lay["centre_top"].start + k * nr + top] = 1
            owner = int(g["top_owner"][k])
            if top == 13 and owner >= 0:
                out[lay["centre_joker"].start + 2 * k + (0 if owner == p else 1)] = 1
        out[lay["centre_size"].start + k] = n / deck
    for q, field in ((p, "my_flight"), (o, "opp_flight")):
        kind = int(g["fl_kind"][q])
        if kind != engine.K_NONE:
            at = lay[field].start
            out[at + _rank(int(g["fl_cards"][q, 0]))] = 1
            if kind != engine.K_STACK:
                out[at + nr + int(g["fl_pile"][q])] = 1
            out[at + nr + 2] = min(1.0, max(0.0, (int(g["fl_land"][q]) - t) / 1000.0))
    if rules.is_japanese:
        opp_tops, opp_under = cards_of(o)
        for c in opp_tops + opp_under:
            out[lay["opp_layout"].start + _rank(c)] += 0.25
            unknown[_rank(c)] -= 1
    for q, field in ((p, "my_cards"), (o, "opp_cards")):
        q_tops, q_under = cards_of(q)
        draw = int(g["draw_n"][q])
        left = len(q_tops) + len(q_under) + draw + int(g["fl_n"][q])
        out[lay[field]] = [len(q_tops) / hs, min(1.0, draw / 27.0), min(1.0, left / 27.0)]
    out[lay["side_piles"]] = [int(g["side_n"][0]) / deck, int(g["side_n"][1]) / deck]
    out[lay["unknown"]] = [max(0, u) / 4.0 for u in unknown]
    if int(g["phase"]) == engine.STUCK:
        cd = rules.stuck_countdown_ms
        out[lay["phase"]] = [
            1.0,
            0.0 if cd <= 0 else min(1.0, max(0.0, (int(g["flip_at"]) - t) / cd)),
        ]
    out[lay["seat"]] = p
    out[lay["clock"]] = min(1.0, t / rules.max_game_ms)
    out[lay["rules"]] = rules_tag(rules)
    if rules.is_japanese:
        for j in range(int(g["draw_n"][p])):
            out[lay["my_colour_unseen"].start + _rank(int(g["draw"][p, j]))] += 0.25
        for c in cards_of(o)[1]:
            out[lay["opp_stacked"].start + _rank(c)] += 0.25
    for k in range(2):
        if int(g["rebuilds"][k]) > 0:
            for j in range(int(g["side_n"][k])):
                out[lay["side_known"].start + k * nr + _rank(int(g["side"][k, j]))] += 0.25
        out[lay["idle_rebuilds"].start + k] = float(int(g["idle_rebuilds"][k]) > 0)
    idle = rules.idle_flip_ms
    out[lay["since_placed"]] = (
        0.0 if idle == 0 else min(1.0, max(0.0, (t - int(g["placed_at"])) / idle))
    )
    return out.astype(np.float32)


@njit(cache=True)
def _field_starts(nr: int) -> tuple[int, ...]:
    return field_starts(nr)


@pytest.mark.parametrize(
    "rules", [Rules(), make_rules("japanese", jokers=True)], ids=["R13", "R14"]
)
def test_kernel_field_offsets_are_the_published_layout(rules: Rules) -> None:
    starts = [s.start for s in observation_layout(rules).values()]
    assert list(_field_starts(rules.n_ranks)) == starts


def _random_legal(rng: np.random.Generator, mask: np.ndarray, wait_weight: float) -> np.ndarray:
    keys = rng.random(mask.shape)
    keys[..., 0] *= wait_weight
    return np.where(mask > 0, keys, -1.0).argmax(axis=-1)


@pytest.mark.parametrize(("preset", "options"), VARIANTS)
def test_compiled_observation_is_the_plain_one(preset: str, options: dict[str, Any]) -> None:
    rules = make_rules(preset, **options)
    n = 16
    env = speed_env.BatchEnv(n, rules)
    obs, mask = env.reset(seed=7)
    rng = np.random.default_rng(3)
    seen = set()
    for step in range(400):
        if step % 9 == 0:
            for b in range(n):
                g = env.games.state[b]
                for p in range(2):
                    np.testing.assert_array_equal(obs[p, b], reference_observation(g, rules, p))
                seen.add(("phase", int(g["phase"])))
                seen.add(("flying", int(g["fl_kind"][0]) != engine.K_NONE))
        obs, mask, *_ = env.step(_random_legal(rng, mask, wait_weight=0.4))
    # The checked states include play, a stuck countdown and cards in the air.
    assert {("phase", engine.PLAY), ("phase", engine.STUCK), ("flying", True)} <= seen


@pytest.mark.parametrize(
    ("preset", "options", "copy", "threads"),
    [
        ("us", {}, True, 1),
        ("pagat", {"max_game_ms": 4000}, False, 2),
        ("japanese", {"jokers": True, "play_out": True}, True, 3),
        ("japanese", {"stack_layout": True, "multi_play": True}, False, 1),
    ],
)
def test_fused_batch_step_is_the_plain_step_then_observe(
    preset: str, options: dict[str, Any], copy: bool, threads: int
) -> None:
    """BatchEnv.step (one pass that rewrites only what changed, restarts included, the games
    shared out among threads) against engine.step_all + a whole observe_all on every step."""
    n = 24
    env = speed_env.BatchEnv(n, preset, copy=copy, threads=threads, **options)
    obs, mask = env.reset(seed=11)
    plain = env.games.state.copy()
    g = env.games
    rng = np.random.default_rng(5)
    restarts = np.zeros(n, np.int64)
    ended = 0
    first = obs
    for _ in range(500):
        a = _random_legal(rng, mask, wait_weight=0.3)
        if rng.random() < 0.1:
            a = rng.integers(0, g.n_actions, a.shape)  # illegal ones too
        want_illegal = np.take_along_axis(mask, a[..., None], axis=2)[..., 0] == 0
        obs, mask, rewards, term, trunc, info = env.step(a)
        want_rewards = np.zeros((2, n), np.float32)
        engine.step_all(plain, g.cfg, g.lat, a, want_rewards)
        want_obs = np.empty_like(obs)
        want_mask = np.empty_like(mask)
        over = plain["phase"] == engine.OVER
        observe_all(plain, g.cfg, want_obs, want_mask)
        np.testing.assert_array_equal(info["illegal"], want_illegal)
        np.testing.assert_array_equal(rewards, want_rewards)
        np.testing.assert_array_equal(term | trunc, over)
        np.testing.assert_array_equal(trunc, over & plain["truncated"])
        if over.any():
            np.testing.assert_array_equal(info["final_obs"][:, over], want_obs[:, over])
            ended += int(over.sum())
            for b in np.flatnonzero(over):
                restarts[b] += 1
                engine.deal_many(
                    plain, g.cfg, np.array([b]), np.array([11 + b + restarts[b] * n], np.uint64)
                )
            observe_all(plain, g.cfg, want_obs, want_mask)
        np.testing.assert_array_equal(obs, want_obs)
        np.testing.assert_array_equal(mask, want_mask)
        assert (obs is first) is not copy  # copy=False hands out the same buffer every step
    assert ended > 0
