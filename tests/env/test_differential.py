"""Differential tests: the batched engine against the plain reference referee.

Both play docs/rules.md. ``BatchEnv`` and one :class:`tests.referee.Referee`
per game are driven with the same seeded random actions (mostly random legal
actions from the mask, some waits, a few illegal in-space actions, which must
count as waits) and compared transition by transition:

* every step, for every running game: both seats' masks, the rewards, the
  terminated/truncated flags, ``infos["illegal"]``, and a cheap signature of
  the table (clock, phase, flip time, pile sizes and tops, owners, hands,
  stacks, in-flight cards, counters) read straight from the engine's state
  arrays, so every event is checked the step it happens;
* the full ``table()`` dicts: at every deal, every step for the games of the
  first slot of each batch, and every ``FULL_EVERY`` steps for all the others
  (the hidden pile orders: draw piles, side piles after a rebuild);
* at the end of a game: rewards, flags and the winner, cards played and
  bounced, the game's length and (``us``/``pagat``) the match points from
  ``infos``. The engine restarts the slot at once (its ``k``-th restart is
  the game seeded ``seed + i + k * n``, as BatchEnv promises) and the slot
  gets a fresh referee, so a batch never idles on its longest game.

Explicit deals (positions random games rarely reach: a cycle lock, cards that
cycle for ever between unequal side piles, a stockless play-out player, a
dealt joker with no owner) go through ``parallel_env`` with full tables every
step, the final table included.

A failure names the option set, the reaction pair and tick, the game's seed,
the step and the first differing key, and writes the game's whole action
history to a JSON file (see :func:`replay`) to rerun it in the referee alone.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

import numpy as np
import pytest
from referee import OVER, STUCK, Referee

import speed_env
from speed_env import engine
from speed_env.reaction import ReactionProfile, fixed, make_profile
from speed_env.rules import Rules, make_rules

# ----------------------------------------------------------------------------- what is covered

OPTION_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "us": ("us", {}),
    "us-nowrap": ("us", {"wrap": False}),
    "us-same_rank": ("us", {"same_rank": True}),
    "us-lock": ("us", {"reserve_rule": "lock"}),
    "us-countdown0": ("us", {"stuck_countdown_ms": 0}),  # several flips in one tick
    "us-max_game_ms": ("us", {"max_game_ms": 5_000, "idle_flip_ms": 0}),  # truncation
    # A short idle period: idle countdowns while a player holds a play, some starting
    # at a landing after the period ran out, rebuilds and locks they bring on.
    "us-idle": ("us", {"idle_flip_ms": 150}),
    "pagat-lock-idle": ("pagat", {"reserve_rule": "lock", "idle_flip_ms": 120}),
    "pagat": ("pagat", {}),
    "pagat-lock": ("pagat", {"reserve_rule": "lock"}),
    "japanese": ("japanese", {}),
    "japanese-jokers": ("japanese", {"jokers": True}),
    "japanese-play_out": ("japanese", {"play_out": True}),
    "japanese-jokers-play_out-same_rank": (
        "japanese",
        {"jokers": True, "play_out": True, "same_rank": True},
    ),
    "japanese-stack_layout": ("japanese", {"stack_layout": True}),
    "japanese-idle": (
        "japanese",
        {"jokers": True, "play_out": True, "stack_layout": True, "idle_flip_ms": 150},
    ),
    "japanese-multi_play": ("japanese", {"multi_play": True}),
    "japanese-all": (
        "japanese",
        {
            "jokers": True,
            "play_out": True,
            "same_rank": True,
            "stack_layout": True,
            "multi_play": True,
            "wrap": False,
            "stuck_countdown_ms": 300,
        },
    ),
    # Party Speed's two-seat options: wild jokers in us/pagat, hand sizes 3 … 7.
    "us-jokers": ("us", {"jokers": True}),
    "pagat-jokers-nowrap-lock": ("pagat", {"jokers": True, "wrap": False, "reserve_rule": "lock"}),
    "us-jokers-same_rank-idle": ("us", {"jokers": True, "same_rank": True, "idle_flip_ms": 150}),
    "us-hand3": ("us", {"hand_size": 3}),
    "us-hand7-jokers": ("us", {"hand_size": 7, "jokers": True}),
    "pagat-hand3-jokers": ("pagat", {"hand_size": 3, "jokers": True}),
    "pagat-hand7": ("pagat", {"hand_size": 7}),
    "japanese-hand3-jokers-play_out": (
        "japanese",
        {"hand_size": 3, "jokers": True, "play_out": True},
    ),
    "japanese-hand7-stack-multi": (
        "japanese",
        {"hand_size": 7, "stack_layout": True, "multi_play": True, "jokers": True},
    ),
}

# (reaction pair, tick_ms, each seat's chance to wait): every option set is played
# under each, its games split evenly.
CONFIGS: list[tuple[tuple[ReactionProfile, ReactionProfile], int, tuple[float, float]]] = [
    ((fixed(250), fixed(250)), 50, (0.25, 0.25)),  # lock-step: many exact landing ties
    ((make_profile("human"), make_profile("pro")), 100, (0.25, 0.25)),  # jittered presets
    # A latency shorter than the tick, against a lazy seat (it lets countdowns run
    # out without a flip choice, so play-out's default layout flip happens too).
    ((fixed(30), make_profile("human")), 50, (0.25, 0.85)),
    (
        (fixed(20), fixed(20)),
        100,
        (0.25, 0.25),
    ),  # both shorter than the tick: ties, two landings a tick
]

FAST_GAMES = 32  # per option set, not marked slow
SLOW_GAMES = 1000  # per option set, marked slow: the full comparison with the referee
FULL_EVERY = 32  # full-table comparison period, in steps, for every game
FULL_EACH_STEP = 1  # the first slot of each batch (its games in turn) gets a full table every step
SLOTS = 64  # games stepped at once per BatchEnv

P_ANY = 0.04  # a uniformly random in-space action (often illegal: counted as a wait)

_PHASE_CODE = {"play": engine.PLAY, STUCK: engine.STUCK, OVER: engine.OVER}
_KIND_CODE = {
    "play": engine.K_PLAY,
    "stack": engine.K_STACK,
    "multi": engine.K_MULTI,
    "flip_choice": engine.K_FLIP,
}
_WINNER_CODE = {None: -1, 0: 0, 1: 1, "draw": engine.DRAW}


def rules_of(name: str) -> Rules:
    preset, options = OPTION_SETS[name]
    return make_rules(preset, **options)


# ----------------------------------------------------------------------------- signatures

SIGNATURE_FIELDS = (
    "clock_ms phase flip_ms placed_ms centre_size[2] centre_top[2] top_owner[2] side_size[2] "
    "side_top[2] "
    "hand[2][H] stacked_size[2][H] draw_size[2] draw_top[2] flight_kind[2] flight_lands[2] "
    "flight_pile[2] flight_first_card[2] played[2] bounced[2] illegal[2] commits[2] flips "
    "reshuffles "
    "ties rebuilds[2] idle_rebuilds[2] winner truncated"
)


def _top(pile: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Top card of each (game, pile) of a bottom-first pile array, -1 when empty."""
    idx = np.maximum(n.astype(np.int64) - 1, 0)[..., None]
    return np.where(n > 0, np.take_along_axis(pile, idx, axis=-1)[..., 0], -1)


