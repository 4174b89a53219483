"""The table waits a bot's thinking: its card flies that much later in table time (issue 40)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from web_helpers import table_config

import agents
import speed_cli
from agents.think.plan import ThinkPlan
from speed_env.reaction import make_profile
from speed_env.rules import make_rules
from speed_table import protocol
from speed_table.session import GameSession

SLEEP_MS = 40.0
"""What the sleepy bot spends over every decision."""


class Sleepy:
    """Plays as ``greedy`` does, after sleeping :data:`SLEEP_MS` over every decision."""

    def __init__(self) -> None:
        self.greedy = agents.make("greedy", make_rules("us"), seed=0)
        self.reaction = make_profile(300)

    def act(self, obs, mask):
        """``greedy``'s action, :data:`SLEEP_MS` late."""
        time.sleep(SLEEP_MS / 1000.0)
        return self.greedy.act(obs, mask)


def first_flight(session: GameSession) -> tuple[int, dict]:
    """Start a game and tick until the bot's first card is in flight: (commit clock, flight)."""
    session.handle(protocol.Start(), 0.0)
    t = session.start_at
    session.tick(t)  # go
    for _ in range(50):
        clock = session.env.snapshot()["clock_ms"]
        t = session.next_tick_at
        session.tick(t)
        flight = session.env.snapshot()["players"][1]["in_flight"]
        if flight is not None:
            return clock, flight
    raise AssertionError("the bot never played")


def test_a_measured_bot_s_card_lands_its_own_thinking_later_than_with_thinking_off():
    off = GameSession(table_config(), bots={1: Sleepy()})
    measured = GameSession(table_config(think=ThinkPlan("measured")), bots={1: Sleepy()})
    clock_off, flight_off = first_flight(off)
    clock_on, flight_on = first_flight(measured)
    assert clock_off == clock_on and flight_off["card"] == flight_on["card"] == "6S"
    assert flight_off["lands_ms"] == clock_off + 300  # thinking off: the profile alone
    charged = measured.thinking.tick[1]  # that decision's own wall time, as charged
    assert SLEEP_MS <= charged < SLEEP_MS + 1000
    # Exactly that much later, in whole ms as the engine lands cards.
    assert flight_on["lands_ms"] == clock_on + round(300 + charged)
    assert flight_on["lands_ms"] - flight_off["lands_ms"] >= SLEEP_MS


@pytest.mark.parametrize(
    ("spec", "plan"),
    [
        ("greedy@think=40ms", None),  # off still charges what a bot declares itself
        ("greedy@think=40ms", ThinkPlan("declared", (("greedy@think=40ms", 40.0),))),
        ("greedy", ThinkPlan("calibrated", (("greedy", 40.0),))),
    ],
)
def test_a_constant_charge_moves_the_bot_s_card_that_much_later(spec, plan):
    plain = GameSession(table_config())
    think = {} if plan is None else {"think": plan}  # off: the table's config as it always was
    charged = GameSession(table_config(agents=("you", spec), **think))
    clock, flight = first_flight(plain)
    clock_charged, flight_charged = first_flight(charged)
    assert clock == clock_charged
    assert flight_charged["lands_ms"] - flight["lands_ms"] == 40
    assert charged.welcome()["seats"][1] == "greedy@300ms+40ms"  # the page names the charge


def play_out(session: GameSession) -> dict:
    """Play the short deal through (you play both your cards); the result message."""
    clock, _ = first_flight(session)
    t = session.next_tick_at
    for _ in range(100):
        out = session.tick(t)
        if out and out[-1]["type"] == "result":
            return out[-1]
        mask = session._mask()
        if session.state == "running" and mask[1:].any() and session.pending is None:
            hand = session.env.snapshot()["players"][0]["hand"]
            slot = next(i for i, c in enumerate(hand) if c is not None)
            session.handle(protocol.Play(slot, 0), t)
        t = session.next_tick_at
    raise AssertionError("the game never ended")


def test_measured_replays_and_results_say_the_charge_per_play_and_not_repeatable(tmp_path):
    plan = ThinkPlan("measured", record={"cores": 2, "note": "not repeatable"})
    session = GameSession(table_config(tmp_path, think=plan), bots={1: Sleepy()})
    result = play_out(session)
    think = result["think"]
    assert think["mode"] == "measured" and think["repeatable"] is False
    (charge,) = think["charged_ms"]["player_1"]  # the bot's one play of the short deal
    assert charge >= SLEEP_MS
    frames = [json.loads(x) for x in Path(result["replay"]).read_text().splitlines()]
    assert frames[0]["think"]["mode"] == "measured"
    assert frames[0]["think"]["repeatable"] is False
    assert frames[0]["think"]["machine"]["note"] == "not repeatable"
    charged = [f["think_ms"] for f in frames if "think_ms" in f]
    assert charged == [{"player_1": charge}]  # the tick the bot committed its card


def test_thinking_off_replays_say_so_and_charge_nothing(tmp_path):
    result = play_out(GameSession(table_config(tmp_path)))
    assert result["think"] == {"mode": "off", "repeatable": True, "charged_ms": {"player_1": [0.0]}}
    frames = [json.loads(x) for x in Path(result["replay"]).read_text().splitlines()]
    assert frames[0]["think"] == {"mode": "off", "repeatable": True}


def test_a_record_cannot_be_made_with_measured_thinking(tmp_path):
    with pytest.raises(ValueError, match="measured thinking differs play by play"):
        table_config(record_dir=tmp_path, think=ThinkPlan("measured"))


def served(monkeypatch, argv):
    """The table config ``speed ARGV`` would serve (the server itself is not started)."""
    seen = {}

    def serve(cfg, settings):
        seen["cfg"] = cfg
        return 0

    monkeypatch.setattr(speed_cli.table, "_serve_table", serve)
    assert speed_cli.main(argv) == 0
    return seen["cfg"]


@pytest.mark.parametrize(
    ("argv", "mode"),
    [
        (["play", "--no-browser"], "measured"),
        (["watch", "--no-browser"], "measured"),
        (["play", "--no-browser", "--think", "off"], None),
        (
            [
                "watch",
                "--no-browser",
                "--think",
                "declared",
                "--agents",
                "chain@think=2,greedy@think=0",
            ],
            "declared",
        ),
    ],
)
def test_the_table_charges_measured_thinking_unless_told_otherwise(monkeypatch, argv, mode):
    cfg = served(monkeypatch, argv)
    assert (cfg.think and cfg.think.mode) == mode


def test_recording_charges_a_calibrated_constant_by_default(monkeypatch, tmp_path, capsys):
    cfg = served(monkeypatch, ["play", "--no-browser", "--record", str(tmp_path)])
    assert cfg.think.mode == "calibrated" and cfg.think.cost("chain") >= 0
    assert "thinking: chain" in capsys.readouterr().err


def test_recording_refuses_measured_thinking_in_one_line(capsys, tmp_path):
    argv = ["play", "--no-browser", "--record", str(tmp_path), "--think", "measured"]
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a play record cannot replay" in err[0], err


def test_a_record_made_with_calibrated_thinking_replays_in_speed_v1(tmp_path):
    from speed_data import record_check

    plan = ThinkPlan("calibrated", (("greedy", 12.0),))
    result = play_out(GameSession(table_config(record_dir=tmp_path, think=plan)))
    record = record_check.read_record(result["record"])
    assert record["opponent"]["reaction"]["mu"] == 312.0  # the bot's profile, its cost on it
    record_check.verify(record, result["record"])  # raises if it does not replay exactly
