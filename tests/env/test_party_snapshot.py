"""``snapshot()`` at every seat count: three and four seats, and two seats byte for byte as before.

The n-seat snapshot is checked three ways: its keys are the two-seat snapshot's
(docs/envs/speed.md, ``snapshot()``); every card of the two decks is somewhere
it counts (hands, draw piles, centre piles, side piles, cards in flight) at
every step of seeded games; and its public fields equal those read from the
env's full ``table()`` (docs/rules.md, "The full table"), an independent view
of the same record. The two-seat snapshot's digest over seeded games was
computed on a69512b (the tree before the n-seat snapshot) by this very file.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import gymnasium
import numpy as np
import pytest

import speed_env
from speed_env.party import PartyParallelEnv
from speed_env.party_single import PartyGymEnv

SNAPSHOT_KEYS = {
    "preset",
    "clock_ms",
    "phase",
    "flip_ms",
    "idle_ms",
    "centre",
    "players",
    "winner",
    "truncated",
    "flips",
    "reshuffles",
}
PLAYER_KEYS = {"name", "hand", "draw_pile", "side_pile", "in_flight", "played", "bounced"}

# (preset, options) of two-seat games whose snapshots are frozen: digests from a69512b.
TWO_SEAT: dict[str, tuple[str, dict[str, Any]]] = {
    "us": ("us", {}),
    "pagat-idle": ("pagat", {"idle_flip_ms": 120}),
    "japanese-all": (
        "japanese",
        {"jokers": True, "play_out": True, "stack_layout": True, "multi_play": True},
    ),
}
EXPECTED = {
    "us": "5cffa553ccea8f908972582d1f36c608466d3c779547685f366b486ccf178856",
    "pagat-idle": "62b0031d05bf32b7250f9f0b38d7322d62337e308ecd0933169a1d259e1763d7",
    "japanese-all": "edbd9b97b3448d68d41ee2bfe09c66458cf8007b8066d4283a0b68e067a925d9",
}


def random_play(env: Any, seed: int, steps: int) -> Any:
    """Reset ``env`` (a parallel env) with ``seed`` and yield after every step of seeded random
    legal play (a seat waits a third of the time), to the end or ``steps``."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    yield
    for _ in range(steps):
        if not env.agents:
            return
        acts = {}
        for a in env.agents:
            legal = np.flatnonzero(env.action_mask(a))
            acts[a] = 0 if rng.random() < 1 / 3 else int(rng.choice(legal))
        env.step(acts)
        yield


def snapshot_digest(preset: str, options: dict[str, Any]) -> str:
    """sha256 of the JSON of every snapshot of a few seeded two-seat games."""
    h = hashlib.sha256()
    env = speed_env.parallel_env(preset, reaction=(90, 160), **options)
    for game in range(4):
        for _ in random_play(env, 100 + game, 4000):
            h.update(json.dumps(env.snapshot(), sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(TWO_SEAT))
def test_the_two_seat_snapshot_is_unchanged(name):
    preset, options = TWO_SEAT[name]
    assert snapshot_digest(preset, options) == EXPECTED[name]


def cards_seen(snap: dict[str, Any]) -> int:
    """Every card the snapshot counts: hands, draw piles, side piles, centre, in flight."""
    total = sum(pile["size"] for pile in snap["centre"])
    for seat in snap["players"]:
        total += sum(card is not None for card in seat["hand"])
        total += seat["draw_pile"] + seat["side_pile"]
        if seat["in_flight"] is not None:
            total += len(seat["in_flight"]["cards"])
    return total


def flight(move: dict[str, Any] | None) -> tuple[list[str], int] | None:
    """A move in the air as ``(cards, lands_ms)``, the fields both views give."""
    return None if move is None else (list(move["cards"]), move["lands_ms"])


def public_view(table: dict[str, Any]) -> dict[str, Any]:
    """The snapshot's seat and pile fields read from the full ``table`` instead."""
    return {
        "centre": [{"top": p[0] if p else None, "size": len(p)} for p in table["centre"]],
        "hands": [list(seat["hand"]) for seat in table["players"]],
        "draw": [len(seat["draw_pile"]) for seat in table["players"]],
        "side": [len(pile) for pile in table["side_piles"]],
        "flight": [
            None
            if s["in_flight"] is None
            else (s["in_flight"]["cards"], s["in_flight"]["lands_ms"])
            for s in table["players"]
        ],
        "phase": table["phase"],
        "clock_ms": table["clock_ms"],
    }


def snapshot_view(snap: dict[str, Any]) -> dict[str, Any]:
    """The same fields from a snapshot."""
    seats = snap["players"]
    return {
        "centre": snap["centre"],
        "hands": [s["hand"] for s in seats],
        "draw": [s["draw_pile"] for s in seats],
        "side": [s["side_pile"] for s in seats],
        "flight": [
            None
            if s["in_flight"] is None
            else (s["in_flight"]["cards"], s["in_flight"]["lands_ms"])
            for s in seats
        ],
        "phase": snap["phase"],
        "clock_ms": snap["clock_ms"],
    }


@pytest.mark.parametrize(
    ("players", "options", "deck"),
    [(3, {}, 104), (4, {}, 104), (4, {"jokers": True}, 108), (3, {"hand_size": 7}, 104)],
)
def test_an_n_seat_snapshot_accounts_for_every_card_and_reads_as_the_table(players, options, deck):
    env = PartyParallelEnv("us", players=players, reaction=(60, 120, 200, 90)[:players], **options)
    last = None
    for _ in random_play(env, 7, 3000):
        snap = env.snapshot()
        assert set(snap) == SNAPSHOT_KEYS | ({"points"} if snap["phase"] == "over" else set())
        assert [p["name"] for p in snap["players"]] == [f"player_{p}" for p in range(players)]
        assert all(set(p) == PLAYER_KEYS for p in snap["players"])
        assert len(snap["centre"]) == players
        assert cards_seen(snap) == deck
        assert snapshot_view(snap) == public_view(env.table())
        last = snap
    assert last is not None and last["phase"] == "over"
    assert last["winner"] in {f"player_{p}" for p in range(players)} | {"draw"}
    json.dumps(last)  # JSON-ready: plain ints, strings and None


def test_the_n_seat_snapshot_is_the_same_through_every_door():
    """Game 1 of each batch door is the parallel env's game seeded ``seed + 1``."""
    seed = 40
    env = PartyParallelEnv("us", players=4)
    env.reset(seed=seed + 1)
    expected = env.snapshot()
    batch = speed_env.BatchEnv(2, "us", players=4)
    batch.reset(seed=seed)
    assert batch.snapshot(1) == expected
    rows = gymnasium.make_vec("speed_env/SpeedPartySelfPlay-v0", num_envs=8, players=4)
    rows.reset(seed=seed)
    assert rows.unwrapped.snapshot(1) == expected
    single = PartyGymEnv("us", players=4, seat=0)
    single.reset(seed=seed)
    assert single.snapshot() == single.games.snapshot(0)
    assert len(single.snapshot()["players"]) == 4