def engine_signatures(env: Any) -> list[list[int]]:
    """One int list per game (SIGNATURE_FIELDS) read from the engine's state arrays at once.

    This is the one place that reads the engine's private record (the fields
    listed in ``speed_env/engine.py``'s docstring): a full ``table(i)`` per game
    per step would cost more than the referee itself. If the record changes,
    ``test_signature_names_cover_the_signature`` points here.
    """
    s = env.games.state
    n = env.n
    h = env.rules.hand_size  # the engine's records may have room for more slots than are used
    kind = s["fl_kind"].astype(np.int64)
    flying = kind != engine.K_NONE
    cols = [
        s["clock"][:, None],
        s["phase"][:, None],
        s["flip_at"][:, None],
        s["placed_at"][:, None],
        s["centre_n"],
        _top(s["centre"], s["centre_n"]),
        s["top_owner"],
        s["side_n"],
        _top(s["side"], s["side_n"]),
        s["hand"][:, :, :h].reshape(n, -1),
        s["stk_n"][:, :, :h].reshape(n, -1),
        s["draw_n"],
        _top(s["draw"], s["draw_n"]),
        kind,
        np.where(flying, s["fl_land"], -1),
        np.where(flying, s["fl_pile"], -1),
        np.where(flying, s["fl_cards"][..., 0], -1),
        s["played"],
        s["bounced"],
        s["illegal"],
        s["commits"],
        s["flips"][:, None],
        s["reshuffles"][:, None],
        s["ties"][:, None],
        s["rebuilds"],
        s["idle_rebuilds"],
        s["winner"][:, None],
        s["truncated"][:, None],
    ]
    return np.concatenate(
        [np.asarray(c, dtype=np.int64).reshape(n, -1) for c in cols], axis=1
    ).tolist()


