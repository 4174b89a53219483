"""The replay folder's byte bound holds with the newest file counted: a visit's
file is split before a game would take it past the bound, a game larger than the bound by itself
is not saved (the result says so), and its frames are dropped as soon as they pass it."""

from __future__ import annotations

import json
from pathlib import Path

from web_helpers import table_config

from speed_env.reaction import make_profile
from speed_table import protocol
from speed_table.replays import NAME, ReplayLimits
from speed_table.session import GameSession, TableConfig


def _replays(folder: Path) -> dict[str, list[dict]]:
    """The table's replay files in ``folder``: name -> frames."""
    return {
        p.name: [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()]
        for p in sorted(folder.iterdir())
        if NAME.fullmatch(p.name)
    }


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir() if NAME.fullmatch(p.name))


def _play_to_the_end(session: GameSession) -> dict:
    """Start a game and tick the fake clock to its result message."""
    session.handle(protocol.Start(), 0.0)
    out: list[dict] = []
    while session.state != "over":
        out = session.tick(session.next_tick_at)
    assert out[-1]["type"] == "result"
    return out[-1]


def _win(session: GameSession) -> dict:
    """The short deal to your win (the bot's 6S, then your 7H and 8H); the result message."""
    session.handle(protocol.Start(), 0.0)
    session.tick(session.next_tick_at)
    while session.env.snapshot()["centre"][0]["top"] != "6S":
        session.tick(session.next_tick_at)
    session.handle(protocol.Play(0, 0), session.next_tick_at)
    session.tick(session.next_tick_at)
    session.handle(protocol.Play(1, 0), session.next_tick_at)
    return session.tick(session.next_tick_at)[-1]


def test_watching_many_games_keeps_the_folder_under_the_bound(tmp_path):
    # The case, small: bots watched at a fast tick, one visit, several games, a bound
    # about one game's size. Today's main appended every game to one file past the bound.
    bound = 300_000
    cfg = TableConfig(
        mode="watch",
        agents=("greedy", "chain"),
        tick_ms=50,
        seed=3,
        countdown_ms=0,
        reaction=make_profile("pro"),
        replays_dir=tmp_path,
        replay_limits=ReplayLimits(max_bytes=bound),
    )
    session = GameSession(cfg)
    saved, refused = [], []
    for _ in range(5):
        result = _play_to_the_end(session)
        assert _folder_bytes(tmp_path) <= bound  # after every game, the newest file counted
        (saved if result["replay"] else refused).append(result)
    assert saved, "no game fitted the bound: make the bound bigger for this test"
    assert len({r["replay"] for r in saved}) > 1  # the visit's file was split
    for frames in _replays(tmp_path).values():  # whole games only, from the deal to the end
        games = [f["game"] for f in frames]
        for g in set(games):
            of_g = [f for f in frames if f["game"] == g]
            assert of_g[0]["snapshot"]["clock_ms"] == 0 and of_g[-1]["snapshot"]["winner"]
    for r in refused:
        assert "replay not saved" in r["replay_error"] and "--replays-max-mb" in r["replay_error"]


def test_a_visits_file_is_split_before_a_game_would_pass_the_bound(tmp_path):
    one = _win(GameSession(table_config(tmp_path / "probe", countdown_ms=0)))
    size = Path(one["replay"]).stat().st_size
    limits = ReplayLimits(max_bytes=size * 5 // 2)  # two games fit in a file, three do not
    session = GameSession(table_config(tmp_path / "r", countdown_ms=0, replay_limits=limits))
    paths = [_win(session)["replay"] for _ in range(3)]
    assert paths[0] == paths[1] != paths[2]
    assert list(_replays(tmp_path / "r")) == [Path(paths[2]).name]  # the first file pruned
    assert {f["game"] for f in _replays(tmp_path / "r")[Path(paths[2]).name]} == {2}
    assert _folder_bytes(tmp_path / "r") <= limits.max_bytes


def test_a_game_larger_than_the_bound_is_not_saved_and_says_so(tmp_path):
    mine = tmp_path / "notes.jsonl"
    mine.write_text("mine", encoding="utf-8")
    session = GameSession(
        table_config(tmp_path, countdown_ms=0, replay_limits=ReplayLimits(max_bytes=2000))
    )
    result = _win(session)
    assert result["replay"] is None
    assert "alone passed the folder's bound" in result["replay_error"]
    assert session.frames == [] and session.too_big  # dropped as soon as they passed it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.jsonl"]
    # The table goes on: a rematch is played (and refused again); a table with room saves it.
    assert _win(session)["winner"] == "player_0" and session.frames == []
    saved = _win(GameSession(table_config(tmp_path, countdown_ms=0)))["replay"]
    assert saved is not None and Path(saved).stat().st_size <= ReplayLimits().max_bytes
