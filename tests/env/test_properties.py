"""Properties of the environment over random seeds, option sets and random
action sequences (hypothesis), checked through the public contract:

* every card is in exactly one place after every step (``table()``), from
  seeded deals and from random explicit deals taken mid-game;
* the action mask equals legality computed here from ``table()`` alone
  (rank ±1, wrap, same_rank, jokers and their owners, stack/multi moves,
  in flight => only wait, the stuck phase and play-out flip choices), and
  the phase agrees with the stuck test of docs/rules.md;
* permuting the cards hidden from a player does not change that player's
  observation while they stay hidden;
* every game ends by the hard cap ``max_game_ms`` with the right rewards.

Example counts are kept modest so that the file runs in well under a minute.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from helpers_deal import AGENTS, all_cards, full_deck, rank_index
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import speed_env

OPTION_SETS = [
    ("us", {}),
    ("us", {"wrap": False}),
    ("us", {"same_rank": True}),
    ("us", {"reserve_rule": "lock", "stuck_countdown_ms": 300}),
    ("us", {"stuck_countdown_ms": 0}),
    ("pagat", {}),
    ("pagat", {"wrap": False, "same_rank": True, "stuck_countdown_ms": 250}),
    ("japanese", {}),
    ("japanese", {"jokers": True}),
    ("japanese", {"play_out": True, "jokers": True, "stuck_countdown_ms": 400}),
    ("japanese", {"stack_layout": True, "multi_play": True}),
    (
        "japanese",
        {
            "stack_layout": True,
            "multi_play": True,
            "play_out": True,
            "jokers": True,
            "same_rank": True,
            "wrap": False,
            "stuck_countdown_ms": 200,
        },
    ),
]
REACTIONS = [(100, 200), (100, 100), 50, "human", ("superhuman", "casual"), (37, 90)]
TICKS = [20, 50, 100]

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

game_setup = st.tuples(
    st.sampled_from(range(len(OPTION_SETS))),
    st.sampled_from(REACTIONS),
    st.sampled_from(TICKS),
    st.integers(0, 2**63 - 1),  # deal seed
    st.integers(0, 2**32 - 1),  # action seed
)


def make(setup, **extra):
    i, reaction, tick, seed, aseed = setup
    rules, options = OPTION_SETS[i]
    env = speed_env.parallel_env(rules, tick_ms=tick, reaction=reaction, **{**options, **extra})
    return env, seed, np.random.default_rng(aseed)


def choose(obs, rng, agent, n_actions, p_illegal=0.1):
    """Mostly a random legal action; sometimes any in-space action (an illegal one is a wait)."""
    if rng.random() < p_illegal:
        return int(rng.integers(n_actions))
    legal = np.flatnonzero(obs[agent]["action_mask"])
    return int(rng.choice(legal))


# ----------------------------------------------------------------- legality from the table alone


def _rank(token: str) -> int:
    return rank_index(token)


def legal_on(rules, r: int, top: str, owner, p: int) -> bool:
    """May seat ``p`` put a card of rank ``r`` on a pile whose top is ``top``?"""
    tr = _rank(top)
    if tr == 13:  # a joker on top: only its owner, with anything
        return owner == p
    if r == 13:  # a joker goes on any other top
        return True
    d = abs(r - tr)
    return d == 1 or (rules.wrap and d == 12) or (rules.same_rank and d == 0)


def has_ordinary_play(rules, t, p: int) -> bool:
    ranks = {_rank(c) for c in t["players"][p]["hand"] if c is not None}
    return any(
        legal_on(rules, r, t["centre"][k][0], t["top_owner"][k], p) for r in ranks for k in (0, 1)
    )


def brute_mask(rules, t, p: int) -> list[int]:
    """The action mask of seat ``p``, from docs/rules.md and ``table()`` only."""
    nr = rules.n_ranks
    n = 1 + 2 * nr + (nr if rules.stack_layout else 0) + (2 * nr if rules.multi_play else 0)
    m = [0] * n
    m[0] = 1
    me = t["players"][p]
    if t["phase"] == "over" or me["in_flight"] is not None:
        return m
    ranks = [_rank(c) for c in me["hand"] if c is not None]
    if t["phase"] == "stuck":
        if rules.play_out and not me["draw_pile"]:  # flip choice: any layout card, either pile
            for r in set(ranks):
                m[1 + 2 * r] = m[2 + 2 * r] = 1
        return m
    for r in set(ranks):
        for k in (0, 1):
            m[1 + 2 * r + k] = int(legal_on(rules, r, t["centre"][k][0], t["top_owner"][k], p))
    pairs = {r for r, c in Counter(ranks).items() if c >= 2 and r != 13}
    base = 1 + 2 * nr
    if rules.stack_layout:
        if me["draw_pile"]:
            for r in pairs:
                m[base + r] = 1
        base += nr
    if rules.multi_play:
        for r in pairs:
            for k in (0, 1):
                m[base + 2 * r + k] = int(
                    legal_on(rules, r, t["centre"][k][0], t["top_owner"][k], p)
                )
    return m


def check_table(env, obs) -> None:
    """Every invariant of one moment of the game."""
    rules = env.unwrapped.rules
    t = env.unwrapped.table()
    # every card in exactly one place
    assert Counter(all_cards(t)) == Counter(full_deck(rules.jokers)), "cards lost or duplicated"
    for p in range(2):
        pl = t["players"][p]
        if pl["in_flight"] is not None:
            for slot in pl["in_flight"]["slots"]:
                assert pl["hand"][slot] is None, "a slot whose card is in flight shows None"
    # the mask, from the table alone
    for p, agent in enumerate(AGENTS):
        got = obs[agent]["action_mask"].tolist()
        assert got == brute_mask(rules, t, p), (agent, t)
    # the phase agrees with the stuck test
    if t["phase"] != "over":
        flying = any(
            pl["in_flight"] is not None and pl["in_flight"]["kind"] != "flip_choice"
            for pl in t["players"]
        )
        stuck = (
            not flying and not has_ordinary_play(rules, t, 0) and not has_ordinary_play(rules, t, 1)
        )
        assert (t["phase"] == "stuck") == stuck, t
        assert (t["flip_ms"] is not None) == (t["phase"] == "stuck")
        if t["flip_ms"] is not None:
            assert t["clock_ms"] <= t["flip_ms"] <= t["clock_ms"] + rules.stuck_countdown_ms
    # the public snapshot agrees with the table
    s = env.unwrapped.snapshot()
    for p in range(2):
        assert s["players"][p]["hand"] == t["players"][p]["hand"]
        assert s["players"][p]["draw_pile"] == len(t["players"][p]["draw_pile"])
        assert s["players"][p]["side_pile"] == len(t["side_piles"][p])
    assert [c["size"] for c in s["centre"]] == [len(c) for c in t["centre"]]


def random_deal(rules, rng) -> dict:
    """A random explicit deal, often from the middle of a game: short hands,
    short or empty draw piles and side piles, deep centre piles (japanese:
    each seat keeps its colour; sometimes no centre, to take the opening flip)."""
    hs = rules.hand_size
    if rules.is_japanese:
        seats = [
            [c for c in full_deck(rules.jokers) if (c in ("RJ",) or c[-1] in "HD") == red]
            for red in (True, False)
        ]
        seats = [[s[j] for j in rng.permutation(len(s))] for s in seats]
        hands = [s[: int(rng.integers(1, hs + 1))] for s in seats]
        opening = rng.random() < 0.3
        draws, centre = [], [[], []]
        for p, s in enumerate(seats):
            rest = s[len(hands[p]) :]
            n = (
                len(rest) if opening else int(rng.integers(0, len(rest)))
            )  # leave >= 1 for the centre
            draws.append(rest[:n])
            centre[p] = rest[n:]
        deal = {"hands": hands, "draw_piles": draws}
        if not opening:
            deal["centre"] = centre
        return deal
    deck = full_deck()
    deck = [deck[j] for j in rng.permutation(52)]
    cut = []
    for size in (
        int(rng.integers(1, hs + 1)),
        int(rng.integers(1, hs + 1)),
        int(rng.integers(0, rules.draw_size + 1)),
        int(rng.integers(0, rules.draw_size + 1)),
        int(rng.integers(0, rules.side_size + 1)),
        int(rng.integers(0, rules.side_size + 1)),
    ):
        cut.append(deck[:size])
        deck = deck[size:]
    k = int(rng.integers(1, len(deck)))
    return {
        "hands": cut[0:2],
        "draw_piles": cut[2:4],
        "side_piles": cut[4:6],
        "centre": [deck[:k], deck[k:]],
    }


@SETTINGS
@given(setup=game_setup, steps=st.integers(50, 300), explicit=st.booleans())
def test_cards_masks_and_phase_after_every_step(setup, steps, explicit):
    env, seed, rng = make(setup)
    n = env.action_space("player_0").n
    if explicit:
        obs, _ = env.reset(seed=seed, options={"deal": random_deal(env.unwrapped.rules, rng)})
    else:
        obs, _ = env.reset(seed=seed)
    check_table(env, obs)
    for _ in range(steps):
        if not env.agents:
            break
        actions = {a: choose(obs, rng, a, n) for a in env.agents}
        obs, *_ = env.step(actions)
        check_table(env, obs)


@settings(
    max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(setup=game_setup)
def test_invariants_hold_to_the_end_of_fast_games(setup):
    """The same checks through whole (short) games: wins, locks, rebuilds, play-out ends."""
    env, seed, rng = make(setup, max_game_ms=40_000)
    n = env.action_space("player_0").n
    obs, _ = env.reset(seed=seed)
    while env.agents:
        obs, *_ = env.step({a: choose(obs, rng, a, n, p_illegal=0.0) for a in env.agents})
        check_table(env, obs)


# ----------------------------------------------------------------- hidden information


def _permute_hidden(deal: dict, rules, viewer: int, rng) -> dict:
    """Shuffle the cards ``viewer`` cannot see among their places (pile sizes kept).

    us/pagat: the other player's hand and draw pile and both side piles;
    japanese: the other player's stock below its top (the top is turned up
    by the opening flip; the layouts are face up).
    """
    other = 1 - viewer
    d = {k: [list(p) for p in v] for k, v in deal.items()}
    if rules.is_japanese:
        places = [("draw_piles", other, 1)]
    else:
        places = [
            ("hands", other, 0),
            ("draw_piles", other, 0),
            ("side_piles", 0, 0),
            ("side_piles", 1, 0),
        ]
    pool = [c for key, i, skip in places for c in d[key][i][skip:]]
    pool = [pool[j] for j in rng.permutation(len(pool))]
    for key, i, skip in places:
        n = len(d[key][i]) - skip
        d[key][i] = d[key][i][:skip] + pool[:n]
        pool = pool[n:]
    return d


@SETTINGS
@given(
    setup=game_setup,
    viewer=st.sampled_from([0, 1]),
    perm_seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 60),
)
def test_hidden_cards_do_not_change_the_other_players_observation(setup, viewer, perm_seed, steps):
    """The viewer plays (random legal actions), the other player waits. Until
    the table is stuck (a public event that depends on the other player's
    hand and that leads to a flip, which turns hidden cards up), nothing the
    viewer observes may depend on where the cards hidden from them lie."""
    env_a, seed, rng = make(setup)
    env_b, _, _ = make(setup)
    rules = env_a.unwrapped.rules
    me, them = AGENTS[viewer], AGENTS[1 - viewer]
    deal = speed_env.deal_from_seed(rules, seed).to_dict()
    other = _permute_hidden(deal, rules, viewer, np.random.default_rng(perm_seed))
    assert other != deal
    obs_a, _ = env_a.reset(seed=seed, options={"deal": deal})
    obs_b, _ = env_b.reset(seed=seed, options={"deal": other})
    for step in range(steps + 1):
        snaps = [env_a.unwrapped.snapshot(), env_b.unwrapped.snapshot()]
        if {s["phase"] for s in snaps} != {"play"} or any(s["flips"] for s in snaps):
            break  # (with stuck_countdown_ms=0 the flip comes in the very tick the table is stuck)
        for part in ("observation", "action_mask"):
            np.testing.assert_array_equal(
                obs_a[me][part], obs_b[me][part], err_msg=f"step {step} {part}"
            )
        act = int(rng.choice(np.flatnonzero(obs_a[me]["action_mask"])))
        obs_a, *_ = env_a.step({me: act, them: 0})
        obs_b, *_ = env_b.step({me: act, them: 0})


# ----------------------------------------------------------------- the hard cap


@settings(
    max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(setup=game_setup, cap=st.integers(1, 30_000))
def test_every_game_ends_by_max_game_ms(setup, cap):
    env, seed, rng = make(setup, max_game_ms=cap)
    tick = setup[2]
    n = env.action_space("player_0").n
    obs, _ = env.reset(seed=seed)
    limit = -(-cap // tick)  # the step whose tick reaches the cap is the last one
    steps = 0
    result = None
    while env.agents:
        assert steps < limit, "the game ran past max_game_ms"
        result = env.step({a: choose(obs, rng, a, n) for a in env.agents})
        obs = result[0]
        steps += 1
    _, rew, term, trunc, info = result
    s = env.unwrapped.snapshot()
    assert s["clock_ms"] == steps * tick <= limit * tick
    assert term["player_0"] == term["player_1"] and trunc["player_0"] == trunc["player_1"]
    assert term["player_0"] != trunc["player_0"]
    if trunc["player_0"]:
        assert steps == limit and s["winner"] is None and s["truncated"]
        assert rew == {"player_0": 0.0, "player_1": 0.0}
    else:
        assert s["winner"] in ("player_0", "player_1", "draw")
        if s["winner"] == "draw":
            assert rew == {"player_0": 0.0, "player_1": 0.0}
        else:
            w = s["winner"]
            assert rew[w] == 1.0 and rew[next(a for a in AGENTS if a != w)] == -1.0
        assert info["player_0"]["winner"] == s["winner"]
