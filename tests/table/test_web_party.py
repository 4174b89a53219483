"""A browser table of three or four: you against two or three bots, each with its profile."""

from __future__ import annotations

import pytest
from web_helpers import started_table

from speed_cli import main as cli
from speed_env.cards import parse_card, rank_of
from speed_env.reaction import make_profile
from speed_env.rules import make_rules
from speed_table import protocol
from speed_table.protocol import INVALID, ProtocolError
from speed_table.session import GameSession, TableConfig


def party_config(players: int = 3, **changes) -> TableConfig:
    """You against greedy bots at ``players`` seats: fixed 100 ms and 400 ms bots, no countdown."""
    bots = ("greedy@100", "random@400", "greedy@400")[: players - 1]
    base = dict(
        mode="play",
        agents=("you", *bots),
        rules=make_rules("us", players=players),
        tick_ms=50,
        seed=5,
        countdown_ms=0,
    )
    return TableConfig(**(base | changes))


def test_a_table_of_three_deals_and_a_bot_plays():
    s = GameSession(party_config(3))
    welcome = s.welcome()
    assert welcome["seats"] == ["you", "greedy@100ms", "random@400ms"]
    assert welcome["reaction"] == ["1ms", "100ms", "400ms"]
    countdown, state = s.handle(protocol.Start(), 0.0)
    assert countdown["seats"] == welcome["seats"]
    snap = state["snapshot"]
    assert len(snap["players"]) == 3 and len(snap["centre"]) == 3
    assert [p["name"] for p in snap["players"]] == ["player_0", "player_1", "player_2"]
    # Your hand is yours to see; both bots' hands are card backs.
    assert "?" not in snap["players"][0]["hand"]
    assert all(set(p["hand"]) <= {"?", None} and not p["hand_visible"] for p in snap["players"][1:])
    t, played = 0.0, 0
    for _ in range(200):  # at most 10 s of game time: greedy@100 plays within the first ticks
        t = s.next_tick_at
        for msg in s.tick(t):
            if msg["type"] == "state":
                played = sum(p["played"] for p in msg["snapshot"]["players"][1:])
        if played:
            break
    assert played > 0


def test_your_play_goes_onto_any_of_the_piles():
    s = GameSession(party_config(4))
    s.handle(protocol.Start(), 0.0)
    s.tick(s.next_tick_at)  # go
    mask = s.obs["player_0"]["action_mask"]
    legal = [a for a in range(1, len(mask)) if mask[a]]
    assert legal, "the deal gives you no play at once; pick another seed"
    action = legal[-1]
    rank, pile = divmod(action - 1, 4)
    hand = s.env.snapshot()["players"][0]["hand"]
    slot = next(i for i, c in enumerate(hand) if c and rank_of(parse_card(c)) == rank)
    ack = s.handle(protocol.parse({"type": "play", "slot": slot, "pile": pile}, piles=4), 0.06)
    assert ack[0]["type"] == "played" and ack[0]["pile"] == pile
    # A pile past the table's is refused by the protocol, naming the range.
    with pytest.raises(ProtocolError) as info:
        protocol.parse({"type": "play", "slot": 0, "pile": 4}, piles=4)
    assert info.value.code == INVALID and "between 0 and 3" in info.value.message


def test_the_page_is_sent_the_envs_own_snapshot_your_hand_shown():
    """A table of three sends the n-seat env's ``snapshot()``, the bots' hands as card backs."""
    s = GameSession(party_config(3))
    _, state = s.handle(protocol.Start(), 0.0)
    sent, own = state["snapshot"], s.env.snapshot()
    assert sent == protocol.hide_hand(own, 0)
    assert sent["players"][0]["hand"] == own["players"][0]["hand"]
    assert sent["centre"] == own["centre"] and len(own["centre"]) == 3


def test_the_table_refuses_seats_that_do_not_fit():
    with pytest.raises(ValueError, match="needs 3 seat specs"):
        party_config(3, agents=("you", "greedy"))
    with pytest.raises(ValueError, match="needs 4 seat specs"):
        party_config(4, mode="watch", agents=("greedy", "greedy", "greedy"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponent", "greedy,greedy,greedy,greedy"], "one to three agent specs"),
        (["--opponent", "greedy,speedy"], "unknown agent"),
        (["--opponent", "greedy,random", "--record", "recs"], "two-seat games"),
    ],
)
def test_speed_play_refuses_a_bad_party_in_one_line(tmp_path, capsys, argv, message):
    code = cli(["play", "--no-browser", "--replays-dir", "", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_the_server_welcomes_a_table_of_four():
    cfg = party_config(4, reaction=make_profile(200), tick_ms=20)
    with started_table(cfg) as (ws, welcome, state):
        assert len(welcome["seats"]) == 4 and welcome["seat"] == 0
        assert len(state["snapshot"]["players"]) == 4 and len(state["snapshot"]["centre"]) == 4
        ws.send_json({"type": "play", "slot": 0, "pile": 3})  # a pile only a table of four has
        for _ in range(400):  # taken, or refused for the game's reasons, not the message's shape
            reply = ws.receive_json()
            if reply["type"] == "played" or reply["type"] == "error":
                break
        assert reply["type"] == "played" or reply["code"] != INVALID
