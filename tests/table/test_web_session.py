"""The table's game logic on a fake clock: timing, reaction times, out-of-turn refusals, replays."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from web_helpers import short_deal, table_config

import speed_cli
from speed_env import latency_fit
from speed_env.reaction import latency_ms, make_profile
from speed_env.rng import seed_to_u64
from speed_env.rules import make_rules
from speed_table import protocol
from speed_table.clock import LegalSince
from speed_table.protocol import ILLEGAL, NO_PROFILE, OUT_OF_TURN, WRONG_MODE, ProtocolError
from speed_table.replays import ReplayLimits
from speed_table.session import HUMAN_LATENCY_MS, GameSession, TableConfig


def run_until(session, cond, t, limit=500):
    """Tick on the fake clock until ``cond(snapshot)``; returns (time, messages)."""
    out = []
    for _ in range(limit):
        if cond(session.env.snapshot()):
            return t, out
        t = session.next_tick_at
        out += session.tick(t)
    raise AssertionError("condition never met")


def test_welcome_describes_the_table():
    s = GameSession(table_config())
    w = s.welcome()
    assert w["type"] == "welcome" and w["mode"] == "play" and w["seat"] == 0
    assert w["seats"] == ["you", "greedy@300ms"]
    assert w["reaction"] == [f"{HUMAN_LATENCY_MS}ms", "300ms"]
    assert w["hand_size"] == 5 and w["tick_ms"] == 50
    json.dumps(w)


def test_a_whole_game_on_a_fake_clock_measures_each_reaction_exactly(tmp_path):
    s = GameSession(table_config(tmp_path))
    out = s.handle(protocol.Start(), 10.0)
    assert [m["type"] for m in out] == ["countdown", "state"]
    with pytest.raises(ProtocolError) as info:  # during the countdown
        s.handle(protocol.Play(0, 0), 10.5)
    assert info.value.code == OUT_OF_TURN and "starts in 0.5 s" in info.value.message
    assert s.tick(10.9) == []  # not yet
    go = s.tick(11.0)
    assert go[0]["status"] == "running"
    # Nothing of yours goes anywhere until the bot's 6S lands on 5C.
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Play(0, 0), 11.01)
    assert info.value.code == ILLEGAL and "7H does not go on pile 0 (top 5C)" in info.value.message
    t, _ = run_until(s, lambda snap: snap["centre"][0]["top"] == "6S", 11.0)
    # The bot committed on the first step (one tick after go) and lands 300 ms later.
    assert s.env.snapshot()["players"][1]["in_flight"] is None
    ack = s.handle(protocol.Play(0, 0), t + 0.250)[0]
    assert ack == {"type": "played", "slot": 0, "pile": 0, "card": "7H", "latency_ms": 250.0}
    with pytest.raises(ProtocolError) as info:  # a second play before the first is committed
        s.handle(protocol.Play(1, 0), t + 0.260)
    assert info.value.code == OUT_OF_TURN
    t2 = s.next_tick_at
    s.tick(t2)
    snap = s.env.snapshot()
    assert snap["centre"][0]["top"] == "7H" and snap["players"][0]["played"] == 1
    ack = s.handle(protocol.Play(1, 0), t2 + 0.4)[0]
    assert ack["card"] == "8H" and ack["latency_ms"] == pytest.approx(400.0)
    result = s.tick(s.next_tick_at)[-1]
    assert result["type"] == "result" and result["winner"] == "player_0" and result["you"] == "win"
    assert result["latencies_ms"] == [250.0, pytest.approx(400.0)]
    assert result["profile"]["n"] == 2 and result["profile"]["median_ms"] == pytest.approx(325.0)
    assert result["mirror"] is None  # fewer than MIN_PLAYS timed plays
    # The replay: one frame per tick plus the deal, in the tournament's format.
    lines = [json.loads(x) for x in Path(result["replay"]).read_text(encoding="utf-8").splitlines()]
    assert lines[0]["game"] == 0 and lines[0]["seats"] == ["you", "greedy@300ms"]
    assert lines[0]["snapshot"]["clock_ms"] == 0 and lines[-1]["snapshot"]["winner"] == "player_0"
    clocks = [f["snapshot"]["clock_ms"] for f in lines]
    assert clocks == list(range(0, 50 * len(lines), 50))
    # After the end: plays are out of turn, a rematch deals game 1 into the same file.
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Play(0, 0), t2 + 1)
    assert info.value.code == OUT_OF_TURN and "over" in info.value.message
    s.handle(protocol.Start(), t2 + 2)
    assert s.game == 1


def test_the_replay_plays_back_in_the_terminal(tmp_path, capsys):
    s = GameSession(table_config(tmp_path, countdown_ms=0))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    t, _ = run_until(s, lambda snap: snap["centre"][0]["top"] == "6S", 0.0)
    s.handle(protocol.Play(0, 0), t)
    s.tick(s.next_tick_at)
    s.handle(protocol.Play(1, 0), s.next_tick_at - 0.01)
    result = s.tick(s.next_tick_at)[-1]
    assert speed_cli.main(["replay", result["replay"]]) == 0
    assert "player_0 = you, player_1 = greedy@300ms" in capsys.readouterr().out


def test_state_messages_never_show_the_bots_hidden_hand():
    s = GameSession(table_config(countdown_ms=0))
    msgs = s.handle(protocol.Start(), 0.0) + s.tick(0.0)
    t = 0.0
    for _ in range(5):
        t = s.next_tick_at
        msgs += s.tick(t)
    states = [m for m in msgs if m["type"] == "state"]
    assert states
    for m in states:
        bot = m["snapshot"]["players"][1]
        assert set(bot["hand"]) <= {"?", None} and bot["hand_visible"] is False
        assert "6S" in json.dumps(m) or bot["in_flight"] is None  # only a card in the air is shown


def test_empty_slot_stuck_and_wrong_mode_are_refused_without_change():
    s = GameSession(table_config(countdown_ms=0))
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Play(0, 0), 0.0)
    assert info.value.code == OUT_OF_TURN and "has not started" in info.value.message
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    before = json.dumps(s.env.snapshot())
    for msg, code in [
        (protocol.Play(3, 0), ILLEGAL),  # an empty slot
        (protocol.Play(0, 1), ILLEGAL),  # 7H on KD
        (protocol.Speed(2.0), WRONG_MODE),
        (protocol.Pause(True), WRONG_MODE),
        (protocol.Start(), OUT_OF_TURN),
        (protocol.Start(mirror=True), OUT_OF_TURN),
    ]:
        with pytest.raises(ProtocolError) as info:
            s.handle(msg, 0.01)
        assert info.value.code == code, msg
    assert json.dumps(s.env.snapshot()) == before and s.pending is None and s.latencies == []


def test_plays_during_the_stuck_countdown_are_out_of_turn():
    # The short deal with the bot's 6S moved to a side pile: nobody can play.
    deal = short_deal()
    deal["hands"] = [["7H", "8H"], ["3S", "3C"]]
    deal["side_piles"][1] = ["6S", *deal["side_piles"][1]]
    s = GameSession(table_config(deal=deal, countdown_ms=0))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    assert s.env.snapshot()["phase"] == "stuck"
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Play(0, 0), 0.01)
    assert info.value.code == OUT_OF_TURN and "flip in" in info.value.message


def test_mirror_rematch_needs_a_profile_then_gives_the_bot_yours():
    s = GameSession(table_config(countdown_ms=0))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    s.state = "over"
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Start(mirror=True), 1.0)
    assert info.value.code == NO_PROFILE and "have 0" in info.value.message
    s.latencies = [250.0, 260.0, 240.0, 300.0, 420.0, 255.0]
    out = s.handle(protocol.Start(mirror=True), 2.0)
    assert s.profiles[1].label().startswith("exgauss(")
    assert out[0]["seats"][1].startswith("greedy@exgauss(")
    # A plain rematch goes back to the bot's own profile.
    s.state = "over"
    s.handle(protocol.Start(), 3.0)
    assert s.profiles[1].label() == "300ms"


def watch_cfg(**kw):
    base = dict(
        mode="watch",
        agents=("greedy", "chain"),
        rules=make_rules("us"),
        tick_ms=50,
        reaction=make_profile("pro"),
        seed=3,
        countdown_ms=0,
    )
    base.update(kw)
    return TableConfig(**base)


def test_watch_speed_and_pause_change_the_tick_interval():
    s = GameSession(watch_cfg())
    assert s.welcome()["seat"] is None
    with pytest.raises(ProtocolError) as info:
        s.handle(protocol.Play(0, 0), 0.0)
    assert info.value.code == WRONG_MODE
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    assert s.next_tick_at == pytest.approx(0.05)
    s.tick(0.05)
    s.handle(protocol.Speed(2.0), 0.05)
    assert s.next_tick_at == pytest.approx(0.075)
    s.tick(s.next_tick_at)
    assert s.next_tick_at == pytest.approx(0.1)
    msgs = s.handle(protocol.Pause(True), 0.08)
    assert msgs[0]["paused"] is True and s.next_tick_at == math.inf and s.tick(10.0) == []
    s.handle(protocol.Pause(False), 20.0)
    assert s.next_tick_at == pytest.approx(20.025)
    s.handle(protocol.Speed(0.5), 20.0)
    assert s.next_tick_at == pytest.approx(20.1)
    states = s.tick(s.next_tick_at)
    assert states[0]["speed"] == 0.5
    assert states[0]["snapshot"]["players"][1]["hand"][0] not in ("?",)  # watching: both hands open


def test_a_late_loop_restarts_its_schedule_instead_of_bursting():
    s = GameSession(watch_cfg())
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    s.tick(5.0)  # a 5 s stall
    assert s.next_tick_at == pytest.approx(5.05)


def _cards_played(session) -> int:
    return sum(p["played"] for p in session.env.snapshot()["players"])


def test_closing_mid_game_keeps_the_frames(tmp_path):
    s = GameSession(watch_cfg(replays_dir=tmp_path))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    run_until(s, lambda snap: sum(p["played"] for p in snap["players"]) > 0, 0.0)
    n_frames = len(s.frames)
    path = s.close()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == n_frames and json.loads(lines[-1])["seats"] == ["greedy@pro", "chain@pro"]
    assert s.close() is None  # nothing more to keep


def test_a_game_without_a_play_writes_no_replay(tmp_path):
    # Watching: closed before either bot played.
    s = GameSession(watch_cfg(replays_dir=tmp_path))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    s.tick(s.next_tick_at)
    assert _cards_played(s) == 0 and len(s.frames) == 2
    assert s.close() is None
    # Playing: the bot played its 6S, you played nothing, then the page went away.
    s = GameSession(table_config(tmp_path, countdown_ms=0))
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    run_until(s, lambda snap: snap["centre"][0]["top"] == "6S", 0.0)
    assert s.close() is None
    assert list(tmp_path.iterdir()) == []


def _replay_names(folder):
    return sorted(p.name for p in folder.glob("*.jsonl"))


def _old_replays(folder, n, size=1000):
    """``n`` table replays written one second apart (oldest first), and a file of the user's own."""
    import os

    names = [f"play-20250101-0000{i:02d}-{i:06x}.jsonl" for i in range(n)]
    for i, name in enumerate(names):
        (folder / name).write_text("x" * size, encoding="utf-8")
        os.utime(folder / name, (1_000_000 + i, 1_000_000 + i))
    (folder / "notes.jsonl").write_text("mine" * 1000, encoding="utf-8")
    return names