def referee_signature(ref: Referee) -> list[int]:
    """The referee's table as SIGNATURE_FIELDS (same order and codes as the engine's)."""
    c0, c1 = ref.centre
    s0, s1 = ref.side
    d0, d1 = ref.draw
    o0, o1 = ref.top_owner
    f0, f1 = ref.flight
    sig = [
        ref.clock,
        _PHASE_CODE[ref.phase],
        -1 if ref.flip_ms is None else ref.flip_ms,
        ref.placed_ms,
        len(c0),
        len(c1),
        c0[-1] if c0 else -1,
        c1[-1] if c1 else -1,
        -1 if o0 is None else o0,
        -1 if o1 is None else o1,
        len(s0),
        len(s1),
        s0[-1] if s0 else -1,
        s1[-1] if s1 else -1,
    ]
    for p, f in ((0, f0), (1, f1)):
        away = f[2] if f is not None else ()
        sig += [s[-1] if s and j not in away else -1 for j, s in enumerate(ref.slots[p])]
    for p in (0, 1):
        sig += [len(s) - 1 if s else 0 for s in ref.slots[p]]
    sig += [len(d0), len(d1), d0[-1] if d0 else -1, d1[-1] if d1 else -1]
    if f0 is None and f1 is None:
        sig += _NO_FLIGHTS
    else:
        sig += [
            -1 if f0 is None else _KIND_CODE[f0[0]],
            -1 if f1 is None else _KIND_CODE[f1[0]],
            -1 if f0 is None else f0[4],
            -1 if f1 is None else f1[4],
            -1 if f0 is None else f0[3],
            -1 if f1 is None else f1[3],
            -1 if f0 is None else f0[1][0],
            -1 if f1 is None else f1[1][0],
        ]
    sig += ref.played
    sig += ref.bounced
    sig += ref.illegal
    sig += ref.commits
    sig += [
        ref.flips,
        ref.reshuffles,
        ref.ties,
        ref.rebuilds[0],
        ref.rebuilds[1],
        ref.idle_rebuilds[0],
        ref.idle_rebuilds[1],
    ]
    sig += [_WINNER_CODE[ref.winner], int(ref.truncated)]
    return sig


_NO_FLIGHTS = [-1] * 8


def signature_names(hand_size: int) -> list[str]:
    """The name of each signature position, for failure messages."""
    names: list[str] = []
    for field in SIGNATURE_FIELDS.split():
        base, *dims = field.replace("]", "").split("[")
        sizes = [hand_size if d == "H" else int(d) for d in dims]
        if not sizes:
            names.append(base)
        elif len(sizes) == 1:
            names += [f"{base}[{i}]" for i in range(sizes[0])]
        else:
            names += [f"{base}[{i}][{j}]" for i in range(sizes[0]) for j in range(sizes[1])]
    return names


