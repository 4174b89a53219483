"""The page → server message checks (speed_table.protocol): each malformed one refused by name."""

from __future__ import annotations

import json

import pytest

from speed_table import protocol
from speed_table.protocol import INVALID, Pause, Ping, Play, ProtocolError, Speed, Start, parse


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"type": "start"}', Start(mirror=False)),
        ('{"type": "start", "mirror": true}', Start(mirror=True)),
        ('{"type": "play", "slot": 0, "pile": 1}', Play(0, 1)),
        ('{"type": "play", "slot": 4, "pile": 0}', Play(4, 0)),
        ('{"type": "speed", "factor": 0.5}', Speed(0.5)),
        ('{"type": "speed", "factor": 2}', Speed(2.0)),
        ('{"type": "pause", "paused": false}', Pause(False)),
        ('{"type": "ping"}', Ping(None)),
        ('{"type": "ping", "t": 12.5}', Ping(12.5)),
    ],
)
def test_valid_messages_parse_to_typed_values(raw, expected):
    assert parse(raw) == expected


def test_parse_accepts_a_decoded_object():
    assert parse({"type": "play", "slot": 2, "pile": 0}) == Play(2, 0)


BAD = [
    ("not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ('"play"', "JSON object"),
    ("null", "JSON object"),
    ("{}", "unknown message type null"),
    ('{"type": 3}', "unknown message type 3"),
    ('{"type": "shuffle"}', 'unknown message type "shuffle"'),
    ('{"type": "play", "slot": 0}', "needs the field 'pile'"),
    ('{"type": "play", "pile": 0}', "needs the field 'slot'"),
    ('{"type": "play", "slot": 0, "pile": 0, "card": "7H"}', 'unknown field(s) "card"'),
    ('{"type": "play", "slot": "0", "pile": 0}', "play.slot must be a number"),
    ('{"type": "play", "slot": true, "pile": 0}', "play.slot must be a number"),
    ('{"type": "play", "slot": 1.0, "pile": 0}', "play.slot must be a whole number"),
    ('{"type": "play", "slot": null, "pile": 0}', "play.slot must be a number"),
    ('{"type": "play", "slot": -1, "pile": 0}', "between 0 and 4"),
    ('{"type": "play", "slot": 5, "pile": 0}', "between 0 and 4"),
    ('{"type": "play", "slot": 0, "pile": 2}', "play.pile must be between 0 and 1"),
    ('{"type": "play", "slot": 0, "pile": [0]}', "play.pile must be a number"),
    ('{"type": "start", "mirror": "yes"}', "start.mirror must be true or false"),
    ('{"type": "start", "mirror": 1}', "start.mirror must be true or false"),
    ('{"type": "speed", "factor": 3}', "one of 0.5, 1, 2"),
    ('{"type": "speed", "factor": NaN}', "must be finite"),
    ('{"type": "speed"}', "needs the field 'factor'"),
    ('{"type": "pause", "paused": 0}', "pause.paused must be true or false"),
    ('{"type": "ping", "t": Infinity}', "must be finite"),
    ('{"type": "ping", "t": 1e300}', "between"),
    # Integers of any length (JSON has no limit): refused by range, never overflowing a float.
    (
        '{"type": "ping", "t": 1' + "0" * 400 + "}",
        "ping.t must be between -1e+15 and 1e+15, got 1000",
    ),
    ('{"type": "ping", "t": -' + "9" * 400 + "}", "ping.t must be between"),
    ('{"type": "speed", "factor": 1' + "0" * 400 + "}", "speed.factor must be one of 0.5, 1, 2"),
    (
        '{"type": "play", "slot": 1' + "0" * 400 + ', "pile": 0}',
        "play.slot must be between 0 and 4",
    ),
    # A field name or a value with a lone surrogate (valid JSON, not encodable as UTF-8) is
    # named as an ASCII escape, so the reply can be sent.
    ('{"type": "ping", "\\ud800": 1}', 'unknown field(s) "\\ud800"'),
    ('{"type": "play", "slot": "\\udfff", "pile": 0}', 'play.slot must be a number, got "\\udfff"'),
    ('{"type": "\\ud800x"}', 'unknown message type "\\ud800x"'),
]


@pytest.mark.parametrize(("raw", "fragment"), BAD)
def test_malformed_messages_are_refused_with_a_reason(raw, fragment):
    with pytest.raises(ProtocolError) as info:
        parse(raw)
    assert info.value.code == INVALID
    assert fragment in info.value.message
    reply = info.value.reply()
    assert (
        reply["type"] == "error"
        and reply["code"] == INVALID
        and reply["message"] == info.value.message
    )
    json.dumps(reply).encode("utf-8")  # the reply is JSON-ready
    reply["message"].encode("ascii")  # and names what came from the page in ASCII


def test_binary_and_oversized_frames_are_refused():
    with pytest.raises(ProtocolError, match="text frames"):
        parse(b'{"type": "start"}')
    long = json.dumps({"type": "ping", "t": 1, "pad": "x" * protocol.MAX_MESSAGE_BYTES})
    with pytest.raises(ProtocolError, match="longer than"):
        parse(long)


def test_deeply_nested_json_is_refused_not_crashing():
    with pytest.raises(ProtocolError):
        parse("[" * 500 + "]" * 500)


def test_slot_range_follows_the_hand_size():
    assert parse('{"type": "play", "slot": 3, "pile": 0}', hand_size=4) == Play(3, 0)
    with pytest.raises(ProtocolError, match="between 0 and 3"):
        parse('{"type": "play", "slot": 4, "pile": 0}', hand_size=4)


def test_error_reply_names_the_refused_type():
    with pytest.raises(ProtocolError) as info:
        parse('{"type": "play", "slot": 9, "pile": 0}')
    assert info.value.reply()["about"] == "play"


def test_hide_hand_shows_backs_for_the_opponent_only():
    snap = {
        "preset": "us",
        "players": [
            {"name": "player_0", "hand": ["7H", None], "in_flight": None},
            {
                "name": "player_1",
                "hand": ["6S", None, "3C"],
                "in_flight": {"card": "9D", "pile": 0, "lands_ms": 9},
            },
        ],
    }
    seen = protocol.hide_hand(snap, 0)
    assert seen["players"][0]["hand"] == ["7H", None]
    assert seen["players"][1]["hand"] == ["?", None, "?"]
    assert seen["players"][1]["hand_visible"] is False
    assert seen["players"][1]["in_flight"]["card"] == "9D"  # a card in the air is public
    assert snap["players"][1]["hand"] == ["6S", None, "3C"]  # the original is untouched
    japanese = dict(snap, preset="japanese")
    assert protocol.hide_hand(japanese, 0)["players"][1]["hand"] == ["6S", None, "3C"]