def _win_a_game(cfg) -> dict:
    """Play the short deal to your win: the bot's 6S, then your 7H and 8H; the result message."""
    s = GameSession(cfg)
    s.handle(protocol.Start(), 0.0)
    s.tick(0.0)
    t, _ = run_until(s, lambda snap: snap["centre"][0]["top"] == "6S", 0.0)
    s.handle(protocol.Play(0, 0), t)
    s.tick(s.next_tick_at)
    s.handle(protocol.Play(1, 0), s.next_tick_at)
    return s.tick(s.next_tick_at)[-1]


def test_the_replay_folder_keeps_the_newest_files_up_to_the_count(tmp_path):
    old = _old_replays(tmp_path, 5)
    path = _win_a_game(table_config(tmp_path, countdown_ms=0, replay_limits=ReplayLimits(keep=3)))[
        "replay"
    ]
    assert _replay_names(tmp_path) == sorted([*old[3:], Path(path).name, "notes.jsonl"])


def test_the_replay_folder_keeps_the_newest_files_up_to_the_size(tmp_path):
    old = _old_replays(tmp_path, 5, size=10_000)
    path = _win_a_game(
        table_config(tmp_path, countdown_ms=0, replay_limits=ReplayLimits(max_bytes=30_000))
    )["replay"]
    new_size = Path(path).stat().st_size
    kept = sorted([*old[5 - (30_000 - new_size) // 10_000 :], Path(path).name, "notes.jsonl"])
    assert _replay_names(tmp_path) == kept
    assert sum((tmp_path / n).stat().st_size for n in kept if n != "notes.jsonl") <= 30_000


def test_the_newest_replay_is_kept_when_only_one_file_may_stay(tmp_path):
    # (A game larger than the byte bound by itself is not saved: test_web_replays.py.)
    _old_replays(tmp_path, 2)
    path = _win_a_game(table_config(tmp_path, countdown_ms=0, replay_limits=ReplayLimits(keep=1)))[
        "replay"
    ]
    assert _replay_names(tmp_path) == sorted([Path(path).name, "notes.jsonl"])


def test_replay_limits_are_checked():
    for bad in (dict(keep=0), dict(max_bytes=-1), dict(keep=1.5), dict(keep=True)):
        with pytest.raises(ValueError, match="must be a whole number >= 1"):
            ReplayLimits(**bad)


def test_unwritable_replay_folder_is_reported_not_fatal(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = _win_a_game(table_config(blocker / "sub", countdown_ms=0))
    assert result["replay"] is None and "replay not saved" in result["replay_error"]


def test_config_refuses_moves_the_page_cannot_make():
    with pytest.raises(ValueError, match="stack_layout and multi_play"):
        TableConfig(mode="play", rules=make_rules("japanese", stack_layout=True))
    TableConfig(
        mode="watch", agents=("greedy", "chain"), rules=make_rules("japanese", stack_layout=True)
    )
    with pytest.raises(ValueError, match="mode"):
        TableConfig(mode="spectate")


def test_japanese_layouts_are_face_up_and_slots_follow_the_layout():
    s = GameSession(
        TableConfig(
            mode="play",
            agents=("you", "greedy"),
            rules=make_rules("japanese"),
            seed=1,
            countdown_ms=0,
        )
    )
    assert s.welcome()["hand_size"] == 4
    out = s.handle(protocol.Start(), 0.0)
    bot = out[-1]["snapshot"]["players"][1]
    assert all(c not in ("?",) for c in bot["hand"])


# ------------------------------------------------------------------ latency fits
def test_fit_recovers_an_ex_gaussian():
    profile = make_profile("pro")
    draws = [latency_ms(profile.params(), seed_to_u64(5), 0, i) for i in range(20_000)]
    fit = latency_fit.fit_exgauss(draws)
    assert fit["mu"] == pytest.approx(190, abs=10)
    assert fit["sigma"] == pytest.approx(25, abs=10)
    assert fit["tau"] == pytest.approx(45, abs=10)
    assert fit["floor"] >= 130


def test_summary_and_mirror_profile():
    assert latency_fit.fit_exgauss([200, 210]) is None
    assert latency_fit.mirror_profile([200] * 3, 50) is None
    summary = latency_fit.summarize([100, 200, 300, 400, 9000])
    assert summary["n"] == 4 and summary["outliers"] == 1 and summary["median_ms"] == 250
    assert (
        summary["p25_ms"] == 175 and summary["p75_ms"] == 325 and summary["fit"] is None
    )  # under MIN_PLAYS
    assert latency_fit.summarize([100, 200, 300, 400, 500, 700])["fit"] is not None
    assert latency_fit.summarize([])["median_ms"] is None
    same = latency_fit.mirror_profile([250] * 6, 50)
    assert same.is_fixed and same.mu == 275  # plus half a tick
    varied = latency_fit.mirror_profile([220, 240, 250, 260, 300, 380, 500], 40)
    assert not varied.is_fixed and varied.floor == 240  # the fastest play plus half a tick


def test_legal_since_tracks_when_each_play_became_legal():
    legal = LegalSince(26)
    mask = np.zeros(27, np.int8)
    mask[0] = 1
    mask[5] = 1
    legal.update(mask, 1.0)
    mask[7] = 1
    legal.update(mask, 1.5)
    assert legal.latency_ms(5, 2.0) == pytest.approx(1000) and legal.latency_ms(
        7, 2.0
    ) == pytest.approx(500)
    mask[5] = 0
    legal.update(mask, 2.0)
    assert legal.latency_ms(5, 2.1) is None and legal.latency_ms(0, 2.1) is None