def first_difference(ref: Any, eng: Any, path: str = "table") -> str | None:
    """Where two table dicts first differ, as ``path: referee … != engine …``; None if equal."""
    if isinstance(ref, dict) and isinstance(eng, dict):
        for key in list(ref) + [k for k in eng if k not in ref]:
            if key not in ref or key not in eng:
                return (
                    f"{path}[{key!r}]: present only in the {'engine' if key in eng else 'referee'}"
                )
            diff = first_difference(ref[key], eng[key], f"{path}[{key!r}]")
            if diff:
                return diff
        return None
    if isinstance(ref, list) and isinstance(eng, list):
        for i, (a, b) in enumerate(zip(ref, eng)):
            diff = first_difference(a, b, f"{path}[{i}]")
            if diff:
                return diff
        if len(ref) != len(eng):
            return (
                f"{path}: referee has {len(ref)} entries {ref!r} "
                f"!= engine {len(eng)} entries {eng!r}"
            )
        return None
    if ref != eng:
        return f"{path}: referee {ref!r} != engine {eng!r}"
    return None


# ----------------------------------------------------------------------------- the driver


class Mismatch(AssertionError):
    """The engine and the referee disagree (message: where, and how to replay it)."""


def _repro_file(case: dict[str, Any]) -> str:
    fd, path = tempfile.mkstemp(prefix=f"speed_diff_seed{case['seed']}_", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(case, f)
    return path


def replay(path: str) -> Referee:
    """Rerun a failing game from its repro file in the referee alone (for debugging)."""
    with open(path) as f:
        case = json.load(f)
    reactions = tuple(ReactionProfile(**r) for r in case["reactions"])
    ref = Referee(rules_of(case["option_set"]), reactions, case["tick_ms"], case["seed"])  # type: ignore[arg-type]
    for a0, a1 in case["actions"]:
        ref.step(a0, a1)
    return ref


def run_batch(
    name: str,
    config: int,
    games: int,
    seed: int,
    *,
    slots: int = SLOTS,
    full_every: int = FULL_EVERY,
) -> dict[str, int]:
    """Play ``games`` whole games in the engine and the referee; raise on the first disagreement.

    A ``BatchEnv`` of ``slots`` games is reset with ``seed``; a finished game
    restarts at once (slot ``i``'s ``k``-th restart is the game seeded
    ``seed + i + k * slots``) and its slot gets a fresh referee, so the batch
    never idles waiting for its longest game. It stops once ``games`` games have
    finished; games still running then were compared as far as they got.
    """
    rules = rules_of(name)
    reactions, tick_ms, p_wait = CONFIGS[config]
    n = min(slots, games)
    env = speed_env.BatchEnv(n, rules, tick_ms=tick_ms, reaction=reactions)
    restarts = [0] * n
    refs = [Referee(rules, reactions, tick_ms, seed + i) for i in range(n)]
    assert env.n_actions == refs[0].n_actions, (
        f"{name}: n_actions engine {env.n_actions} != referee {refs[0].n_actions}"
    )
    A = env.n_actions
    gen = np.random.default_rng([seed, config, len(name)])
    sig_names = signature_names(rules.hand_size)
    history: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    stats = {"games": 0, "steps": 0, "game_steps": 0, "full_tables": 0}

    def fail(i: int, what: str) -> None:
        ref = refs[i]
        case = {
            "option_set": name,
            "rules": rules.to_dict(),
            "reactions": [
                {"mu": r.mu, "sigma": r.sigma, "tau": r.tau, "floor": r.floor, "name": r.name}
                for r in reactions
            ],
            "tick_ms": tick_ms,
            "seed": ref.seed,
            "actions": history[i],
        }
        path = _repro_file(case)
        changed = {k: v for k, v in rules.to_dict().items() if v != getattr(Rules(), k)}
        raise Mismatch(
            f"engine != referee: option set {name!r} (rules {changed}), "
            f"reaction ({reactions[0].label()}, {reactions[1].label()}), tick {tick_ms} ms, "
            f"seed {ref.seed} (slot {i}, restart {restarts[i]} of a BatchEnv({n}) "
            f"reset with seed {seed}), "
            f"step {len(history[i])} of that game (referee clock {ref.clock} ms), "
            f"last actions {history[i][-3:]}:\n  {what}\n"
            f"  all its actions are in {path}; replay with tests.test_differential.replay(path)"
        )

    def compare_tables(i: int) -> None:
        stats["full_tables"] += 1
        ref_table, eng_table = refs[i].table(), env.table(i)
        if ref_table != eng_table:
            fail(i, first_difference(ref_table, eng_table) or "tables differ")

    # Per slot: the referee's masks (as bytes) and signature, kept while its table
    # does not change (``Referee.changes``); only the clock moves then.
    cache: list[tuple[int, bytes, bytes, list[int]] | None] = [None] * n

    def referee_view(i: int) -> tuple[int, bytes, bytes, list[int]]:
        ref = refs[i]
        got = cache[i]
        if got is None or got[0] != ref.changes:
            got = cache[i] = (
                ref.changes,
                bytes(ref.legal_mask(0)),
                bytes(ref.legal_mask(1)),
                referee_signature(ref),
            )
        else:
            got[3][0] = ref.clock
        return got

    obs, mask = env.reset(seed=seed)
    for i in range(n):
        compare_tables(i)
    step = 0
    wait = np.array(p_wait)[:, None]
    while stats["games"] < games:
        # -- masks before the step
        mask_bytes = mask.tobytes()
        for i in range(n):
            view = referee_view(i)
            for p in (0, 1):
                off = (p * n + i) * A
                if view[1 + p] != mask_bytes[off : off + A]:
                    ref_legal = [a for a, v in enumerate(refs[i].legal_mask(p)) if v]
                    eng_legal = np.flatnonzero(mask[p, i]).tolist()
                    fail(
                        i,
                        f"mask of seat {p}: referee legal {ref_legal} != engine legal {eng_legal} "
                        f"(referee only {sorted(set(ref_legal) - set(eng_legal))}, "
                        f"engine only {sorted(set(eng_legal) - set(ref_legal))})",
                    )
        # -- random actions: mostly legal, some waits, a few in-space (often illegal) ones
        keys = np.where(mask > 0, gen.random(mask.shape), -1.0)
        u = gen.random((2, n))
        actions = np.where(
            u < wait, 0, np.where(u < wait + P_ANY, gen.integers(0, A, (2, n)), keys.argmax(axis=2))
        )
        obs, mask, rewards, terminated, truncated, infos = env.step(actions)
        step += 1
        stats["steps"] += 1
        act = actions.tolist()
        rew = rewards.tolist()
        term = terminated.tolist()
        trunc = truncated.tolist()
        illegal = infos["illegal"].tolist()
        sigs = engine_signatures(env)
        for i in range(n):
            ref = refs[i]
            a0, a1 = act[0][i], act[1][i]
            history[i].append((a0, a1))
            before = (ref.illegal[0], ref.illegal[1])
            (r0, r1), ref_term, ref_trunc = ref.step(a0, a1)
            stats["game_steps"] += 1
            if [r0, r1] != [rew[0][i], rew[1][i]] or ref_term != term[i] or ref_trunc != trunc[i]:
                fail(
                    i,
                    f"step result: referee rewards {(r0, r1)} "
                    f"terminated {ref_term} truncated {ref_trunc} "
                    f"(winner {ref.winner!r}) != engine rewards {(rew[0][i], rew[1][i])} "
                    f"terminated {term[i]} truncated {trunc[i]} "
                    f"(engine winner code {int(infos['winner'][i])})",
                )
            for p in (0, 1):
                if (ref.illegal[p] - before[p] == 1) != illegal[p][i]:
                    fail(
                        i,
                        f"infos['illegal'][{p}]: engine {illegal[p][i]}, "
                        f"referee counted {ref.illegal[p] - before[p]}",
                    )
            if not ref.done:
                sig = referee_view(i)[3]
                if sig != sigs[i]:
                    j = next(j for j, (x, y) in enumerate(zip(sig, sigs[i])) if x != y)
                    diff = first_difference(ref.table(), env.table(i))
                    fail(
                        i,
                        f"signature {sig_names[j]}: referee {sig[j]} != engine {sigs[i][j]}; "
                        f"table: {diff}",
                    )
                if i < FULL_EACH_STEP or (step + i) % full_every == 0:
                    compare_tables(i)
                continue
            # -- the game ended: check what infos kept of it (the engine restarted the slot)
            stats["games"] += 1
            for key, count in ref.seen.items():
                stats[key] = stats.get(key, 0) + count
            stats["flips"] = stats.get("flips", 0) + ref.flips
            got = {
                "winner": int(infos["winner"][i]),
                "played": [int(x) for x in infos["played"][:, i]],
                "bounced": [int(x) for x in infos["bounced"][:, i]],
                "clock_ms": int(infos["clock_ms"][i]),
            }
            want = {
                "winner": _WINNER_CODE[ref.winner],
                "played": ref.played,
                "bounced": ref.bounced,
                "clock_ms": ref.clock,
            }
            ref_points = ref.points()
            if ref_points is not None:
                got["points"] = [int(x) for x in infos["points"][:, i]]
                want["points"] = list(ref_points)
            elif "points" in infos:
                fail(i, "infos has match points in a japanese game")
            if got != want:
                fail(i, f"final result in infos: referee {want} != engine {got}")
            if "final_table" in infos:
                diff = first_difference(ref.table(), infos["final_table"][i])
                if diff:
                    fail(i, "final table: " + diff)
            # -- the slot's next game, as BatchEnv's contract seeds it
            restarts[i] += 1
            refs[i] = Referee(rules, reactions, tick_ms, seed + i + restarts[i] * n)
            history[i] = []
            cache[i] = None
            compare_tables(i)
    return stats


def run_option_set(name: str, games: int, seed: int) -> dict[str, int]:
    """``games`` games of one option set, split evenly over CONFIGS."""
    total: dict[str, int] = {}
    per = -(-games // len(CONFIGS))
    for c in range(len(CONFIGS)):
        stats = run_batch(name, c, per, seed + 100_000 * c)
        for k, v in stats.items():
            total[k] = total.get(k, 0) + v
    assert total["games"] >= games
    return total


# ----------------------------------------------------------------------------- the tests

# The Party Speed option sets' own rules, which the fast games must already reach.
NEW_MUST_SEE: dict[str, tuple[str, ...]] = {
    "us-jokers": ("joker_placed", "wild_covered", "joker_flipped", "rebuild"),
    "pagat-jokers-nowrap-lock": ("joker_placed", "wild_covered", "joker_flipped"),
    "us-jokers-same_rank-idle": ("joker_placed", "wild_covered", "idle"),
    "us-hand3": ("rebuild", "tie"),
    "us-hand7-jokers": ("joker_placed", "wild_covered", "joker_flipped"),
    "pagat-hand3-jokers": ("joker_placed", "wild_covered"),
    "pagat-hand7": ("tie", "bounce"),  # long side piles and big hands: rebuilds are rare
    "japanese-hand3-jokers-play_out": ("joker_placed", "joker_blocked", "flip_choice"),
    "japanese-hand7-stack-multi": ("stack", "multi", "joker_placed"),
}


# Rare rules the 1000 random games of each option set must have exercised (counted
# by the referee), so that agreement means something.
MUST_SEE: dict[str, tuple[str, ...]] = {
    "us": ("rebuild",),
    "us-nowrap": ("rebuild",),
    "us-same_rank": ("rebuild",),
    "us-lock": ("empty_lock", "draw"),
    "us-countdown0": ("rebuild", "multi_flip_tick"),
    "us-max_game_ms": ("truncated",),
    "us-idle": ("idle", "idle_after_flight", "rebuild"),
    "pagat-lock-idle": ("idle", "idle_after_flight", "empty_lock"),
    "pagat": ("rebuild",),
    "pagat-lock": ("empty_lock",),
    "japanese": ("draw",),
    "japanese-jokers": ("joker_placed", "joker_blocked"),
    "japanese-play_out": ("flip_choice", "default_layout_flip", "draw"),
    "japanese-jokers-play_out-same_rank": (
        "joker_placed",
        "joker_blocked",
        "flip_choice",
        "default_layout_flip",
    ),
    "japanese-stack_layout": ("stack",),
    "japanese-idle": ("idle", "idle_after_flight", "flip_choice", "stack", "draw"),
    "japanese-multi_play": ("multi",),
    "japanese-all": (
        "joker_placed",
        "joker_blocked",
        "stack",
        "multi",
        "flip_choice",
        "default_layout_flip",
        "draw",
    ),
    **NEW_MUST_SEE,
    # rarer in a few dozen games, so only the 1000 must see them
    "pagat-jokers-nowrap-lock": (*NEW_MUST_SEE["pagat-jokers-nowrap-lock"], "empty_lock"),
    "us-hand7-jokers": (*NEW_MUST_SEE["us-hand7-jokers"], "rebuild"),
}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_engine_matches_referee(name):
    run_option_set(name, FAST_GAMES, seed=1_000)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_engine_matches_referee_1000_games(name):
    stats = run_option_set(name, SLOW_GAMES, seed=5_000_000)
    for key in ("tie", "bounce", "flips", *MUST_SEE[name]):
        assert stats.get(key, 0) > 0, (
            f"{name}: no {key!r} in {SLOW_GAMES} random games; coverage {stats}"
        )


@pytest.mark.parametrize("name", list(NEW_MUST_SEE))
def test_party_option_sets_reach_their_rules_in_the_fast_games(name):
    stats = run_option_set(name, FAST_GAMES, seed=2_000)
    missing = [key for key in NEW_MUST_SEE[name] if stats.get(key, 0) == 0]
    assert not missing, f"{name}: {missing} never happened in {FAST_GAMES} games; {stats}"


def test_every_option_set_has_a_coverage_list():
    assert set(MUST_SEE) == set(OPTION_SETS)


# ----------------------------------------------------------------------------- explicit deals

_ALL = [
    r + s
    for s in "SHDC"
    for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
]


def _with_rest(deal: dict[str, Any], *, pile: int, jokers: bool = False) -> dict[str, Any]:
    """``deal`` with every card it does not name put under the top of centre pile ``pile``."""
    named = {
        c
        for group in deal.values()
        for part in group
        for c in (part if isinstance(part, list) else [part])
    }
    rest = [c for c in _ALL + (["RJ", "BJ"] if jokers else []) if c not in named]
    centre = [list(p) for p in deal["centre"]]
    centre[pile] += rest
    return {**deal, "centre": centre}


# name: (rules, deal). Positions random games rarely reach, played on from there.
EXPLICIT_DEALS: dict[str, tuple[Rules, dict[str, Any]]] = {
    # Both hold a card for pile 0 (5S): with equal latencies they land together.
    "tie": (
        make_rules("us"),
        _with_rest(
            {
                "hands": [["6S", "9C"], ["4H", "9D"]],
                "draw_piles": [["10S", "10H"], ["10C", "JS"]],
                "side_piles": [["2C", "3C"], ["2D"]],
                "centre": [["5S"], ["KD"]],
            },
            pile=1,
        ),
    ),
    # Nobody can ever play a 7: flips, a rebuild of both piles, then the cycle lock.
    "cycle-lock": (
        make_rules("us"),
        {
            "hands": [["7S", "7H"], ["7D", "7C"]],
            "draw_piles": [["6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C"], []],
            "side_piles": [["2C"], ["2D"]],
            "centre": [
                [c for c in _ALL if c[:-1] not in "6 7 8".split() and c not in ("2C", "2D")][:19],
                [c for c in _ALL if c[:-1] not in "6 7 8".split() and c not in ("2C", "2D")][19:],
            ],
        },
    ),
    # Unequal centre piles: the side piles never run out together, so the cards cycle
    # (rebuild after rebuild, no lock) until the game is truncated.
    "unequal-cycle": (
        make_rules("us", max_game_ms=30_000),
        {
            "hands": [["7S", "7H"], ["7D", "7C"]],
            "draw_piles": [["6S", "6H", "6D", "6C", "8S", "8H", "8D", "8C"], []],
            "side_piles": [["2C"], ["2D"]],
            "centre": [
                [c for c in _ALL if c[:-1] not in "6 7 8".split() and c not in ("2C", "2D")][:17],
                [c for c in _ALL if c[:-1] not in "6 7 8".split() and c not in ("2C", "2D")][17:],
            ],
        },
    ),
    # Lock rule with empty side piles and short hands.
    "lock-rule": (
        make_rules("us", reserve_rule="lock", stuck_countdown_ms=0),
        _with_rest(
            {
                "hands": [["7S", "QH", "3D"], ["7C"]],
                "draw_piles": [["6S", "6H"], ["8S"]],
                "side_piles": [[], []],
                "centre": [["AS"], ["KS"]],
            },
            pile=0,
        ),
    ),
    # player_0 starts with no stock (play-out from the first flip); no opening flip.
    "play-out-no-stock": (
        make_rules("japanese", play_out=True, stuck_countdown_ms=200),
        _with_rest(
            {
                "hands": [["2H", "9D", "9H", "KD"], ["3S", "4C", "10S", "JC"]],
                "draw_piles": [[], ["5S", "6C"]],
                "centre": [["AH"], ["QS"]],
            },
            pile=1,
        ),
    ),
    # A dealt joker on top has no owner and blocks everyone until a flip covers it.
    "ownerless-joker": (
        make_rules("japanese", jokers=True, stack_layout=True, multi_play=True),
        _with_rest(
            {
                "hands": [["2H", "2D", "5H", "5D"], ["3S", "3C", "BJ", "9C"]],
                "draw_piles": [["6H", "7H"], ["8S"]],
                "centre": [["RJ"], ["4S"]],
            },
            pile=1,
            jokers=True,
        ),
    ),
}


@pytest.mark.parametrize("deal_name", list(EXPLICIT_DEALS))
def test_explicit_deals_match_in_parallel_env(deal_name):
    """Explicit deals through the PettingZoo env, full tables every step, final table included."""
    from speed_env.deal import parse_deal

    rules, deal = EXPLICIT_DEALS[deal_name]
    agents = ("player_0", "player_1")
    for seed in range(8):
        reactions, tick_ms, p_wait = CONFIGS[seed % len(CONFIGS)]
        env = speed_env.parallel_env(rules, tick_ms=tick_ms, reaction=reactions)
        obs, _ = env.reset(seed=seed, options={"deal": deal})
        ref = Referee(rules, reactions, tick_ms, seed, deal=parse_deal(rules, deal))
        gen = np.random.default_rng(seed)
        step = 0
        where = (
            f"deal {deal_name!r}, seed {seed}, "
            f"reaction ({reactions[0].label()}, {reactions[1].label()}), tick {tick_ms}"
        )
        while True:
            diff = (
                first_difference(ref.table(), env.unwrapped.table())
                if ref.table() != env.unwrapped.table()
                else None
            )
            assert diff is None, f"{where}, step {step}: {diff}"
            if ref.done:
                assert not env.agents, (
                    f"{where}, step {step}: the referee's game is over, the env's is not"
                )
                break
            actions = []
            for p, agent in enumerate(agents):
                mask = obs[agent]["action_mask"]
                assert mask.tolist() == ref.legal_mask(p), f"{where}, step {step}: mask of seat {p}"
                legal = np.flatnonzero(mask)
                x = gen.random()
                actions.append(
                    0
                    if x < p_wait[p]
                    else int(gen.integers(ref.n_actions))
                    if x < p_wait[p] + P_ANY
                    else int(gen.choice(legal))
                )
            obs, rewards, terms, truncs, infos = env.step(dict(zip(agents, actions)))
            step += 1
            (r0, r1), term, trunc = ref.step(*actions)
            got = ([rewards[a] for a in agents], terms[agents[0]], truncs[agents[0]])
            assert got == ([r0, r1], term, trunc), (
                f"{where}, step {step}: engine {got} != referee {([r0, r1], term, trunc)}"
            )


def test_signature_names_cover_the_signature():
    ref = Referee(rules_of("japanese-all"), CONFIGS[0][0], 50, 0)
    assert len(signature_names(ref.hs)) == len(referee_signature(ref))
    env = speed_env.BatchEnv(2, rules_of("japanese-all"), tick_ms=50, reaction=CONFIGS[0][0])
    env.reset(seed=0)
    assert len(engine_signatures(env)[0]) == len(referee_signature(ref))
